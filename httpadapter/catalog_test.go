package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The catalog in projects (adding a catalog service, applying a
// blueprint, required governance), users and the account record.

// catalogFixture is a small catalog of acme: a service with a phase, line
// of business, category and resource, and two subservices.
type catalogFixture struct {
	tok                         string
	engineer, architect         string // catalog resources
	phase, lob, category        string
	service, survey, report     string // the service and its subservices
	rateTable, client           string
	withTable, withoutRateTable string // projects
}

func newCatalogFixture(e *testEnv) *catalogFixture {
	e.t.Helper()
	f := &catalogFixture{tok: e.admin()}
	tok := f.tok
	f.engineer = e.create("/v2/resources", tok, "resources", `{"name":"Engineer","external-name":"Network engineer","hourly-rate":"200","hourly-cost":"90"}`)
	f.architect = e.create("/v2/resources", tok, "resources", `{"name":"Architect","hourly-rate":"250","hourly-cost":"120"}`)
	f.phase = e.create("/v2/phases", tok, "phases", `{"name":"Design","position":2,"sow-language":"We design."}`)
	f.lob = e.create("/v2/lines-of-business", tok, "lines-of-business", `{"name":"Security"}`)
	f.category = e.create("/v2/service-categories", tok, "service-categories", `{"name":"Firewalls"}`)
	f.service = e.create("/v2/services", tok, "services",
		`{"name":"Firewall assessment","hours":"8","service-type":"managed_services","payment-frequency":"monthly","description":"Assess it.","sku":"FW-1"}`,
		"phase", "phases", f.phase, "line-of-business", "lines-of-business", f.lob,
		"service-category", "service-categories", f.category, "resource", "resources", f.engineer)
	f.survey = e.create("/v2/subservices", tok, "subservices", `{"name":"Survey","hours":"1.5","quantity":3,"position":1}`,
		"service", "services", f.service, "resource", "resources", f.architect)
	f.report = e.create("/v2/subservices", tok, "subservices", `{"name":"Report","hours":2,"position":2}`, "service", "services", f.service)
	f.rateTable = e.create("/v2/rate-tables", tok, "rate-tables", `{"name":"Partner"}`)
	e.create("/acme/v1/resource-rates", tok, "resource-rates", `{"hourly-rate":"180","hourly-cost":"80"}`,
		"rate-table", "rate-tables", f.rateTable, "resource", "resources", f.engineer)
	f.client = e.create("/v2/clients", tok, "clients", `{"name":"Initech"}`)
	f.withTable = e.create("/v2/projects", tok, "projects", `{"project-name":"With table"}`,
		"client", "clients", f.client, "rate-table", "rate-tables", f.rateTable)
	f.withoutRateTable = e.create("/v2/projects", tok, "projects", `{"project-name":"Without table"}`, "client", "clients", f.client)
	return f
}

// Ensure creating a project service with a service relationship copies
// the catalog service (name, hours, type, phase created on demand and
// reused, line of business, category, subservices) and assigns the
// project resource priced from the rate table, else from the catalog
// resource; attributes sent in the request win.
func TestAddCatalogServiceToProject(t *testing.T) {
	e := mustEnv(t)
	f := newCatalogFixture(e)
	tok := f.tok
	require.Empty(t, e.get("/v2/projects/"+f.withoutRateTable, tok).rel("rate-table"), "no default rate table")

	r := e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", `{"quantity":2}`,
		"project", "projects", f.withTable, "service", "services", f.service))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	ps := r.data()["id"].(string)
	assert.Equal(t, "Firewall assessment", r.attr("name"))
	assert.Equal(t, "8", r.attr("unit-hours"))
	assert.Equal(t, "2", r.attr("quantity"))
	assert.Equal(t, "managed_services", r.attr("service-type"))
	assert.Equal(t, "monthly", r.attr("payment-frequency"))
	assert.Equal(t, "Assess it.", r.attr("service-description"))
	assert.Equal(t, "FW-1", r.attr("sku"))
	assert.Equal(t, f.service, r.rel("service"))
	assert.Equal(t, f.lob, r.rel("line-of-business"))
	assert.Equal(t, f.category, r.rel("service-category"))

	pphase := r.rel("project-phase")
	require.NotEmpty(t, pphase, "a project phase is created on demand")
	ph := e.get("/acme/v1/project-phases/"+pphase, tok)
	require.Equal(t, http.StatusOK, ph.Status, "%s", ph.Body)
	assert.Equal(t, "Design", ph.attr("name"))
	assert.EqualValues(t, 2, ph.attr("position"))
	assert.Equal(t, "We design.", ph.attr("sow-language"))
	assert.Equal(t, f.phase, ph.rel("phase"))
	assert.Equal(t, f.withTable, ph.rel("project"))

	pres := r.rel("project-resource")
	require.NotEmpty(t, pres, "the service's resource is assigned")
	pr := e.get("/acme/v1/project-resources/"+pres, tok)
	require.Equal(t, http.StatusOK, pr.Status, "%s", pr.Body)
	assert.Equal(t, f.engineer, pr.rel("resource"))
	assert.Equal(t, "Engineer", pr.attr("name"))
	assert.Equal(t, "Network engineer", pr.attr("external-name"))
	assert.Equal(t, "180", pr.attr("hourly-rate"), "from the rate table's resource rate")
	assert.Equal(t, "80", pr.attr("hourly-cost"))

	subs := e.get("/v2/project-subservices?filter[project-service]="+ps+"&sort=position", tok)
	require.Len(t, subs.list(), 2, "%s", subs.Body)
	survey := subs.list()[0]["attributes"].(map[string]any)
	assert.Equal(t, "Survey", survey["name"])
	assert.Equal(t, "1.5", survey["unit-hours"])
	assert.Equal(t, "3", survey["quantity"])
	assert.Equal(t, "Report", subs.list()[1]["attributes"].(map[string]any)["name"])
	sub := e.get("/v2/project-subservices/"+subs.ids()[0], tok)
	assert.Equal(t, f.survey, sub.rel("subservice"))
	archRes := sub.rel("project-resource")
	require.NotEmpty(t, archRes, "the subservice's resource is assigned too")
	arch := e.get("/acme/v1/project-resources/"+archRes, tok)
	assert.Equal(t, f.architect, arch.rel("resource"))
	assert.Equal(t, "250", arch.attr("hourly-rate"), "no resource rate in the table: the catalog resource's own")
	assert.Equal(t, "120", arch.attr("hourly-cost"))

	// a second time: the request's attributes win, the phase and resource are reused
	r = e.req(http.MethodPost, "/acme/v1/project-services", tok, doc("project-services", "", `{"name":"Custom name","unit-hours":"4","service-type":"professional_services"}`,
		"project", "projects", f.withTable, "service", "services", f.service))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "Custom name", r.attr("name"))
	assert.Equal(t, "4", r.attr("unit-hours"))
	assert.Equal(t, "professional_services", r.attr("service-type"))
	assert.Equal(t, "1", r.attr("quantity"), "the default quantity")
	assert.Equal(t, pphase, r.rel("project-phase"), "the project phase is reused")
	assert.Equal(t, pres, r.rel("project-resource"), "the project resource is reused")
	assert.Len(t, e.get("/acme/v1/project-phases?filter[project]="+f.withTable, tok).list(), 1)
	assert.Len(t, e.get("/acme/v1/project-resources?filter[project]="+f.withTable, tok).list(), 2)
	assert.Len(t, e.get("/v2/project-subservices?filter[project]="+f.withTable, tok).list(), 4)

	// a relationship sent in the request wins too
	other := e.create("/acme/v1/project-phases", tok, "project-phases", `{"name":"Mine"}`, "project", "projects", f.withTable)
	r = e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", "",
		"project", "projects", f.withTable, "service", "services", f.service, "project-phase", "project-phases", other))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, other, r.rel("project-phase"))

	// a project without a rate table prices the resource from the catalog
	r = e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", "",
		"project", "projects", f.withoutRateTable, "service", "services", f.service))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	pr = e.get("/acme/v1/project-resources/"+r.rel("project-resource"), tok)
	assert.Equal(t, "200", pr.attr("hourly-rate"))
	assert.Equal(t, "90", pr.attr("hourly-cost"))
	assert.NotEqual(t, pphase, r.rel("project-phase"), "each project gets its own phase")
	assert.Equal(t, f.withoutRateTable, e.get("/acme/v1/project-phases/"+r.rel("project-phase"), tok).rel("project"))
}

