package docgen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/internal/ooxml"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// env is a bbolt store in a temp dir with one account holding pricing.md's
// worked example, and a pool (not running) over it.
type env struct {
	db       engine.Store
	svc      *scoping.Service
	pool     *docgen.Pool
	actor    *engine.Actor
	project  string
	template string // the built-in Standard SOW
}

func mustEnv(tb testing.TB) *env {
	tb.Helper()
	db := bolttest.Open(tb, scoping.DefaultSchema())
	return mustEnvOn(tb, db)
}

// newPool is a pool (not running) of an instance with its own service over
// db.
func newPool(db engine.Store) (*scoping.Service, *docgen.Pool) {
	svc := scoping.NewService(db)
	p := docgen.New(svc)
	p.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	svc.Documents = p.Config()
	return svc, p
}

// mustEnvOn is env over db.
func mustEnvOn(tb testing.TB, db engine.Store) *env {
	tb.Helper()
	e := &env{db: db}
	e.svc, e.pool = newPool(db)
	ctx := context.Background()
	var acct string
	var err error
	require.NoError(tb, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		r, err := a.EnsureAccount("acme", "Acme", "USD")
		if err == nil {
			acct = r.ID
		}
		return err
	}))
	e.actor, err = e.svc.SystemActor(ctx, acct)
	require.NoError(tb, err)
	seeded, err := demodata.Seed(ctx, e.svc, e.actor, "")
	require.NoError(tb, err)
	e.project = seeded.ProjectID
	res, err := e.svc.List(ctx, e.actor, "document-templates", engine.ListParams{}, engine.Options{})
	require.NoError(tb, err)
	require.Len(tb, res.Records, 3) // the built-in Standard SOW, Standard proposal and Standard change order
	for _, r := range res.Records {
		if r.Str("name") == documents.StandardSOWName {
			e.template = r.ID
		}
	}
	return e
}

// queue creates a project document through the engine.
func (e *env) queue(tb testing.TB, docType string, pdf bool) string {
	tb.Helper()
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{
		"project": {Refs: []engine.Ref{{Type: "projects", ID: e.project}}}}}
	in.Attrs["document-type"] = []byte(`"` + docType + `"`)
	in.Attrs["generate-pdf"] = []byte(fmt.Sprint(pdf))
	if docType == scoping.DocumentSOW {
		in.Rels["document-template"] = engine.RelInput{Refs: []engine.Ref{{Type: "document-templates", ID: e.template}}}
	}
	res, err := e.svc.Create(context.Background(), e.actor, "project-documents", in, engine.Options{})
	require.NoError(tb, err)
	return res.Records[0].ID
}

func (e *env) doc(tb testing.TB, id string) *engine.Record {
	tb.Helper()
	res, err := e.svc.Get(context.Background(), e.actor, "project-documents", id, engine.ListParams{}, engine.Options{})
	require.NoError(tb, err)
	return res.Records[0]
}

// claim takes the next queued document under a lease of a minute.
func (e *env) claim(tb testing.TB) *scoping.DocumentJob {
	tb.Helper()
	return e.claimFor(tb, time.Minute)
}

// claimFor takes the next queued document under a lease of the given
// length, as a worker of another instance would.
func (e *env) claimFor(tb testing.TB, lease time.Duration) *scoping.DocumentJob {
	tb.Helper()
	job, err := e.svc.ClaimDocument(context.Background(), lease)
	require.NoError(tb, err)
	require.NotNil(tb, job)
	return job
}

// fakeConverter answers pdf, or fails with err.
type fakeConverter struct {
	pdf []byte
	err error
}

func (f fakeConverter) ToPDF(context.Context, []byte) ([]byte, error) { return f.pdf, f.err }

