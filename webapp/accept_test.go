package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/scopekit/scopekit/webapp"
	"github.com/stretchr/testify/require"
)

// sowPDF is the PDF the acceptance tests' documents get: a real one (of
// the certificate writer), so that a browser shows it.
var sowPDF = func() officetest.Fixed {
	b, err := documents.CertificatePDF("Statement of Work", [][2]string{{"Project", "Globex firewall refresh"}})
	if err != nil {
		panic(err)
	}
	return b
}()

// approvedSOW approves a project of acme (no approval level applies)
// and generates its SOW with a PDF: the document's id.
func (e *env) approvedSOW(pid string) string {
	e.t.Helper()
	ctx := context.Background()
	ada := e.actor("acme", "ada@acme.test")
	_, err := e.svc.Submit(ctx, ada, pid)
	require.NoError(e.t, err)
	doc := e.create(ada, "project-documents", map[string]string{"document-type": `"sow"`, "generate-pdf": "true"},
		map[string]engine.Ref{"project": {Type: "projects", ID: pid}, "document-template": {Type: "document-templates", ID: e.standardSOW(ada)}})
	require.Eventually(e.t, func() bool {
		res, err := e.svc.Get(ctx, ada, "project-documents", doc, engine.ListParams{}, engine.Options{})
		return err == nil && res.Records[0].Str("status") == "finished"
	}, 60*time.Second, 50*time.Millisecond)
	return doc
}

// share makes a share link of a document as acme's admin: the request's
// id and the link's URL.
func (e *env) share(docID string, days int) (string, string) {
	e.t.Helper()
	res, token, err := e.svc.Share(context.Background(), e.actor("acme", "ada@acme.test"), docID, days)
	require.NoError(e.t, err)
	return res.Records[0].ID, e.srv.URL + webapp.AcceptPath + token
}

// decideForm posts a link's form with the page's hidden fields and vals.
func (b *browser) decideForm(link string, vals url.Values) *page {
	b.e.t.Helper()
	for k, v := range b.get(link).hidden() {
		if vals.Get(k) == "" {
			vals[k] = v
		}
	}
	return b.post(strings.TrimPrefix(link, b.e.srv.URL), vals, false)
}

func accepting() url.Values {
	return url.Values{"decision": {"accept"}, "name": {"Jane Client"}, "title": {"CTO"}, "email": {"jane@globex.example"},
		"signature": {"Jane Client"}, "agree": {"yes"}}
}

