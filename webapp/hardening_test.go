package webapp_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

var serviceRow = regexp.MustCompile(`<tbody id="line-svc-(\d+)"`)

// firstService returns the id of the first service row of the project's
// scope and the page.
func firstService(t *testing.T, b *browser, pid string) (string, *page) {
	t.Helper()
	p := b.get("/app/acme/projects/" + pid)
	require.Equal(t, http.StatusOK, p.Status)
	m := serviceRow.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "no service row")
	return m[1], p
}

// quantity reads a project service's quantity through the API.
func (e *env) quantity(id string) string {
	e.t.Helper()
	return e.apiRecord("acme", "project-services", id)["quantity"].(string)
}

// Ensure bad input gets a clear answer and changes nothing: a form
// without or with a stale CSRF token, another account's id in a form, a
// quantity of 10^20, a megabyte of text, a repeated field, a double
// submit.
func TestBadInput(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid := e.seeded["acme"].ProjectID
	svc, scope := firstService(t, b, pid)
	before := e.quantity(svc)
	csrf := scope.csrf(t)
	edit := "/app/acme/projects/" + pid + "/lines/services/" + svc

	cases := []struct {
		name   string
		form   []string
		htmx   bool
		status int
		says   string
	}{
		{"no CSRF token", []string{"quantity", "9"}, false, http.StatusForbidden, "This form has expired"},
		{"a forged token", []string{"csrf", strings.Repeat("A", 43), "quantity", "9"}, true, http.StatusForbidden, "This form has expired"},
		{"two tokens", []string{"csrf", csrf, "csrf", csrf, "quantity", "9"}, false, http.StatusForbidden, "This form has expired"},
		{"10^40", []string{"csrf", csrf, "quantity", "1" + strings.Repeat("0", 40)}, false, http.StatusUnprocessableEntity, "quantity"},
		{"not a number", []string{"csrf", csrf, "quantity", "lots"}, true, http.StatusUnprocessableEntity, "quantity"},
		{"repeated field", []string{"csrf", csrf, "quantity", "2", "quantity", "3"}, false, http.StatusBadRequest, "repeats the field quantity"},
		{"another account's phase", []string{"csrf", csrf, "project-phase", e.globexPhase(t)}, false, http.StatusUnprocessableEntity, "project-phase"},
		{"a megabyte", []string{"csrf", csrf, "quantity", "2", "note", strings.Repeat("x", 1<<20)}, false, http.StatusRequestEntityTooLarge, "too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := b.post(edit, formOf(tc.form...), tc.htmx)
			require.Equal(t, tc.status, p.Status, p.Body)
			require.Contains(t, p.Body, tc.says)
			if tc.htmx {
				require.Equal(t, "#flash", p.Header.Get("HX-Retarget"), "htmx shows the message in the page")
			}
			require.Equal(t, before, e.quantity(svc), "nothing changed")
		})
	}

	t.Run("10^20", func(t *testing.T) {
		// within the decimals' limits (docs/limits.md): taken as the API
		// takes it, and priced exactly, never a 500
		p := b.post(edit, formOf("csrf", csrf, "quantity", "100000000000000000000"), true)
		require.Equal(t, http.StatusOK, p.Status, p.Body)
		require.Greater(t, requireFiguresMatch(t, p.Body, e.pricing("acme", pid)), 10)
		require.Contains(t, p.Body, `value="100000000000000000000"`)
		p = b.post(edit, formOf("csrf", csrf, "quantity", before), false)
		require.Equal(t, http.StatusOK, p.Status, p.Body)
		require.Equal(t, before, e.quantity(svc))
	})

	t.Run("a megabyte of text in a field", func(t *testing.T) {
		form := formOf("csrf", csrf, "description", strings.Repeat("x", 300<<10), "rate", "10", "once", strings.Repeat("m", 20))
		p := b.post("/app/acme/projects/"+pid+"/lines/expenses", form, false)
		require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
		require.Contains(t, p.Body, "description")
	})

	t.Run("a stale token, from before signing in again", func(t *testing.T) {
		p := b.post("/app/acme/signout", formOf("csrf", csrf), false)
		require.Equal(t, http.StatusOK, p.Status)
		require.Contains(t, p.URL, "/app/?account=acme")
		p = b.post(edit, formOf("csrf", csrf, "quantity", "9"), false)
		require.Equal(t, http.StatusUnauthorized, p.Status, "signed out")
		b.signIn("acme", "ada@acme.test")
		p = b.post(edit, formOf("csrf", csrf, "quantity", "9"), false)
		require.Equal(t, http.StatusForbidden, p.Status, "the old session's token")
		require.Equal(t, before, e.quantity(svc))
	})

	t.Run("double submit", func(t *testing.T) {
		newPage := b.get("/app/acme/projects/new")
		form := newPage.hidden()
		form.Set("name", "Twice")
		form.Set("client", "A brand new client")
		p := b.post("/app/acme/projects", form, false)
		require.Equal(t, http.StatusOK, p.Status, p.Body)
		require.Contains(t, p.Body, "Twice")
		p = b.post("/app/acme/projects", form, false)
		require.Equal(t, http.StatusConflict, p.Status)
		require.Contains(t, p.Body, "already submitted")
		require.Equal(t, 1, e.count("acme", "projects", "name", "Twice"))
		require.Equal(t, 1, e.count("acme", "clients", "name", "A brand new client"))
	})

	t.Run("a refused project leaves no client behind", func(t *testing.T) {
		form := b.get("/app/acme/projects/new").hidden()
		form.Set("name", strings.Repeat("n", 300))
		form.Set("client", "Half written")
		p := b.post("/app/acme/projects", form, false)
		require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
		require.Contains(t, p.Body, "project-name")
		require.Contains(t, p.Body, `value="Half written"`, "the form comes back filled")
		require.Equal(t, 0, e.count("acme", "clients", "name", "Half written"))
	})
}

