package scoping

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
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
// A claim is a lease: the claimed record stores, beside its status, the
// number of its claim and the time its lease runs out (internal
// attributes, never served). The worker renews the lease while it works
// (RenewDocumentLease); any instance re-queues a generating document whose
// lease ran out (RequeueDocuments), so a document whose worker died is
// generated again without a restart, and one that a live worker of
// another instance holds is left alone. FinishDocument stores a result
// only while the claim is still the worker's.

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
)

// Blob kinds of the document types.
const (
	BlobTemplateFile = "document-templates/file"
	BlobDocumentFile = "project-documents/file"
	BlobDocumentPDF  = "project-documents/pdf"
)

// Internal attributes of a claimed project document, stored with the
// record and never served (they are not declared).
const (
	// claimAttr numbers the claims of a document: each claim takes the
	// next number, so a worker whose document was re-queued and claimed
	// again no longer holds the current claim.
	claimAttr = "claim"
	// leaseAttr is when the current claim's lease runs out, in Unix
	// milliseconds; absent when the document is not generating.
	leaseAttr = "lease-until"
)

// ContentTypePDF is the media type of a generated PDF.
const ContentTypePDF = "application/pdf"

// BuiltinTemplate is a document template every account gets.
type BuiltinTemplate struct {
	Name     string
	Filename string
	File     []byte
}

// DocumentConfig is what the document records need from outside scoping;
// the composition root plugs in package documents' parts.
type DocumentConfig struct {
	// Tags validates a template file and returns the tag paths it uses.
	// Its EINVALID errors are answered as they are; any other error means
	// the file is not a DOCX. Without it template files cannot be uploaded.
	Tags func(file []byte) ([]string, error)
	// MaxTemplateSize bounds an uploaded template file (ETOOLARGE above);
	// 0 means no bound here (the adapter still limits the body).
	MaxTemplateSize int
	// Builtins are created in every new account, and by
	// EnsureBuiltinTemplates in accounts that have none of them.
	Builtins []BuiltinTemplate
	// Notify is called after a transaction that queued a document commits,
	// so the workers can start at once instead of at their next poll. It
	// must not block.
	Notify func()
}

func declareDocuments(s *Schema) {
	register(s, &TypeDef{Name: "document-templates", Guard: "documents", Archives: true,
		Attrs: cat([]AttrDef{unique(str("name")), enum("format", "docx", "docx"), enum("template-format", "v2", "v2"),
			str("filename")},
			computed(num("size"), str("sha256"), AttrDef{Name: "tags", Kind: KindList}, flag("builtin", false))),
		Filters: with(eq("format"), "name", FilterDef{Op: OpContains}),
		Blobs:   []string{BlobTemplateFile},
	})

	register(s, &TypeDef{Name: "project-documents", Guard: "documents", Archives: true, V2: true, Async: true,
		ScopeRel: "project",
		Attrs: cat([]AttrDef{required(enum("document-type", "", DocumentSOW, DocumentPricing, DocumentBreakdown)),
			flag("generate-pdf", false)},
			computed(enum("status", "", DocumentQueued, DocumentGenerating, DocumentFinished, DocumentError),
				text("error-text"), str("filename"), str("content-type"), num("size"), num("pdf-size"),
				AttrDef{Name: "document-url", Kind: KindString, Link: true},
				AttrDef{Name: "pdf-url", Kind: KindString, Link: true},
				AttrDef{Name: "generated-at", Kind: KindTime})),
		Rels: []RelDef{owner("project", "projects"), to1("document-template", "document-templates"),
			{Name: "requested-by", Type: "users", ReadOnly: true}},
		Filters: eq("project", "document-type", "status", "document-template"),
		Blobs:   []string{BlobDocumentFile, BlobDocumentPDF},
		Hooks: Hooks{
			Defaults: func(_ context.Context, c *Call, rec *Record) error {
				rec.Attrs["status"] = DocumentQueued
				rec.SetRel("requested-by", c.Actor.UserID)
				return nil
			},
			Validate: validateProjectDocument,
			AfterWrite: func(_ context.Context, c *Call, rec, old *Record) error {
				if old != nil {
					return nil
				}
				state(c).queued = true
				return recordEvent(c, views.EventDocumentStatusChanged, rec, rec.Rel("project"), "", DocumentQueued)
			},
		}})

	register(s, &TypeDef{Name: "project-download-types", Guard: "documents", Archives: true,
		Attrs: []AttrDef{required(str("name")),
			required(enum("document-type", "", DocumentSOW, DocumentPricing, DocumentBreakdown)),
			required(enum("format", "", "docx", "pdf", "xlsx"))},
		Rels:    []RelDef{to1("document-template", "document-templates")},
		Filters: eq("document-type", "format"),
		Hooks:   Hooks{Validate: validateDownloadType},
	})
}

