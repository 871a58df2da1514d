package httpadapter_test

import (
	"context"
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

// Ensure one account's admin cannot take over another account's people
// through single sign-on (attack 1 of the outside probe), in a real
// browser against real providers: globex's admin registers a provider it
// controls, with just-in-time provisioning, for acme's verified domain,
// and its provider asserts acme's admin. The registration is refused
// (409, naming no account), so is a claim of the domain; a provider for
// a domain nobody verified routes nothing; on globex's own login page the
// browser is never sent to the attacker's provider, no code reaches
// globex's application and acme's people are made no members of globex.
func TestSSOTakeover_InBrowser(t *testing.T) {
	skipWithoutChromium(t)
	se := mustSSOEnv(t)
	ctx := context.Background()
	callback, got := startAppCallback(t)
	require.NoError(t, se.auth.RegisterApplication(ctx, se.accts["globex"], "Globex Portal", "globex-portal", "globex-secret", []string{callback}))
	conf := &oauth2.Config{ClientID: "globex-portal", ClientSecret: "globex-secret", RedirectURL: callback,
		Endpoint: oauth2.Endpoint{AuthURL: se.srv.URL + "/oauth/authorize", TokenURL: se.srv.URL + "/oauth/token"}}
	globex := se.token("globex", "admin@globex.test", "Account Admin")
	se.member("acme", "pat@partner.test", "Account Admin", "active", "standard")
	mallory := oidctest.User{Username: "mallory", Password: "mallory at her provider", Email: aeAdaEmail, EmailVerified: true, FirstName: "Ada"}
	patsTwin := oidctest.User{Username: "twin", Password: "twin at her provider", Email: "pat@partner.test", EmailVerified: true, FirstName: "Pat"}
	evil := oidctest.Start(t, se.srv.URL+"/oauth/sso/callback", mallory, patsTwin)

	claim := se.req(http.MethodPost, "/globex/v1/identity-providers", globex, doc("identity-providers", "",
		idpDoc(evil.Issuer, `["acme.test"]`, true, false)))
	verified := se.req(http.MethodPost, "/globex/v1/verified-domains", globex, doc("verified-domains", "", `{"domain":"acme.test"}`))
	unproven := se.req(http.MethodPost, "/globex/v1/identity-providers", globex, doc("identity-providers", "",
		idpDoc(evil.Issuer, `["partner.test"]`, true, false)))

	browser := startChromium(t, 120*time.Second)
	// attempt plays the attacker on globex's own login page: single
	// sign-on as email (the button, or a password where the page offers
	// none), and her provider's login page if the browser is sent
	// there. It returns whether the page offered single sign-on, the last
	// status and where the browser is.
	attempt := func(email string, u oidctest.User) (bool, int64, string) {
		t.Helper()
		res, err := chromedp.Run(browser, chromedp.NavigateResponse(conf.AuthCodeURL("takeover", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))))
		require.NoError(t, err)
		require.EqualValues(t, http.StatusOK, res.Status)
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("email"), email)))
		offered, err := chromedp.Run(browser, chromedp.Evaluate[bool](`document.getElementById("sso") !== null`))
		require.NoError(t, err)
		button := "submit" // with a password: the provider's domain goes to the provider whatever it is
		if offered {
			button = "sso"
		} else {
			require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("password"), "a guessed password")))
		}
		status, loc := click(t, browser, chromedp.ID(button))
		if strings.HasPrefix(loc, evil.Issuer+"/") {
			require.NoError(t, chromedp.Do(browser,
				chromedp.SendKeys(chromedp.ID("username"), u.Username), chromedp.SendKeys(chromedp.ID("password"), u.Password)))
			status, loc = click(t, browser, chromedp.CSS(`button[type="submit"]`))
		}
		return offered, status, loc
	}
	for _, a := range []struct {
		email string
		as    oidctest.User
	}{{aeAdaEmail, mallory}, {"pat@partner.test", patsTwin}} {
		offered, status, loc := attempt(a.email, a.as)
		select {
		case q := <-got:
			t.Fatalf("globex's application got a callback for %s: %v", a.email, q)
		default:
		}
		require.False(t, strings.HasPrefix(loc, evil.Issuer), "sent to the attacker's provider: %s", loc)
		require.False(t, offered, "globex's login page offers single sign-on for a domain globex has not verified")
		require.True(t, strings.HasPrefix(loc, se.srv.URL+"/oauth/authorize"), loc)
		require.EqualValues(t, http.StatusBadRequest, status, a.email)
		msg, err := chromedp.Run(browser, chromedp.Text(chromedp.ID("error")))
		require.NoError(t, err)
		require.Contains(t, msg, "incorrect", a.email)
	}
	e := assertError(t, claim, http.StatusConflict, "")
	require.Contains(t, e["detail"], "acme.test is verified by another account")
	require.NotContains(t, string(claim.Body), "Acme")
	assertError(t, verified, http.StatusConflict, "")
	require.Equal(t, http.StatusCreated, unproven.Status, "%s", unproven.Body)
	for _, email := range []string{aeAdaEmail, "pat@partner.test"} {
		require.Empty(t, se.get("/globex/v1/users?filter[email]="+url.QueryEscape(email), globex).ids(), "%s made a member of globex", email)
	}
	// acme's admin still signs in to acme through acme's own provider
	acmeConf, acmeGot := se.browserPortal()
	verifier := oauth2.GenerateVerifier()
	_, err := chromedp.Run(browser, chromedp.Navigate(acmeConf.AuthCodeURL("mine", oauth2.S256ChallengeOption(verifier))))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("email"), aeAdaEmail)))
	_, loc := click(t, browser, chromedp.ID("sso"))
	require.True(t, strings.HasPrefix(loc, se.op.Issuer+"/login/"), loc)
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("username"), opAda.Username), chromedp.SendKeys(chromedp.ID("password"), opAda.Password)))
	status, _ := click(t, browser, chromedp.CSS(`button[type="submit"]`))
	require.EqualValues(t, http.StatusOK, status)
	tok, err := acmeConf.Exchange(se.ctx(), receive(t, acmeGot).Get("code"), oauth2.VerifierOption(verifier))
	require.NoError(t, err)
	require.Equal(t, se.adaID, se.meAs(t, tok.AccessToken))
	se.requireNoSecret()
}