// globexPhase is a project phase of globex's project.
func (e *env) globexPhase(t *testing.T) string {
	t.Helper()
	gus := e.actor("globex", "gus@globex.test")
	res, err := e.svc.List(context.Background(), gus, "project-phases", engine.ListParams{PageSize: 1, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, res.Records)
	return res.Records[0].ID
}

// count is how many records of typ in the account a filter matches.
func (e *env) count(slug, typ, filter, value string) int {
	e.t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts[slug])
	require.NoError(e.t, err)
	res, err := e.svc.List(context.Background(), sys, typ, engine.ListParams{PageSize: 100, PageNumber: 1,
		Filters: map[string]string{filter: value}}, engine.Options{})
	require.NoError(e.t, err)
	return res.Total
}

// Ensure a Read Only person sees the pages but is offered no change, and
// every change it sends anyway is refused (403) without effect.
func TestReadOnly(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ron@acme.test")
	pid := e.seeded["acme"].ProjectID
	svc, scope := firstService(t, b, pid)
	before := e.quantity(svc)
	require.NotContains(t, scope.Body, "hx-post")
	require.NotContains(t, scope.Body, `name="quantity"`)
	require.NotContains(t, b.get("/app/acme/projects").Body, "New project")
	csrf := scope.csrf(t)
	for _, post := range []struct{ path, field, value string }{
		{"/app/acme/projects/" + pid + "/lines/services/" + svc, "quantity", "9"},
		{"/app/acme/projects/" + pid + "/lines/services/" + svc + "/remove", "", ""},
		{"/app/acme/projects/" + pid + "/lines/services/" + svc + "/move", "direction", "down"},
		{"/app/acme/projects/" + pid + "/lines/services", "service", "1"},
		{"/app/acme/projects/" + pid + "/submit", "", ""},
		{"/app/acme/projects/" + pid + "/documents", "document-type", "pricing"},
		{"/app/acme/projects", "name", "Not mine to make"},
	} {
		form := formOf("csrf", csrf, "once", strings.Repeat("r", 22)+post.field)
		if post.field != "" {
			form.Set(post.field, post.value)
		}
		p := b.post(post.path, form, false)
		require.Equal(t, http.StatusForbidden, p.Status, "%s: %s", post.path, p.Body)
	}
	require.Equal(t, before, e.quantity(svc))
	require.Equal(t, 0, e.count("acme", "projects", "name", "Not mine to make"))
	require.Equal(t, http.StatusForbidden, b.get("/app/acme/projects/new").Status)
}

// Ensure another account's project ids are not found, a session acts in
// its own account only, and a deactivated person's session ends.
func TestAccountsAreWalls(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	gp := e.seeded["globex"].ProjectID
	ap := e.seeded["acme"].ProjectID
	for _, path := range []string{"/app/acme/projects/" + gp, "/app/acme/projects/" + gp + "/pricing", "/app/acme/projects/" + gp + "/merge-data"} {
		p := b.get(path)
		if gp == ap { // ids are per account sequence: the same id is acme's own project
			continue
		}
		require.Equal(t, http.StatusNotFound, p.Status, path)
		require.NotContains(t, p.Body, "Globex firewall")
	}
	// globex's pages ask to sign in to globex: the acme session is not
	// used there
	p := b.get("/app/globex/projects")
	require.Contains(t, p.URL, "/oauth/authorize")
	scope := b.get("/app/acme/projects/" + ap)
	p = b.post("/app/globex/projects/"+gp+"/submit", formOf("csrf", scope.csrf(t)), false)
	require.Equal(t, http.StatusUnauthorized, p.Status)

	// gus of globex with acme's line ids in a globex path
	g := e.browser()
	g.signIn("globex", "gus@globex.test")
	svc, _ := firstService(t, b, ap)
	gs := g.get("/app/globex/projects/" + gp)
	p = g.post("/app/globex/projects/"+gp+"/lines/services/"+svc, formOf("csrf", gs.csrf(t), "quantity", "9"), false)
	require.Contains(t, []int{http.StatusNotFound}, p.Status, p.Body)

	// deactivated: the next page asks to sign in again
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	require.NoError(t, e.svc.Delete(context.Background(), sys, "users", e.users["ada@acme.test"], engine.Options{}))
	p = b.get("/app/acme/projects")
	require.Contains(t, p.URL, "/oauth/authorize")
}
