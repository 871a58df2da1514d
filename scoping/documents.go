package scoping

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/ooxml"
	"github.com/scopekit/scopekit/scoping/views"
)

// Document templates, project documents and the account's menu of
// downloads (documents.md). Rendering happens outside scoping: a
// generation worker claims a queued document (ClaimDocument), renders it
// and hands the files back (FinishDocument). The queue is the
// project-documents records in status queued, so it survives a restart;
// every status change writes a document_status_changed event in the same
// transaction. Files live in the store beside their records (BlobTx).
//
// The generation queue and its leases are in docqueue.go, template files
// and the built-in templates in doctemplates.go.

// Statuses of a project document.
const (
	DocumentQueued     = "queued"
	DocumentGenerating = "generating"
	DocumentFinished   = "finished"
	DocumentError      = "error"
)

// Document types of a project document.
const (
	DocumentSOW       = "sow"
	DocumentPricing   = "pricing"
	DocumentBreakdown = "breakdown"
	// DocumentChangeOrder documents a change order (docs/lifecycle.md):
	// filled from a template, as a sow, with the change order's merge data.
	DocumentChangeOrder = "change_order"
)

// templated reports whether documents of a type are filled from a
// template (the others are workbooks).
func templated(dt string) bool { return dt == DocumentSOW || dt == DocumentChangeOrder }

// Blob kinds of the document types.
const (
	BlobTemplateFile = "document-templates/file"
	BlobDocumentFile = "project-documents/file"
	BlobDocumentPDF  = "project-documents/pdf"
)

// ContentTypePDF is the media type of a generated PDF.
const ContentTypePDF = "application/pdf"

// Media types of the template formats' files.
const (
	ContentTypeDOCX = ooxml.MediaDOCX
	ContentTypePPTX = ooxml.MediaPPTX
	ContentTypeXLSX = ooxml.MediaXLSX
)

// TemplateFormats are the formats of document templates with their
// files' media types.
var TemplateFormats = map[string]string{"docx": ContentTypeDOCX, "pptx": ContentTypePPTX, "xlsx": ContentTypeXLSX}

// formatOfType is the template format of a file's media type, "" for
// another type.
func formatOfType(ct string) string {
	for f, t := range TemplateFormats {
		if t == ct {
			return f
		}
	}
	return ""
}

// DocumentConfig is what the document records need from outside scoping;
// the composition root plugs in package documents' parts.
type DocumentConfig struct {
	// Tags validates a template file of a format (docx, pptx, xlsx) and
	// returns the tag paths it uses, stopping with ctx's error when ctx
	// ends first (the request's). Its EINVALID errors are answered as they
	// are; any other error but ctx's means the file is not of the format.
	// Without it template files cannot be uploaded.
	Tags func(ctx context.Context, format string, file []byte) ([]string, error)
	// Lint checks the tags of a template file of a format against the
	// merge data and returns its problems (a path or loop the data does
	// not have, with the nearest known one). A template with problems is
	// refused unless it is lenient, which lists them in its problems
	// attribute. Optional.
	Lint func(ctx context.Context, format string, file []byte) ([]TemplateProblem, error)
	// Preview renders a template file of a format against a project's
	// snapshot and converts the result to PDF, within ctx (PreviewTemplate).
	// Its EINVALID errors say what is wrong with the template; without it
	// templates cannot be previewed. Optional.
	Preview func(ctx context.Context, snap *views.Snapshot, format string, file []byte) ([]byte, error)
	// MaxTemplateSize bounds an uploaded template file (ETOOLARGE above);
	// 0 means no bound here (the adapter still limits the body).
	MaxTemplateSize int
	// Builtins are created in every new account, and by
	// EnsureBuiltinTemplates in accounts that have none of them.
	Builtins []BuiltinTemplate
	// Certificate makes the PDF of an acceptance certificate (acceptance
	// docs/lifecycle.md); without it an acceptance has no certificate.
	Certificate func(CertificateData) ([]byte, error)
	// Notify is called after a transaction that queued a document commits,
	// so the workers can start at once instead of at their next poll. It
	// must not block.
	Notify func()
}

