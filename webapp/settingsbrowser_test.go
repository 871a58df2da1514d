package webapp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/require"
)

// fill types into the inputs of CSS selectors, clearing them first.
func (w *walker) fill(kv ...string) {
	w.t.Helper()
	for i := 0; i+1 < len(kv); i += 2 {
		sel, _ := json.Marshal(kv[i])
		v, _ := json.Marshal(kv[i+1])
		require.True(w.t, eval[bool](w, `(el => { if (!el) return false; el.value = `+string(v)+`;
			el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); return true })(document.querySelector(`+string(sel)+`))`), kv[i])
	}
}

// Ensure an administrator changes each family of settings in a real
// browser, in the classic design (a form on a page of its own) and the
// modern one (a record edited in the list, a refused change shown in
// place), each change read back through the API.
func TestSettingsAdminInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	w := &walker{t: t, e: e, b: startChromium(t, 4*time.Minute)}
	e.browserSignIn(t, w.b, "acme", "amy@acme.test")

	// catalog
	e.visit(t, w.b, "/app/acme/settings/services")
	w.click("#new-record")
	w.fill("#f-name", "Cabling", "#f-hours", "3")
	w.click("#f-form button[type=submit]")
	require.Equal(t, "Created.", w.text("#flash .notice"))
	id := w.location()[strings.LastIndex(w.location(), "/")+1:]
	id = strings.TrimSuffix(id, "?done=created")
	require.Equal(t, "3", e.apiRecord("acme", "services", id)["hours"])

	// templates: a file chosen in the form
	file := filepath.Join(t.TempDir(), "Short SOW.docx")
	require.NoError(t, os.WriteFile(file, docxtest.Build("Statement of work for {project.client_name}"), 0o644))
	e.visit(t, w.b, "/app/acme/settings/templates/new")
	w.fill("#f-name", "Short SOW")
	require.NoError(t, chromedp.Do(w.b, chromedp.SetUploadFiles(chromedp.CSS("#f-file"), []string{file})))
	w.click("#f-form button[type=submit]")
	require.Equal(t, "Created.", w.text("#flash .notice"))
	require.Equal(t, "Download Short SOW.docx", w.text("#download-template"))

	// people: a role from its grid
	e.visit(t, w.b, "/app/acme/settings/roles/new")
	w.fill("#f-name", "Catalog keeper")
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS(`input[name="perm.catalog"][value=manage]`))))
	w.click("#f-form button[type=submit]")
	role := strings.TrimSuffix(w.location()[strings.LastIndex(w.location(), "/")+1:], "?done=created")
	require.Equal(t, "manage", e.apiRecord("acme", "roles", role)["permissions"].(map[string]any)["catalog"])

	// account
	e.visit(t, w.b, "/app/acme/settings/account")
	w.fill("#a-locale", "de-CH")
	w.click("#save-account")
	require.Equal(t, "Saved.", w.text("#flash .notice"))
	require.Equal(t, "de-CH", e.apiAccount()["locale"])

	// webhooks: the secret shown once
	e.visit(t, w.b, "/app/acme/settings/webhooks/new")
	w.fill("#f-destination-url", "https://hooks.acme.test/scopekit")
	w.click("#f-form button[type=submit]")
	require.True(t, strings.HasPrefix(w.text(".secret"), "whsec_"), w.text(".secret"))

	// the design switch
	e.visit(t, w.b, "/app/acme/settings/preferences")
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.ID("design-modern"))))
	w.click("#save-design")
	require.Equal(t, 1, eval[int](w, `document.querySelectorAll(".settings-tabs").length`))
	require.Equal(t, 0, eval[int](w, `document.querySelectorAll(".settings-side").length`))

	// modern: a record edited in the list (htmx), then a change refused in place
	e.visit(t, w.b, "/app/acme/settings/services")
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS(`.records details.editor summary`))))
	first := eval[string](w, `document.querySelector(".records details.editor form").id.replace(/^e/, "").replace(/-form$/, "")`)
	w.fill("#e"+first+"-hours", "9")
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS("#e"+first+"-form button[type=submit]"))))
	w.waitFor(`location.search.includes("done=saved")`, "the list again, saved")
	require.Equal(t, "9", e.apiRecord("acme", "services", first)["hours"])

	e.visit(t, w.b, "/app/acme/settings/governance")
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS(`.records details.editor summary`))))
	gov := eval[string](w, `document.querySelector(".records details.editor form").id.replace(/^e/, "").replace(/-form$/, "")`)
	before := e.apiRecord("acme", "governances", gov)["rate"]
	w.fill("#e"+gov+"-rate", "10")
	at := w.location()
	require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS("#e"+gov+"-form button[type=submit]"))))
	w.waitFor(`!!document.getElementById("e`+gov+`-rate-error")`, "the refusal, in place")
	require.Equal(t, at, w.location(), "no page was left")
	require.Contains(t, w.text("#e"+gov+"-rate-error"), "rate")
	require.Equal(t, before, e.apiRecord("acme", "governances", gov)["rate"])
}

