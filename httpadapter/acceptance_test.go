package httpadapter_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/acceptpage"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/require"
)

// sowPDF is the PDF the tests' converter makes: a real one (of the
// certificate writer), so that a browser shows it.
var sowPDF = func() []byte {
	b, err := documents.CertificatePDF("Statement of Work", [][2]string{{"Project", "Globex firewall refresh"}, {"Total", "10,794.25 USD"}})
	if err != nil {
		panic(err)
	}
	return b
}()

// fixedConverter converts everything to sowPDF.
type fixedConverter struct{}

func (fixedConverter) ToPDF(context.Context, []byte) ([]byte, error) { return bytes.Clone(sowPDF), nil }

// logBuffer is a log sink safe for the server's goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

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

// linkPage GETs a link's page (or anything under it) without a token.
func linkPage(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

var formToken = regexp.MustCompile(`name="form_token" value="([^"]+)"`)
var shaField = regexp.MustCompile(`name="document_sha256" value="([^"]+)"`)

// decideForm posts a link's form with the page's hidden fields and vals.
func decideForm(t *testing.T, link string, vals url.Values) (int, string) {
	t.Helper()
	_, body := linkPage(t, link)
	if m := formToken.FindStringSubmatch(body); m != nil && vals.Get("form_token") == "" {
		vals.Set("form_token", m[1])
	}
	if m := shaField.FindStringSubmatch(body); m != nil && vals.Get("document_sha256") == "" {
		vals.Set("document_sha256", m[1])
	}
	jar, _ := cookiejar.New(nil)
	res, err := (&http.Client{Jar: jar}).PostForm(link, vals)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func accepting() url.Values {
	return url.Values{"decision": {"accept"}, "name": {"Jane Client"}, "title": {"CTO"}, "email": {"jane@globex.example"},
		"signature": {"Jane Client"}, "agree": {"yes"}}
}

// Ensure the share link over HTTP: the url shown once (not on a read),
// the public page (no sign-in) with the price summary, the consent text
// and the frozen PDF, the decision recorded as evidence that documents
// view reads, a certificate, the project won; the link refused once used,
// and when revoked, expired, tampered or made up; the token in no log
// line; the routes guarded (a Read Only user cannot share or revoke).
func TestAcceptanceHTTP(t *testing.T) {
	logs := &logBuffer{}
	e := mustEnv(t, func(e *testEnv) { e.converter, e.logs = fixedConverter{}, logs })
	require.Equal(t, acceptpage.Path, httpadapter.AcceptPath)
	tok := e.admin()
	readOnly := e.token("acme", "ro@acme.test", "Read Only")
	pid, docID, reqID, link := e.sharedSOW(tok)
	require.True(t, strings.HasPrefix(link, e.srv.URL+"/app/accept/"), link)
	token := strings.TrimPrefix(link, e.srv.URL+"/app/accept/")
	req := e.get("/acme/v1/acceptance-requests/"+reqID, tok)
	require.Nil(t, req.attr("url"), "the url is shown once")
	require.NotContains(t, string(req.Body), token)
	sum := sha256.Sum256(sowPDF)
	require.Equal(t, hex.EncodeToString(sum[:]), req.attr("document-sha256"))
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", readOnly, "").Status)
	require.Equal(t, http.StatusBadRequest, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":"x"}}`).Status)
	assertError(t, e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":400}}`), http.StatusUnprocessableEntity, "")

	status, body := linkPage(t, link)
	require.Equal(t, http.StatusOK, status)
	for _, want := range []string{"Accept the statement of work", "Globex firewall refresh", "USD", "Consent text version 0", `id="pdf"`} {
		require.Contains(t, body, want)
	}
	status, pdf := linkPage(t, link+"/document.pdf")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, string(sowPDF), pdf)

	// entries checked: the page again, with the problems and what was typed
	bad := accepting()
	bad.Set("signature", "Someone else")
	bad.Del("agree")
	status, body = decideForm(t, link, bad)
	require.Equal(t, http.StatusUnprocessableEntity, status)
	require.Contains(t, body, "type your full name as your signature")
	require.Contains(t, body, `value="Jane Client"`)
	// a tampered form
	tampered := accepting()
	tampered.Set("form_token", "forged")
	status, _ = decideForm(t, link, tampered)
	require.Equal(t, http.StatusBadRequest, status)
	tampered = accepting()
	tampered.Set("decision", "approve-all")
	status, _ = decideForm(t, link, tampered)
	require.Equal(t, http.StatusBadRequest, status)
	tampered = accepting()
	tampered.Set("document_sha256", strings.Repeat("0", 64))
	status, _ = decideForm(t, link, tampered)
	require.Equal(t, http.StatusConflict, status)

	status, body = decideForm(t, link, accepting())
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "your acceptance is recorded")
	require.Equal(t, "won", e.get("/acme/v1/projects/"+pid, tok).attr("status"))
	req = e.get("/acme/v1/acceptance-requests/"+reqID, tok)
	require.Equal(t, "accepted", req.attr("status"))
	ev := e.get("/acme/v1/acceptances/"+req.rel("acceptance"), readOnly)
	require.Equal(t, http.StatusOK, ev.Status, "documents view reads the evidence")
	require.Equal(t, "Jane Client", ev.attr("signer-name"))
	require.Equal(t, "127.0.0.1", ev.attr("ip-address"))
	require.Equal(t, "Go-http-client/1.1", ev.attr("user-agent"))
	require.Equal(t, req.attr("document-sha256"), ev.attr("document-sha256"))
	cert := e.download("/acme/v1/acceptances/"+req.rel("acceptance")+"/certificate", tok)
	require.Equal(t, http.StatusOK, cert.Status)
	require.True(t, bytes.HasPrefix(cert.Body, []byte("%PDF")))
	require.Equal(t, req.rel("acceptance"), e.get("/acme/v1/project-documents/"+docID, tok).rel("acceptance"))
	require.Equal(t, http.StatusConflict, e.req(http.MethodDelete, "/acme/v1/project-documents/"+docID, tok, "").Status)

	status, body = decideForm(t, link, accepting())
	require.Equal(t, http.StatusGone, status, "a used link")
	require.Contains(t, body, "accepted already")
	status, _ = linkPage(t, e.srv.URL+"/app/accept/"+token[:len(token)-4]+"AAAA")
	require.Equal(t, http.StatusNotFound, status, "a made-up token")
	status, _ = linkPage(t, e.srv.URL+"/app/accept/nonsense")
	require.Equal(t, http.StatusNotFound, status)
	_, rest, _ := strings.Cut(token, ".")
	status, _ = linkPage(t, e.srv.URL+"/app/accept/"+e.accts["globex"]+"."+rest)
	require.Equal(t, http.StatusNotFound, status, "acme's link under globex's account finds nothing")

	// revoked
	r := e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, "")
	require.Equal(t, http.StatusConflict, r.Status, "a won project's SOW is not shared again")
	require.NotContains(t, logs.String(), token[strings.LastIndex(token, ".")+1:], "the token is never logged")
	require.Contains(t, logs.String(), "/app/accept/")
}

// Ensure revoked and expired links refuse, and that posts to one link and
// requests from one address are throttled (429 with Retry-After).
func TestAcceptanceLinksClosedAndThrottled(t *testing.T) {
	e := mustEnv(t, func(e *testEnv) { e.converter, e.acceptRate = fixedConverter{}, 3 })
	tok := e.admin()
	_, docID, reqID, link := e.sharedSOW(tok)
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/acceptance-requests/"+reqID+"/revoke", e.token("acme", "ro@acme.test", "Read Only"), "").Status)
	r := e.req(http.MethodPost, "/acme/v1/acceptance-requests/"+reqID+"/revoke", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "revoked", r.attr("status"))
	status, body := linkPage(t, link)
	require.Equal(t, http.StatusGone, status)
	require.Contains(t, body, "withdrawn")

	r = e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, `{"meta":{"expires-in":1}}`)
	require.Equal(t, http.StatusCreated, r.Status)
	link = r.attr("url").(string)
	now := e.svc.Now
	e.svc.Now = func() time.Time { return now().Add(49 * time.Hour) }
	status, body = linkPage(t, link)
	require.Equal(t, http.StatusGone, status)
	require.Contains(t, body, "expired")
	e.svc.Now = now

	r = e.req(http.MethodPost, "/acme/v1/project-documents/"+docID+"/share", tok, "")
	link = r.attr("url").(string)
	var codes []int
	for range 5 {
		res, err := http.PostForm(link, url.Values{"decision": {"accept"}})
		require.NoError(t, err)
		res.Body.Close()
		codes = append(codes, res.StatusCode)
	}
	require.Contains(t, codes, http.StatusTooManyRequests, "%v", codes)
	require.Equal(t, http.StatusBadRequest, codes[0])
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
