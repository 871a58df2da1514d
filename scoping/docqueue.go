package scoping

import (
	"context"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The document generation queue: the project-documents records in status
// queued, claimed by generation workers.
//
// A claim is a lease: the claimed record stores, beside its status, the
// number of its claim and the time its lease runs out (internal
// attributes, never served). The worker renews the lease while it works
// (RenewDocumentLease); any instance re-queues a generating document whose
// lease ran out (RequeueDocuments), so a document whose worker died is
// generated again without a restart, and one that a live worker of
// another instance holds is left alone. FinishDocument stores a result
// only while the claim is still the worker's.

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

// DocumentJob is a claimed project document and what rendering it needs.
type DocumentJob struct {
	Document *engine.Record
	Account  *engine.Record
	// Template is the template file of a sow document, TemplateFormat
	// its format (docx, pptx, xlsx).
	Template       []byte
	TemplateFormat string
	// Claim is the number of this claim of the document; the store's
	// record holds the same number while the claim is the job's.
	Claim int64
}

// ClaimDocument takes the oldest queued document of any account and moves
// it to generating (with its event) under a lease of the given length
// (renew it with RenewDocumentLease). It returns nil when none is queued.
// Claims are transactions, so two workers never take the same document.
func (s *Service) ClaimDocument(ctx context.Context, lease time.Duration) (*DocumentJob, error) {
	next := &engine.Query{Type: views.TypeProjectDocuments, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameStatus, DocumentQueued)}, Limit: 1}
	// an idle poll only reads: no write transaction (and no fsync) when
	// nothing is queued
	var queued bool
	if err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(next)
		queued = len(recs) > 0
		return err
	}); err != nil || !queued {
		return nil, err
	}
	var job *DocumentJob
	_, err := s.write(ctx, &engine.Actor{Account: &engine.Record{}, AllScopes: true}, func(c *engine.Call) error {
		recs, _, err := c.Tx.List(next)
		if err != nil || len(recs) == 0 {
			return err // another worker took it meanwhile
		}
		doc := recs[0]
		acct, err := c.Tx.Get(views.TypeAccounts, "", doc.AccountID)
		if err != nil {
			return err
		}
		claim := doc.Int(claimAttr) + 1
		doc.Attrs[claimAttr], doc.Attrs[leaseAttr] = claim, leaseEnd(s.Now(), lease)
		if err := setDocumentStatus(c, doc, DocumentGenerating); err != nil {
			return err
		}
		job = &DocumentJob{Document: doc.Clone(), Account: acct, Claim: claim}
		if tid := doc.Rel(views.NameDocumentTemplate); tid != "" && templated(doc.Str(views.NameDocumentType)) {
			if t, terr := c.Tx.Get(views.TypeDocumentTemplates, doc.AccountID, tid); terr == nil {
				job.TemplateFormat = templateFormat(t)
			}
			job.Template, err = c.Tx.Blob(doc.AccountID, BlobTemplateFile, tid)
			if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
				err = nil // FinishDocument reports it
			}
		}
		return err
	})
	return job, err
}

// QueuedDocuments counts the project documents waiting for a worker, in
// every account: the depth of the generation queue.
func (s *Service) QueuedDocuments(ctx context.Context) (int, error) {
	var n int
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		var err error
		_, n, err = tx.List(&engine.Query{Type: views.TypeProjectDocuments, AllAccounts: true,
			Where: []engine.Cond{engine.Eq(views.NameStatus, DocumentQueued)}, Limit: 1})
		return err
	})
	return n, err
}