// Ensure in a real browser that a role that views every setting is
// offered no change on any settings page in either design, and that a
// role without a permission finds no menu entry for its family, whose
// pages answer 403.
func TestSettingsRolesInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := newEnv(t)
	paths := e.settingsState(t)
	e.roleMember(t, "Auditor", everything("view"), "vic@acme.test")
	e.roleMember(t, "Catalog only", map[string]string{"catalog": "view", "user_preferences": "view"}, "cat@acme.test")
	w := &walker{t: t, e: e, b: startChromium(t, 5*time.Minute)}
	e.browserSignIn(t, w.b, "acme", "vic@acme.test")
	for _, design := range []string{"classic", "modern"} {
		e.storeDesign(t, "vic@acme.test", design)
		for _, p := range paths {
			if strings.HasSuffix(p.path, "/new") {
				continue
			}
			e.visit(t, w.b, p.path)
			require.Equal(t, []string{"/app/acme/signout"}, eval[[]string](w,
				`Array.from(document.querySelectorAll("form[method=post]"), f => f.getAttribute("action"))`), "%s %s", design, p.path)
			require.Zero(t, eval[int](w, `document.querySelectorAll("[hx-post], details.editor, #new-record, input[type=file]").length`), p.path)
		}
	}
	w.signOut()

	e.browserSignIn(t, w.b, "acme", "cat@acme.test")
	e.visit(t, w.b, "/app/acme/settings")
	require.Equal(t, []string{"Catalog", "Preferences"}, eval[[]string](w, `Array.from(document.querySelectorAll(".settings-side .family"), f => f.textContent)`))
	for _, p := range paths {
		if strings.Contains(p.path, "/settings/services") || strings.Contains(p.path, "/settings/preferences") ||
			strings.HasSuffix(p.path, "/settings/phases") || strings.Contains(p.path, "/settings/import") {
			continue
		}
		for _, family := range []string{"templates", "users", "roles", "identity-providers", "domains", "sign-in", "account",
			"currencies", "payment-terms", "general-terms", "approval-levels", "level-approvals", "webhooks"} {
			if strings.Contains(p.path, "/settings/"+family) {
				res, err := chromedp.Run(w.b, chromedp.NavigateResponse(e.srv.URL+p.path))
				require.NoError(t, err)
				require.EqualValues(t, http.StatusForbidden, res.Status, p.path)
				require.Equal(t, "Your role does not allow this", w.text("h1"), p.path)
			}
		}
	}
	_ = context.Background()
}

// storeDesign writes a person's settings design into the store, for a
// person whose role may not change it.
func (e *env) storeDesign(t *testing.T, email, design string) {
	t.Helper()
	require.NoError(t, e.db.Update(context.Background(), func(tx engine.Tx) error {
		u, err := tx.Get("users", e.accts["acme"], e.users[email])
		if err != nil {
			return err
		}
		u.Attrs["settings-design"] = design
		return tx.Replace(u)
	}))
}
