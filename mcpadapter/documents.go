package mcpadapter

import (
	"context"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Documents are the project-documents records: generated SOWs (DOCX, and
// a PDF when asked for) and pricing and breakdown workbooks. Their files
// are downloaded from the API with the same bearer token.

// DocumentInput are the arguments of scopekit_get_document.
type DocumentInput struct {
	DocumentID     ID     `json:"document_id" jsonschema:"the document's id (the id of a documents item)"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default) or detailed, which adds the download links"`
}

// Document is a generated project document.
type Document struct {
	ID           string `json:"id"`
	ProjectID    string `json:"project_id"`
	DocumentType string `json:"document_type" jsonschema:"sow, pricing or breakdown"`
	TemplateID   string `json:"template_id" jsonschema:"a SOW's document template; empty for a workbook"`
	Template     string `json:"template" jsonschema:"the template's name"`
	CreatedAt    string `json:"created_at" jsonschema:"when it was requested"`
	Status       string `json:"status" jsonschema:"queued, generating, finished or error"`
	Filename     string `json:"filename"`
	ContentType  string `json:"content_type"`
	Size         int64  `json:"size" jsonschema:"bytes of the file; 0 until it is generated"`
	GeneratedAt  string `json:"generated_at"`
	ErrorText    string `json:"error_text,omitempty"`
	// Detailed only: where to download the file (and its PDF) from the
	// API, with the same bearer token.
	DownloadURL string `json:"download_url,omitempty"`
	PDFURL      string `json:"pdf_url,omitempty"`
	// Matched says which template a name picked (generate_document).
	Matched []NameMatch `json:"matched,omitempty" jsonschema:"which record each name argument picked"`
}

// document turns a project-documents record into a Document, with the
// names of templates by id; links only when detailed.
func (t *tools) document(a *engine.Actor, r *engine.Record, templates map[string]string, detailed bool) Document {
	v := views.ProjectDocument{Record: r}
	d := Document{ID: r.ID, ProjectID: v.Project(), DocumentType: v.DocumentType(),
		TemplateID: v.DocumentTemplate(), Template: templates[v.DocumentTemplate()], CreatedAt: r.CreatedAt, Status: v.Status(),
		Filename: v.Filename(), ContentType: v.ContentType(), Size: v.Size(),
		GeneratedAt: v.GeneratedAt(), ErrorText: v.ErrorText()}
	if detailed {
		d.DownloadURL, d.PDFURL = t.links(a, r)
	}
	return d
}

// links are the absolute URLs of a document's file and PDF, as the API
// serves them ("" for each the record has none of, or when it is not a
// document).
func (t *tools) links(a *engine.Actor, r *engine.Record) (file, pdf string) {
	return t.link(a, r, views.NameDocumentURL), t.link(a, r, views.NamePdfURL)
}

// link is the absolute URL of a link attribute of a document, as the API
// serves it ("" when the record has none).
func (t *tools) link(a *engine.Actor, r *engine.Record, attr string) string {
	p := r.Str(attr)
	if p == "" {
		return ""
	}
	slug := views.Account{Record: a.Account}.Slug()
	return t.s.base(nil) + "/" + url.PathEscape(slug) + "/v1/" + r.Type + "/" + url.PathEscape(r.ID) + "/" + p
}

func (t *tools) getDocument(ctx context.Context, req *mcp.CallToolRequest, in DocumentInput) (*mcp.CallToolResult, Document, error) {
	detailed, err := responseFormat(in.ResponseFormat)
	if err != nil {
		return nil, Document{}, err
	}
	id, a, err := t.caller(ctx, req, "document_id", in.DocumentID)
	if err != nil {
		return nil, Document{}, err
	}
	d, err := t.readDocument(ctx, a, id, detailed)
	if err != nil {
		return nil, Document{}, t.fail(err)
	}
	return nil, d, nil
}

// readDocument reads a document the actor may see, archived or not;
// errors are the use case's.
// anyActive finds a document whether archived or not: the assistant reads
// the documents it lists, archived ones included.
var anyActive = map[string]string{"active": "true,false"}

func (t *tools) readDocument(ctx context.Context, a *engine.Actor, id string, detailed bool) (Document, error) {
	res, err := t.s.Svc.Get(ctx, a, views.TypeProjectDocuments, id, engine.ListParams{
		Filters: anyActive, Include: []string{views.NameDocumentTemplate}}, opts)
	if err != nil {
		return Document{}, err
	}
	return t.document(a, res.Records[0], templateNames(res.Included), detailed), nil
}

// templateNames maps the ids of the document templates among recs to
// their names.
func templateNames(recs []*engine.Record) map[string]string {
	m := map[string]string{}
	for _, r := range recs {
		if r.Type == views.TypeDocumentTemplates {
			m[r.ID] = views.DocumentTemplate{Record: r}.Name()
		}
	}
	return m
}
