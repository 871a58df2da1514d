package scoping_test

import (
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the queue's life cycle: claims take the oldest queued document of
// any account under a lease, renewals extend it, an expired lease is
// re-queued (a live one is left alone), a lost claim can neither renew nor
// store, a release re-queues at once, and each status change has its event.
func TestDocumentsClaimsAndLeases(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	acmeAcct, acme := acctAccount(t, svc, "acme")
	_, globex := acctAccount(t, svc, "globex")
	require.Nil(t, w.claim(t, time.Minute), "nothing queued")
	n, err := svc.RequeueDocuments(ctx)
	require.NoError(t, err)
	require.Zero(t, n)

	std := docTemplateNamed(t, svc, acme, "Standard SOW")
	p := hookProject(t, svc, acme, "Firewall")
	doc := w.document(t, acme, p, scoping.DocumentSOW, std, true)
	other := w.document(t, globex, hookProject(t, svc, globex, "Router"), scoping.DocumentPricing, nil, false)

	job := w.claim(t, time.Minute)
	require.NotNil(t, job)
	require.Equal(t, doc.ID, job.Document.ID, "oldest first")
	require.Equal(t, acmeAcct.ID, job.Account.ID)
	require.Equal(t, docStandard.File, job.Template)
	require.EqualValues(t, 1, job.Claim)
	require.Equal(t, scoping.DocumentGenerating, job.Document.Str("status"))
	lease := func() int64 { return w.stored(t, doc).Int("lease-until") }
	require.Equal(t, hookClock.Add(time.Minute).UnixMilli(), lease())
	snap, err := svc.JobSnapshot(ctx, job)
	require.NoError(t, err)
	require.Equal(t, p.ID, snap.Project.ID)
	_, err = svc.DocumentFile(ctx, acme, doc.ID, "", nil, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "is generating")

	w.advance(40 * time.Second)
	require.NoError(t, svc.RenewDocumentLease(ctx, job, time.Minute))
	require.Equal(t, hookClock.Add(100*time.Second).UnixMilli(), lease())
	w.advance(59 * time.Second)
	n, err = svc.RequeueDocuments(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a live lease is left alone")
	require.Equal(t, scoping.DocumentGenerating, w.stored(t, doc).Str("status"))

	notified := w.notified.Load()
	w.advance(time.Second)
	n, err = svc.RequeueDocuments(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n, "a lease that ran out is re-queued")
	require.Equal(t, scoping.DocumentQueued, w.stored(t, doc).Str("status"))
	require.NotContains(t, w.stored(t, doc).Attrs, "lease-until")
	require.Equal(t, notified+1, w.notified.Load(), "the workers are woken")

	err = svc.RenewDocumentLease(ctx, job, time.Minute)
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "no longer held by this claim")
	err = svc.FinishDocument(ctx, job, &scoping.DocumentOutput{Filename: "x.docx", ContentType: scoping.ContentTypeDOCX, File: []byte("docx")})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "no longer held by this claim")
	require.Equal(t, scoping.DocumentQueued, w.stored(t, doc).Str("status"), "the stale result is dropped")
	require.NoError(t, svc.ReleaseDocument(ctx, job), "releasing a lost claim does nothing")

	again := w.claim(t, time.Minute)
	require.Equal(t, doc.ID, again.Document.ID)
	require.EqualValues(t, 2, again.Claim)
	require.NoError(t, svc.ReleaseDocument(ctx, job), "the old claim does not release the new one")
	require.Equal(t, scoping.DocumentGenerating, w.stored(t, doc).Str("status"))
	require.NoError(t, svc.ReleaseDocument(ctx, again))
	require.Equal(t, scoping.DocumentQueued, w.stored(t, doc).Str("status"))
	require.NotContains(t, w.stored(t, doc).Attrs, "lease-until")

	third := w.claim(t, time.Minute)
	require.EqualValues(t, 3, third.Claim)
	require.NoError(t, svc.FinishDocument(ctx, third, &scoping.DocumentOutput{Filename: "Firewall - SOW.docx",
		ContentType: scoping.ContentTypeDOCX, File: []byte("docx bytes"), PDF: []byte("%PDF")}))
	err = svc.RenewDocumentLease(ctx, third, time.Minute)
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "a finished document is held by no claim")
	require.Equal(t, []string{">queued", "queued>generating", "generating>queued", "queued>generating", "generating>queued",
		"queued>generating", "generating>finished"}, w.statuses(t, doc))

	last := w.claim(t, time.Minute)
	require.Equal(t, other.ID, last.Document.ID, "then the other account's")
	require.Nil(t, last.Template, "a workbook has no template")
	require.Nil(t, w.claim(t, time.Minute))
}

