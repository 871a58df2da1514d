package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure every settings form answers bad input clearly and writes
// nothing: a form without its CSRF token or with another session's (403),
// another account's record in the address (404) or in a field (422
// naming it), a field far over its limit (422 naming it, or 413 for the
// form), a field repeated (400), a double submit (409, one record).
func TestSettingsBadInput(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	stale := b.get("/app/acme/settings/services").csrf(t)
	b.post("/app/acme/signout", formOf("csrf", stale), false)
	b.signIn("acme", "ada@acme.test")
	csrf := b.get("/app/acme/settings/services").csrf(t)
	gus := e.actor("globex", "gus@globex.test")

	for _, s := range []struct{ key, typ string }{{"services", "services"}, {"phases", "phases"}, {"resources", "resources"},
		{"rate-tables", "rate-tables"}, {"products", "products"}, {"governance", "governances"}, {"blueprints", "blueprints"},
		{"lines-of-business", "lines-of-business"}, {"service-categories", "service-categories"}, {"expense-categories", "expense-categories"},
		{"users", "users"}, {"roles", "roles"}, {"identity-providers", "identity-providers"}, {"domains", "verified-domains"},
		{"currencies", "currencies"}, {"payment-terms", "payment-terms"}, {"general-terms", "general-terms"},
		{"approval-levels", "approval-levels"}, {"webhooks", "webhook-subscriptions"}, {"templates", "document-templates"}} {
		t.Run(s.key, func(t *testing.T) {
			before := e.total("acme", s.typ)
			form := b.get("/app/acme/settings/" + s.key + "/new").formValues("f-form")
			require.NotEmpty(t, form.Get("once"), s.key)
			name := nameField(form)
			create := "/app/acme/settings/" + s.key

			noToken := cloneValues(form)
			noToken.Del("csrf")
			require.Equal(t, http.StatusForbidden, b.post(create, noToken, false).Status, "no token")
			old := cloneValues(form)
			old.Set("csrf", stale)
			p := b.post(create, old, true)
			require.Equal(t, http.StatusForbidden, p.Status, "another session's token")
			require.Equal(t, "#flash", p.Header.Get("HX-Retarget"))

			long := cloneValues(form)
			long.Set(name, strings.Repeat("x", 300))
			p = b.post(create, long, false)
			require.Equal(t, http.StatusUnprocessableEntity, p.Status, "%s: %s", name, p.Body)
			require.Contains(t, p.Body, `id="f-`+name+`-error"`, "said next to the field")

			huge := cloneValues(form)
			huge.Set(name, strings.Repeat("x", 600<<10))
			require.Equal(t, http.StatusRequestEntityTooLarge, b.post(create, huge, false).Status)

			twice := cloneValues(form)
			twice.Add(name, "again")
			require.Equal(t, http.StatusBadRequest, b.post(create, twice, false).Status)

			// bytes that are not UTF-8: refused as the API refuses them,
			// never stored altered
			bad := cloneValues(form)
			bad.Set(name, "bad\xff\xfeutf")
			p = b.post(create, bad, false)
			require.Equal(t, http.StatusBadRequest, p.Status, p.Body)
			require.Contains(t, p.Body, "not valid UTF-8")
			require.Equal(t, before, e.total("acme", s.typ), "nothing written")

			// another account's record, in the address
			theirs := e.firstID(gus, s.typ)
			if theirs != "" && !e.exists("acme", s.typ, theirs) {
				edit := cloneValues(form)
				p = b.post(create+"/"+theirs, edit, false)
				require.Equal(t, http.StatusNotFound, p.Status, "%s %s", s.key, p.Body)
				require.Equal(t, http.StatusNotFound, b.post(create+"/"+theirs+"/archive", formOf("csrf", csrf), false).Status)
				require.Equal(t, http.StatusNotFound, b.post(create+"/"+theirs+"/delete", formOf("csrf", csrf), false).Status)
				require.Equal(t, http.StatusNotFound, b.get(create+"/"+theirs).Status)
			}
		})
	}

	t.Run("another account's record in a field", func(t *testing.T) {
		form := b.get("/app/acme/settings/services/new").formValues("f-form")
		form.Set("name", "Cross")
		phase := e.firstID(gus, "phases")
		if e.exists("acme", "phases", phase) {
			t.Skip("ids are per type: globex's phase has an acme id")
		}
		form.Set("phase", phase)
		p := b.post("/app/acme/settings/services", form, false)
		require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
		require.Contains(t, p.Body, `id="f-phase-error"`)
		require.Equal(t, 0, e.count("acme", "services", "name", "Cross"))
	})

	t.Run("double submit", func(t *testing.T) {
		form := b.get("/app/acme/settings/products/new").formValues("f-form")
		form.Set("name", "Patch cable")
		require.Equal(t, http.StatusOK, b.post("/app/acme/settings/products", form, false).Status)
		p := b.post("/app/acme/settings/products", form, false)
		require.Equal(t, http.StatusConflict, p.Status)
		require.Contains(t, p.Body, "already submitted")
		require.Equal(t, 1, e.count("acme", "products", "name", "Patch cable"))
	})

	t.Run("pages of their own", func(t *testing.T) {
		for _, post := range []struct {
			path   string
			form   []string
			status int
			says   string
		}{
			{"/app/acme/settings/account", []string{"csrf", csrf, "locale", "xx-NOT-A-LOCALE"}, http.StatusUnprocessableEntity, `id="a-locale-error"`},
			{"/app/acme/settings/account", []string{"csrf", csrf, "locale", "en", "locale", "fr"}, http.StatusBadRequest, "repeats the field locale"},
			{"/app/acme/settings/account", []string{"csrf", csrf}, http.StatusBadRequest, "changes nothing"},
			{"/app/acme/settings/sign-in", []string{"mfa-required", "true"}, http.StatusForbidden, "has expired"},
			{"/app/acme/settings/preferences", []string{"csrf", csrf, "settings-design", "brutalist"}, http.StatusUnprocessableEntity, "must be one of classic, modern"},
			{"/app/acme/settings/preferences", []string{"csrf", stale, "settings-design", "modern"}, http.StatusForbidden, "has expired"},
			{"/app/acme/settings/users/" + e.users["gus@globex.test"] + "/reset-mfa", []string{"csrf", csrf}, http.StatusNotFound, "not yours"},
			{"/app/acme/settings/users/" + e.users["gus@globex.test"] + "/credentials", []string{"csrf", csrf}, http.StatusNotFound, "not yours"},
			{"/app/acme/settings/users/" + e.users["ron@acme.test"] + "/fly", []string{"csrf", csrf}, http.StatusNotFound, "not yours"},
			{"/app/acme/settings/nothing-here", []string{"csrf", csrf, "once", strings.Repeat("n", 22)}, http.StatusNotFound, "not yours"},
		} {
			p := b.post(post.path, formOf(post.form...), false)
			require.Equal(t, post.status, p.Status, "%s: %s", post.path, p.Body)
			require.Contains(t, p.Body, post.says, post.path)
		}
		acct := e.apiAccount()
		require.Equal(t, false, acct["mfa-required"])
		require.NotEqual(t, "xx-NOT-A-LOCALE", acct["locale"])
	})

	t.Run("file forms", func(t *testing.T) {
		p := b.postFile("/app/acme/settings/import", formOf("csrf", stale, "mode", "import"), "c.csv", []byte("Name\nX"))
		require.Equal(t, http.StatusForbidden, p.Status)
		p = b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "import"), "", nil)
		require.Equal(t, http.StatusUnprocessableEntity, p.Status)
		require.Contains(t, p.Body, "Choose a file")
		p = b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "sideways"), "c.csv", []byte("Name\nX"))
		require.Equal(t, http.StatusBadRequest, p.Status)
		p = b.post("/app/acme/settings/import", formOf("csrf", csrf, "mode", "import"), false)
		require.Equal(t, http.StatusUnsupportedMediaType, p.Status, "a file form is multipart")
		p = b.postFile("/app/acme/settings/templates/new", formOf("csrf", csrf, "name", "Big", "once", strings.Repeat("b", 22)),
			"big.docx", make([]byte, 21<<20))
		require.Equal(t, http.StatusRequestEntityTooLarge, p.Status)
		require.Equal(t, 0, e.count("acme", "document-templates", "name", "Big"))
	})
}

