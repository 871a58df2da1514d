package httpadapter_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// Ensure single sign-on works in a real browser against a real OpenID
// Connect provider: headless Chromium opens the application's login page,
// chooses single sign-on, signs in on the provider's own login page and
// comes back to the application with a code that x/oauth2 exchanges (with
// PKCE) for a token of the right user; and that the callback refuses, in
// the same browser, an ID token with another nonce, for another audience
// or expired, an email of a domain the provider does not cover, and a
// person who is no member while just-in-time provisioning is off, whom it
// makes a member, with the provider's default role, once it is on.
func TestSSOInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	se := mustSSOEnv(t)
	conf, got := se.browserPortal()
	browser := startChromium(t, 120*time.Second)

	// signIn walks the browser from the application's authorize URL to
	// wherever the provider's answer leads, and returns the last status.
	signIn := func(email string, u oidctest.User, verifier string) int64 {
		t.Helper()
		res, err := chromedp.Run(browser, chromedp.NavigateResponse(conf.AuthCodeURL("sso state", oauth2.S256ChallengeOption(verifier))))
		require.NoError(t, err)
		require.EqualValues(t, http.StatusOK, res.Status)
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("email"), email)))
		status, loc := click(t, browser, chromedp.ID("sso"))
		require.EqualValues(t, http.StatusOK, status)
		require.True(t, strings.HasPrefix(loc, se.op.Issuer+"/login/"), "at the provider's login page: %s", loc)
		require.NoError(t, chromedp.Do(browser,
			chromedp.SendKeys(chromedp.ID("username"), u.Username),
			chromedp.SendKeys(chromedp.ID("password"), u.Password)))
		status, _ = click(t, browser, chromedp.CSS(`button[type="submit"]`))
		return status
	}
	// refused checks that the browser ended on the callback's error page.
	refused := func(status int64, want string) {
		t.Helper()
		require.EqualValues(t, http.StatusForbidden, status)
		loc, err := chromedp.Run(browser, chromedp.Location())
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(loc, se.srv.URL+"/oauth/sso/callback?"), loc)
		msg, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("error")))
		require.NoError(t, err)
		require.Contains(t, msg, want)
		select {
		case q := <-got:
			t.Fatalf("the application got a callback: %v", q)
		default:
		}
	}
	// signedIn checks that the browser came back to the application and
	// exchanges its code for a token of userID.
	signedIn := func(status int64, verifier, userID string) {
		t.Helper()
		require.EqualValues(t, http.StatusOK, status)
		done, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("done")))
		require.NoError(t, err)
		require.Equal(t, "Signed in.", done)
		q := receive(t, got)
		require.Equal(t, "sso state", q.Get("state"))
		tok, err := conf.Exchange(se.ctx(), q.Get("code"), oauth2.VerifierOption(verifier))
		require.NoError(t, err)
		require.Equal(t, userID, se.meAs(t, tok.AccessToken))
	}

	verifier := oauth2.GenerateVerifier()
	signedIn(signIn(aeAdaEmail, opAda, verifier), verifier, se.adaID)

	for _, b := range []oidctest.Behaviour{oidctest.OtherNonce, oidctest.OtherAudience, oidctest.Expired} {
		se.op.Misbehave(b)
		refused(signIn(aeAdaEmail, opAda, oauth2.GenerateVerifier()), "could not be verified")
	}
	se.op.Misbehave(oidctest.Honest)
	for _, reason := range []string{"nonce", "audience", "expired"} {
		require.Contains(t, se.logs.String(), reason)
	}

	// a domain the provider does not cover: not sent there, nor taken back
	_, err := chromedp.Run(browser, chromedp.Navigate(conf.AuthCodeURL("x", oauth2.S256ChallengeOption(verifier))))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("email"), opEve.Email)))
	status, _ := click(t, browser, chromedp.ID("sso"))
	require.EqualValues(t, http.StatusBadRequest, status)
	msg, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("error")))
	require.NoError(t, err)
	require.Contains(t, msg, "not set up")
	refused(signIn(aeAdaEmail, opEve, oauth2.GenerateVerifier()), "not a member")

	// just-in-time provisioning off, then on with a default role
	niaQuery := "/acme/v1/users?filter[email]=" + url.QueryEscape(opNia.Email)
	refused(signIn(opNia.Email, opNia, oauth2.GenerateVerifier()), "not a member")
	require.Empty(t, se.get(niaQuery, se.admin).ids(), "no silent account creation")
	sales := ""
	for _, r := range se.get("/acme/v1/roles", se.admin).list() {
		if r["attributes"].(map[string]any)["name"] == "Sales" {
			sales = r["id"].(string)
		}
	}
	se.setIDP(`{"jit-provisioning":true}`, "default-role", "roles", sales)
	verifier = oauth2.GenerateVerifier()
	status = signIn(opNia.Email, opNia, verifier)
	users := se.get(niaQuery+"&include=roles", se.admin)
	require.Len(t, users.ids(), 1)
	nia := users.list()[0]["attributes"].(map[string]any)
	require.Equal(t, "Nia Newcomer", nia["name"])
	require.Equal(t, "active", nia["status"])
	require.Equal(t, sales, users.list()[0]["relationships"].(map[string]any)["roles"].(map[string]any)["data"].([]any)[0].(map[string]any)["id"])
	signedIn(status, verifier, users.ids()[0])
	se.requireNoSecret()
}
