package httpadapter_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// sowPDF is the PDF the tests' documents get: a real one, of the
// certificate writer.
var sowPDF = func() officetest.Fixed {
	b, err := documents.CertificatePDF("Statement of Work", [][2]string{{"Project", "Globex firewall refresh"}, {"Total", "10,794.25 USD"}})
	if err != nil {
		panic(err)
	}
	return b
}()

// sharedSOW makes acme's demo project approved, generates its SOW with a
// PDF and shares it: the acceptance request and its link.
func (e *testEnv) sharedSOW(tok string) (pid, docID, reqID, link string) {
	e.t.Helper()
	pid = e.demoProject()
	e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"approved"}`)
	docID = e.generate("/acme/v1", tok, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", pid,
		"document-template", "document-templates", e.standardSOW(tok))
	r := e.await("/acme/v1", tok, docID)
	require.Equal(e.t, "finished", r.attr("status"), "%s", r.Body)
	r = e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":7}}`)
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return pid, docID, r.data()["id"].(string), r.attr("url").(string)
}

// decide records a client's decision on the link of url through the
// domain, as the workspace's public page does (webapp/accept_test.go
// drives the page itself).
func (e *testEnv) decide(url string, d scoping.Decision) error {
	e.t.Helper()
	_, token, ok := strings.Cut(url, httpadapter.AcceptPath)
	require.True(e.t, ok, url)
	_, err := e.svc.Decide(context.Background(), token, d)
	return err
}

func accepting() scoping.Decision {
	return scoping.Decision{Accept: true, Name: "Jane Client", Title: "CTO", Email: "jane@globex.example", Signature: "Jane Client",
		Agreed: true, IP: "192.0.2.7", UserAgent: "Test agent"}
}

// Ensure the share link over HTTP: the url (on the workspace's public
// pages) shown once, not on a read; the frozen PDF's digest; the
// decision's evidence, which documents view reads, with its certificate;
// the project won and its accepted document kept; a used link refused; the
// token in no log line; the routes guarded (a Read Only user cannot share
// or revoke) and their input checked.
func TestAcceptanceHTTP(t *testing.T) {
	logs := &oauthSyncBuffer{}
	e := mustEnv(t, func(e *testEnv) { e.converter, e.logs = officetest.Fixed(sowPDF), logs })
	require.Equal(t, "/app/accept/", httpadapter.AcceptPath)
	tok := e.admin()
	readOnly := e.token("acme", "ro@acme.test", "Read Only")
	pid, docID, reqID, link := e.sharedSOW(tok)
	require.True(t, strings.HasPrefix(link, e.srv.URL+httpadapter.AcceptPath), link)
	token := strings.TrimPrefix(link, e.srv.URL+httpadapter.AcceptPath)
	req := e.get("/acme/v1/acceptance-requests/"+reqID, tok)
	require.Nil(t, req.attr("url"), "the url is shown once")
	require.NotContains(t, string(req.Body), token)
	sum := sha256.Sum256(sowPDF)
	require.Equal(t, hex.EncodeToString(sum[:]), req.attr("document-sha256"))
	require.Equal(t, "pending", req.attr("status"))
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", readOnly, "").Status)
	require.Equal(t, http.StatusBadRequest, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":"x"}}`).Status)
	assertError(t, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":400}}`), http.StatusUnprocessableEntity, "")

	require.NoError(t, e.decide(link, accepting()))
	require.Equal(t, "won", e.get("/acme/v1/projects/"+pid, tok).attr("status"))
	req = e.get("/acme/v1/acceptance-requests/"+reqID, tok)
	require.Equal(t, "accepted", req.attr("status"))
	ev := e.get("/acme/v1/acceptances/"+req.rel("acceptance"), readOnly)
	require.Equal(t, http.StatusOK, ev.Status, "documents view reads the evidence")
	require.Equal(t, "Jane Client", ev.attr("signer-name"))
	require.Equal(t, "192.0.2.7", ev.attr("ip-address"))
	require.Equal(t, "Test agent", ev.attr("user-agent"))
	require.Equal(t, req.attr("document-sha256"), ev.attr("document-sha256"))
	cert := e.download("/acme/v1/acceptances/"+req.rel("acceptance")+"/certificate", tok)
	require.Equal(t, http.StatusOK, cert.Status)
	require.True(t, bytes.HasPrefix(cert.Body, []byte("%PDF")))
	require.Equal(t, req.rel("acceptance"), e.get("/acme/v1/project-documents/"+docID, tok).rel("acceptance"))
	require.Equal(t, http.StatusConflict, e.req(http.MethodDelete, "/acme/v1/project-documents/"+docID, tok, "").Status)
	require.Equal(t, http.StatusConflict, e.req(http.MethodDelete, "/acme/v1/projects/"+pid, tok, "").Status, "evidence is kept")
	require.Error(t, e.decide(link, accepting()), "a used link")

	r := e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, "")
	require.Equal(t, http.StatusConflict, r.Status, "a won project's SOW is not shared again")
	require.NotContains(t, logs.String(), token[strings.LastIndex(token, ".")+1:], "the token is never logged")
}

// Ensure a request is revoked over HTTP (documents manage; a Read Only
// user is refused), after which its link decides nothing.
func TestAcceptanceRevoke(t *testing.T) {
	e := mustEnv(t, func(e *testEnv) { e.converter = officetest.Fixed(sowPDF) })
	tok := e.admin()
	pid, _, reqID, link := e.sharedSOW(tok)
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/acceptance-requests/"+reqID+"/revoke", e.token("acme", "ro@acme.test", "Read Only"), "").Status)
	r := e.req(http.MethodPost, "/acme/v1/acceptance-requests/"+reqID+"/revoke", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "revoked", r.attr("status"))
	err := e.decide(link, accepting())
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "%v", err)
	require.Contains(t, err.Error(), "withdrawn")
	require.Equal(t, "approved", e.get("/acme/v1/projects/"+pid, tok).attr("status"))
}

// Ensure the account setting watermark-drafts: off by default; on, a
// draft project's SOW is marked DRAFT and an approved one's is not; only
// settings manage turns it on.
func TestWatermarkDrafts(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	require.NotEqual(t, true, e.get("/acme/v1/account", tok).attr("watermark-drafts"), "off by default")
	r := e.req(http.MethodPatch, "/acme/v1/account", e.token("acme", "sales@acme.test", "Sales"), doc("accounts", e.accts["acme"], `{"watermark-drafts":true}`))
	require.Equal(t, http.StatusForbidden, r.Status)
	r = e.req(http.MethodPatch, "/acme/v1/account", tok, doc("accounts", e.accts["acme"], `{"watermark-drafts":"yes"}`))
	require.Equal(t, http.StatusBadRequest, r.Status)
	r = e.req(http.MethodPatch, "/acme/v1/account", tok, doc("accounts", e.accts["acme"], `{"watermark-drafts":true}`))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, true, r.attr("watermark-drafts"))
	pid := e.demoProject()
	sow := func() string {
		id := e.generate("/acme/v1", tok, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", e.standardSOW(tok))
		require.Equal(t, "finished", e.await("/acme/v1", tok, id).attr("status"))
		return string(e.download("/acme/v1/project-documents/"+id+"/download", tok).Body)
	}
	require.Contains(t, sow(), "word/header_scopekit_draft.xml", "a draft's SOW is marked")
	e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"approved"}`)
	require.NotContains(t, sow(), "word/header_scopekit_draft.xml", "an approved project's is not")
}