// formatsOf are the formats each document type can be downloaded in.
var formatsOf = map[string][]string{
	DocumentSOW:       {"docx", "pdf"},
	DocumentPricing:   {"xlsx"},
	DocumentBreakdown: {"xlsx"},
}

// checkTemplateUse checks the template relationship of a record of
// document type dt: a sow needs an active template with a file; workbooks
// take none.
func checkTemplateUse(c *Call, dt string, rec *Record) error {
	tid := rec.Rel("document-template")
	p := RelPointer("document-template")
	if dt != DocumentSOW {
		if tid != "" {
			return engine.Invalid(p, "%s documents are built without a template; leave document-template empty", dt)
		}
		return nil
	}
	if tid == "" {
		return engine.Invalid(p, "a sow document needs a document-template (every account has the built-in %q)", "Standard SOW")
	}
	t, err := c.Get("document-templates", tid)
	if err != nil {
		return nil // apply already reported the missing record
	}
	if !t.Active() {
		return engine.Invalid(p, "document-templates %s is archived", tid)
	}
	if t.Int("size") == 0 {
		return engine.Invalid(p, "document-templates %s has no file yet; upload it with PUT .../document-templates/%s/file", tid, tid)
	}
	return nil
}

func validateDownloadType(_ context.Context, c *Call, rec, _ *Record) []error {
	dt, f := rec.Str("document-type"), rec.Str("format")
	var errs []error
	if ok := formatsOf[dt]; dt != "" && f != "" && !contains(ok, f) {
		errs = append(errs, engine.Invalid(AttrPointer("format"), "%s documents come as %s, not %s", dt, strings.Join(ok, " or "), f))
	}
	if dt != "" {
		if err := checkTemplateUse(c, dt, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func validateProjectDocument(_ context.Context, c *Call, rec, old *Record) []error {
	if old != nil { // a document is a snapshot: only active changes
		var errs []error
		for _, a := range []string{"document-type", "generate-pdf"} {
			if rec.Attrs[a] != old.Attrs[a] {
				errs = append(errs, engine.Invalid(AttrPointer(a), "a document cannot change its %s; create a new document instead", a))
			}
		}
		for _, r := range []string{"project", "document-template"} {
			if rec.Rel(r) != old.Rel(r) {
				errs = append(errs, engine.Invalid(RelPointer(r), "a document cannot change its %s; create a new document instead", r))
			}
		}
		return errs
	}
	dt := rec.Str("document-type")
	if dt == "" {
		return nil
	}
	var errs []error
	if rec.Bool("generate-pdf") && dt != DocumentSOW {
		errs = append(errs, engine.Invalid(AttrPointer("generate-pdf"), "generate-pdf applies to sow documents only; %s documents are workbooks", dt))
	}
	if err := checkTemplateUse(c, dt, rec); err != nil {
		errs = append(errs, err)
	}
	return errs
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
func setDocumentStatus(c *Call, doc *Record, status string) error {
	old := doc.Str("status")
	doc.Attrs["status"] = status
	if err := c.Tx.Replace(doc); err != nil {
		return err
	}
	return recordEvent(c, views.EventDocumentStatusChanged, doc, doc.Rel("project"), old, status)
}

// UploadTemplateFile validates file as the template's DOCX and stores it
// with the template's size, sha256 and tags; filename, when not empty,
// replaces the template's filename. A file that fails validation stores
// nothing.
//
// Errors: EFORBIDDEN without documents manage; ENOTFOUND for a missing
// template; ETOOLARGE above MaxTemplateSize; EINVALID for a file that is
// not a DOCX or a malformed template (naming the tag and its paragraph).
func (s *Service) UploadTemplateFile(ctx context.Context, a *Actor, id, filename string, file []byte) (*Result, error) {
	if err := a.Require("documents", true); err != nil {
		return nil, err
	}
	def, _ := s.Schema().Lookup("document-templates")
	if max := s.Documents.MaxTemplateSize; max > 0 && len(file) > max {
		return nil, scopekit.Errorf(scopekit.ETOOLARGE, "a template file may be at most %d bytes", max)
	}
	if s.Documents.Tags == nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "no template validator configured")
	}
	// validated outside the write transaction (a large file takes a while),
	// after the template is known to exist
	if err := s.read(ctx, a, func(c *Call) error {
		_, err := c.GetVisible(ctx, def, id, engine.AnyActive(def))
		return err
	}); err != nil {
		return nil, err
	}
	tags, err := checkTemplateFile(s.Documents.Tags, file)
	if err != nil {
		return nil, err
	}
	return s.writeRecord(ctx, a, def, func(c *Call) (*Record, error) {
		old, err := c.GetVisible(ctx, def, id, engine.AnyActive(def))
		if err != nil {
			return nil, err
		}
		rec := old.Clone()
		setTemplateFile(rec, filename, file, tags)
		if err := c.Tx.Replace(rec); err != nil {
			return nil, err
		}
		return rec, c.Tx.PutBlob(rec.AccountID, BlobTemplateFile, rec.ID, file)
	})
}

// checkTemplateFile runs the validator, turning its failures into
// EINVALID errors about the file.
func checkTemplateFile(validate func([]byte) ([]string, error), file []byte) ([]string, error) {
	tags, err := validate(file)
	if err == nil {
		return tags, nil
	}
	if se, ok := err.(*scopekit.Error); ok && se.Code == scopekit.EINVALID {
		return nil, scopekit.Errorf(scopekit.EINVALID, "%s", se.Message)
	}
	return nil, scopekit.Errorf(scopekit.EINVALID, "the file is not a usable DOCX template: %v", err)
}

// templateFilename is the name a template's file is served under: its
// filename, or (none given, or cleared since) the template's name.
func templateFilename(rec *Record) string {
	if name := rec.Str("filename"); name != "" {
		return name
	}
	return rec.Str("name") + ".docx"
}

func setTemplateFile(rec *Record, filename string, file []byte, tags []string) {
	sum := sha256.Sum256(file)
	if filename != "" {
		rec.Attrs["filename"] = filename
	} else {
		rec.Attrs["filename"] = templateFilename(rec)
	}
	rec.Attrs["size"], rec.Attrs["sha256"] = int64(len(file)), hex.EncodeToString(sum[:])
	list := make([]any, len(tags))
	for i, t := range tags {
		list[i] = t
	}
	rec.Attrs["tags"] = list
}

// File is a stored file ready to be served.
type File struct {
	Name        string
	ContentType string
	Data        []byte
}

// TemplateFile returns the DOCX of a document template.
//
// Errors: EFORBIDDEN without documents view; ENOTFOUND for a missing
// template or one without a file.
func (s *Service) TemplateFile(ctx context.Context, a *Actor, id string) (*File, error) {
	def, err := s.ReadableType(a, "document-templates")
	if err != nil {
		return nil, err
	}
	var f *File
	err = s.read(ctx, a, func(c *Call) error {
		rec, err := c.GetVisible(ctx, def, id, engine.AnyActive(def))
		if err != nil {
			return err
		}
		data, err := c.Tx.Blob(rec.AccountID, BlobTemplateFile, rec.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return scopekit.Errorf(scopekit.ENOTFOUND, "document-templates %s has no file yet", id)
		}
		f = &File{Name: templateFilename(rec), ContentType: ContentTypeDOCX, Data: data}
		return err
	})
	return f, err
}

// ContentTypeDOCX is the media type of a DOCX file.
const ContentTypeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// DocumentFile returns a generated file of a project document: format ""
// is the document itself (DOCX or XLSX), "pdf" its PDF; "docx" and "xlsx"
// name the document's own format.
//
// Errors: EFORBIDDEN without documents view; ENOTFOUND for a missing
// document, one outside the actor's visibility, or a PDF that was not
// produced; ECONFLICT while the document is not generated yet;
// EBADREQUEST (parameter format) for another format.
func (s *Service) DocumentFile(ctx context.Context, a *Actor, id, format string, opts engine.Options) (*File, error) {
	def, err := s.ReadableType(a, "project-documents")
	if err != nil {
		return nil, err
	}
	var f *File
	err = s.Read(ctx, a, opts, func(c *Call) error {
		rec, err := c.GetVisible(ctx, def, id, engine.AnyActive(def))
		if err != nil {
			return err
		}
		own := formatsOf[rec.Str("document-type")][0]
		kind, size := BlobDocumentFile, rec.Int("size")
		switch format {
		case "", own:
		case "pdf":
			if rec.Str("document-type") != DocumentSOW {
				return scopekit.ParamErrorf(scopekit.EBADREQUEST, "format", "%s documents are workbooks: format must be xlsx", rec.Str("document-type"))
			}
			kind, size = BlobDocumentPDF, rec.Int("pdf-size")
		default:
			return scopekit.ParamErrorf(scopekit.EBADREQUEST, "format", "format must be %s", strings.Join(formatsOf[rec.Str("document-type")], " or "))
		}
		st := rec.Str("status")
		if st == DocumentQueued || st == DocumentGenerating {
			return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s is %s; download it once its status is finished", id, st)
		}
		if size == 0 {
			what := "file"
			if kind == BlobDocumentPDF {
				what = "PDF"
			}
			why := rec.Str("error-text")
			switch {
			case why != "":
				why = "status " + st + ": " + why
			case kind == BlobDocumentPDF && !rec.Bool("generate-pdf"):
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
		f = &File{Name: rec.Str("filename"), ContentType: rec.Str("content-type"), Data: data}
		if kind == BlobDocumentPDF {
			f.Name, f.ContentType = strings.TrimSuffix(f.Name, ".docx")+".pdf", ContentTypePDF
		}
		return nil
	})
	return f, err
}

// DocumentJob is a claimed project document and what rendering it needs.
type DocumentJob struct {
	Document *Record
	Account  *Record
	// Template is the template file of a sow document.
	Template []byte
	// Claim is the number of this claim of the document; the store's
	// record holds the same number while the claim is the job's.
	Claim int64
}

// ClaimDocument takes the oldest queued document of any account and moves
// it to generating (with its event) under a lease of the given length
// (renew it with RenewDocumentLease). It returns nil when none is queued.
// Claims are transactions, so two workers never take the same document.
func (s *Service) ClaimDocument(ctx context.Context, lease time.Duration) (*DocumentJob, error) {
	next := &Query{Type: "project-documents", AllAccounts: true, Where: []Cond{Eq("status", DocumentQueued)}, Limit: 1}
	// an idle poll only reads: no write transaction (and no fsync) when
	// nothing is queued
	var queued bool
	if err := s.Store().View(ctx, func(tx Tx) error {
		recs, _, err := tx.List(next)
		queued = len(recs) > 0
		return err
	}); err != nil || !queued {
		return nil, err
	}
	var job *DocumentJob
	_, err := s.write(ctx, &Actor{Account: &Record{}, AllScopes: true}, func(c *Call) error {
		recs, _, err := c.Tx.List(next)
		if err != nil || len(recs) == 0 {
			return err // another worker took it meanwhile
		}
		doc := recs[0]
		acct, err := c.Tx.Get("accounts", "", doc.AccountID)
		if err != nil {
			return err
		}
		claim := doc.Int(claimAttr) + 1
		doc.Attrs[claimAttr], doc.Attrs[leaseAttr] = claim, leaseEnd(s.Now(), lease)
		if err := setDocumentStatus(c, doc, DocumentGenerating); err != nil {
			return err
		}
		job = &DocumentJob{Document: doc.Clone(), Account: acct, Claim: claim}
		if tid := doc.Rel("document-template"); tid != "" && doc.Str("document-type") == DocumentSOW {
			job.Template, err = c.Tx.Blob(doc.AccountID, BlobTemplateFile, tid)
			if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
				err = nil // FinishDocument reports it
			}
		}
		return err
	})
	return job, err
}

// JobSnapshot reads the snapshot of a claimed document's project, as the
// account sees it (no user's visibility applies to the worker).
func (s *Service) JobSnapshot(ctx context.Context, job *DocumentJob) (*Snapshot, error) {
	return s.snapshot(ctx, &Actor{Account: job.Account, AllScopes: true}, job.Document.Rel("project"))
}

// DocumentOutput is what a worker produced for a job: the file (empty
// when nothing could be made), its PDF when one was made, and the failure
// text when the document ends in error. A failure with a file keeps the
// file (a DOCX whose PDF failed is still served).
type DocumentOutput struct {
	Filename    string
	ContentType string
	File        []byte
	PDF         []byte
	Failure     string
}

func leaseEnd(now time.Time, lease time.Duration) int64 { return now.Add(lease).UnixMilli() }

// ourClaim reads the job's document in the call's transaction and reports
// whether the job still holds its claim (the document is generating under
// the job's claim number). A deleted document is not held.
func ourClaim(c *Call, job *DocumentJob) (*Record, bool, error) {
	doc, err := c.Tx.Get("project-documents", job.Document.AccountID, job.Document.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return doc, doc.Str("status") == DocumentGenerating && doc.Int(claimAttr) == job.Claim, nil
}

// errClaimLost is FinishDocument's and RenewDocumentLease's answer for a
// job whose document was re-queued (its lease ran out) and maybe claimed
// again since.
func errClaimLost(job *DocumentJob) error {
	return scopekit.Errorf(scopekit.ECONFLICT, "project-documents %s is no longer held by this claim (its lease ran out and it was re-queued)", job.Document.ID)
}

// RenewDocumentLease extends the lease of the job's claim to lease from
// now. Errors: ECONFLICT when the claim is no longer the job's (the
// worker should stop: someone else generates the document); ENOTFOUND
// when the document was deleted.
func (s *Service) RenewDocumentLease(ctx context.Context, job *DocumentJob, lease time.Duration) error {
	_, err := s.write(ctx, &Actor{Account: job.Account, AllScopes: true}, func(c *Call) error {
		doc, ours, err := ourClaim(c, job)
		switch {
		case err != nil:
			return err
		case doc == nil:
			return engine.NotFound("project-documents", job.Document.ID)
		case !ours:
			return errClaimLost(job)
		}
		doc.Attrs[leaseAttr] = leaseEnd(s.Now(), lease)
		return c.Tx.Replace(doc)
	})
	return err
}

// ReleaseDocument puts the job's document back in the queue at once (with
// its event), for a worker that stops before finishing it; nothing
// happens when the claim is no longer the job's.
func (s *Service) ReleaseDocument(ctx context.Context, job *DocumentJob) error {
	_, err := s.write(ctx, &Actor{Account: job.Account, AllScopes: true}, func(c *Call) error {
		doc, ours, err := ourClaim(c, job)
		if err != nil || !ours {
			return err
		}
		delete(doc.Attrs, leaseAttr)
		state(c).queued = true
		return setDocumentStatus(c, doc, DocumentQueued)
	})
	return err
}

// FinishDocument stores a job's files and moves its document to finished,
// or to error with out.Failure, with the event, in one transaction. A
// document deleted meanwhile is left alone; one whose claim is no longer
// the job's (re-queued after its lease ran out, maybe claimed again) is
// left alone too, and the result dropped with an ECONFLICT error.
func (s *Service) FinishDocument(ctx context.Context, job *DocumentJob, out *DocumentOutput) error {
	_, err := s.write(ctx, &Actor{Account: job.Account, AllScopes: true}, func(c *Call) error {
		doc, ours, err := ourClaim(c, job)
		if err != nil || doc == nil {
			return err
		}
		if !ours {
			return errClaimLost(job)
		}
		delete(doc.Attrs, leaseAttr)
		status := DocumentFinished
		if out.Failure != "" {
			status = DocumentError
			doc.Attrs["error-text"] = out.Failure
		} else {
			delete(doc.Attrs, "error-text")
		}
		for _, f := range []struct {
			kind, size, url string
			data            []byte
		}{{BlobDocumentFile, "size", "document-url", out.File}, {BlobDocumentPDF, "pdf-size", "pdf-url", out.PDF}} {
			if len(f.data) == 0 {
				delete(doc.Attrs, f.size)
				delete(doc.Attrs, f.url)
				if err := c.Tx.DeleteBlob(doc.AccountID, f.kind, doc.ID); err != nil {
					return err
				}
				continue
			}
			if err := c.Tx.PutBlob(doc.AccountID, f.kind, doc.ID, f.data); err != nil {
				return err
			}
			doc.Attrs[f.size] = int64(len(f.data))
			doc.Attrs[f.url] = "download"
			if f.kind == BlobDocumentPDF {
				doc.Attrs[f.url] = "download?format=pdf"
			}
		}
		if len(out.File) > 0 {
			doc.Attrs["filename"], doc.Attrs["content-type"] = out.Filename, out.ContentType
		}
		doc.Attrs["generated-at"] = FormatTime(s.Now())
		return setDocumentStatus(c, doc, status)
	})
	return err
}

// RequeueDocuments moves every generating document whose lease has run
// out (its worker died, or its server was killed or stopped mid-work)
// back to queued, with its event; documents under a live lease are left
// to their workers, whatever instance holds them. Generating documents
// without a lease (claimed before leases existed) count as run out. The
// workers of every instance call it at start and periodically.
func (s *Service) RequeueDocuments(ctx context.Context) (int, error) {
	generating := &Query{Type: "project-documents", AllAccounts: true, Where: []Cond{Eq("status", DocumentGenerating)}}
	expired := func(recs []*Record) []*Record {
		now := s.Now().UnixMilli()
		var out []*Record
		for _, doc := range recs {
			if doc.Int(leaseAttr) <= now {
				out = append(out, doc)
			}
		}
		return out
	}
	// the periodic check only reads unless a lease ran out
	var due bool
	if err := s.Store().View(ctx, func(tx Tx) error {
		recs, _, err := tx.List(generating)
		due = len(expired(recs)) > 0
		return err
	}); err != nil || !due {
		return 0, err
	}
	n := 0
	_, err := s.write(ctx, &Actor{Account: &Record{}, AllScopes: true}, func(c *Call) error {
		recs, _, err := c.Tx.List(generating)
		if err != nil {
			return err
		}
		for _, doc := range expired(recs) {
			// read again under the account's lock: a worker may have
			// finished or renewed it since the list was read
			doc, err := c.Tx.Get(doc.Type, doc.AccountID, doc.ID)
			if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
				continue
			}
			if err != nil {
				return err
			}
			if doc.Str("status") != DocumentGenerating || len(expired([]*Record{doc})) == 0 {
				continue
			}
			delete(doc.Attrs, leaseAttr)
			if err := setDocumentStatus(c, doc, DocumentQueued); err != nil {
				return err
			}
			n++
		}
		state(c).queued = n > 0
		return nil
	})
	return n, err
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

// ensureBuiltinTemplates creates the built-in templates the account lacks
// (by name, archived ones included, so an archived built-in stays
// archived).
func (a *Admin) ensureBuiltinTemplates(accountID string) error {
	c := a.c
	for _, b := range svcOf(c).Documents.Builtins {
		have, _, err := c.Tx.List(&Query{Type: "document-templates", AccountID: accountID, Where: []Cond{Eq("name", b.Name)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(have) > 0 {
			continue
		}
		rec := NewRecord("document-templates", accountID)
		rec.Attrs["name"], rec.Attrs["format"], rec.Attrs["template-format"] = b.Name, "docx", "v2"
		rec.Attrs["active"], rec.Attrs["builtin"] = true, true
		var tags []string
		if svcOf(c).Documents.Tags != nil {
			if tags, err = svcOf(c).Documents.Tags(b.File); err != nil {
				return fmt.Errorf("built-in template %q: %w", b.Name, err)
			}
		}
		setTemplateFile(rec, b.Filename, b.File, tags)
		if err := c.Tx.Insert(rec); err != nil {
			return err
		}
		if err := c.Tx.PutBlob(accountID, BlobTemplateFile, rec.ID, b.File); err != nil {
			return err
		}
	}
	return nil
}

// EnsureBuiltinTemplates gives every account the built-in templates it
// lacks (accounts created before a built-in existed). A built-in that was deleted comes back; archive it to
// keep it out of the way.
func (s *Service) EnsureBuiltinTemplates(ctx context.Context) error {
	if len(s.Documents.Builtins) == 0 {
		return nil
	}
	return s.Setup(ctx, func(a *Admin) error {
		accts, _, err := a.c.Tx.List(&Query{Type: "accounts"})
		if err != nil {
			return err
		}
		for _, acct := range accts {
			if err := a.ensureBuiltinTemplates(acct.ID); err != nil {
				return err
			}
		}
		return nil
	})
}
