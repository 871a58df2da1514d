package webapp_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// setAnswers sets the survey's controls without events, then sends one
// change from the last (one request of htmx) and waits for its swap.
func (w *walker) setAnswers(kv ...string) {
	w.t.Helper()
	require.NoError(w.t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](`document.body.dataset.swapped = ""`)))
	for i := 0; i+1 < len(kv); i += 2 {
		require.True(w.t, eval[bool](w, fmt.Sprintf(`(el => { if (!el) return false; el.value = %q; return true })(document.querySelector(%q))`, kv[i+1], kv[i])), kv[i])
	}
	require.NoError(w.t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](`document.body.addEventListener("htmx:afterSettle", () => { document.body.dataset.swapped = "yes" }, {once: true})`)))
	require.NoError(w.t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event("change", {bubbles: true}))`, kv[len(kv)-2]))))
	w.waitFor(`document.body.dataset.swapped === "yes"`, "the survey re-rendered")
}

// Ensure a survey is answered in a real browser: the survey started from
// the project's tab, a conditional question appears once the answer it
// depends on is given (htmx, server-rendered), Apply adds the lines and
// the project's total changes to the pricing endpoint's.
func TestSurveyInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	w := &walker{t: t, e: e, b: startChromium(t, 3*time.Minute)}
	pid := e.seeded["acme"].ProjectID
	e.browserSignIn(t, w.b, "acme", "ada@acme.test")
	e.visit(t, w.b, "/app/acme/projects/"+pid)
	before := w.figure("h-revenue")
	w.click(`.tabs a[href$="/surveys"]`)
	w.click("#start-survey")
	require.Equal(t, "Network refresh intake", w.text("#survey-title"))
	require.False(t, eval[bool](w, `!!document.getElementById("q-access_points")`), "not asked yet")

	w.setAnswers("#q-users", "120", "#q-sites", "3", "#q-firewalls", "0", "#q-cloud", "aws", "#q-maintenance_window", "true", "#q-wifi", "true")
	require.True(t, eval[bool](w, `!!document.getElementById("q-access_points")`), "asked once Wi-Fi is in scope")
	require.True(t, eval[bool](w, `!!document.getElementById("q-window_start")`), "asked once there is a window")
	w.setAnswers("#q-wifi", "false")
	require.False(t, eval[bool](w, `!!document.getElementById("q-access_points")`), "gone with Wi-Fi")
	w.setAnswers("#q-wifi", "true")
	w.setAnswers("#q-access_points", "8")
	require.Contains(t, w.text("#recs"), "Wireless deployment")
	after := strings.ReplaceAll(w.text("#revenue-after"), ",", "")

	require.EqualValues(t, http.StatusOK, w.click("#apply"))
	require.Equal(t, "Applied: the project's lines follow the answers.", w.text("#flash .notice"))
	require.NotEqual(t, before, w.figure("h-revenue"), "the total changed")
	require.Equal(t, after, w.figure("h-revenue"))
	require.Equal(t, at(t, e.pricing("acme", pid), "total_contract_value"), w.figure("h-revenue"))
	e.visit(t, w.b, "/app/acme/projects/"+pid)
	require.Contains(t, w.text("#services"), "Wireless deployment")
	require.Contains(t, w.text("#services"), "Cloud connectivity")
}

// Ensure an invitation is accepted in a real browser: an administrator
// invites a person, who opens the link shown in a fresh browser, chooses
// a password and signs in with it.
func TestInvitationInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	w := &walker{t: t, e: e, b: startChromium(t, 3*time.Minute)}
	e.browserSignIn(t, w.b, "acme", "ada@acme.test")
	e.visit(t, w.b, "/app/acme/settings/users/new")
	w.fill("#f-name", "Pat", "#f-email", "pat@acme.test")
	w.click("#f-form button[type=submit]")
	link := w.text(".secret")
	require.True(t, strings.HasPrefix(link, e.srv.URL+"/app/invitations/"), link)

	pat := &walker{t: t, e: e, b: startChromium(t, 3*time.Minute)}
	_, err := chromedp.Run(pat.b, chromedp.NavigateResponse(link))
	require.NoError(t, err)
	require.Equal(t, "pat@acme.test", pat.text("#invited-email"))
	require.NoError(t, chromedp.Do(pat.b, chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.SendKeys(chromedp.ID("password-again"), password)))
	pat.click("#accept")
	require.Contains(t, pat.location(), "/oauth/authorize", "sent to sign in")
	require.NoError(t, chromedp.Do(pat.b, chromedp.SendKeys(chromedp.ID("email"), "pat@acme.test"),
		chromedp.SendKeys(chromedp.ID("password"), password)))
	pat.click("#submit")
	pat.inWorkspace("Pat")
}

// Ensure axe-core finds no serious or critical violation on the surveys
// tab, a survey being answered (with a problem shown), applied, read by
// a Read Only person, and on the invitation page (as it opens, refusing
// a password, and a link that does not work), at both sizes.
func TestSurveyAccessibility(t *testing.T) {
	src := axeSource(t)
	e := newEnv(t)
	pid, intake := e.seeded["acme"].ProjectID, e.seeded["acme"].IntakeID
	link := e.invite(t, "Pat", "pat@acme.test")
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	path := "/app/acme/projects/" + pid + "/surveys/" + intake
	b.post(path, intakeAnswers(b.get(path).csrf(t), "a.users", "many"), false)
	browser := startChromium(t, 4*time.Minute)
	w := &walker{t: t, e: e, b: browser}
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		_, err := chromedp.Run(browser, chromedp.NavigateResponse(link))
		require.NoError(t, err)
		axeCheck(t, browser, src, "invitation")
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("password"), "short"), chromedp.SendKeys(chromedp.ID("password-again"), "short")))
		w.click("#accept")
		require.Contains(t, w.text("#password-error"), "at least 12")
		axeCheck(t, browser, src, "invitation refusing a password")
		_, err = chromedp.Run(browser, chromedp.NavigateResponse(e.srv.URL+"/app/invitations/nothing"))
		require.NoError(t, err)
		axeCheck(t, browser, src, "invitation that does not work")
	}
	e.browserSignIn(t, browser, "acme", "ada@acme.test")
	check := func(name string) {
		for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
			viewport(t, browser, size[0], size[1])
			axeCheck(t, browser, src, name)
		}
	}
	e.visit(t, browser, "/app/acme/projects/"+pid+"/surveys")
	check("surveys")
	e.visit(t, browser, path)
	require.Contains(t, w.text("#q-users-error"), "must be a number")
	check("survey with a problem")
	w.setAnswers("#q-users", "120", "#q-wifi", "true")
	w.setAnswers("#q-access_points", "8")
	check("survey re-rendered")
	w.click("#apply")
	check("survey applied")
	ron := startChromium(t, 2*time.Minute)
	e.browserSignIn(t, ron, "acme", "ron@acme.test")
	e.visit(t, ron, path)
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, ron, size[0], size[1])
		axeCheck(t, ron, src, "survey read only")
	}
}

// Ensure the survey and invitation pages can be looked at: with
// SCOPEKIT_SCREENSHOTS set, this writes survey-{1440,390}.png (a survey
// answered, its recommendations priced), surveys-… (the tab),
// invitation-… and invitation-refused-… there.
func TestSurveyScreenshots(t *testing.T) {
	dir := os.Getenv("SCOPEKIT_SCREENSHOTS")
	if dir == "" {
		t.Skip("set SCOPEKIT_SCREENSHOTS to a folder to write the workspace's screenshots")
	}
	skipWithoutChromium(t)
	e := newEnv(t)
	pid, intake := e.seeded["acme"].ProjectID, e.seeded["acme"].IntakeID
	link := e.invite(t, "Pat", "pat@acme.test")
	b := e.browser()
	b.signIn("acme", "amy@acme.test")
	path := "/app/acme/projects/" + pid + "/surveys/" + intake
	b.post(path, intakeAnswers(b.get(path).csrf(t), "a.access_points", "8", "a.maintenance_window", "true", "a.window_start", "2026-12-05",
		"a.notes", "Two sites share a building; the warehouse has no ceiling mounts."), false)
	browser := startChromium(t, 3*time.Minute)
	w := &walker{t: t, e: e, b: browser}
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		_, err := chromedp.Run(browser, chromedp.NavigateResponse(link))
		require.NoError(t, err)
		shoot(t, browser, dir, fmt.Sprintf("invitation-%d", size[0]))
		require.NoError(t, chromedp.Do(browser, chromedp.SendKeys(chromedp.ID("password"), password), chromedp.SendKeys(chromedp.ID("password-again"), "another one")))
		w.click("#accept")
		shoot(t, browser, dir, fmt.Sprintf("invitation-refused-%d", size[0]))
	}
	e.browserSignIn(t, browser, "acme", "amy@acme.test")
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		e.visit(t, browser, "/app/acme/projects/"+pid+"/surveys")
		shoot(t, browser, dir, fmt.Sprintf("surveys-%d", size[0]))
		e.visit(t, browser, path)
		require.NoError(t, chromedp.Do(browser, chromedp.Evaluate[chromedp.Void](`document.getElementById("survey").scrollIntoView()`)))
		shoot(t, browser, dir, fmt.Sprintf("survey-%d", size[0]))
	}
}
