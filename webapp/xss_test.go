package webapp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// The text an attacker gives their records: markup that would run
// script if a page wrote it as HTML.
const (
	xssScript = `<script>alert(1)</script>`
	xssImage  = `"><img src=x onerror=alert(1)>`
	xssURL    = `javascript:alert(1)`
)

// xssName names a record with both payloads.
func xssName(what string) string { return what + " " + xssScript + xssImage }

// Ensure records named with markup are shown as text on every page of
// the workspace, the scope's hand-written rows and the settings
// included, in both designs: no dialog opens, no element is injected,
// and no link goes to a javascript: URL (the use cases refuse it where a
// field is a URL).
func TestRecordsShownAsText(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	ctx := context.Background()
	amy := e.actor("acme", "amy@acme.test")
	pid := e.seeded["acme"].ProjectID
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	update := func(typ, id string, attrs map[string]string) {
		t.Helper()
		in := &engine.Input{Attrs: map[string]json.RawMessage{}}
		for k, v := range attrs {
			in.Attrs[k] = json.RawMessage(v)
		}
		_, err := e.svc.Update(ctx, amy, typ, id, in, engine.Options{})
		require.NoError(t, err, "%s %s", typ, id)
	}
	update("projects", pid, map[string]string{"project-name": q(xssName("Project")), "executive-summary": q(xssName("Summary"))})
	update("clients", e.seeded["acme"].ClientID, map[string]string{"name": q(xssName("Client")), "domain": q(xssURL)})
	for _, typ := range []string{"services", "phases", "resources", "rate-tables", "products", "governances", "blueprints",
		"lines-of-business", "service-categories", "expense-categories", "payment-terms", "roles", "document-templates"} {
		res, err := e.svc.List(ctx, amy, typ, engine.ListParams{PageSize: 100, PageNumber: 1}, engine.Options{})
		require.NoError(t, err)
		for _, r := range res.Records {
			update(typ, r.ID, map[string]string{"name": q(xssName(r.Str("name")))})
		}
	}
	for _, typ := range []string{"project-services", "project-phases", "project-resources", "project-governances"} {
		res, err := e.svc.List(ctx, amy, typ, engine.ListParams{PageSize: 100, PageNumber: 1, Filters: map[string]string{"project": pid}}, engine.Options{})
		require.NoError(t, err)
		for _, r := range res.Records {
			update(typ, r.ID, map[string]string{"name": q(xssName(r.Str("name")))})
		}
	}
	e.create(amy, "project-expenses", map[string]string{"description": q(xssName("Travel")), "rate": `"10"`},
		map[string]engine.Ref{"project": {Type: "projects", ID: pid}})
	e.create(amy, "general-terms", map[string]string{"name": q(xssName("Terms")), "body": q(xssName("Body"))}, nil)
	e.create(amy, "currencies", map[string]string{"code": `"EUR"`, "name": q(xssName("Euro")), "conversion-rate": `"0.9"`}, nil)
	e.create(amy, "approval-levels", map[string]string{"name": q(xssName("Level")), "kind": `"business"`, "position": "2",
		"conditions": "[]"}, nil)
	e.create(amy, "users", map[string]string{"name": q(xssName("Mallory")), "email": `"mallory@acme.test"`, "title": q(xssScript)}, nil)
	e.create(amy, "webhook-subscriptions", map[string]string{"event-type": `"project_status_changed"`,
		"destination-url": `"https://hooks.acme.test/x"`, "description": q(xssName("Hook"))}, nil)
	// where a field is a URL, the use case refuses javascript:
	in := &engine.Input{Attrs: map[string]json.RawMessage{"event-type": json.RawMessage(`"project_status_changed"`),
		"destination-url": json.RawMessage(q(xssURL))}}
	_, err := e.svc.Create(ctx, amy, "webhook-subscriptions", in, engine.Options{})
	require.Error(t, err)

	browser := startChromium(t, 5*time.Minute)
	var dialogs atomic.Int32
	require.NoError(t, chromedp.Listen(browser, func(ev any) {
		if _, ok := ev.(*cdpage.EventJavascriptDialogOpening); ok {
			dialogs.Add(1)
			go func() {
				_, _ = chromedp.Call(browser, cdpage.HandleJavaScriptDialog, cdpage.HandleJavaScriptDialogParams{Accept: false})
			}()
		}
	}))
	e.browserSignIn(t, browser, "acme", "amy@acme.test")
	w := &walker{t: t, e: e, b: browser}
	pages := []string{"/app/acme/projects", "/app/acme/projects/new", "/app/acme/approvals", "/app/acme/catalog?q=" + xssScript + "&project=" + pid}
	for _, tab := range []string{"", "/pricing", "/review", "/approval", "/documents", "/merge-data", "/merge-data?version=2"} {
		pages = append(pages, "/app/acme/projects/"+pid+tab)
	}
	settings := settingsPaths(t, adminBrowser(t, e))
	checked, visited := 0, 0
	check := func(p string) {
		t.Helper()
		e.visit(t, browser, p)
		visited++
		injected := eval[int](w, `document.querySelectorAll('img[src="x"], [onerror], script:not([src^="/app/static/"])').length`)
		require.Zero(t, injected, "%s: an element was injected", p)
		require.Zero(t, eval[int](w, `Array.from(document.querySelectorAll("[href],[src],[action]")).filter(n =>
			/^\s*javascript:/i.test(n.getAttribute("href") || n.getAttribute("src") || n.getAttribute("action"))).length`), p)
		if strings.Contains(eval[string](w, "document.body.textContent"), xssScript) {
			checked++
		}
	}
	for _, p := range pages {
		check(p)
	}
	for _, design := range []string{"classic", "modern"} {
		e.setDesign(t, "amy@acme.test", design)
		for _, p := range settings {
			check(p)
		}
	}
	time.Sleep(500 * time.Millisecond)
	require.Zero(t, dialogs.Load(), "a dialog opened")
	require.Greater(t, checked, visited/2, "the payloads are on the pages, as text")
}

// adminBrowser is a browser without script signed in as amy, to list the
// settings' pages.
func adminBrowser(t *testing.T, e *env) *browser {
	t.Helper()
	b := e.browser()
	b.signIn("acme", "amy@acme.test")
	return b
}
