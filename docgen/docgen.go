// Package docgen generates project documents in the background: a bounded
// pool of workers takes queued project-documents from the store (the queue
// is the records themselves, so it survives a restart), fills the SOW
// template from the project's v2 merge data with package documents or
// builds the pricing or breakdown workbook with package workbook, converts
// to PDF when asked, and stores the result through scoping's use cases,
// which write every status change and its document_status_changed event in
// one transaction.
//
// A claim is a lease (Pool.Lease): the worker renews it every third of
// the lease while it generates, and every pool re-queues, at start and
// then every third of the lease, the generating documents whose lease ran
// out. So with several instances on one database a document whose
// instance died is generated again by another one without a restart, and
// a starting instance leaves alone what the others are generating.
//
// It is the one place where scoping, mergedata, documents and workbook
// meet, so that scoping imports neither documents nor workbook;
// composition roots create a Pool, plug its Notify into
// scoping.DocumentConfig and Run it.
package docgen

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/workbook"
)

// DefaultWorkers is the pool size when Pool.Workers is 0.
const DefaultWorkers = 2

// DefaultPoll is how often idle workers look at the queue without being
// notified (documents queued by another instance on the same store).
const DefaultPoll = 2 * time.Second

// DefaultLease is how long a claim holds a document when Pool.Lease is 0.
const DefaultLease = 2 * time.Minute

// DefaultTimeLimit is how long one document may take to generate when
// Pool.TimeLimit is 0.
const DefaultTimeLimit = time.Minute

// errTimeLimit is the cause of a generation stopped at its time limit.
var errTimeLimit = errors.New("the document's time limit passed")

// Pool is a bounded set of generation workers. Create it with New.
type Pool struct {
	svc *scoping.Service
	// Converter turns DOCX into PDF; nil means PDFs cannot be made.
	Converter office.Converter
	// Workers bounds the documents generated at once; default 2.
	Workers int
	// Poll is how often idle workers check the queue; default DefaultPoll.
	Poll time.Duration
	// Lease is how long a claim holds a document without renewal; the
	// worker renews it every third of Lease while it generates, and a
	// document whose lease ran out (its instance died) is re-queued by any
	// pool within a third of Lease. Default DefaultLease.
	Lease time.Duration
	// TimeLimit bounds the generation of one document, its PDF included:
	// past it the job ends in error, saying so, and its worker is free
	// for the next. Default DefaultTimeLimit.
	TimeLimit time.Duration
	Logger    *slog.Logger
	// BeforeGenerate, when set, runs before each document is rendered,
	// with the claimed record (tests use it to hold a worker mid-job).
	BeforeGenerate func(ctx context.Context, doc *engine.Record)
	// Observer, when set, is told of every generated document and PDF
	// conversion (package observe measures them); the steps of a job are
	// traced through the service's Tracer.
	Observer Observer

	wake    chan struct{}
	once    sync.Once
	running atomic.Int32 // Runs whose workers are up
}

// Observer is told how the pool's work goes. Its methods are called from
// the workers' goroutines.
type Observer interface {
	// Generated reports a document whose outcome was stored: its
	// document type, whether it ended in error, and the time from its
	// claim to its outcome.
	Generated(docType string, failed bool, elapsed time.Duration)
	// Converted reports a PDF conversion: its outcome (ConvertOK,
	// ConvertFailed, ConvertTimeout or ConvertUnavailable) and how long
	// it took.
	Converted(outcome string, elapsed time.Duration)
}

// Outcomes of a PDF conversion, for Observer.Converted.
const (
	ConvertOK          = "ok"
	ConvertFailed      = "failed"      // the converter ran and made no PDF
	ConvertTimeout     = "timeout"     // the converter was killed at its deadline
	ConvertUnavailable = "unavailable" // no converter is installed
)

// Running reports whether a Run of the pool has its workers up (readiness:
// a server whose workers stopped generates nothing).
func (p *Pool) Running() bool { return p.running.Load() > 0 }

// New returns a pool generating the documents of svc's store.
func New(svc *scoping.Service) *Pool {
	return &Pool{svc: svc, wake: make(chan struct{}, 1)}
}