// nameField is the first text field of a form a record is named by.
func nameField(form url.Values) string {
	for _, n := range []string{"name", "domain", "code", "destination-url"} {
		if _, ok := form[n]; ok {
			return n
		}
	}
	return "name"
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// total counts an account's records of typ, archived ones included.
func (e *env) total(slug, typ string) int {
	e.t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts[slug])
	require.NoError(e.t, err)
	p := engine.ListParams{PageSize: 1, PageNumber: 1}
	if def, ok := e.svc.Schema().Lookup(typ); ok && def.Archives {
		p.Filters = map[string]string{"active": "true,false"}
	}
	res, err := e.svc.List(context.Background(), sys, typ, p, engine.Options{})
	require.NoError(e.t, err)
	return res.Total
}

// firstID is the id of a record of typ the actor reads ("" for none).
func (e *env) firstID(a *engine.Actor, typ string) string {
	e.t.Helper()
	res, err := e.svc.List(context.Background(), a, typ, engine.ListParams{PageSize: 1, PageNumber: 1}, engine.Options{})
	require.NoError(e.t, err)
	if len(res.Records) == 0 {
		return ""
	}
	return res.Records[0].ID
}

// exists reports whether the account has a record of typ with id.
func (e *env) exists(slug, typ, id string) bool {
	e.t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts[slug])
	require.NoError(e.t, err)
	def, _ := e.svc.Schema().Lookup(typ)
	_, err = e.svc.Get(context.Background(), sys, typ, id, engine.ListParams{Filters: engine.AnyActive(def)}, engine.Options{})
	return err == nil
}

// apiAccount reads acme's account through the API.
func (e *env) apiAccount() map[string]any {
	e.t.Helper()
	return e.apiRecordPath("acme", "/acme/v1/account")
}
