package webapp_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure axe-core finds no serious or critical violation on any settings
// page, in both designs and at both sizes, for an administrator (every
// control shown).
func TestSettingsAccessibility(t *testing.T) {
	src := axeSource(t)
	e := newEnv(t)
	paths := e.settingsState(t)
	browser := startChromium(t, 8*time.Minute)
	e.browserSignIn(t, browser, "acme", "amy@acme.test")
	for _, design := range []string{"classic", "modern"} {
		e.setDesign(t, "amy@acme.test", design)
		for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
			viewport(t, browser, size[0], size[1])
			for _, p := range paths {
				e.visit(t, browser, p.path)
				axeCheck(t, browser, src, design+" "+p.path)
			}
		}
	}
}

// Ensure axe-core finds no serious or critical violation on the login
// page (as it opens, and refusing a password), its second-factor steps
// (setting one up, giving a code) and the single sign-on error page.
func TestLoginAccessibility(t *testing.T) {
	src := axeSource(t)
	e := newEnv(t)
	browser := startChromium(t, 3*time.Minute)
	w := &walker{t: t, e: e, b: browser}
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		w.loginPage()
		axeCheck(t, browser, src, "login page")
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("email"), "ada@acme.test"),
			chromedp.SendKeys(chromedp.ID("password"), "not the password")))
		w.click("#submit")
		axeCheck(t, browser, src, "login page refusing a password")

		_, err := chromedp.Run(browser, chromedp.NavigateResponse(e.srv.URL+"/oauth/sso/callback?state=nope&code=x"))
		require.NoError(t, err)
		require.Contains(t, w.text("body"), "single sign-on")
		axeCheck(t, browser, src, "single sign-on error page")
	}
	require.EqualValues(t, http.StatusOK, w.password("ada@acme.test", true))
	axeCheck(t, browser, src, "setting up a second factor")
	secret := strings.ReplaceAll(w.text("#secret"), " ", "")
	require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("mfa_code"), "000000")))
	w.click("#submit")
	axeCheck(t, browser, src, "setting up a second factor, a wrong code")
	require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("mfa_code"), code(t, secret, -1))))
	w.click("#submit")
	w.inWorkspace("Ada")
	w.signOut()
	require.EqualValues(t, http.StatusOK, w.password("ada@acme.test", false))
	axeCheck(t, browser, src, "giving a code")
	viewport(t, browser, 390, 844)
	axeCheck(t, browser, src, "giving a code, on a phone")
	_ = context.Background()
}

// Ensure the read-only pages of what holds more than the reader (the
// Account Admin's user page and role, for a users manager) show why, and
// axe-core finds no serious or critical violation on them at both sizes;
// with SCOPEKIT_SCREENSHOTS set, their PNGs are written there.
func TestReadOnlyPagesAccessibility(t *testing.T) {
	src := axeSource(t)
	e := newEnv(t)
	e.roleMember(t, "People admin", map[string]string{"users": "manage"}, "hal@acme.test")
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	res, err := e.svc.List(context.Background(), sys, "roles", engine.ListParams{PageSize: 1, PageNumber: 1,
		Filters: map[string]string{"name": "Account Admin"}}, engine.Options{})
	require.NoError(t, err)
	browser := startChromium(t, 4*time.Minute)
	e.browserSignIn(t, browser, "acme", "hal@acme.test")
	dir := os.Getenv("SCOPEKIT_SCREENSHOTS")
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		for name, path := range map[string]string{"read-only-user": "/app/acme/settings/users/" + e.users["ada@acme.test"],
			"read-only-role": "/app/acme/settings/roles/" + res.Records[0].ID} {
			e.visit(t, browser, path)
			require.NoError(t, chromedp.Do(browser, chromedp.WaitVisible("#read-only-why")), name)
			axeCheck(t, browser, src, name)
			if dir != "" {
				shoot(t, browser, dir, fmt.Sprintf("%s-%d", name, size[0]))
			}
		}
	}
}
