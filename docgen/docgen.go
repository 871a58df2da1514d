// Package docgen generates project documents in the background: a bounded
// pool of workers takes queued project-documents from the store (the queue
// is the records themselves, so it survives a restart), fills the SOW
// template from the project's v2 merge data or builds the pricing or
// breakdown workbook with package documents, converts to PDF when asked,
// and stores the result through scoping's use cases, which write every
// status change and its document_status_changed event in one transaction.
//
// It is the one place where scoping, mergedata and documents meet, so
// that scoping does not import documents; composition roots create a
// Pool, plug its Notify into scoping.DocumentConfig and Run it.
package docgen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/scoping"
)

// DefaultWorkers is the pool size when Pool.Workers is 0.
const DefaultWorkers = 2

// DefaultPoll is how often idle workers look at the queue without being
// notified (documents queued by another instance on the same store).
const DefaultPoll = 2 * time.Second

// Pool is a bounded set of generation workers. Create it with New.
type Pool struct {
	svc *scoping.Service
	// Converter turns DOCX into PDF; nil means PDFs cannot be made.
	Converter documents.Converter
	// Workers bounds the documents generated at once; default 2.
	Workers int
	// Poll is how often idle workers check the queue; default DefaultPoll.
	Poll   time.Duration
	Logger *slog.Logger
	// BeforeGenerate, when set, runs before each document is rendered,
	// with the claimed record (tests use it to hold a worker mid-job).
	BeforeGenerate func(ctx context.Context, doc *scoping.Record)

	wake chan struct{}
	once sync.Once
}

// New returns a pool generating the documents of svc's store.
func New(svc *scoping.Service) *Pool {
	return &Pool{svc: svc, wake: make(chan struct{}, 1)}
}

// Config returns the scoping configuration that validates templates with
// package documents, gives every account the built-in Standard SOW and
// wakes this pool when a document is queued.
func (p *Pool) Config() scoping.DocumentConfig {
	return scoping.DocumentConfig{
		Tags:            documents.Tags,
		MaxTemplateSize: documents.MaxTemplateSize,
		Builtins: []scoping.BuiltinTemplate{{Name: documents.StandardSOWName, Filename: "Standard SOW.docx",
			File: documents.StandardSOW()}},
		Notify: p.Notify,
	}
}

// Notify wakes an idle worker; it never blocks.
func (p *Pool) Notify() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *Pool) log() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// Run re-queues the documents a previous run left generating, then
// generates queued documents until ctx is canceled. A document being
// generated when ctx is canceled stays generating in the store and is
// re-queued by the next Run.
func (p *Pool) Run(ctx context.Context) error {
	n, err := p.svc.RequeueDocuments(ctx)
	if err != nil {
		return fmt.Errorf("re-queue documents: %w", err)
	}
	if n > 0 {
		p.log().Info("re-queued documents left generating by the previous run", "documents", n)
	}
	workers := p.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work(ctx)
		}()
	}
	wg.Wait()
	return nil
}

func (p *Pool) work(ctx context.Context) {
	poll := p.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for ctx.Err() == nil {
		job, err := p.svc.ClaimDocument(ctx)
		if err != nil && ctx.Err() == nil {
			p.log().Error("claiming a document", "err", err)
		}
		if job == nil {
			select {
			case <-ctx.Done():
			case <-p.wake:
			case <-tick.C:
			}
			continue
		}
		p.Notify() // more may be queued: let an idle worker look too
		p.handle(ctx, job)
	}
}

// handle generates one claimed document and stores the outcome.
func (p *Pool) handle(ctx context.Context, job *scoping.DocumentJob) {
	doc := job.Document
	start := time.Now()
	out := p.Generate(ctx, job)
	if ctx.Err() != nil {
		p.log().Info("stopped while generating; the document is re-queued at the next start", "document", doc.ID)
		return
	}
	if err := p.svc.FinishDocument(ctx, job, out); err != nil {
		p.log().Error("storing a generated document", "document", doc.ID, "err", err)
		return
	}
	lvl := slog.LevelInfo
	if out.Failure != "" {
		lvl = slog.LevelWarn
	}
	p.log().Log(ctx, lvl, "document generated", "document", doc.ID, "account", doc.AccountID,
		"type", doc.Str("document-type"), "bytes", len(out.File), "pdf_bytes", len(out.PDF),
		"duration", time.Since(start).String(), "failure", out.Failure)
}

// Generate renders a claimed document: the files and, when it fails, the
// error text for the user. It never panics; a panic of a renderer becomes
// an internal error of the document.
func (p *Pool) Generate(ctx context.Context, job *scoping.DocumentJob) (out *scoping.DocumentOutput) {
	out = &scoping.DocumentOutput{}
	defer func() {
		if r := recover(); r != nil {
			p.log().Error("panic while generating", "document", job.Document.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out = &scoping.DocumentOutput{Failure: "internal error while generating the document"}
		}
	}()
	if p.BeforeGenerate != nil {
		p.BeforeGenerate(ctx, job.Document)
	}
	snap, err := p.svc.JobSnapshot(ctx, job)
	if err != nil {
		out.Failure = "the project could not be read: " + userText(err)
		return out
	}
	name := snap.Project.Str("project-name")
	switch dt := job.Document.Str("document-type"); dt {
	case scoping.DocumentSOW:
		if len(job.Template) == 0 {
			out.Failure = "the document template has no file"
			return out
		}
		docx, err := documents.Render(job.Template, mergedata.BuildV2(snap, p.svc.Now()))
		if err != nil {
			out.Failure = "the template could not be filled: " + userText(err)
			return out
		}
		out.File, out.ContentType = docx, documents.ContentTypeDOCX
		out.Filename = scoping.DocumentFilename(name, "SOW", "docx")
		if job.Document.Bool("generate-pdf") {
			out.PDF, out.Failure = p.pdf(ctx, docx)
		}
	case scoping.DocumentPricing, scoping.DocumentBreakdown:
		build, what := documents.PricingWorkbook, "Pricing"
		if dt == scoping.DocumentBreakdown {
			build, what = documents.BreakdownWorkbook, "Breakdown"
		}
		xlsx, err := build(snap)
		if err != nil {
			out.Failure = "the workbook could not be built: " + userText(err)
			return out
		}
		out.File, out.ContentType, out.Filename = xlsx, documents.ContentTypeXLSX, scoping.DocumentFilename(name, what, "xlsx")
	default:
		out.Failure = fmt.Sprintf("unknown document type %q", dt)
	}
	return out
}

// pdf converts the DOCX; a failure keeps the DOCX and says why there is
// no PDF.
func (p *Pool) pdf(ctx context.Context, docx []byte) ([]byte, string) {
	if p.Converter == nil {
		return nil, "no PDF was made: this server has no PDF converter (LibreOffice's soffice is not installed); the DOCX is available"
	}
	pdf, err := p.Converter.ToPDF(ctx, docx)
	switch {
	case errors.Is(err, documents.ErrNoConverter):
		return nil, "no PDF was made: LibreOffice's soffice is not installed on this server; the DOCX is available"
	case err != nil:
		return nil, "no PDF was made: the conversion failed (" + userText(err) + "); the DOCX is available"
	}
	return pdf, ""
}

// userText is the message of a ScopeKit error, or the error's text.
func userText(err error) string {
	var se *scopekit.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}
