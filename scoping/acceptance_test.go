package scoping_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// finishedSOW queues a SOW of the project, as the workers would make it:
// a DOCX and a PDF, recording the version it was made from.
func (w *wfWorld) finishedSOW(project string, pdf []byte) string {
	w.t.Helper()
	tmpl := w.list("document-templates", map[string]string{"name": "Standard SOW"})
	var tid string
	if len(tmpl) == 0 {
		t := w.create(w.sys, "document-templates", attrs("name", `"Standard SOW"`), nil)
		require.NoError(w.t, w.svc.Store().Update(w.ctx, func(tx engine.Tx) error {
			r, err := tx.Get("document-templates", w.acct, t.ID)
			if err != nil {
				return err
			}
			r.Attrs["size"] = int64(1)
			if err := tx.Replace(r); err != nil {
				return err
			}
			return tx.PutBlob(w.acct, scoping.BlobTemplateFile, t.ID, []byte("x"))
		}))
		tid = t.ID
	} else {
		tid = tmpl[0].ID
	}
	doc := w.create(w.admin, "project-documents", attrs("document-type", `"sow"`, "generate-pdf", `true`),
		map[string]engine.RelInput{"project": rel("projects", project), "document-template": rel("document-templates", tid)})
	job, err := w.svc.ClaimDocument(w.ctx, time.Minute)
	require.NoError(w.t, err)
	require.Equal(w.t, doc.ID, job.Document.ID)
	snap, err := w.svc.JobSnapshot(w.ctx, job)
	require.NoError(w.t, err)
	require.NoError(w.t, w.svc.FinishDocument(w.ctx, job, &scoping.DocumentOutput{Filename: "Firewall - SOW.docx",
		ContentType: scoping.ContentTypeDOCX, File: []byte("docx"), PDF: pdf, Version: snap.Version}))
	return doc.ID
}

func (w *wfWorld) share(doc string, days int) (*engine.Record, string, error) {
	res, token, err := w.svc.Share(w.ctx, w.admin, doc, days)
	if err != nil {
		return nil, "", err
	}
	return res.Records[0], token, nil
}

func goodDecision(accept bool) scoping.Decision {
	return scoping.Decision{Accept: accept, Name: "Jane Client", Title: "CTO", Email: "jane@globex.example", Signature: "jane client",
		Agreed: accept, Comment: "Too dear", IP: "203.0.113.7", UserAgent: "Browser/1.0"}
}

// Ensure sharing: only a finished SOW with a PDF of an approved project;
// the request freezes the PDF and its SHA-256 and the version digest; the
// token is random, stored as a digest only, and reads the link; the
// expiry is 1 to 365 days.
func TestShare(t *testing.T) {
	w := newWfWorld(t)
	pdf := []byte("%PDF-1.4 the SOW")
	doc := w.finishedSOW(w.project, pdf)
	_, _, err := w.share(doc, 0)
	wfCode(t, scopekit.ECONFLICT, err) // a draft project's
	_, err = w.update(w.admin, "projects", w.project, attrs("status", `"approved"`), nil)
	require.NoError(t, err)
	_, _, err = w.share(doc, 366)
	wfCode(t, scopekit.EINVALID, err)
	req, token, err := w.share(doc, 0)
	require.NoError(t, err)
	require.Equal(t, scoping.RequestPending, req.Str("status"))
	sum := sha256.Sum256(pdf)
	require.Equal(t, hex.EncodeToString(sum[:]), req.Str("document-sha256"))
	require.Len(t, req.Str("version-digest"), 64)
	secret := token[strings.LastIndex(token, ".")+1:]
	require.GreaterOrEqual(t, len(secret), 43, "at least 256 bits")
	stored := w.get("acceptance-requests", req.ID)
	for k, v := range stored.Attrs {
		require.NotContains(t, v, secret, "the token is never stored: %s", k)
	}
	require.Nil(t, stored.Attrs["url"])
	link, err := w.svc.AcceptanceLink(w.ctx, token)
	require.NoError(t, err)
	require.Equal(t, "1000.00", link.ContractValue)
	require.Equal(t, scoping.DefaultConsentText, link.ConsentText)
	f, err := w.svc.AcceptanceDocument(w.ctx, token)
	require.NoError(t, err)
	require.Equal(t, pdf, f.Data)
	for _, bad := range []string{"", "x", token + "x", strings.Replace(token, ".", "-", 1), "999." + req.ID + "." + secret, req.AccountID + ".999." + secret} {
		_, err := w.svc.AcceptanceLink(w.ctx, bad)
		require.Equal(t, scoping.ErrLinkUnknown, err, bad)
	}
	pricing := w.create(w.admin, "project-documents", attrs("document-type", `"pricing"`), map[string]engine.RelInput{"project": rel("projects", w.project)})
	_, _, err = w.share(pricing.ID, 0)
	wfCode(t, scopekit.ECONFLICT, err)
}

