package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/ooxml"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// Generating documents: a project-documents record is queued as a POST
// of the API queues it, and the document workers (docgen) render it.

// MaxWait bounds the wait argument of scopekit_generate_document, in
// seconds: under the API host's request timeout (httpadapter's default
// 30 s), which the SDK does not pass on to a tool as a deadline.
const MaxWait = 25

// pollEvery is how often a waiting generate_document reads the document.
var pollEvery = 200 * time.Millisecond

// GenerateDocumentInput are the arguments of scopekit_generate_document.
type GenerateDocumentInput struct {
	ProjectID   ID     `json:"project_id" jsonschema:"the project's id"`
	Type        string `json:"type,omitempty" jsonschema:"sow (default), pricing, breakdown or change_order"`
	ChangeOrder ID     `json:"change_order_id,omitempty" jsonschema:"the change order a change_order document documents"`
	Template    ID     `json:"template,omitempty" jsonschema:"a SOW's document template: its id, or its name, or the start of the only name that begins with it (the answer's matched says which it picked) (every account has \"Standard SOW\"); none for a workbook"`
	PDF         bool   `json:"pdf,omitempty" jsonschema:"also make a PDF of a SOW"`
	Wait        int    `json:"wait,omitempty" jsonschema:"seconds to wait for the document to finish, 0 to 25 (default 0: answer at once with the queued document)"`
}

// documentArgs names the arguments behind a document's fields.
var documentArgs = map[string]string{views.NameDocumentType: "type", views.NameDocumentTemplate: "template",
	views.NameGeneratePdf: "pdf", views.NameChangeOrder: "change_order_id"}

func (t *tools) generateDocument(ctx context.Context, req *mcp.CallToolRequest, in GenerateDocumentInput) (*mcp.CallToolResult, Document, error) {
	if in.Wait < 0 || in.Wait > MaxWait {
		return nil, Document{}, argError("wait", "must be between 0 and %d seconds, not %d", MaxWait, in.Wait)
	}
	typ := in.Type
	if typ == "" {
		typ = scoping.DocumentSOW
	}
	pid, a, _, err := t.projectWrite(ctx, req, in.ProjectID, views.TypeProjectDocuments)
	if err != nil {
		return nil, Document{}, err
	}
	b, _ := json.Marshal(typ)
	w := &engine.Input{Attrs: map[string]json.RawMessage{views.NameDocumentType: b},
		Rels: map[string]engine.RelInput{views.NameProject: ref(views.TypeProjects, pid)}}
	if in.PDF {
		w.Attrs[views.NameGeneratePdf] = json.RawMessage("true")
	}
	if in.ChangeOrder != "" {
		w.Rels[views.NameChangeOrder] = ref(views.TypeChangeOrders, string(in.ChangeOrder))
	}
	var matched []NameMatch
	if in.Template != "" {
		tpl, err := t.resolve(ctx, a, lookup{arg: "template", what: "document template", typ: views.TypeDocumentTemplates, matched: &matched}, in.Template)
		if err != nil {
			return nil, Document{}, err
		}
		w.Rels[views.NameDocumentTemplate] = ref(views.TypeDocumentTemplates, tpl.ID)
	}
	res, err := t.s.Svc.Create(ctx, a, views.TypeProjectDocuments, w, opts)
	if err != nil {
		return nil, Document{}, t.failWrite(err, documentArgs)
	}
	d, err := t.awaitDocument(ctx, a, res.Records[0].ID, time.Duration(in.Wait)*time.Second)
	if err != nil {
		return nil, Document{}, t.fail(err)
	}
	d.Matched = matched
	return nil, d, nil
}

// awaitDocument reads a document until it is finished or failed, for at
// most wait; the document as it then stands.
func (t *tools) awaitDocument(ctx context.Context, a *engine.Actor, id string, wait time.Duration) (Document, error) {
	deadline := time.Now().Add(wait)
	for {
		d, err := t.readDocument(ctx, a, id, false)
		if err != nil || d.Status == scoping.DocumentFinished || d.Status == scoping.DocumentError || !time.Now().Before(deadline) {
			return d, err
		}
		select {
		case <-ctx.Done(): // the client went away
			return d, nil
		case <-time.After(min(pollEvery, time.Until(deadline))):
		}
	}
}

// DocumentTextOutput is the text of a SOW.
type DocumentTextOutput struct {
	DocumentID string `json:"document_id"`
	ProjectID  string `json:"project_id"`
	Filename   string `json:"filename"`
	Template   string `json:"template"`
	Markdown   string `json:"markdown" jsonschema:"the document's text as Markdown: headings, paragraphs, lists and tables"`
	Truncated  bool   `json:"truncated" jsonschema:"true when the text was cut at its limit"`
}

// DocumentTextInput are the arguments of scopekit_get_document_text.
type DocumentTextInput struct {
	DocumentID ID `json:"document_id" jsonschema:"a SOW document's id"`
}

func (t *tools) getDocumentText(ctx context.Context, req *mcp.CallToolRequest, in DocumentTextInput) (*mcp.CallToolResult, DocumentTextOutput, error) {
	id, a, err := t.caller(ctx, req, "document_id", in.DocumentID)
	if err != nil {
		return nil, DocumentTextOutput{}, err
	}
	d, err := t.readDocument(ctx, a, id, false)
	if err != nil {
		return nil, DocumentTextOutput{}, t.fail(err)
	}
	switch {
	case d.DocumentType != scoping.DocumentSOW:
		return nil, DocumentTextOutput{}, argError("document_id", "document %s is a %s workbook; only SOW documents have text to read", id, d.DocumentType)
	case d.Status == scoping.DocumentQueued || d.Status == scoping.DocumentGenerating:
		return nil, DocumentTextOutput{}, fmt.Errorf("conflict: document %s is %s; read it once its status is finished "+
			"(%s shows it, or pass wait to %s)", id, d.Status, ToolGetDocument, ToolGenerateDocument)
	case d.Size == 0:
		return nil, DocumentTextOutput{}, fmt.Errorf("conflict: document %s failed and has no file: %s", id, d.ErrorText)
	}
	f, err := t.s.Svc.DocumentFile(ctx, a, id, "", anyActive, opts)
	if err != nil {
		return nil, DocumentTextOutput{}, t.fail(err)
	}
	md, truncated, err := ooxml.Markdown(f.Data)
	if err != nil {
		t.s.log().Error("mcp: reading a document's text", "document", id, "err", err)
		return nil, DocumentTextOutput{}, fmt.Errorf("document %s could not be read as a %s file", id, fileKind(d))
	}
	return nil, DocumentTextOutput{DocumentID: id, ProjectID: d.ProjectID, Filename: d.Filename, Template: d.Template,
		Markdown: md, Truncated: truncated}, nil
}

// fileKind names the format of a document's file (DOCX, PPTX, XLSX) by its
// media type.
func fileKind(d Document) string {
	for format, ct := range scoping.TemplateFormats {
		if ct == d.ContentType {
			return strings.ToUpper(format)
		}
	}
	return d.ContentType
}