// JobSnapshot reads the snapshot of a claimed document's project, as the
// account sees it (no user's visibility applies to the worker), with the
// version that holds its scope: a scope that no version holds yet gets
// one (manual, by the document's requester), in the same transaction as
// the snapshot is read, so the document is made from what the version
// freezes (docs/lifecycle.md).
func (s *Service) JobSnapshot(ctx context.Context, job *DocumentJob) (*views.Snapshot, error) {
	doc := views.ProjectDocument{Record: job.Document}
	a := &engine.Actor{UserID: doc.RequestedBy(), Account: job.Account, AllScopes: true}
	var snap *views.Snapshot
	_, err := s.write(ctx, a, func(c *engine.Call) error {
		if co := doc.ChangeOrder(); co != "" {
			var err error
			snap, err = changeOrderSnapshot(c, co)
			return err
		}
		proj, err := c.Get(views.TypeProjects, doc.Project())
		if err != nil {
			return err
		}
		if _, _, err := takeVersion(c, proj, VersionManual, "", ""); err != nil {
			return err
		}
		snap, err = s.snapshotIn(ctx, c, proj.ID)
		return err
	})
	return snap, err
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
	// Version is the version of the project the document was made from
	// (JobSnapshot's), recorded on the document.
	Version *views.ProjectVersion
}

func leaseEnd(now time.Time, lease time.Duration) int64 { return now.Add(lease).UnixMilli() }

// ourClaim reads the job's document in the call's transaction and reports
// whether the job still holds its claim (the document is generating under
// the job's claim number). A deleted document is not held.
func ourClaim(c *engine.Call, job *DocumentJob) (*engine.Record, bool, error) {
	doc, err := c.Tx.Get(views.TypeProjectDocuments, job.Document.AccountID, job.Document.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return doc, (views.ProjectDocument{Record: doc}).Status() == DocumentGenerating && doc.Int(claimAttr) == job.Claim, nil
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
	_, err := s.write(ctx, &engine.Actor{Account: job.Account, AllScopes: true}, func(c *engine.Call) error {
		doc, ours, err := ourClaim(c, job)
		switch {
		case err != nil:
			return err
		case doc == nil:
			return engine.NotFound(views.TypeProjectDocuments, job.Document.ID)
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
	_, err := s.write(ctx, &engine.Actor{Account: job.Account, AllScopes: true}, func(c *engine.Call) error {
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
	_, err := s.write(ctx, &engine.Actor{Account: job.Account, AllScopes: true}, func(c *engine.Call) error {
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
			doc.Attrs[views.NameErrorText] = out.Failure
		} else {
			delete(doc.Attrs, views.NameErrorText)
		}
		for _, f := range []struct {
			kind, size, url string
			data            []byte
		}{{BlobDocumentFile, views.NameSize, views.NameDocumentURL, out.File}, {BlobDocumentPDF, views.NamePdfSize, views.NamePdfURL, out.PDF}} {
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
			doc.Attrs[views.NameFilename], doc.Attrs[views.NameContentType] = out.Filename, out.ContentType
		}
		if v := out.Version; v != nil {
			doc.SetRel(views.NameProjectVersion, v.ID)
			doc.Attrs[views.NameVersionDigest] = v.Digest()
		}
		doc.Attrs[views.NameGeneratedAt] = engine.FormatTime(s.Now())
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
	generating := &engine.Query{Type: views.TypeProjectDocuments, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameStatus, DocumentGenerating)}}
	expired := func(recs []*engine.Record) []*engine.Record {
		now := s.Now().UnixMilli()
		var out []*engine.Record
		for _, doc := range recs {
			if doc.Int(leaseAttr) <= now {
				out = append(out, doc)
			}
		}
		return out
	}
	// the periodic check only reads unless a lease ran out
	var due bool
	if err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(generating)
		due = len(expired(recs)) > 0
		return err
	}); err != nil || !due {
		return 0, err
	}
	n := 0
	_, err := s.write(ctx, &engine.Actor{Account: &engine.Record{}, AllScopes: true}, func(c *engine.Call) error {
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
			if (views.ProjectDocument{Record: doc}).Status() != DocumentGenerating || len(expired([]*engine.Record{doc})) == 0 {
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
