package webapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// samSSO is the person who signs in through acme's identity provider.
var samSSO = oidctest.User{Username: "sam", Password: "sam's provider password", Email: "sam@sso.acme.test",
	EmailVerified: true, FirstName: "Sam", LastName: "Single"}

// walker drives the workspace in Chromium.
type walker struct {
	t  *testing.T
	e  *env
	b  context.Context
	op *oidctest.Provider
}

// click clicks the element of a CSS selector and waits for the page it
// leads to.
func (w *walker) click(css string) int64 {
	w.t.Helper()
	res, err := chromedp.RunResponse(w.b, chromedp.Click(chromedp.CSS(css)))
	require.NoError(w.t, err, css)
	return res.Status
}

// text is the text of the first element of a CSS selector ("" when
// there is none).
func (w *walker) text(sel string) string {
	w.t.Helper()
	js, _ := json.Marshal(sel)
	return strings.TrimSpace(eval[string](w, `(document.querySelector(`+string(js)+`) || {textContent: ""}).textContent`))
}

func (w *walker) location() string {
	w.t.Helper()
	loc, err := chromedp.Run(w.b, chromedp.Location())
	require.NoError(w.t, err)
	return loc
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](w *walker, js string) T {
	w.t.Helper()
	v, err := chromedp.Run(w.b, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	require.NoError(w.t, err, js)
	return v
}

// waitFor polls a JavaScript condition (htmx swaps happen after the
// request).
func (w *walker) waitFor(cond, what string) {
	w.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		// a condition met by a navigation may be asked while the page
		// goes: that answer is "not yet", and the next one is the new
		// page's
		ok, err := chromedp.Run(w.b, chromedp.Evaluate[bool](cond, chromedp.EvalAwaitPromise))
		if err != nil && !strings.Contains(err.Error(), "navigated or closed") && !strings.Contains(err.Error(), "Cannot find context") {
			require.NoError(w.t, err, cond)
		}
		if err == nil && ok {
			return
		}
		require.True(w.t, time.Now().Before(deadline), "waiting for %s", what)
		time.Sleep(100 * time.Millisecond)
	}
}

// loginPage opens the workspace's sign-in for acme and arrives at the
// login page.
func (w *walker) loginPage() {
	w.t.Helper()
	w.e.visit(w.t, w.b, "/app/?account=acme")
	require.EqualValues(w.t, http.StatusOK, w.click("#continue"))
	require.Contains(w.t, w.location(), "/oauth/authorize")
	require.Equal(w.t, "ScopeKit workspace", w.text("#app-name"))
}

// password signs in with the password on the login page.
func (w *walker) password(email string, setUpMFA bool) int64 {
	w.t.Helper()
	w.loginPage()
	require.NoError(w.t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("email"), email), chromedp.SendKeys(chromedp.ID("password"), password)))
	if setUpMFA {
		require.NoError(w.t, chromedp.Do(w.b, chromedp.Click(chromedp.ID("mfa_setup"))))
	}
	return w.click("#submit")
}

// inWorkspace checks the browser landed on acme's projects, signed in as
// name.
func (w *walker) inWorkspace(name string) {
	w.t.Helper()
	require.True(w.t, strings.HasSuffix(w.location(), "/app/acme/projects"), w.location())
	require.Equal(w.t, name, w.text(".top .user"))
}

func (w *walker) signOut() {
	w.t.Helper()
	w.click(".signout button")
	require.Contains(w.t, w.location(), "/app/?account=acme")
}

// code is the authenticator's code, steps of 30 s from now.
func code(t *testing.T, secret string, steps int) string {
	// A code made in a period's last seconds may be checked in the next
	// period, where its step is out of the server's window: wait for a
	// fresh period rather than race the boundary.
	if left := 30*time.Second - time.Duration(time.Now().UnixNano())%(30*time.Second); left < 8*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
	c, err := totp.GenerateCode(secret, time.Now().Add(time.Duration(steps)*30*time.Second))
	require.NoError(t, err)
	return c
}

// figure reads a header figure of the project page, as shown.
func (w *walker) figure(id string) string { return strings.ReplaceAll(w.text("#"+id), ",", "") }

