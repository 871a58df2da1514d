package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Ensure a client accepts a SOW in a real browser: headless Chromium opens
// the link, the page is styled (its own stylesheet under the CSP) and
// shows the PDF, a wrong entry shows the problem, the form accepts and
// the project is won; the same link opened again says it was used; a
// form whose hidden fields were changed is refused; an expired and a
// revoked link say so.
func TestAcceptanceInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := mustEnv(t, func(e *testEnv) { e.converter = fixedConverter{} })
	tok := e.admin()
	pid, docID, _, link := e.sharedSOW(tok)
	browser := startChromium(t, 90*time.Second)

	res, err := chromedp.Run(browser, chromedp.NavigateResponse(link))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusOK, res.Status)
	title, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("title")))
	require.NoError(t, err)
	require.Equal(t, "Accept the statement of work", title)
	color, err := chromedp.Run(browser, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("accept")).backgroundColor`))
	require.NoError(t, err)
	require.Equal(t, "rgb(29, 78, 216)", color, "the stylesheet applies")
	data, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.getElementById("pdf").getAttribute("data")`))
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(data, "/document.pdf"), data)
	value, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("value")))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(e.get("/acme/v1/projects/"+pid, tok).attr("contract-revenue").(string)), strings.ReplaceAll(strings.TrimSuffix(value, " USD"), ",", ""))
	if shot, err := chromedp.Run(browser, chromedp.FullScreenshot(100)); err == nil {
		keepFile(t, "accept-page.png", shot)
	}

	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("name"), "Jane Client"),
		chromedp.SendKeys(chromedp.ID("job"), "CTO"),
		chromedp.SendKeys(chromedp.ID("email"), "jane@globex.example"),
		chromedp.SendKeys(chromedp.ID("signature"), "Jane Client")))
	status, _ := click(t, browser, chromedp.ID("accept"))
	require.EqualValues(t, http.StatusUnprocessableEntity, status, "I agree is not checked")
	problem, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("errors")))
	require.NoError(t, err)
	require.Contains(t, problem, "I agree")
	kept, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.getElementById("email").value`))
	require.NoError(t, err)
	require.Equal(t, "jane@globex.example", kept, "what was typed is kept")

	require.NoError(t, chromedp.Do(browser, chromedp.Click(chromedp.ID("agree"))))
	status, _ = click(t, browser, chromedp.ID("accept"))
	require.EqualValues(t, http.StatusOK, status)
	done, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("done")))
	require.NoError(t, err)
	require.Contains(t, done, "your acceptance is recorded")
	require.Equal(t, "won", e.get("/acme/v1/projects/"+pid, tok).attr("status"))
	ev := e.get("/acme/v1/acceptances?filter[project]="+pid, tok).list()
	require.Len(t, ev, 1)
	require.Contains(t, ev[0]["attributes"].(map[string]any)["user-agent"], "HeadlessChrome")

	res, err = chromedp.Run(browser, chromedp.NavigateResponse(link))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusGone, res.Status, "a used link")
	closed, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("closed")))
	require.NoError(t, err)
	require.Contains(t, closed, "accepted already")

	// a second project for the other cases
	pid2 := e.create("/acme/v1/projects", tok, "projects", `{"project-name":"Second"}`, "client", "clients", e.get("/acme/v1/clients", tok).ids()[0])
	e.patch("/acme/v1/projects/"+pid2, tok, "projects", pid2, `{"status":"approved"}`)
	doc2 := e.generate("/acme/v1", tok, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", pid2,
		"document-template", "document-templates", e.standardSOW(tok))
	e.await("/acme/v1", tok, doc2)
	share := func(body string) (string, string) {
		r := e.req(http.MethodPost, "/acme/v1/project-documents/"+doc2+"/share", tok, body)
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.data()["id"].(string), r.attr("url").(string)
	}
	_, tamperLink := share("")
	_, err = chromedp.Run(browser, chromedp.NavigateResponse(tamperLink))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("name"), "Jane Client"), chromedp.SendKeys(chromedp.ID("job"), "CTO"),
		chromedp.SendKeys(chromedp.ID("email"), "jane@globex.example"), chromedp.SendKeys(chromedp.ID("signature"), "Jane Client"),
		chromedp.Click(chromedp.ID("agree"))))
	_, err = chromedp.Run(browser, chromedp.Evaluate[bool](`document.querySelector('input[name=form_token]').value = "forged"; true`))
	require.NoError(t, err)
	status, _ = click(t, browser, chromedp.ID("accept"))
	require.EqualValues(t, http.StatusBadRequest, status, "a tampered form")
	require.Equal(t, "approved", e.get("/acme/v1/projects/"+pid2, tok).attr("status"), "nothing was recorded")

	revokedID, revokedLink := share("")
	require.Equal(t, http.StatusOK, e.req(http.MethodPost, "/acme/v1/acceptance-requests/"+revokedID+"/revoke", tok, "").Status)
	res, err = chromedp.Run(browser, chromedp.NavigateResponse(revokedLink))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusGone, res.Status)
	closed, err = chromedp.Run(browser, chromedp.Text(chromedp.ID("closed")))
	require.NoError(t, err)
	require.Contains(t, closed, "withdrawn")

	_, expiredLink := share(`{"meta":{"expires-in":1}}`)
	now := e.svc.Now
	e.svc.Now = func() time.Time { return now().Add(25 * time.Hour) }
	defer func() { e.svc.Now = now }()
	res, err = chromedp.Run(browser, chromedp.NavigateResponse(expiredLink))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusGone, res.Status)
	closed, err = chromedp.Run(browser, chromedp.Text(chromedp.ID("closed")))
	require.NoError(t, err)
	require.Contains(t, closed, "expired")
	_ = docID
}