func declareDocuments(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "document-templates", Guard: "documents", Archives: true,
		Attrs: cat([]engine.AttrDef{unique(str("name")), enum("format", "docx", "docx", "pptx", "xlsx"), enum("template-format", "v2", "v2"),
			str("filename"), flag("lenient", false)},
			computed(num("size"), str("sha256"), engine.AttrDef{Name: "tags", Kind: engine.KindList}, flag("builtin", false),
				engine.AttrDef{Name: "problems", Kind: engine.KindList})),
		Filters: with(eq("format"), "name", engine.FilterDef{Op: engine.OpContains}),
		Blobs:   []string{BlobTemplateFile},
		Hooks:   engine.Hooks{Validate: validateTemplate},
	})

	register(s, &engine.TypeDef{Name: "project-documents", Guard: "documents", Archives: true, V2: true, Async: true,
		ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{required(enum("document-type", "", DocumentSOW, DocumentPricing, DocumentBreakdown, DocumentChangeOrder)),
			flag("generate-pdf", false)},
			computed(enum("status", "", DocumentQueued, DocumentGenerating, DocumentFinished, DocumentError),
				text("error-text"), str("filename"), str("content-type"), num("size"), num("pdf-size"),
				engine.AttrDef{Name: "document-url", Kind: engine.KindString, Link: true},
				engine.AttrDef{Name: "pdf-url", Kind: engine.KindString, Link: true},
				engine.AttrDef{Name: "generated-at", Kind: engine.KindTime}, str("version-digest"))),
		Rels: []engine.RelDef{owner("project", "projects"), to1("document-template", "document-templates"),
			{Name: "requested-by", Type: "users", ReadOnly: true}, {Name: "project-version", Type: "project-versions", ReadOnly: true},
			to1("change-order", "change-orders"), {Name: "acceptance", Type: "acceptances", ReadOnly: true}},
		Filters: eq("project", "document-type", "status", "document-template", "change-order"),
		Blobs:   []string{BlobDocumentFile, BlobDocumentPDF},
		Hooks: engine.Hooks{
			Defaults: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
				rec.Attrs["status"] = DocumentQueued
				rec.SetRel("requested-by", c.Actor.UserID)
				return nil
			},
			Validate: validateProjectDocument,
			Delete: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
				if rec.Rel(views.NameAcceptance) != "" { // what the client accepted stays as it was
					return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s was accepted by the client: it is kept as it was accepted (archive it instead)", rec.ID)
				}
				return c.Remove(mustLookup(c.Engine.Schema(), views.TypeProjectDocuments), rec)
			},
			AfterWrite: func(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
				if old != nil {
					return nil
				}
				state(c).queued = true
				return recordEvent(c, views.EventDocumentStatusChanged, rec, rec.Rel("project"), "", DocumentQueued)
			},
		}})

	register(s, &engine.TypeDef{Name: "project-download-types", Guard: "documents", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")),
			required(enum("document-type", "", DocumentSOW, DocumentPricing, DocumentBreakdown, DocumentChangeOrder)),
			required(enum("format", "", "docx", "pdf", "xlsx"))},
		Rels:    []engine.RelDef{to1("document-template", "document-templates")},
		Filters: eq("document-type", "format"),
		Hooks:   engine.Hooks{Validate: validateDownloadType},
	})
}

// formatsOf are the formats each document type can be downloaded in.
var formatsOf = map[string][]string{
	DocumentSOW:         {"docx", "pdf"},
	DocumentPricing:     {"xlsx"},
	DocumentBreakdown:   {"xlsx"},
	DocumentChangeOrder: {"docx", "pdf"},
}