// Ensure the walk of a scope works in a real browser: a person signs in
// with a password, then with a second factor, then through single
// sign-on; creates a project for a new client, adds three services from
// the catalog's type-ahead (by name, SKU and category), sees the price
// change (the pricing endpoint's to the cent) as a quantity changes in
// place, fixes a finding of the review, submits; the approver signs in
// and approves from the inbox; the SOW is generated with its PDF and
// downloaded; a merge data path is read.
func TestWorkspaceWalk(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	w := &walker{t: t, e: e, b: startChromium(t, 5*time.Minute)}
	w.setUpSSO()
	e.approvalLevel("amy@acme.test")
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	e.create(sys, "services", map[string]string{"name": `"Wireless survey"`, "sku": `"WS-100"`, "hours": `"6"`}, nil)

	// a password
	require.EqualValues(t, http.StatusOK, w.password("ada@acme.test", false))
	w.inWorkspace("Ada")
	w.signOut()

	// a second factor: set up from the login form, then asked for
	require.EqualValues(t, http.StatusOK, w.password("ada@acme.test", true))
	secret := strings.ReplaceAll(w.text("#secret"), " ", "")
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("mfa_code"), code(t, secret, -1))))
	w.click("#submit")
	w.inWorkspace("Ada")
	w.signOut()
	require.EqualValues(t, http.StatusOK, w.password("ada@acme.test", false))
	require.Equal(t, "Two-step verification · ScopeKit", eval[string](w, "document.title"))
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("mfa_code"), code(t, secret, 0))))
	w.click("#submit")
	w.inWorkspace("Ada")
	w.signOut()

	// single sign-on
	w.loginPage()
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("email"), samSSO.Email)))
	w.click("#sso")
	require.True(t, strings.HasPrefix(w.location(), w.op.Issuer+"/login/"), w.location())
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("username"), samSSO.Username), chromedp.SendKeys(chromedp.ID("password"), samSSO.Password)))
	w.click(`button[type="submit"]`)
	w.inWorkspace("Sam")
	w.signOut()

	// the scope, as ada with her second factor
	w.password("ada@acme.test", false)
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("mfa_code"), code(t, secret, 1))))
	w.click("#submit")
	w.inWorkspace("Ada")
	w.click("#new-project")
	require.NoError(t, chromedp.Do(w.b, chromedp.SendKeys(chromedp.ID("p-name"), "Initech edge refresh"),
		chromedp.SendKeys(chromedp.ID("p-client"), "Initech")))
	w.click("#create-project")
	require.Equal(t, "Initech edge refresh", w.text("#project-name"))
	require.Equal(t, "Initech", w.text("#project-client"))
	pid := w.location()[strings.LastIndex(w.location(), "/")+1:]
	empty := w.figure("h-revenue") // the required governance only

	for i, q := range []string{"assess", "WS-1", "deploy"} { // a name, a SKU, a category
		require.NoError(t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](`document.getElementById("catalog-q").value = ""`),
			chromedp.SendKeys(chromedp.ID("catalog-q"), q)))
		w.waitFor(`!!document.querySelector("#suggestion-list button")`, "suggestions for "+q)
		require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS("#suggestion-list button"))))
		w.waitFor(fmt.Sprintf(`document.querySelectorAll("tbody.line").length == %d`, i+1), "the service's row")
		w.waitFor(`!document.querySelector("#suggestion-list")`, "the list gone with the swap")
	}
	priced := e.pricing("acme", pid)
	require.NotEqual(t, empty, w.figure("h-revenue"), "the price changed")
	require.Equal(t, at(t, priced, "total_contract_value"), w.figure("h-revenue"))

	// a quantity changed in place: the row and the figures follow
	first := eval[string](w, `document.querySelector("tbody.line").id.replace("line-svc-", "")`)
	before := w.figure("h-revenue")
	require.NoError(t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](`document.getElementById("q-svc-`+first+`").value = "3"`),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q-svc-`+first+`").dispatchEvent(new Event("change", {bubbles: true}))`)))
	w.waitFor(`document.getElementById("h-revenue").textContent.replaceAll(",", "") != "`+before+`"`, "new figures")
	require.Equal(t, at(t, e.pricing("acme", pid), "total_contract_value"), w.figure("h-revenue"))
	require.Equal(t, at(t, e.pricing("acme", pid), "total_contract_value"), strings.ReplaceAll(w.text(`#pricing-panel tr.total td.num`), ",", ""))

	// a finding of the review: a service without a resource, priced at
	// 0, fixed from the finding's link
	ws := eval[string](w, `Array.from(document.querySelectorAll("tbody.line")).find(b => b.textContent.includes("Wireless survey")).id.replace("line-svc-", "")`)
	require.Equal(t, "0.00", w.text(`#line-svc-`+ws+` [data-line-figure=revenue]`))
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/review")
	require.Contains(t, w.text("#findings"), "Wireless survey")
	w.click(`#findings a[href$="#line-svc-` + ws + `"]`)
	require.True(t, strings.HasSuffix(w.location(), "#line-svc-"+ws), w.location())
	require.NoError(t, chromedp.Do(w.b, chromedp.Evaluate[chromedp.Void](`(s => { s.value = Array.from(s.options).find(o => o.text == "Engineer").value;
		s.dispatchEvent(new Event("change", {bubbles: true})) })(document.getElementById("rs-svc-`+ws+`"))`)))
	w.waitFor(`document.querySelector("#line-svc-`+ws+` [data-line-figure=revenue]").textContent != "0.00"`, "the line priced")
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/review")
	require.NotContains(t, w.text("#findings"), "Wireless survey")
	require.Equal(t, at(t, e.pricing("acme", pid), "total_contract_value"), w.figure("h-revenue"))

	// submit
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/approval")
	w.click("#submit-project")
	require.Equal(t, "Pending approval", w.text("#project-status"))
	w.signOut()

	// the approver approves from the inbox
	w.password("amy@acme.test", false)
	w.inWorkspace("Amy")
	e.visit(t, w.b, "/app/acme/approvals")
	require.Contains(t, w.text("#inbox"), "Initech edge refresh")
	w.click(`#inbox button`)
	require.True(t, strings.HasSuffix(w.location(), "/app/acme/approvals"), w.location())
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/approval")
	require.Equal(t, "Approved", w.text("#project-status"))

	// the SOW with its PDF, generated and downloaded
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/documents")
	w.click("#generate")
	if !e.pdf {
		t.Log("LibreOffice is not installed: the SOW is generated without its PDF")
		return
	}
	w.waitFor(`!!document.querySelector("#document-list a[id^=pdf-]")`, "the PDF")
	head := eval[string](w, `fetch(document.querySelector("#document-list a[id^=pdf-]").href).then(r => r.status + " " + r.headers.get("content-type") + " ").then(async s => s + (await (await fetch(document.querySelector("#document-list a[id^=pdf-]").href)).text()).slice(0, 5))`)
	require.Equal(t, "200 application/pdf %PDF-", head)

	// a merge data path
	e.visit(t, w.b, "/app/acme/projects/"+pid+"/merge-data")
	require.Equal(t, "{client_name}", w.text(`code[data-path="client_name"]`))
	require.Equal(t, `"Initech"`, eval[string](w, `document.querySelector('code[data-path="client_name"]').parentElement.querySelector(".value").textContent`))
}