// Ensure a share link's public page: no sign-in, the workspace's
// stylesheet under its policy (plus the PDF in the page, no referrer),
// the price summary to the cent of the pricing endpoint, the consent text
// and the frozen PDF; entries checked with the problems shown and what
// was typed kept; a changed form refused; the acceptance recorded with
// its evidence and the project won; the link refused once used, made up,
// or under another account; the token in no log line.
func TestAcceptPage(t *testing.T) {
	e := newEnv(t, func(e *env) { e.converter = sowPDF })
	logs := e.logged
	pid := e.seeded["acme"].ProjectID
	doc := e.approvedSOW(pid)
	reqID, link := e.share(doc, 7)
	token := strings.TrimPrefix(link, e.srv.URL+webapp.AcceptPath)
	b := e.browser()

	p := b.get(link)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	for _, want := range []string{"Accept the statement of work", "Globex firewall refresh", "Consent text version 0", `id="pdf"`, "/app/static/"} {
		require.Contains(t, p.Body, want)
	}
	csp := p.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'self'"} {
		require.Contains(t, csp, want)
	}
	require.Equal(t, "no-referrer", p.Header.Get("Referrer-Policy"))
	require.Equal(t, "no-store", p.Header.Get("Cache-Control"))
	require.Contains(t, p.Body, `id="value">`+group(at(t, e.pricing("acme", pid), "total_contract_value"))+" USD<", "the pricing endpoint's figure")
	pdf := b.get(link + "/document.pdf")
	require.Equal(t, http.StatusOK, pdf.Status)
	require.Equal(t, string(sowPDF), pdf.Body)
	require.Equal(t, "application/pdf", pdf.Header.Get("Content-Type"))
	require.Contains(t, b.get(link+"/document.pdf?download=1").Header.Get("Content-Disposition"), "attachment")
	require.Equal(t, http.StatusNotFound, b.get(link+"/other").Status)

	// entries checked: the page again, with the problems and what was typed
	bad := accepting()
	bad.Set("signature", "Someone else")
	bad.Del("agree")
	p = b.decideForm(link, bad)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status)
	require.Contains(t, p.Body, "type your full name as your signature")
	require.Contains(t, p.Body, `value="Jane Client"`)
	// a changed form
	for field, value := range map[string]string{"form_token": "forged", "decision": "approve-all"} {
		f := accepting()
		f.Set(field, value)
		require.Equal(t, http.StatusBadRequest, b.decideForm(link, f).Status, field)
	}
	f := accepting()
	f.Set("document_sha256", strings.Repeat("0", 64))
	require.Equal(t, http.StatusConflict, b.decideForm(link, f).Status)
	require.Equal(t, "approved", e.apiRecord("acme", "projects", pid)["status"], "nothing was recorded")

	p = b.decideForm(link, accepting())
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "your acceptance is recorded")
	require.Equal(t, "won", e.apiRecord("acme", "projects", pid)["status"])
	req := e.apiRecord("acme", "acceptance-requests", reqID)
	require.Equal(t, "accepted", req["status"])
	ev, err := e.svc.List(context.Background(), e.actor("acme", "ron@acme.test"), "acceptances", engine.ListParams{PageSize: 10, PageNumber: 1}, engine.Options{})
	require.NoError(t, err, "documents view reads the evidence")
	require.Len(t, ev.Records, 1)
	require.Equal(t, "Jane Client", ev.Records[0].Str("signer-name"))
	require.Equal(t, "127.0.0.1", ev.Records[0].Str("ip-address"))
	require.Equal(t, "Go-http-client/1.1", ev.Records[0].Str("user-agent"))
	require.Equal(t, req["document-sha256"], ev.Records[0].Str("document-sha256"))

	p = b.decideForm(link, accepting())
	require.Equal(t, http.StatusGone, p.Status, "a used link")
	require.Contains(t, p.Body, "accepted already")
	require.Equal(t, http.StatusNotFound, b.get(link[:len(link)-4]+"AAAA").Status, "a made-up token")
	require.Equal(t, http.StatusNotFound, b.get(webapp.AcceptPath+"nonsense").Status)
	_, rest, _ := strings.Cut(token, ".")
	require.Equal(t, http.StatusNotFound, b.get(webapp.AcceptPath+e.accts["globex"]+"."+rest).Status,
		"acme's link under globex's account finds nothing")
	require.Equal(t, http.StatusMethodNotAllowed, b.do(mustRequest(t, http.MethodDelete, link)).Status)

	require.NotContains(t, logs.String(), token[strings.LastIndex(token, ".")+1:], "the token is never logged")
	require.Contains(t, logs.String(), "route=/app/", "the access log names the mount")
}

// Ensure revoked and expired links say so (410), and that posts to one
// link and requests from one address are throttled (429 with
// Retry-After).
func TestAcceptLinksClosedAndThrottled(t *testing.T) {
	e := newEnv(t, func(e *env) { e.converter, e.acceptRate = sowPDF, 3 })
	doc := e.approvedSOW(e.seeded["acme"].ProjectID)
	ada := e.actor("acme", "ada@acme.test")
	b := e.browser()

	reqID, link := e.share(doc, 0)
	_, err := e.svc.Revoke(context.Background(), ada, reqID)
	require.NoError(t, err)
	p := b.get(link)
	require.Equal(t, http.StatusGone, p.Status)
	require.Contains(t, p.Body, "withdrawn")

	_, link = e.share(doc, 1)
	now := e.svc.Now
	e.svc.Now = func() time.Time { return now().Add(49 * time.Hour) }
	p = b.get(link)
	e.svc.Now = now
	require.Equal(t, http.StatusGone, p.Status)
	require.Contains(t, p.Body, "expired")

	_, link = e.share(doc, 0)
	var codes []int
	for range 5 {
		p = b.post(strings.TrimPrefix(link, e.srv.URL), url.Values{"decision": {"accept"}}, false)
		codes = append(codes, p.Status)
	}
	require.Equal(t, http.StatusBadRequest, codes[0], "a form without its token")
	require.Contains(t, codes, http.StatusTooManyRequests, "%v", codes)
	require.Equal(t, "60", p.Header.Get("Retry-After"))
	// the address's budget (4 times the link's) runs out for its pages too
	for range 12 {
		p = b.get(link)
	}
	require.Equal(t, http.StatusTooManyRequests, p.Status)
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	require.NoError(t, err)
	return r
}