// Config returns the scoping configuration that validates templates with
// package documents, gives every account the built-in Standard SOW,
// Standard proposal and Standard change order and wakes this pool when a
// document is queued.
func (p *Pool) Config() scoping.DocumentConfig {
	return scoping.DocumentConfig{
		Tags:            documents.TagsFormat,
		Lint:            lintV2,
		Preview:         p.preview,
		MaxTemplateSize: documents.MaxTemplateSize,
		Builtins: []scoping.BuiltinTemplate{{Name: documents.StandardSOWName, Filename: "Standard SOW.docx",
			File: documents.StandardSOW()},
			{Name: documents.StandardProposalName, Format: documents.FormatPPTX, Filename: "Standard proposal.pptx",
				File: documents.StandardProposal()},
			{Name: documents.StandardChangeOrderName, Filename: "Standard change order.docx", File: documents.StandardChangeOrder()}},
		Certificate: func(d scoping.CertificateData) ([]byte, error) { return documents.CertificatePDF(d.Title, d.Rows) },
		Notify:      p.Notify,
	}
}

// schemaV2 is v2 merge data's shape, read once from its generated JSON
// Schema.
var schemaV2 = sync.OnceValue(func() *documents.Schema {
	s, err := documents.NewSchema(mergedata.SchemaV2())
	if err != nil {
		panic(err) // generated: docgen's tests read it
	}
	return s
})