// checkTemplateUse checks the template relationship of a record of
// document type dt: a sow needs an active template with a file; workbooks
// take none.
func checkTemplateUse(c *engine.Call, dt string, rec *engine.Record) error {
	tid := rec.Rel(views.NameDocumentTemplate)
	p := engine.RelPointer(views.NameDocumentTemplate)
	if !templated(dt) {
		if tid != "" {
			return engine.Invalid(p, "%s documents are built without a template; leave document-template empty", dt)
		}
		return nil
	}
	if tid == "" {
		builtin := "Standard SOW"
		if dt == DocumentChangeOrder {
			builtin = "Standard change order"
		}
		return engine.Invalid(p, "a %s document needs a document-template (every account has the built-in %q)", dt, builtin)
	}
	t, err := c.Get(views.TypeDocumentTemplates, tid)
	if err != nil {
		return nil // apply already reported the missing record
	}
	if !t.Active() {
		return engine.Invalid(p, "document-templates %s is archived", tid)
	}
	if (views.DocumentTemplate{Record: t}).Size() == 0 {
		return engine.Invalid(p, "document-templates %s has no file yet; upload it with PUT .../document-templates/%s/file", tid, tid)
	}
	return nil
}

// validateTemplate keeps a template's format the format of its file.
func validateTemplate(_ context.Context, _ *engine.Call, rec, old *engine.Record) []error {
	if old == nil || old.Str(views.NameFormat) == rec.Str(views.NameFormat) || (views.DocumentTemplate{Record: old}).Size() == 0 {
		return nil
	}
	return []error{engine.Invalid(engine.AttrPointer(views.NameFormat),
		"the template's file is a %s; create a new template for a %s file", old.Str(views.NameFormat), rec.Str(views.NameFormat))}
}

func validateDownloadType(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
	dt, f := rec.Str(views.NameDocumentType), rec.Str(views.NameFormat)
	var errs []error
	if ok := formatsOf[dt]; dt != "" && f != "" && !contains(ok, f) {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameFormat), "%s documents come as %s, not %s", dt, strings.Join(ok, " or "), f))
	}
	if dt != "" {
		if err := checkTemplateUse(c, dt, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func validateProjectDocument(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	if old != nil { // a document is a snapshot: only active changes
		var errs []error
		for _, a := range []string{views.NameDocumentType, views.NameGeneratePdf} {
			if rec.Attrs[a] != old.Attrs[a] {
				errs = append(errs, engine.Invalid(engine.AttrPointer(a), "a document cannot change its %s; create a new document instead", a))
			}
		}
		for _, r := range []string{views.NameProject, views.NameDocumentTemplate, views.NameChangeOrder} {
			if rec.Rel(r) != old.Rel(r) {
				errs = append(errs, engine.Invalid(engine.RelPointer(r), "a document cannot change its %s; create a new document instead", r))
			}
		}
		return errs
	}
	doc := views.ProjectDocument{Record: rec}
	dt := doc.DocumentType()
	if dt == "" {
		return nil
	}
	var errs []error
	if doc.GeneratePdf() && !templated(dt) {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameGeneratePdf), "generate-pdf applies to sow and change_order documents only; %s documents are workbooks", dt))
	}
	if err := checkChangeOrderUse(c, dt, rec); err != nil {
		errs = append(errs, err)
	}
	if err := checkTemplateUse(c, dt, rec); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// checkChangeOrderUse checks the change-order relationship of a new