// Ensure FinishDocument stores the files and the outcome, and DocumentFile
// serves them: the document in its own format, a sow's PDF, 409 while not
// generated, 404 for a file not made (saying why), 400 for another format.
func TestDocumentsFinishAndDownload(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	_, sys := acctAccount(t, svc, "acme")
	std := docTemplateNamed(t, svc, sys, "Standard SOW")
	p := hookProject(t, svc, sys, "Firewall")
	finish := func(doc *engine.Record, out *scoping.DocumentOutput) *engine.Record {
		t.Helper()
		job := w.claim(t, time.Minute)
		require.Equal(t, doc.ID, job.Document.ID)
		require.NoError(t, svc.FinishDocument(ctx, job, out))
		res, err := svc.Get(ctx, sys, "project-documents", doc.ID, engine.ListParams{}, engine.Options{})
		require.NoError(t, err)
		return res.Records[0]
	}
	file := func(id, format string) (*scoping.File, error) {
		return svc.DocumentFile(ctx, sys, id, format, nil, engine.Options{})
	}

	sow := w.document(t, sys, p, scoping.DocumentSOW, std, true)
	_, err := file(sow.ID, "")
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "is queued; download it once its status is finished")
	w.advance(time.Hour)
	got := finish(sow, &scoping.DocumentOutput{Filename: "Firewall - SOW.docx", ContentType: scoping.ContentTypeDOCX,
		File: []byte("docx bytes"), PDF: []byte("%PDF-1.7")})
	require.Equal(t, scoping.DocumentFinished, got.Str("status"))
	require.EqualValues(t, 10, got.Int("size"))
	require.EqualValues(t, 8, got.Int("pdf-size"))
	require.Equal(t, "download", got.Str("document-url"))
	require.Equal(t, "download?format=pdf", got.Str("pdf-url"))
	require.Equal(t, engine.FormatTime(hookClock.Add(time.Hour)), got.Str("generated-at"))
	require.Equal(t, "Firewall - SOW.docx", got.Str("filename"))
	require.NotContains(t, got.Attrs, "error-text")
	for _, format := range []string{"", "docx"} {
		f, err := file(sow.ID, format)
		require.NoError(t, err)
		require.Equal(t, &scoping.File{Name: "Firewall - SOW.docx", ContentType: scoping.ContentTypeDOCX, Data: []byte("docx bytes")}, f)
	}
	f, err := file(sow.ID, "pdf")
	require.NoError(t, err)
	require.Equal(t, &scoping.File{Name: "Firewall - SOW.pdf", ContentType: scoping.ContentTypePDF, Data: []byte("%PDF-1.7")}, f)
	_, err = file(sow.ID, "xlsx")
	require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(err))
	require.Equal(t, "format", scopekit.List(err)[0].Parameter)
	require.Contains(t, err.Error(), "format must be docx or pdf")

	// a PDF that failed keeps the DOCX
	nopdf := w.document(t, sys, p, scoping.DocumentSOW, std, true)
	got = finish(nopdf, &scoping.DocumentOutput{Filename: "Firewall - SOW.docx", ContentType: scoping.ContentTypeDOCX,
		File: []byte("docx"), Failure: "no LibreOffice on the server"})
	require.Equal(t, scoping.DocumentError, got.Str("status"))
	require.Equal(t, "no LibreOffice on the server", got.Str("error-text"))
	require.Equal(t, "download", got.Str("document-url"))
	require.NotContains(t, got.Attrs, "pdf-url")
	_, err = file(nopdf.ID, "")
	require.NoError(t, err)
	_, err = file(nopdf.ID, "pdf")
	acctRequireErr(t, err, scopekit.ENOTFOUND, "", "has no PDF (status error: no LibreOffice on the server)")

	// a sow asked without PDF has none
	plain := w.document(t, sys, p, scoping.DocumentSOW, std, false)
	finish(plain, &scoping.DocumentOutput{Filename: "Firewall - SOW.docx", ContentType: scoping.ContentTypeDOCX, File: []byte("docx")})
	_, err = file(plain.ID, "pdf")
	acctRequireErr(t, err, scopekit.ENOTFOUND, "", "has no PDF (it was generated with generate-pdf false)")

	// a workbook: xlsx only; one that failed has no file
	xlsx := "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	wb := w.document(t, sys, p, scoping.DocumentBreakdown, nil, false)
	finish(wb, &scoping.DocumentOutput{Filename: "Firewall - Breakdown.xlsx", ContentType: xlsx, File: []byte("xlsx")})
	f, err = file(wb.ID, "xlsx")
	require.NoError(t, err)
	require.Equal(t, &scoping.File{Name: "Firewall - Breakdown.xlsx", ContentType: xlsx, Data: []byte("xlsx")}, f)
	_, err = file(wb.ID, "pdf")
	acctRequireErr(t, err, scopekit.EBADREQUEST, "", "breakdown documents are workbooks: format must be xlsx")
	_, err = file(wb.ID, "docx")
	acctRequireErr(t, err, scopekit.EBADREQUEST, "", "format must be xlsx")
	failed := w.document(t, sys, p, scoping.DocumentPricing, nil, false)
	got = finish(failed, &scoping.DocumentOutput{Failure: "the project could not be priced"})
	require.Equal(t, scoping.DocumentError, got.Str("status"))
	require.NotContains(t, got.Attrs, "document-url")
	_, err = file(failed.ID, "")
	acctRequireErr(t, err, scopekit.ENOTFOUND, "", "has no file (status error: the project could not be priced)")

	// an archived document's files are served only where the filters
	// cover it, as its GET; a missing one is not found
	_, err = svc.Update(ctx, sys, "project-documents", wb.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	_, err = file(wb.ID, "")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	for _, active := range []string{"false", "true,false"} {
		f, err := svc.DocumentFile(ctx, sys, wb.ID, "", map[string]string{"active": active}, engine.Options{})
		require.NoError(t, err)
		require.Equal(t, []byte("xlsx"), f.Data)
	}
	_, err = file("999", "")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure a document deleted while it is generated is left alone: the
// renewal is ENOTFOUND, finishing and releasing do nothing; and that a
// generating document without a lease counts as run out.
func TestDocumentsDeletedOrUnleased(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	_, sys := acctAccount(t, svc, "acme")
	p := hookProject(t, svc, sys, "Firewall")
	doc := w.document(t, sys, p, scoping.DocumentPricing, nil, false)
	job := w.claim(t, time.Minute)
	require.NoError(t, svc.Delete(ctx, sys, "project-documents", doc.ID, engine.Options{}))
	err := svc.RenewDocumentLease(ctx, job, time.Minute)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	require.NoError(t, svc.FinishDocument(ctx, job, &scoping.DocumentOutput{File: []byte("x")}))
	require.NoError(t, svc.ReleaseDocument(ctx, job))
	_, err = svc.DocumentFile(ctx, sys, doc.ID, "", nil, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	// a sow whose template lost its file meanwhile is claimed without one
	tmpl := w.template(t, sys, "Ours")
	sow := w.document(t, sys, p, scoping.DocumentSOW, tmpl, false)
	require.NoError(t, svc.Store().Update(ctx, func(tx engine.Tx) error {
		return tx.(engine.BlobTx).DeleteBlob(tmpl.AccountID, scoping.BlobTemplateFile, tmpl.ID)
	}))
	job = w.claim(t, time.Minute)
	require.Equal(t, sow.ID, job.Document.ID)
	require.Nil(t, job.Template)

	// as claimed before leases existed
	require.NoError(t, svc.Store().Update(ctx, func(tx engine.Tx) error {
		rec, err := tx.Get("project-documents", sow.AccountID, sow.ID)
		if err != nil {
			return err
		}
		delete(rec.Attrs, "lease-until")
		return tx.Replace(rec)
	}))
	n, err := svc.RequeueDocuments(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, scoping.DocumentQueued, w.stored(t, sow).Str("status"))
}

// Ensure concurrent workers never claim the same document and all queued
// documents are claimed.
func TestDocumentsConcurrentClaims(t *testing.T) {
	w := newDocWorld(t)
	_, sys := acctAccount(t, w.svc, "acme")
	p := hookProject(t, w.svc, sys, "Firewall")
	queued := map[string]bool{}
	for range 12 {
		queued[w.document(t, sys, p, scoping.DocumentBreakdown, nil, false).ID] = true
	}
	var mu sync.Mutex
	claimed := map[string]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				job, err := w.svc.ClaimDocument(w.ctx, time.Minute)
				if err != nil || job == nil {
					require.NoError(t, err)
					return
				}
				mu.Lock()
				claimed[job.Document.ID]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	require.Len(t, claimed, len(queued))
	for id, n := range claimed {
		require.True(t, queued[id])
		require.Equal(t, 1, n, "document %s claimed %d times", id, n)
	}
}

// Ensure a role of assigned visibility sees the documents of its teammate
// projects only (ENOTFOUND otherwise), and another account's documents
// are not found.
func TestDocumentsVisibility(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	acct, sys := acctAccount(t, svc, "acme")
	eng := acctMember(t, svc, acct.ID, "eve@acme.test", "Engineer")
	mine := hookProject(t, svc, sys, "Mine")
	theirs := hookProject(t, svc, sys, "Theirs")
	acctCreate(t, svc, sys, "project-teammates", nil, map[string]engine.RelInput{"project": rel("projects", mine.ID), "user": rel("users", eng.UserID)})

	ok := w.document(t, eng, mine, scoping.DocumentPricing, nil, false)
	hidden := w.document(t, sys, theirs, scoping.DocumentPricing, nil, false)
	_, err := svc.Create(ctx, eng, "project-documents", &engine.Input{Attrs: attrs("document-type", `"pricing"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", theirs.ID)}}, engine.Options{})
	require.Error(t, err, "no document on a project it cannot see")
	for range 2 {
		job := w.claim(t, time.Minute)
		require.NoError(t, svc.FinishDocument(ctx, job, &scoping.DocumentOutput{Filename: "p.xlsx", ContentType: "x", File: []byte("x")}))
	}
	_, err = svc.DocumentFile(ctx, eng, ok.ID, "", nil, engine.Options{})
	require.NoError(t, err)
	_, err = svc.DocumentFile(ctx, eng, hidden.ID, "", nil, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = svc.Get(ctx, eng, "project-documents", hidden.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	res, err := svc.List(ctx, eng, "project-documents", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, res.Records, 1)
	require.Equal(t, ok.ID, res.Records[0].ID)

	_, globex := acctAccount(t, svc, "globex")
	_, err = svc.DocumentFile(ctx, globex, ok.ID, "", nil, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureRole(acct.ID, "No documents", map[string]string{"projects": "view"}, "all")
		return err
	}))
	none := acctMember(t, svc, acct.ID, "ned@acme.test", "No documents")
	_, err = svc.DocumentFile(ctx, none, ok.ID, "", nil, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}