// setUpSSO gives acme an identity provider (a real OpenID Connect
// provider on loopback) for the domain sso.acme.test, and sam a
// membership.
func (w *walker) setUpSSO() {
	w.t.Helper()
	e := w.e
	w.op = oidctest.Start(w.t, e.srv.URL+"/oauth/sso/callback", samSSO)
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(w.t, err)
	// single sign-on routes only a domain the account has verified
	require.NoError(w.t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.VerifyDomain(e.accts["acme"], "sso.acme.test")
		return err
	}))
	e.create(sys, "identity-providers", map[string]string{"name": `"Acme SSO"`, "issuer-url": `"` + w.op.Issuer + `"`,
		"client-id": `"` + oidctest.ClientID + `"`, "client-secret": `"` + oidctest.ClientSecret + `"`,
		"email-domains": `["sso.acme.test"]`, "passwords-allowed": "false"}, nil)
	e.member("acme", samSSO.Email, "Sam", "Account Admin")
}

// Ensure in a real browser that a Read Only person is offered no change
// on any tab (the only form that posts is the sign-out), and another
// account's project ids are not found.
func TestReadOnlyInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	w := &walker{t: t, e: e, b: startChromium(t, 2*time.Minute)}
	require.EqualValues(t, http.StatusOK, w.password("ron@acme.test", false))
	w.inWorkspace("Ron")
	require.Equal(t, 0, eval[int](w, `document.querySelectorAll("#new-project").length`))
	pid := e.seeded["acme"].ProjectID
	for _, tab := range []string{"", "/pricing", "/review", "/approval", "/documents", "/merge-data"} {
		e.visit(t, w.b, "/app/acme/projects/"+pid+tab)
		require.Equal(t, []string{"/app/acme/signout"}, eval[[]string](w,
			`Array.from(document.querySelectorAll("form[method=post]"), f => f.getAttribute("action"))`), tab)
		require.Equal(t, 0, eval[int](w, `document.querySelectorAll("[hx-post], input[name=quantity]").length`), tab)
	}
	res, err := chromedp.Run(w.b, chromedp.NavigateResponse(e.srv.URL+"/app/acme/projects/"+e.seeded["globex"].ProjectID))
	require.NoError(t, err)
	require.EqualValues(t, http.StatusNotFound, res.Status)
	require.Equal(t, "Not found", w.text("h1"))
}