// Ensure each way a generation can go: the files it produces, and a clear
// failure text (with the DOCX kept when only the PDF failed).
func TestGenerate(t *testing.T) {
	e := mustEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		docType  string
		pdf      bool
		conv     office.Converter
		tamper   func(job *scoping.DocumentJob)
		before   func(context.Context, *engine.Record)
		file     string // content type of the file, "" for none
		hasPDF   bool
		failure  string
		filename string
	}{
		{name: "sow", docType: "sow", file: documents.ContentTypeDOCX, filename: "Globex firewall refresh - SOW.docx"},
		{name: "sow with PDF", docType: "sow", pdf: true, conv: fakeConverter{pdf: []byte("%PDF-1.7")}, file: documents.ContentTypeDOCX, hasPDF: true},
		{name: "PDF without converter", docType: "sow", pdf: true, file: documents.ContentTypeDOCX, failure: "no PDF converter"},
		{name: "PDF without soffice", docType: "sow", pdf: true, conv: fakeConverter{err: fmt.Errorf("x: %w", office.ErrNoConverter)},
			file: documents.ContentTypeDOCX, failure: "soffice is not installed"},
		{name: "PDF conversion fails", docType: "sow", pdf: true, conv: fakeConverter{err: errors.New("soffice exited 81")},
			file: documents.ContentTypeDOCX, failure: "the conversion failed (soffice exited 81); the DOCX is available"},
		{name: "template without file", docType: "sow", tamper: func(j *scoping.DocumentJob) { j.Template = nil }, failure: "the document template has no file"},
		{name: "template that cannot be filled", docType: "sow", tamper: func(j *scoping.DocumentJob) { j.Template = []byte("not a zip") },
			failure: "the template could not be filled"},
		{name: "sow from a pptx template", docType: "sow", pdf: true, conv: fakeConverter{err: errors.New("soffice exited 81")},
			tamper: func(j *scoping.DocumentJob) {
				j.Template, j.TemplateFormat = documents.StandardProposal(), documents.FormatPPTX
			},
			file: documents.ContentTypePPTX, filename: "Globex firewall refresh - Proposal.pptx", failure: "the conversion failed (soffice exited 81); the PPTX is available"},
		{name: "pricing", docType: "pricing", file: documents.ContentTypeXLSX, filename: "Globex firewall refresh - Pricing.xlsx"},
		{name: "breakdown", docType: "breakdown", file: documents.ContentTypeXLSX, filename: "Globex firewall refresh - Breakdown.xlsx"},
		{name: "a deleted project", docType: "pricing", tamper: func(j *scoping.DocumentJob) { j.Document.SetRel("project", "999999") },
			failure: "the project could not be read"},
		{name: "a panicking renderer", docType: "pricing", before: func(context.Context, *engine.Record) { panic("boom") },
			failure: "internal error while generating the document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.pool.Converter, e.pool.BeforeGenerate = tc.conv, tc.before
			e.queue(t, tc.docType, tc.pdf)
			job := e.claim(t)
			if tc.tamper != nil {
				tc.tamper(job)
			}
			out := e.pool.Generate(ctx, job)
			if tc.failure == "" {
				require.Empty(t, out.Failure)
			} else {
				require.Contains(t, out.Failure, tc.failure)
			}
			require.Equal(t, tc.file, out.ContentType)
			require.Equal(t, tc.file != "", len(out.File) > 0)
			require.Equal(t, tc.hasPDF, len(out.PDF) > 0)
			if tc.filename != "" {
				require.Equal(t, tc.filename, out.Filename)
			}
			if tc.file == documents.ContentTypeDOCX {
				text, _, err := ooxml.Markdown(out.File)
				require.NoError(t, err)
				require.Contains(t, text, demodata.ProjectName)
			}

			// stored as generated: finished, or error with the text
			require.NoError(t, e.svc.FinishDocument(ctx, job, out))
			rec := e.doc(t, job.Document.ID)
			want := scoping.DocumentFinished
			if tc.failure != "" {
				want = scoping.DocumentError
			}
			require.Equal(t, want, rec.Str("status"))
			require.Equal(t, out.Failure, rec.Str("error-text"))
			require.Equal(t, int64(len(out.File)), rec.Int("size"))
			require.Equal(t, int64(len(out.PDF)), rec.Int("pdf-size"))
		})
	}
}

// Ensure a pool stopped before its first re-queue finishes is a clean
// stop, not an error (the document stays for the next Run).
func TestPoolRunStoppedAtOnce(t *testing.T) {
	e := mustEnv(t)
	e.queue(t, "pricing", false)
	e.claimFor(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, e.pool.Run(ctx))
}

// Ensure the pool generates what is queued, wakes on Notify, and that
// Run re-queues what a previous run left generating.
func TestPoolRun(t *testing.T) {
	e := mustEnv(t)
	e.pool.Poll = time.Hour // only notifications wake it
	stuck := e.queue(t, "pricing", false)
	e.claimFor(t, 0) // as a server that died mid-work left it: generating, its lease run out
	require.Equal(t, scoping.DocumentGenerating, e.doc(t, stuck).Str("status"))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.pool.Run(ctx) }()
	var ids []string
	for range 5 {
		ids = append(ids, e.queue(t, "breakdown", false)) // each create notifies the pool
	}
	ids = append(ids, stuck)
	require.Eventually(t, func() bool {
		for _, id := range ids {
			if e.doc(t, id).Str("status") != scoping.DocumentFinished {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	events, err := e.svc.Events(context.Background(), "", 0)
	require.NoError(t, err)
	var changes []string
	for _, ev := range events {
		if ev.Str("subject-id") == stuck {
			changes = append(changes, ev.Str("old-status")+">"+ev.Str("new-status"))
		}
	}
	require.Equal(t, []string{">queued", "queued>generating", "generating>queued", "queued>generating", "generating>finished"}, changes)
}

// BenchmarkPipeline measures documents through the whole pipeline (queue,
// claim, snapshot and pricing, render, store) with the default pool of 2
// workers, for pricing.md's worked example: b.N documents per run. PDFs
// are made by a soffice per document (sow+pdf) or by the warm converter's
// 2 listeners, started before the clock does (sow+pdf-warm).
func BenchmarkPipeline(b *testing.B) {
	for _, bc := range []struct {
		name    string
		docType string
		pdf     bool
	}{{"sow", "sow", false}, {"pricing", "pricing", false}, {"sow+pdf", "sow", true}, {"sow+pdf-warm", "sow", true}} {
		b.Run(bc.name, func(b *testing.B) {
			e := mustEnv(b)
			if bc.pdf {
				conv, err := office.NewLibreOffice("")
				if err != nil {
					b.Skipf("LibreOffice is not installed: %v", err)
				}
				e.pool.Converter = conv
				if bc.name == "sow+pdf-warm" {
					warm, err := office.NewPool(conv)
					if err != nil {
						b.Skipf("no warm converter (Debian: python3-uno): %v", err)
					}
					defer warm.Close()
					if err := warm.Ready(b.Context()); err != nil {
						b.Fatal(err)
					}
					e.pool.Converter = warm
				}
			}
			ids := make([]string, b.N)
			for i := range ids {
				ids[i] = e.queue(b, bc.docType, bc.pdf)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b.ResetTimer()
			start := time.Now()
			go e.pool.Run(ctx) //nolint:errcheck // stopped by cancel
			for _, id := range ids {
				for {
					st := e.doc(b, id).Str("status")
					if st == scoping.DocumentFinished {
						break
					}
					if st == scoping.DocumentError {
						b.Fatal(strings.TrimSpace(e.doc(b, id).Str("error-text")))
					}
					time.Sleep(time.Millisecond)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
		})
	}
}