// Ensure apply-blueprint adds every active service of the blueprint with
// its item's quantity and answers 200 with the created project services;
// a blueprint of another account is 422 and a body of the wrong type 409.
func TestApplyBlueprint(t *testing.T) {
	e := mustEnv(t)
	f := newCatalogFixture(e)
	tok := f.tok
	install := e.create("/v2/services", tok, "services", `{"name":"Install","hours":4}`)
	retired := e.create("/v2/services", tok, "services", `{"name":"Retired","hours":1}`)
	bp := e.create("/acme/v1/blueprints", tok, "blueprints", `{"name":"Firewall refresh"}`)
	e.create("/acme/v1/blueprint-items", tok, "blueprint-items", `{"quantity":"2","position":1}`, "blueprint", "blueprints", bp, "service", "services", f.service)
	e.create("/acme/v1/blueprint-items", tok, "blueprint-items", `{"quantity":3,"position":2}`, "blueprint", "blueprints", bp, "service", "services", install)
	e.create("/acme/v1/blueprint-items", tok, "blueprint-items", `{"quantity":5,"position":3}`, "blueprint", "blueprints", bp, "service", "services", retired)
	e.patch("/v2/services/"+retired, tok, "services", retired, `{"active":false}`)

	r := e.get("/acme/v1/blueprints/"+bp+"/services", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{f.service, install}, r.ids(), "active services by default")
	r = e.get("/acme/v1/blueprints/"+bp+"/services?filter[active]=true,false", tok)
	assert.ElementsMatch(t, []string{f.service, install, retired}, r.ids())

	path := "/acme/v1/projects/" + f.withTable + "/apply-blueprint"
	r = e.req(http.MethodPost, path, tok, `{"data":{"type":"blueprints","id":"`+bp+`"}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.list(), 2, "the archived service is skipped: %s", r.Body)
	assert.EqualValues(t, 2, r.meta("record-count"))
	got := map[string]string{}
	for _, d := range r.list() {
		assert.Equal(t, "project-services", d["type"])
		a := d["attributes"].(map[string]any)
		got[a["name"].(string)] = a["quantity"].(string)
	}
	assert.Equal(t, map[string]string{"Firewall assessment": "2", "Install": "3"}, got)
	listed := e.get("/v2/project-services?filter[project]="+f.withTable, tok)
	assert.ElementsMatch(t, r.ids(), listed.ids(), "the created records are stored")
	assert.Len(t, e.get("/v2/project-subservices?filter[project]="+f.withTable, tok).list(), 2, "subservices are copied as well")

	theirs := e.seed("globex", "blueprints", `{"name":"Theirs"}`)
	for _, tc := range []struct {
		name, body string
		status     int
		pointer    string
	}{
		{"another account's blueprint", `{"data":{"type":"blueprints","id":"` + theirs + `"}}`, http.StatusUnprocessableEntity, ""},
		{"unknown blueprint", `{"data":{"type":"blueprints","id":"99999"}}`, http.StatusUnprocessableEntity, ""},
		{"wrong type", `{"data":{"type":"services","id":"` + bp + `"}}`, http.StatusConflict, "/data/type"},
		{"no id", `{"data":{"type":"blueprints"}}`, http.StatusBadRequest, "/data/id"},
		{"malformed", `{"data":`, http.StatusBadRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, e.req(http.MethodPost, path, tok, tc.body), tc.status, tc.pointer)
		})
	}
	assertError(t, e.req(http.MethodPost, path, tok, `{"data":{"type":"blueprints","id":"`+bp+`"}}`, "Content-Type", "application/json"),
		http.StatusUnsupportedMediaType, "")
	assertError(t, e.req(http.MethodPost, "/acme/v1/projects/99999/apply-blueprint", tok, `{"data":{"type":"blueprints","id":"`+bp+`"}}`),
		http.StatusNotFound, "")
	ro := e.token("acme", "ro@acme.test", "Read Only")
	assertError(t, e.req(http.MethodPost, path, ro, `{"data":{"type":"blueprints","id":"`+bp+`"}}`), http.StatusForbidden, "")
	assert.Len(t, e.get("/v2/project-services?filter[project]="+f.withTable, tok).list(), 2, "failed applications add nothing")
}

// Ensure required, active catalog governances are copied onto new
// projects, priced through the project resource of their resource.
func TestRequiredGovernanceCopied(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	res := e.create("/v2/resources", tok, "resources", `{"name":"PM","hourly-rate":150}`)
	g := e.create("/acme/v1/governances", tok, "governances", `{"name":"Project management","rate":"0.1","required":true,"position":1}`, "resource", "resources", res)
	e.create("/acme/v1/governances", tok, "governances", `{"name":"Optional","rate":"0.05"}`)
	old := e.create("/acme/v1/governances", tok, "governances", `{"name":"Retired","rate":"0.05","required":true}`)
	e.patch("/acme/v1/governances/"+old, tok, "governances", old, `{"active":false}`)

	client := e.create("/v2/clients", tok, "clients", `{"name":"C"}`)
	proj := e.create("/v2/projects", tok, "projects", `{"project-name":"P"}`, "client", "clients", client)
	r := e.get("/acme/v1/project-governances?filter[project]="+proj, tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.list(), 1, "%s", r.Body)
	pg := e.get("/acme/v1/project-governances/"+r.ids()[0], tok)
	assert.Equal(t, "Project management", pg.attr("name"))
	assert.Equal(t, "0.1", pg.attr("rate"))
	assert.Equal(t, g, pg.rel("governance"))
	pr := e.get("/acme/v1/project-resources/"+pg.rel("project-resource"), tok)
	require.Equal(t, http.StatusOK, pr.Status, "%s", pr.Body)
	assert.Equal(t, res, pr.rel("resource"))
	assert.Equal(t, "150", pr.attr("hourly-rate"))

	// an update of the project does not copy them again
	e.patch("/v2/projects/"+proj, tok, "projects", proj, `{"project-name":"P2"}`)
	assert.Len(t, e.get("/acme/v1/project-governances?filter[project]="+proj, tok).list(), 1)
}

// Ensure users: a created user is invited; its email is unique in the
// account (case-insensitively) but the same email in another account is
// the same identity; converting to a service account needs confirmation,
// and the person a member of this account alone.
func TestUsers(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	r := e.req(http.MethodPost, "/acme/v1/users", tok, doc("users", "", `{"name":"Ann","email":"ann@example.test","title":"CTO"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	ann := r.data()["id"].(string)
	assert.Equal(t, "invited", r.attr("status"))
	assert.Equal(t, "standard", r.attr("user-type"))
	assert.Equal(t, true, r.attr("active"))
	roles := r.data()["relationships"].(map[string]any)["roles"].(map[string]any)["data"].([]any)
	assert.Len(t, roles, 1, "one role in the account")

	for _, email := range []string{"ann@example.test", "ANN@example.test"} {
		assertError(t, e.req(http.MethodPost, "/acme/v1/users", tok, doc("users", "", `{"name":"Ann 2","email":"`+email+`"}`)),
			http.StatusUnprocessableEntity, "/data/attributes/email")
	}
	assertError(t, e.req(http.MethodPost, "/acme/v1/users", tok, doc("users", "", `{"name":"No mail","email":"not-an-email"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/email")
	assertError(t, e.req(http.MethodPost, "/acme/v1/users", tok, doc("users", "", `{"name":"No mail"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/email")

	other := e.token("globex", "admin@globex.test", "Account Admin")
	r = e.req(http.MethodPost, "/globex/v1/users", other, doc("users", "", `{"name":"Ann","email":"ann@example.test"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, ann, r.data()["id"], "one identity across accounts")
	assert.Equal(t, "invited", r.attr("status"))
	assert.Equal(t, "CTO", r.attr("title"), "the identity's attributes")
	assert.Equal(t, http.StatusOK, e.get("/acme/v1/users/"+ann, tok).Status)
	assert.Equal(t, http.StatusOK, e.get("/globex/v1/users/"+ann, other).Status)

	// being a service account is the person's: not changed while the
	// person is a member of globex too (docs/auth.md "Accounts are walls")
	shared := assertError(t, e.req(http.MethodPatch, "/acme/v1/users/"+ann, tok,
		`{"data":{"type":"users","id":"`+ann+`","attributes":{"user-type":"service"}},"meta":{"confirm":true}}`), http.StatusConflict, "")
	assert.Contains(t, shared["detail"], "member of 1 other account(s)")
	assert.NotContains(t, shared["detail"], "globex")
	// archiving deactivates the membership in that account only
	r = e.patch("/globex/v1/users/"+ann, other, "users", ann, `{"active":false}`)
	assert.Equal(t, "deactivated", r.attr("status"))
	assert.Equal(t, "invited", e.get("/acme/v1/users/"+ann, tok).attr("status"))

	// converting to a service account needs meta.confirm
	first := assertError(t, e.req(http.MethodPatch, "/acme/v1/users/"+ann, tok, doc("users", ann, `{"user-type":"service"}`)), http.StatusConflict, "")
	assert.Contains(t, first["detail"], "confirm")
	assertError(t, e.req(http.MethodPatch, "/acme/v1/users/"+ann, tok,
		`{"data":{"type":"users","id":"`+ann+`","attributes":{"user-type":"service"}},"meta":{"confirm":false}}`), http.StatusConflict, "")
	assert.Equal(t, "standard", e.get("/acme/v1/users/"+ann, tok).attr("user-type"))
	r = e.req(http.MethodPatch, "/acme/v1/users/"+ann, tok,
		`{"data":{"type":"users","id":"`+ann+`","attributes":{"user-type":"service"}},"meta":{"confirm":true}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "service", r.attr("user-type"))
}

// Ensure PATCH /v1/me sets settings-design and nothing else.
func TestUpdateMe(t *testing.T) {
	e := mustEnv(t)
	uid, tok := e.user("acme", "admin@acme.test", "Account Admin")
	me := e.get("/v1/me", tok)
	require.Equal(t, http.StatusOK, me.Status, "%s", me.Body)
	assert.Equal(t, uid, me.data()["id"])
	assert.Equal(t, "me", me.data()["type"])
	assert.Equal(t, "classic", me.attr("settings-design"))

	r := e.req(http.MethodPatch, "/v1/me", tok, doc("me", uid, `{"settings-design":"modern"}`))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "modern", r.attr("settings-design"))
	assert.Equal(t, "modern", e.get("/v1/me", tok).attr("settings-design"))

	assertError(t, e.req(http.MethodPatch, "/v1/me", tok, doc("me", uid, `{"name":"New name"}`)), http.StatusBadRequest, "/data/attributes/name")
	assertError(t, e.req(http.MethodPatch, "/v1/me", tok, doc("me", uid, `{"settings-design":"retro"}`)), http.StatusUnprocessableEntity, "/data/attributes/settings-design")
	assertError(t, e.req(http.MethodPatch, "/v1/me", tok, doc("me", uid+"0", `{"settings-design":"classic"}`)), http.StatusConflict, "/data/id")
	assertError(t, e.req(http.MethodPatch, "/v1/me", tok, doc("users", uid, `{"settings-design":"classic"}`)), http.StatusConflict, "/data/type")
	assert.Equal(t, "admin@acme.test", e.get("/v1/me", tok).attr("name"))
	assert.Equal(t, "modern", e.get("/v1/me", tok).attr("settings-design"))
}

// Ensure psa? on the account is true only with an integrated product of
// kind psa that is both connected and enabled.
func TestAccountPSA(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	psa := func() any {
		t.Helper()
		r := e.get("/acme/v1/account", tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, "accounts", r.data()["type"])
		assert.Equal(t, e.accts["acme"], r.data()["id"])
		assert.Equal(t, "acme", r.attr("slug"))
		assert.Equal(t, "USD", r.attr("default-currency"))
		return r.attr("psa?")
	}
	assert.Equal(t, false, psa(), "no integrated product")

	crm := e.create("/acme/v1/integrated-products", tok, "integrated-products", `{"name":"CRM","kind":"crm","connected":true,"enabled":true}`)
	assert.Equal(t, false, psa(), "connected and enabled, but not a psa")
	p := e.create("/acme/v1/integrated-products", tok, "integrated-products", `{"name":"PSA","kind":"psa","connected":true}`)
	assert.Equal(t, false, psa(), "connected but not enabled")
	e.patch("/acme/v1/integrated-products/"+p, tok, "integrated-products", p, `{"connected":false,"enabled":true}`)
	assert.Equal(t, false, psa(), "enabled but not connected")
	e.patch("/acme/v1/integrated-products/"+p, tok, "integrated-products", p, `{"connected":true}`)
	assert.Equal(t, true, psa(), "psa, connected and enabled")

	// another account's product does not count
	other := e.token("globex", "admin@globex.test", "Account Admin")
	r := e.get("/globex/v1/account", other)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, false, r.attr("psa?"))

	e.patch("/acme/v1/integrated-products/"+p, tok, "integrated-products", p, `{"enabled":false}`)
	assert.Equal(t, false, psa())
	e.patch("/acme/v1/integrated-products/"+crm, tok, "integrated-products", crm, `{"kind":"psa"}`)
	assert.Equal(t, true, psa())
}
