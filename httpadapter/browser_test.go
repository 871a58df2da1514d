package httpadapter_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/internal/chromiumtest"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// Ensure the authorization code flow works in a real browser: headless
// Chromium opens the login page, a wrong password shows the form's error,
// the right one lands on a local callback server, and the code it
// receives is exchanged (with PKCE) through x/oauth2 for a working token.
func TestAuthorizationCodeInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	ae := mustAuthEnv(t, nil)

	conf, got := ae.browserPortal()
	callback := conf.RedirectURL
	verifier := oauth2.GenerateVerifier()
	const state = "browser state/42"
	authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))

	browser := startChromium(t, 90*time.Second)

	res, err := chromedp.Run(browser, chromedp.NavigateResponse(authURL))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusOK, res.Status)
	title, err := chromedp.Run(browser, chromedp.Title())
	require.NoError(t, err)
	require.Equal(t, "Sign in · ScopeKit", title)
	app, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("app-name")))
	require.NoError(t, err)
	require.Equal(t, "Acme Portal", app)
	// the style is applied: the CSP lets the page's nonce through
	color, err := chromedp.Run(browser, chromedp.Evaluate[string](`getComputedStyle(document.getElementById("submit")).backgroundColor`))
	require.NoError(t, err)
	require.Equal(t, "rgb(37, 99, 235)", color)

	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("email"), aeAdaEmail),
		chromedp.SendKeys(chromedp.ID("password"), "not the password")))
	res, err = chromedp.RunResponse(browser, chromedp.Click(chromedp.ID("submit")))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusBadRequest, res.Status)
	msg, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("error")))
	require.NoError(t, err)
	require.Contains(t, msg, "incorrect")
	email, err := chromedp.Run(browser, chromedp.Evaluate[string](`document.getElementById("email").value`))
	require.NoError(t, err)
	require.Equal(t, aeAdaEmail, email, "the form keeps the email")

	require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("password"), aePassword)))
	status, loc := click(t, browser, chromedp.ID("submit"))
	require.EqualValues(t, http.StatusOK, status)
	require.True(t, strings.HasPrefix(loc, callback+"?"), loc)
	done, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("done")))
	require.NoError(t, err)
	require.Equal(t, "Signed in.", done)

	q := receive(t, got)
	require.Equal(t, state, q.Get("state"))
	require.NotEmpty(t, q.Get("code"))
	tok, err := conf.Exchange(ae.ctx(), q.Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.Empty(t, tok.RefreshToken)
	require.Equal(t, ae.adaID, ae.meAs(t, tok.AccessToken))
	_, err = conf.Exchange(ae.ctx(), q.Get("code"), oauth2.VerifierOption(verifier))
	grantErr(t, err, "invalid_grant")
}

// browserPortal is acme's application as the browser tests use it: its
// redirect URI is a callback server's (startAppCallback), whose requests'
// queries go to got.
func (ae *authEnv) browserPortal() (conf *oauth2.Config, got <-chan url.Values) {
	ae.t.Helper()
	callback, got := startAppCallback(ae.t)
	require.NoError(ae.t, ae.auth.RegisterApplication(context.Background(), ae.accts["acme"], "Acme Portal", aePortalID, aePortalSecret,
		[]string{aeCallback, callback}))
	conf = ae.portal(oauth2.AuthStyleInHeader)
	conf.RedirectURL = callback
	return conf, got
}

// startAppCallback runs the client application's callback on the
// loopback interface until the test ends; it returns its URL and the
// queries it receives (the first unread one is kept).
func startAppCallback(t *testing.T) (string, <-chan url.Values) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	got := make(chan url.Values, 1)
	cb := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		select {
		case got <- r.URL.Query():
		default:
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><title>Callback</title><p id="done">Signed in.</p>`)
	})}
	go func() { _ = cb.Serve(ln) }()
	t.Cleanup(func() { _ = cb.Close() })
	return "http://" + ln.Addr().String() + "/callback", got
}

// receive returns the next query the application's callback received.
func receive(t *testing.T, got <-chan url.Values) url.Values {
	t.Helper()
	select {
	case q := <-got:
		return q
	case <-time.After(10 * time.Second):
		t.Fatal("the callback server got no request")
	}
	return nil
}

// click clicks sel and returns the status and the address of the page
// the browser ends on.
func click[S chromedp.Selectable](t *testing.T, browser context.Context, sel S) (int64, string) {
	t.Helper()
	res, err := chromedp.RunResponse(browser, chromedp.Click(sel))
	require.NoError(t, err)
	loc, err := chromedp.Run(browser, chromedp.Location())
	require.NoError(t, err)
	return res.Status, loc
}

func skipWithoutChromium(t testing.TB) {
	t.Helper()
	chromiumtest.Skip(t)
}

// startChromium starts headless Chromium with a fresh profile and returns
// a browser context that ends after timeout or with the test.
func startChromium(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	return chromiumtest.Start(t, timeout)
}