// document: a change_order document documents a change order of its
// project; other documents name none.
func checkChangeOrderUse(c *engine.Call, dt string, rec *engine.Record) error {
	co, p := rec.Rel(views.NameChangeOrder), engine.RelPointer(views.NameChangeOrder)
	switch {
	case dt != DocumentChangeOrder && co != "":
		return engine.Invalid(p, "only change_order documents name a change order")
	case dt != DocumentChangeOrder:
		return nil
	case co == "":
		return engine.Invalid(p, "a change_order document needs the change order it documents")
	}
	if r, err := c.Get(views.TypeChangeOrders, co); err == nil && r.Rel(views.NameProject) != rec.Rel(views.NameProject) {
		return engine.Invalid(p, "change-orders %s is not a change order of projects %s", co, rec.Rel(views.NameProject))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// setDocumentStatus moves a document to status with its event, in the
// call's transaction.
func setDocumentStatus(c *engine.Call, doc *engine.Record, status string) error {
	d := views.ProjectDocument{Record: doc}
	old := d.Status()
	doc.Attrs[views.NameStatus] = status
	if err := c.Tx.Replace(doc); err != nil {
		return err
	}
	return recordEvent(c, views.EventDocumentStatusChanged, doc, d.Project(), old, status)
}

// File is a stored file ready to be served.
type File struct {
	Name        string
	ContentType string
	Data        []byte
}

// DocumentFile returns a generated file of a project document: format ""
// is the document itself (DOCX or XLSX), "pdf" its PDF; "docx" and "xlsx"
// name the document's own format. An archived document is found only
// where filters (the request's: filter[active]) cover it, as its GET.
//
// Errors: EFORBIDDEN without documents view; ENOTFOUND for a missing
// document, an archived one filters do not cover, one outside the actor's
// visibility, or a PDF that was not produced; ECONFLICT while the document is not generated yet;
// EBADREQUEST (parameter format) for another format.
func (s *Service) DocumentFile(ctx context.Context, a *engine.Actor, id, format string, filters map[string]string, opts engine.Options) (*File, error) {
	def, err := s.eng.ReadableType(a, views.TypeProjectDocuments)
	if err != nil {
		return nil, err
	}
	var f *File
	err = s.eng.Read(ctx, a, opts, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, filters)
		if err != nil {
			return err
		}
		doc := views.ProjectDocument{Record: rec}
		own := formatsOf[doc.DocumentType()][0]
		if f := formatOfType(doc.ContentType()); f != "" {
			own = f // a sow filled from a pptx or xlsx template
		}
		kind, size := BlobDocumentFile, doc.Size()
		switch format {
		case "", own:
		case "pdf":
			if !templated(doc.DocumentType()) {
				return scopekit.ParamErrorf(scopekit.EBADREQUEST, "format", "%s documents are workbooks: format must be xlsx", doc.DocumentType())
			}
			kind, size = BlobDocumentPDF, doc.PdfSize()
		default:
			ok := formatsOf[doc.DocumentType()]
			if templated(doc.DocumentType()) {
				ok = []string{own, "pdf"}
			}
			return scopekit.ParamErrorf(scopekit.EBADREQUEST, "format", "format must be %s", strings.Join(ok, " or "))
		}
		st := doc.Status()
		if st == DocumentQueued || st == DocumentGenerating {
			return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s is %s; download it once its status is finished", id, st)
		}
		if size == 0 {
			what := "file"
			if kind == BlobDocumentPDF {
				what = "PDF"
			}
			why := doc.ErrorText()
			switch {
			case why != "":
				why = "status " + st + ": " + why
			case kind == BlobDocumentPDF && !doc.GeneratePdf():
				why = "it was generated with generate-pdf false"
			default:
				why = "status " + st
			}
			return scopekit.Errorf(scopekit.ENOTFOUND, "project-documents %s has no %s (%s)", id, what, why)
		}
		data, err := c.Tx.Blob(rec.AccountID, kind, rec.ID)
		if err != nil {
			return err
		}
		f = &File{Name: doc.Filename(), ContentType: doc.ContentType(), Data: data}
		if kind == BlobDocumentPDF {
			f.Name, f.ContentType = strings.TrimSuffix(f.Name, path.Ext(f.Name))+".pdf", ContentTypePDF
		}
		return nil
	})
	return f, err
}

// DocumentFilename is the name of a generated file: the project's name and
// what the document is, without characters file systems reject.
func DocumentFilename(projectName, what, ext string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f:
			return -1
		case strings.ContainsRune(`/\:*?"<>|`, r):
			return '-'
		}
		return r
	}, projectName)
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Project"
	}
	return fmt.Sprintf("%s - %s.%s", name, what, ext)
}
