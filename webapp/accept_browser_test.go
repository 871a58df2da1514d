package webapp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure a client accepts a SOW in a real browser: headless Chromium opens
// the link, the page is styled (the workspace's stylesheet under its
// policy) and shows the PDF, a wrong entry shows the problem, the form
// accepts and the project is won; the same link opened again says it was
// used; a form whose hidden fields were changed is refused; an expired
// and a revoked link say so. With SCOPEKIT_AXE, axe-core finds no serious
// accessibility problem on the page.
func TestAcceptInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t, func(e *env) { e.converter = sowPDF })
	pid := e.seeded["acme"].ProjectID
	_, link := e.share(e.approvedSOW(pid), 7)
	w := &walker{t: t, e: e, b: startChromium(t, 90*time.Second)}
	open := func(link string) int64 {
		t.Helper()
		res, err := chromedp.Run(w.b, chromedp.NavigateResponse(link))
		require.NoError(t, err)
		return res.Status
	}

	require.EqualValues(t, http.StatusOK, open(link))
	require.Equal(t, "Accept the statement of work", w.text("#title"))
	require.Equal(t, "rgb(29, 78, 216)", eval[string](w, `getComputedStyle(document.getElementById("accept")).backgroundColor`), "the stylesheet applies")
	require.True(t, strings.HasSuffix(eval[string](w, `document.getElementById("pdf").getAttribute("data")`), "/document.pdf"))
	require.Equal(t, group(at(t, e.pricing("acme", pid), "total_contract_value"))+" USD", w.text("#value"))
	if src := axeSourceIfSet(t); src != nil { // no serious accessibility problem, wide and narrow
		for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
			viewport(t, w.b, size[0], size[1])
			axeCheck(t, w.b, src, "the share link's page")
		}
	}

	require.NoError(t, chromedp.Do(w.b,
		chromedp.SendKeys(chromedp.ID("name"), "Jane Client"),
		chromedp.SendKeys(chromedp.ID("job"), "CTO"),
		chromedp.SendKeys(chromedp.ID("email"), "jane@globex.example"),
		chromedp.SendKeys(chromedp.ID("signature"), "Jane Client")))
	require.EqualValues(t, http.StatusUnprocessableEntity, w.click("#accept"), "I agree is not checked")
	require.Contains(t, w.text("#errors"), "I agree")
	require.Equal(t, "jane@globex.example", eval[string](w, `document.getElementById("email").value`), "what was typed is kept")

	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.ID("agree"))))
	require.EqualValues(t, http.StatusOK, w.click("#accept"))
	require.Contains(t, w.text("#done"), "your acceptance is recorded")
	require.Equal(t, "won", e.apiRecord("acme", "projects", pid)["status"])

	require.EqualValues(t, http.StatusGone, open(link), "a used link")
	require.Contains(t, w.text("#closed"), "accepted already")

	// another approved project for the other cases
	ada := e.actor("acme", "ada@acme.test")
	pid2 := e.create(ada, "projects", map[string]string{"project-name": `"Second"`},
		map[string]engine.Ref{"client": {Type: "clients", ID: e.seeded["acme"].ClientID}})
	doc2 := e.approvedSOW(pid2)
	_, tampered := e.share(doc2, 0)
	require.EqualValues(t, http.StatusOK, open(tampered))
	require.NoError(t, chromedp.Do(w.b,
		chromedp.SendKeys(chromedp.ID("name"), "Jane Client"), chromedp.SendKeys(chromedp.ID("job"), "CTO"),
		chromedp.SendKeys(chromedp.ID("email"), "jane@globex.example"), chromedp.SendKeys(chromedp.ID("signature"), "Jane Client"),
		chromedp.Click(chromedp.ID("agree"))))
	eval[bool](w, `document.querySelector('input[name=form_token]').value = "forged"; true`)
	require.EqualValues(t, http.StatusBadRequest, w.click("#accept"), "a tampered form")
	require.Equal(t, "approved", e.apiRecord("acme", "projects", pid2)["status"], "nothing was recorded")

	revokedID, revoked := e.share(doc2, 0)
	_, err := e.svc.Revoke(context.Background(), ada, revokedID)
	require.NoError(t, err)
	require.EqualValues(t, http.StatusGone, open(revoked))
	require.Contains(t, w.text("#closed"), "withdrawn")

	_, expired := e.share(doc2, 1)
	now := e.svc.Now
	e.svc.Now = func() time.Time { return now().Add(25 * time.Hour) }
	defer func() { e.svc.Now = now }()
	require.EqualValues(t, http.StatusGone, open(expired))
	require.Contains(t, w.text("#closed"), "expired")
}