// lintV2 checks a template's tags against v2 merge data.
func lintV2(ctx context.Context, format string, file []byte) ([]scoping.TemplateProblem, error) {
	problems, err := documents.LintProblems(ctx, format, file, schemaV2())
	if err != nil {
		return nil, err
	}
	out := make([]scoping.TemplateProblem, len(problems))
	for i, p := range problems {
		out[i] = scoping.TemplateProblem{Tag: p.Tag, Path: p.Path, Where: p.Where, Context: p.Context,
			Suggestion: p.Suggestion, Message: p.Message}
	}
	return out, nil
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

func (p *Pool) timeLimit() time.Duration {
	if p.TimeLimit > 0 {
		return p.TimeLimit
	}
	return DefaultTimeLimit
}

func (p *Pool) lease() time.Duration {
	if p.Lease > 0 {
		return p.Lease
	}
	return DefaultLease
}

// everyThird calls fn every third of the lease (how often leases are
// renewed and expired ones looked for) until ctx ends or fn returns false.
func (p *Pool) everyThird(ctx context.Context, fn func() bool) {
	tick := time.NewTicker(max(p.lease()/3, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !fn() {
			return
		}
	}
}

// Run re-queues the generating documents whose lease ran out, then
// generates queued documents until ctx is canceled, re-queuing expired
// leases every third of the lease meanwhile. A document being generated
// when ctx is canceled is put back in the queue at once.
func (p *Pool) Run(ctx context.Context) error {
	if err := p.requeue(ctx); err != nil {
		if ctx.Err() != nil {
			return nil // stopped before it started: the next Run re-queues
		}
		return fmt.Errorf("re-queue documents: %w", err)
	}
	workers := p.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	p.running.Add(1)
	defer p.running.Add(-1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.everyThird(ctx, func() bool {
			if err := p.requeue(ctx); err != nil && ctx.Err() == nil {
				p.log().Error("re-queuing documents whose lease ran out", "err", err)
			}
			return true
		})
	}()
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
		job, err := p.svc.ClaimDocument(ctx, p.lease())
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

// requeue re-queues the generating documents whose lease ran out.
func (p *Pool) requeue(ctx context.Context) error {
	n, err := p.svc.RequeueDocuments(ctx)
	if n > 0 {
		p.log().Info("re-queued generating documents whose lease ran out (their worker stopped or its server died)", "documents", n)
		p.Notify()
	}
	return err
}

// handle generates one claimed document, renewing its lease meanwhile,
// and stores the outcome. A job whose claim is lost (its lease ran out and
// the document was re-queued) is abandoned and its result dropped.
func (p *Pool) handle(ctx context.Context, job *scoping.DocumentJob) {
	doc := job.Document
	start := time.Now()
	genCtx, lost := context.WithCancelCause(ctx)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		p.renew(genCtx, job, lost)
	}()
	out := p.Generate(genCtx, job)
	stopped := ctx.Err() != nil
	claimLost := genCtx.Err() != nil && !stopped
	lost(nil)
	<-renewed
	switch {
	case stopped:
		// a graceful stop: another worker (here after a restart, or on
		// another instance) takes it without waiting for the lease
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := p.svc.ReleaseDocument(rctx, job); err != nil {
			p.log().Warn("stopped while generating; the document is re-queued when its lease runs out", "document", doc.ID, "err", err)
			return
		}
		p.log().Info("stopped while generating; the document is back in the queue", "document", doc.ID)
		return
	case claimLost:
		p.log().Warn("gave up a document no longer held (its lease ran out and it was re-queued, or it was deleted); the result is dropped",
			"document", doc.ID, "err", context.Cause(genCtx))
		return
	}
	if err := p.svc.FinishDocument(ctx, job, out); err != nil {
		if scopekit.ErrorCode(err) == scopekit.ECONFLICT {
			p.log().Warn("dropped a generated document whose claim was lost", "document", doc.ID, "err", err)
			return
		}
		p.log().Error("storing a generated document", "document", doc.ID, "err", err)
		return
	}
	lvl := slog.LevelInfo
	if out.Failure != "" {
		lvl = slog.LevelWarn
	}
	took, docType := time.Since(start), views.ProjectDocument{Record: doc}.DocumentType()
	if p.Observer != nil {
		p.Observer.Generated(docType, out.Failure != "", took)
	}
	p.log().Log(ctx, lvl, "document generated", "document", doc.ID, "account", doc.AccountID,
		"type", docType, "bytes", len(out.File), "pdf_bytes", len(out.PDF),
		"duration", took.String(), "failure", out.Failure)
}

// renew extends the job's lease every third of the lease until ctx ends;
// when the claim is no longer the job's (or the document was deleted) it
// cancels the generation with lost. A renewal that fails otherwise (the
// database briefly unreachable) is retried at the next tick.
func (p *Pool) renew(ctx context.Context, job *scoping.DocumentJob, lost context.CancelCauseFunc) {
	p.everyThird(ctx, func() bool {
		err := p.svc.RenewDocumentLease(ctx, job, p.lease())
		switch code := scopekit.ErrorCode(err); {
		case err == nil || ctx.Err() != nil:
		case code == scopekit.ECONFLICT || code == scopekit.ENOTFOUND:
			lost(err)
			return false
		default:
			p.log().Error("renewing a document's lease", "document", job.Document.ID, "err", err)
		}
		return true
	})
}

// Generate renders a claimed document: the files and, when it fails, the
// error text for the user. It never panics; a panic of a renderer becomes
// an internal error of the document. It stops at the pool's time limit:
// the document fails saying so, keeping the file when only its PDF was
// late.
func (p *Pool) Generate(ctx context.Context, job *scoping.DocumentJob) (out *scoping.DocumentOutput) {
	doc := views.ProjectDocument{Record: job.Document}
	ctx, end := p.svc.Span(ctx, "docgen.generate", "document.id", doc.ID, "document.type", doc.DocumentType())
	ctx, cancel := context.WithTimeoutCause(ctx, p.timeLimit(), errTimeLimit)
	defer cancel()
	out = &scoping.DocumentOutput{}
	defer func() {
		if r := recover(); r != nil {
			p.log().Error("panic while generating", "document", job.Document.ID, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			out = &scoping.DocumentOutput{Failure: "internal error while generating the document"}
		}
		if out.Failure != "" && errors.Is(context.Cause(ctx), errTimeLimit) {
			out.Failure = fmt.Sprintf("generating the document took longer than its time limit of %s and was stopped: "+
				"the template's loops or expressions are too heavy for this project", p.timeLimit())
			if len(out.File) > 0 {
				out.Failure = fmt.Sprintf("no PDF was made within the document's time limit of %s; the file is available", p.timeLimit())
			}
		}
		if out.Failure != "" {
			end(errors.New(out.Failure))
		} else {
			end(nil)
		}
	}()
	if p.BeforeGenerate != nil {
		p.BeforeGenerate(ctx, job.Document)
	}
	snap, err := step(ctx, p.svc, "docgen.snapshot", func(ctx context.Context) (*views.Snapshot, error) {
		return p.svc.JobSnapshot(ctx, job)
	})
	if err != nil {
		out.Failure = "the project could not be read: " + userText(err)
		return out
	}
	name := snap.Project.ProjectName()
	out.Version = snap.Version
	switch dt := doc.DocumentType(); dt {
	case scoping.DocumentSOW, scoping.DocumentChangeOrder:
		if len(job.Template) == 0 {
			out.Failure = "the document template has no file"
			return out
		}
		format := job.TemplateFormat
		if format == "" {
			format = documents.FormatDOCX
		}
		data, _ := step(ctx, p.svc, "mergedata.build", func(context.Context) (*mergedata.V2, error) {
			return mergedata.BuildV2(snap, p.svc.Now()), nil
		})
		file, err := step(ctx, p.svc, "documents.render", func(ctx context.Context) ([]byte, error) {
			return documents.RenderFormat(ctx, format, job.Template, data)
		})
		if err != nil {
			out.Failure = "the template could not be filled: " + userText(err)
			return out
		}
		if snap.Account.WatermarkDrafts() && draft(snap) {
			if file, err = documents.WatermarkDraft(format, file); err != nil {
				out.Failure = "the draft watermark could not be added: " + userText(err)
				return out
			}
		}
		out.File, out.ContentType = file, documents.ContentType(format)
		what := "SOW"
		if co := snap.ChangeOrder; co != nil {
			what = fmt.Sprintf("Change order %d", co.Number())
		} else if format == documents.FormatPPTX {
			what = "Proposal" // a deck: the Standard proposal's kind
		}
		out.Filename = scoping.DocumentFilename(name, what, format)
		if doc.GeneratePdf() {
			out.PDF, out.Failure = p.pdf(ctx, file, strings.ToUpper(format))
		}
	case scoping.DocumentPricing, scoping.DocumentBreakdown:
		build, what := workbook.Pricing, "Pricing"
		if dt == scoping.DocumentBreakdown {
			build, what = workbook.Breakdown, "Breakdown"
		}
		xlsx, err := step(ctx, p.svc, "workbook.build", func(context.Context) ([]byte, error) { return build(snap) })
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

// draft reports whether a document of snap is marked DRAFT (with the
// account's watermark-drafts): its project is not approved yet (draft or
// pending approval), or, for a change order's document, the change order
// is not.
func draft(snap *views.Snapshot) bool {
	if co := snap.ChangeOrder; co != nil {
		st := co.Status()
		return st != scoping.ChangeOrderApproved && st != scoping.ChangeOrderAccepted
	}
	st := snap.Project.Status()
	return st == "draft" || st == "pending_approval"
}

// step runs fn as a traced step of a job.
func step[T any](ctx context.Context, svc *scoping.Service, name string, fn func(context.Context) (T, error)) (T, error) {
	ctx, end := svc.Span(ctx, name)
	v, err := fn(ctx)
	end(err)
	return v, err
}

// pdf converts the file (a DOCX, PPTX or XLSX, named by what); a failure
// keeps the file and says why there is no PDF.
func (p *Pool) pdf(ctx context.Context, file []byte, what string) ([]byte, string) {
	if p.Converter == nil {
		p.converted(ConvertUnavailable, 0)
		return nil, "no PDF was made: this server has no PDF converter (LibreOffice's soffice is not installed); the " + what + " is available"
	}
	start := time.Now()
	pdf, err := step(ctx, p.svc, "documents.pdf", func(ctx context.Context) ([]byte, error) { return p.Converter.ToPDF(ctx, file) })
	took := time.Since(start)
	switch {
	case err == nil:
		p.converted(ConvertOK, took)
		return pdf, ""
	case errors.Is(err, office.ErrNoConverter):
		p.converted(ConvertUnavailable, took)
		return nil, "no PDF was made: LibreOffice's soffice is not installed on this server; the " + what + " is available"
	case errors.Is(context.Cause(ctx), errTimeLimit):
		p.converted(ConvertTimeout, took) // Generate says why
	case ctx.Err() != nil:
		// stopped, or the claim was lost: the result is dropped, not counted
	case errors.Is(err, context.DeadlineExceeded):
		p.converted(ConvertTimeout, took)
	default:
		p.converted(ConvertFailed, took)
	}
	return nil, "no PDF was made: the conversion failed (" + userText(err) + "); the " + what + " is available"
}

func (p *Pool) converted(outcome string, took time.Duration) {
	if p.Observer != nil {
		p.Observer.Converted(outcome, took)
	}
}

// userText is the message of a ScopeKit error, or the error's text.
func userText(err error) string {
	var se *scopekit.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}
