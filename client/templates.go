package client

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/scopekit/scopekit/internal/ooxml"
)

// DocumentTemplate is a document template of the account (type
// document-templates, docs/documents.md): a DOCX, PPTX or XLSX file whose
// tags merge data fills (docs/templates.md). Templates are served under
// the account's slug (v1) only.
type DocumentTemplate struct {
	ID string `json:"-"`
	DocumentTemplateAttributes
	Resource Resource `json:"-"`
}

func (d *DocumentTemplate) decode(r *Resource) error {
	d.ID, d.Resource = r.ID, *r
	return r.DecodeAttributes(&d.DocumentTemplateAttributes)
}

// templateFormats are the media types of the template formats, by format
// (and file name extension).
var templateFormats = map[string]string{
	"docx": ooxml.MediaDOCX,
	"pptx": ooxml.MediaPPTX,
	"xlsx": ooxml.MediaXLSX,
}

// templateFormat is the format of a template file, from its name's
// extension.
func templateFormat(filename string) (string, error) {
	f := strings.ToLower(strings.TrimPrefix(path.Ext(filename), "."))
	if _, ok := templateFormats[f]; !ok {
		return "", fmt.Errorf("scopekit: %q is not a template file: its name must end in .docx, .pptx or .xlsx", filename)
	}
	return f, nil
}

// templateFile returns the format of a template file and the path of
// the account's templates.
func (c *Client) templateFile(ctx context.Context, filename string) (format, templates string, err error) {
	if format, err = templateFormat(filename); err != nil {
		return "", "", err
	}
	templates, err = c.templatesPath(ctx)
	return format, templates, err
}

// templatesPath is the path of the account's templates (v1, under its
// slug).
func (c *Client) templatesPath(ctx context.Context) (string, error) {
	slug, err := c.Slug(ctx)
	if err != nil {
		return "", err
	}
	return "/" + url.PathEscape(slug) + "/v1/document-templates", nil
}

// ListTemplates iterates over the account's document templates, active
// ones unless the query says otherwise (url.Values{"filter[name]":
// {"SOW"}} narrows them to names holding "SOW").
func (c *Client) ListTemplates(ctx context.Context, query url.Values) iter.Seq2[*DocumentTemplate, error] {
	p, err := c.templatesPath(ctx)
	if err != nil {
		return func(yield func(*DocumentTemplate, error) bool) { yield(nil, err) }
	}
	return List[DocumentTemplate](ctx, c, p, query)
}

// GetTemplate reads one document template.
func (c *Client) GetTemplate(ctx context.Context, id string) (*DocumentTemplate, error) {
	p, err := c.templatesPath(ctx)
	if err != nil {
		return nil, err
	}
	return Get[DocumentTemplate](ctx, c, p+"/"+url.PathEscape(id), nil)
}

// UploadTemplate makes a new document template named name from a file:
// its format follows the file name's extension (.docx, .pptx or .xlsx),
// and the file is checked as it is uploaded (docs/templates.md,
// "Validation"). A refused file is a 422 *Error, whose problems
// TemplateProblems lists, and leaves no template behind. A lenient
// template takes tags merge data does not have, and lists them in its
// Problems.
func (c *Client) UploadTemplate(ctx context.Context, name, filename string, data []byte, lenient bool) (*DocumentTemplate, error) {
	format, p, err := c.templateFile(ctx, filename)
	if err != nil {
		return nil, err
	}
	t, err := Create[DocumentTemplate](ctx, c, p, TypeDocumentTemplates, Write{Attributes: map[string]any{
		NameName: name, NameFormat: format, NameLenient: lenient}})
	if err != nil {
		return nil, err
	}
	up, err := c.UploadTemplateFile(ctx, t.ID, filename, data)
	if err != nil {
		if derr := c.Delete(ctx, p+"/"+url.PathEscape(t.ID)); derr != nil {
			return nil, errors.Join(err, fmt.Errorf("scopekit: remove the template %s the refused file was for: %w", t.ID, derr))
		}
		return nil, err
	}
	return up, nil
}

// UploadTemplateFile replaces the file of the template id with data (of
// the template's format; the file name sets its filename). A refused file
// is a 422 *Error (see TemplateProblems) and the template keeps its
// previous file.
func (c *Client) UploadTemplateFile(ctx context.Context, id, filename string, data []byte) (*DocumentTemplate, error) {
	format, p, err := c.templateFile(ctx, filename)
	if err != nil {
		return nil, err
	}
	body := &fileBody{data: data, contentType: templateFormats[format], header: http.Header{}}
	if filename != "" {
		body.header.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": path.Base(filename)}))
	}
	return decodeOne[DocumentTemplate](c.Call(ctx, http.MethodPut, p+"/"+url.PathEscape(id)+"/file", nil, body))
}

// TemplateProblems returns what a refused template upload (err, a 422
// *Error) says is wrong with the file, one problem a line: the tag and
// where it is (the paragraph; a slide, a cell). Nil for any other error.
// A lenient template that was stored lists its problems in Problems.
func TemplateProblems(err error) []string {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusUnprocessableEntity {
		return nil
	}
	var out []string
	for _, o := range e.Errors {
		if o.Detail != "" {
			out = append(out, o.Detail)
		}
	}
	return out
}

// fileBody is a request body sent as it is (a file), with its media type
// and further headers, where Call would send JSON.
type fileBody struct {
	data        []byte
	contentType string
	header      http.Header
}

// AddServiceByName adds the catalog service named name (its exact name,
// in any case) to a project, as AddService does. A name no service has is
// an error that lists the services whose names hold it.
func (c *Client) AddServiceByName(ctx context.Context, projectID, name, quantity string) (*ProjectService, error) {
	var exact, holding []*Service
	for s, err := range c.ListServices(ctx, url.Values{"filter[name]": {name}}) {
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(s.Name, name) {
			exact = append(exact, s)
		} else {
			holding = append(holding, s)
		}
	}
	switch {
	case len(exact) == 1:
		return c.AddService(ctx, projectID, exact[0].ID, quantity)
	case len(exact) > 1:
		return nil, fmt.Errorf("scopekit: %d catalog services are named %q: %s; add one by its id", len(exact), name, serviceNames(exact))
	case len(holding) > 0:
		return nil, fmt.Errorf("scopekit: no catalog service is named %q; names that hold it: %s", name, serviceNames(holding))
	}
	return nil, fmt.Errorf("scopekit: no catalog service is named %q", name)
}

func serviceNames(ss []*Service) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = fmt.Sprintf("%q (id %s)", s.Name, s.ID)
	}
	return strings.Join(names, ", ")
}
