package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Ensure two-step verification works in a real browser: headless
// Chromium sets up a second factor from the login form (the QR code
// shows: the page's CSP lets its data: image through), signs in with the
// authenticator's code, is refused a wrong code, a replayed code and a
// used recovery code, signs in once with each recovery code, and, once
// the account requires a second factor and the user's was reset, is taken
// to the enrolment page without asking.
func TestMFAInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	me := mustMFAEnv(t, nil)
	conf, got := me.browserPortal()
	callback := conf.RedirectURL
	browser := startChromium(t, 120*time.Second)

	text := func(id string) string {
		t.Helper()
		v, err := chromedp.Run(browser, chromedp.Text(chromedp.ID(id)))
		require.NoError(t, err)
		return v
	}
	// submit clicks the page's button and returns the status of the page
	// the browser lands on
	submit := func() int64 {
		t.Helper()
		res, err := chromedp.RunResponse(browser, chromedp.Click(chromedp.ID("submit")))
		require.NoError(t, err)
		return res.Status
	}
	// password opens the login page and signs in with the password
	password := func(setUp bool) {
		t.Helper()
		res, err := chromedp.Run(browser, chromedp.NavigateResponse(conf.AuthCodeURL("mfa state")))
		require.NoError(t, err)
		require.EqualValues(t, http.StatusOK, res.Status)
		require.NoError(t, chromedp.Do(browser,
			chromedp.SendKeys(chromedp.ID("email"), aeAdaEmail),
			chromedp.SendKeys(chromedp.ID("password"), aePassword)))
		if setUp {
			require.NoError(t, chromedp.Do(browser, chromedp.Click(chromedp.ID("mfa_setup"))))
		}
		require.EqualValues(t, http.StatusOK, submit(), "the second step's page")
		title, err := chromedp.Run(browser, chromedp.Title())
		require.NoError(t, err)
		require.Equal(t, "Two-step verification · ScopeKit", title)
	}
	// code types a code into the second step's form and submits it
	code := func(c string) int64 {
		t.Helper()
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("mfa_code"), c)))
		return submit()
	}
	refused := func(c string) {
		t.Helper()
		require.EqualValues(t, http.StatusBadRequest, code(c), c)
		require.Contains(t, text("error"), "not right")
	}
	// signedIn checks the browser is at the callback, and that the code it
	// brought signs in (x/oauth2)
	signedIn := func(status int64) {
		t.Helper()
		require.EqualValues(t, http.StatusOK, status)
		loc, err := chromedp.Run(browser, chromedp.Location())
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(loc, callback+"?"), loc)
		q := receive(t, got)
		require.Equal(t, "mfa state", q.Get("state"))
		tok, err := conf.Exchange(me.ctx(), q.Get("code"))
		require.NoError(t, err)
		require.Equal(t, me.adaID, me.meAs(t, tok.AccessToken))
	}
	// enrolmentPage reads the key and the recovery codes, and checks the
	// QR code was drawn
	enrolmentPage := func() (secret string, recovery []string) {
		t.Helper()
		width, err := chromedp.Run(browser, chromedp.Evaluate[int](`document.getElementById("qr").naturalWidth`))
		require.NoError(t, err)
		require.Equal(t, 200, width, "the QR code image loaded")
		recovery, err = chromedp.Run(browser, chromedp.Evaluate[[]string](
			`Array.from(document.querySelectorAll("#recovery-codes code"), c => c.textContent)`))
		require.NoError(t, err)
		require.Len(t, recovery, 10)
		return strings.ReplaceAll(text("secret"), " ", ""), recovery
	}

	// set up from the login form's checkbox; a wrong code first
	password(true)
	secret, recovery := enrolmentPage()
	refused("000000")
	_, again := enrolmentPage()
	require.Equal(t, recovery, again, "the same recovery codes")
	signedIn(code(me.code(secret, -1)))

	// sign in with the code; not with it twice
	password(false)
	require.Contains(t, text("app-name"), "Acme Portal")
	now := me.code(secret, 0)
	signedIn(code(now))
	password(false)
	refused(now)
	signedIn(code(recovery[0]))
	password(false)
	refused(recovery[0])
	signedIn(code(recovery[1]))

	// required for all: after a reset the next sign-in sets a second
	// factor up, unasked
	admin := me.admin()
	require.Equal(t, http.StatusNoContent, me.req(http.MethodPost, "/acme/v1/users/"+me.adaID+"/reset-mfa", admin, "").Status)
	me.patch("/acme/v1/account", admin, "accounts", me.accts["acme"], `{"mfa-required":true}`)
	password(false)
	secret, _ = enrolmentPage()
	signedIn(code(me.code(secret, 0)))
}