// Ensure an acceptance: the evidence (entries, consent text and version,
// time, address, agent, the frozen SHA-256, the version digest), the
// project won with its event and a version (accepted), a certificate with
// the evidence, the document naming it and kept (no delete), the project
// kept; the link used once; a decline records the comment and changes
// nothing; entries are checked; expired and revoked links refuse.
func TestDecide(t *testing.T) {
	w := newWfWorld(t)
	var made scoping.CertificateData
	w.svc.Documents.Certificate = func(d scoping.CertificateData) ([]byte, error) { made = d; return []byte("%PDF cert"), nil }
	_, err := w.update(w.admin, "projects", w.project, attrs("status", `"approved"`), nil)
	require.NoError(t, err)
	doc := w.finishedSOW(w.project, []byte("%PDF sow"))
	req, token, err := w.share(doc, 30)
	require.NoError(t, err)
	_, err = w.create(w.sys, "consent-texts", attrs("body", `"Our own words."`), nil), nil
	require.NoError(t, err)

	bad := goodDecision(true)
	bad.Signature, bad.Agreed, bad.Email, bad.Title = "Someone Else", false, "not an email", ""
	_, err = w.svc.Decide(w.ctx, token, bad)
	errs := scopekit.List(err)
	fields := map[string]bool{}
	for _, e := range errs {
		fields[e.Field] = true
	}
	require.Equal(t, map[string]bool{"signature": true, "agree": true, "email": true, "title": true}, fields)

	ev, err := w.svc.Decide(w.ctx, token, goodDecision(true))
	require.NoError(t, err)
	require.Equal(t, "accepted", ev.Str("decision"))
	require.Equal(t, "Jane Client", ev.Str("signer-name"))
	require.Equal(t, "Our own words.", ev.Str("consent-text"))
	require.EqualValues(t, 1, ev.Int("consent-version"))
	require.Equal(t, "203.0.113.7", ev.Str("ip-address"))
	require.Equal(t, req.Str("document-sha256"), ev.Str("document-sha256"))
	require.Equal(t, req.Str("version-digest"), ev.Str("version-digest"))
	require.Equal(t, "won", w.get("projects", w.project).Str("status"))
	require.Equal(t, []string{"draft>approved", "approved>won"}, w.statusEvents("project_status_changed", w.project))
	require.Equal(t, []string{"pending>accepted"}, w.statusEvents("acceptance_status_changed", req.ID))
	vs := w.list("project-versions", map[string]string{"project": w.project})
	require.Equal(t, ev.Str("version-digest"), vs[len(vs)-1].Str("digest"), "the scope accepted is the latest version (no copy of an unchanged scope)")
	require.Equal(t, ev.ID, w.get("project-documents", doc).Rel("acceptance"))
	cert, err := w.svc.Certificate(w.ctx, w.admin, ev.ID)
	require.NoError(t, err)
	require.Equal(t, "%PDF cert", string(cert.Data))
	require.Contains(t, made.Rows, [2]string{"Document SHA-256", req.Str("document-sha256")})
	require.Contains(t, made.Rows, [2]string{"Consent text (version 1)", "Our own words."})

	_, err = w.svc.Decide(w.ctx, token, goodDecision(true))
	wfCode(t, scopekit.ECONFLICT, err) // used once
	_, err = w.svc.AcceptanceLink(w.ctx, token)
	wfCode(t, scopekit.ECONFLICT, err)
	wfCode(t, scopekit.ECONFLICT, w.svc.Delete(w.ctx, w.admin, "project-documents", doc, engine.Options{}))
	wfCode(t, scopekit.ECONFLICT, w.svc.Delete(w.ctx, w.admin, "projects", w.project, engine.Options{}))

	// a decline, an expired and a revoked link, on another project
	p2 := w.approvedProject("Second")
	doc2 := w.finishedSOW(p2, []byte("%PDF two"))
	_, tok2, err := w.share(doc2, 1)
	require.NoError(t, err)
	noComment := goodDecision(false)
	noComment.Comment = ""
	_, err = w.svc.Decide(w.ctx, tok2, noComment)
	wfCode(t, scopekit.EINVALID, err)
	ev2, err := w.svc.Decide(w.ctx, tok2, goodDecision(false))
	require.NoError(t, err)
	require.Equal(t, "declined", ev2.Str("decision"))
	require.Equal(t, "approved", w.get("projects", p2).Str("status"))
	require.Equal(t, "Too dear", w.list("acceptance-requests", map[string]string{"project": p2})[0].Str("decline-comment"))

	r3, tok3, err := w.share(doc2, 1)
	require.NoError(t, err)
	now := w.svc.Now
	w.svc.Now = func() time.Time { return now().Add(25 * time.Hour) }
	_, err = w.svc.Decide(w.ctx, tok3, goodDecision(true))
	wfCode(t, scopekit.ECONFLICT, err)
	require.Contains(t, err.Error(), "expired")
	require.Equal(t, scoping.RequestExpired, w.get("acceptance-requests", r3.ID).Str("status"))
	w.svc.Now = now
	r4, tok4, err := w.share(doc2, 1)
	require.NoError(t, err)
	_, err = w.svc.Revoke(w.ctx, w.admin, r4.ID)
	require.NoError(t, err)
	_, err = w.svc.Decide(w.ctx, tok4, goodDecision(true))
	wfCode(t, scopekit.ECONFLICT, err)
	require.Contains(t, err.Error(), "withdrawn")
	_, err = w.svc.AcceptanceDocument(w.ctx, tok4)
	wfCode(t, scopekit.ECONFLICT, err)
	_, err = w.svc.Revoke(w.ctx, w.admin, r4.ID)
	wfCode(t, scopekit.ECONFLICT, err)
}
