package client

import (
	"context"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"time"
)

// ProjectDocument is a generated document of a project (type
// project-documents, docs/documents.md): a SOW from a template (DOCX, and
// PDF on request) or a pricing or breakdown workbook (XLSX). Generation
// happens in the background: Status goes queued, generating, then
// finished or error.
type ProjectDocument struct {
	ID string `json:"-"`
	ProjectDocumentAttributes
	ProjectID  string   `json:"-"`
	TemplateID string   `json:"-"`
	Resource   Resource `json:"-"`
}

func (d *ProjectDocument) decode(r *Resource) error {
	d.ID, d.ProjectID, d.TemplateID, d.Resource = r.ID, r.RelID(NameProject), r.RelID(NameDocumentTemplate), *r
	return r.DecodeAttributes(&d.ProjectDocumentAttributes)
}

// Document types.
const (
	DocumentSOW       = "sow"
	DocumentPricing   = "pricing"
	DocumentBreakdown = "breakdown"
)

// CreateProjectDocument queues a document of a project: a SOW
// (documentType DocumentSOW, templateID a document template, pdf for a
// PDF beside the DOCX) or a workbook (DocumentPricing, DocumentBreakdown;
// templateID ""). The server answers at once with the queued record
// (202); WaitForDocument follows it. Generation is throttled: the client
// waits out 429 answers.
func (c *Client) CreateProjectDocument(ctx context.Context, projectID, documentType, templateID string, pdf bool) (*ProjectDocument, error) {
	w := Write{Attributes: map[string]any{NameDocumentType: documentType},
		Relationships: map[string]Link{NameProject: To(TypeProjects, projectID)}}
	if pdf {
		w.Attributes[NameGeneratePdf] = true
	}
	if templateID != "" {
		w.Relationships[NameDocumentTemplate] = To(TypeDocumentTemplates, templateID)
	}
	return Create[ProjectDocument](ctx, c, "/v2/project-documents", TypeProjectDocuments, w)
}

// GetProjectDocument reads a document's record and status.
func (c *Client) GetProjectDocument(ctx context.Context, id string) (*ProjectDocument, error) {
	return Get[ProjectDocument](ctx, c, "/v2/project-documents/"+url.PathEscape(id), nil)
}

// ListProjectDocuments iterates over a project's documents.
func (c *Client) ListProjectDocuments(ctx context.Context, projectID string, query url.Values) iter.Seq2[*ProjectDocument, error] {
	q := url.Values{"filter[project]": {projectID}}
	for k, v := range query {
		q[k] = v
	}
	return List[ProjectDocument](ctx, c, "/v2/project-documents", q)
}

// WaitForDocument reads the document every interval (1 s when 0) until
// it is finished or in error, and returns it; ctx bounds the wait.
func (c *Client) WaitForDocument(ctx context.Context, id string, interval time.Duration) (*ProjectDocument, error) {
	if interval <= 0 {
		interval = time.Second
	}
	for {
		d, err := c.GetProjectDocument(ctx, id)
		if err != nil || d.Status == "finished" || d.Status == "error" {
			return d, err
		}
		if err := sleep(ctx, interval); err != nil {
			return nil, err
		}
	}
}

// File is a downloaded file.
type File struct {
	ContentType string
	Filename    string // from Content-Disposition (the exact UTF-8 name when sent)
	Data        []byte
}

// DownloadDocument downloads a finished document: its own format when
// format is "", or "pdf" for a SOW's PDF. A document still being made is
// a 409 *Error.
func (c *Client) DownloadDocument(ctx context.Context, id, format string) (*File, error) {
	var q url.Values
	if format != "" {
		q = url.Values{"format": {format}}
	}
	return c.Download(ctx, "/v2/project-documents/"+url.PathEscape(id)+"/download", q)
}

// Download GETs a file route (a document's download, a template's file)
// with the token and the same renewal and 429 handling as Call.
func (c *Client) Download(ctx context.Context, path string, query url.Values) (*File, error) {
	raw, h, err := c.callRaw(ctx, http.MethodGet, path, query, nil, "*/*")
	if err != nil {
		return nil, err
	}
	f := &File{ContentType: h.Get("Content-Type"), Data: raw}
	if _, params, err := mime.ParseMediaType(h.Get("Content-Disposition")); err == nil {
		f.Filename = params["filename"]
	}
	return f, nil
}
