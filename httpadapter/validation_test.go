package httpadapter_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The validation rules 1-7 of docs/resources.md and the 400/422 line between a
// malformed request and one that fails validation.

// projectFixture creates a client and a project of acme and returns the
// project's id.
func projectFixture(e *testEnv, tok string) string {
	e.t.Helper()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Fixture client"}`)
	return e.create("/v2/projects", tok, "projects", `{"project-name":"Fixture project"}`, "client", "clients", client)
}

// Ensure rule 1: setting a computed field on v2 is 400 naming it; v1
// ignores computed fields in writes.
func TestRule1ComputedFieldOnV2(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	ps := e.create("/v2/project-services", tok, "project-services", `{"name":"Line","unit-hours":2}`, "project", "projects", proj)
	svc := e.create("/v2/services", tok, "services", `{"name":"Svc"}`)

	for _, tc := range []struct{ method, path, body, field string }{
		{http.MethodPost, "/v2/project-services", doc("project-services", "", `{"name":"L","custom-hours":true}`, "project", "projects", proj), "custom-hours"},
		{http.MethodPatch, "/v2/project-services/" + ps, doc("project-services", ps, `{"custom-hours":false}`), "custom-hours"},
		{http.MethodPatch, "/v2/project-services/" + ps, doc("project-services", ps, `{"extended-hours":"99"}`), "extended-hours"},
		{http.MethodPatch, "/v2/projects/" + proj, doc("projects", proj, `{"approved-at":"2026-01-01T00:00:00Z"}`), "approved-at"},
		{http.MethodPatch, "/v2/projects/" + proj, doc("projects", proj, `{"contract-revenue":"1"}`), "contract-revenue"},
		{http.MethodPatch, "/v2/services/" + svc, doc("services", svc, `{"created-at":"2020-01-01T00:00:00Z"}`), "created-at"},
		{http.MethodPatch, "/v2/services/" + svc, doc("services", svc, `{"state":"approved"}`), "state"},
	} {
		first := assertError(t, e.req(tc.method, tc.path, tok, tc.body), http.StatusBadRequest, "/data/attributes/"+tc.field)
		assert.Contains(t, first["detail"], tc.field)
	}
	assert.Equal(t, "draft", e.get("/v2/projects/"+proj, tok).attr("status"))
	assert.Len(t, e.get("/v2/project-services", tok).list(), 1)

	// v1 ignores them
	r := e.req(http.MethodPost, "/acme/v1/project-services", tok, doc("project-services", "", `{"name":"V1","custom-hours":true,"revenue":"5"}`, "project", "projects", proj))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "V1", r.attr("name"))
	id := r.data()["id"].(string)
	r = e.patch("/acme/v1/project-services/"+id, tok, "project-services", id, `{"custom-hours":false,"name":"V1b"}`)
	assert.Equal(t, "V1b", r.attr("name"))
	r = e.patch("/acme/v1/projects/"+proj, tok, "projects", proj, `{"approved-at":"2026-01-01T00:00:00Z","project-name":"Renamed"}`)
	assert.Nil(t, r.attr("approved-at"), "a computed field is not written through v1")
	assert.Equal(t, "Renamed", r.attr("project-name"))
}

// Ensure rule 2: a project governance rate of 10 or more, or below 0, is
// 422 naming rate.
func TestRule2GovernanceRate(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	for _, tc := range []struct {
		rate string
		ok   bool
	}{
		{`10`, false}, {`12`, false}, {`-1`, false}, {`"10.00"`, false}, {`"-0.01"`, false}, {`100`, false},
		{`9.99`, true}, {`"0.15"`, true}, {`0`, true},
	} {
		r := e.req(http.MethodPost, "/acme/v1/project-governances", tok, doc("project-governances", "",
			`{"name":"PM","rate":`+tc.rate+`}`, "project", "projects", proj))
		if tc.ok {
			require.Equal(t, http.StatusCreated, r.Status, "rate %s: %s", tc.rate, r.Body)
			continue
		}
		first := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rate")
		assert.Contains(t, first["detail"], "rate", "rate %s", tc.rate)
		assert.Len(t, r.errors(), 1, "%s", r.Body)
	}
	// an update is held to the same rule, and the record is untouched
	id := e.get("/acme/v1/project-governances", tok).ids()[0]
	assertError(t, e.req(http.MethodPatch, "/acme/v1/project-governances/"+id, tok, doc("project-governances", id, `{"rate":10}`)),
		http.StatusUnprocessableEntity, "/data/attributes/rate")
	assert.Equal(t, "9.99", e.get("/acme/v1/project-governances/"+id, tok).attr("rate"))
	// catalog governances too
	assertError(t, e.req(http.MethodPost, "/acme/v1/governances", tok, doc("governances", "", `{"name":"G","rate":10}`)),
		http.StatusUnprocessableEntity, "/data/attributes/rate")
}

// Ensure rule 3: a governance allocated or filtered by category needs a
// service-category, by phase a phase (project-phase on projects).
func TestRule3GovernanceAllocation(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	cat := e.create("/v2/service-categories", tok, "service-categories", `{"name":"Security"}`)
	phase := e.create("/v2/phases", tok, "phases", `{"name":"Plan"}`)
	pphase := e.create("/acme/v1/project-phases", tok, "project-phases", `{"name":"Plan"}`, "project", "projects", proj)

	for _, tc := range []struct {
		name, attrs string
		missing     string // the relationship named by the 422; "" = valid
		rels        []string
	}{
		{"assign_to_category without category", `{"allocation-method":"assign_to_category"}`, "service-category", nil},
		{"filter service_category without category", `{"filter-type":"service_category"}`, "service-category", nil},
		{"assign_to_phase without phase", `{"allocation-method":"assign_to_phase"}`, "project-phase", nil},
		{"filter phase without phase", `{"filter-type":"phase"}`, "project-phase", nil},
		{"assign_to_category with category", `{"allocation-method":"assign_to_category"}`, "", []string{"service-category", "service-categories", cat}},
		{"filter service_category with category", `{"filter-type":"service_category"}`, "", []string{"service-category", "service-categories", cat}},
		{"assign_to_phase with phase", `{"allocation-method":"assign_to_phase"}`, "", []string{"project-phase", "project-phases", pphase}},
		{"assign_to_phase with a category only", `{"allocation-method":"assign_to_phase"}`, "project-phase", []string{"service-category", "service-categories", cat}},
		{"prorate needs neither", `{"allocation-method":"prorate_phases_by_effort"}`, "", nil},
	} {
		t.Run("project "+tc.name, func(t *testing.T) {
			attrs := `{"name":"PM","rate":0.1,` + tc.attrs[1:]
			r := e.req(http.MethodPost, "/acme/v1/project-governances", tok,
				doc("project-governances", "", attrs, append([]string{"project", "projects", proj}, tc.rels...)...))
			if tc.missing == "" {
				require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
				return
			}
			first := assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/"+tc.missing)
			assert.Contains(t, first["detail"], tc.missing)
		})
	}
	for _, tc := range []struct {
		name, attrs string
		missing     string
		rels        []string
	}{
		{"assign_to_category without category", `{"allocation-method":"assign_to_category"}`, "service-category", nil},
		{"filter service_category without category", `{"filter-type":"service_category"}`, "service-category", nil},
		{"assign_to_phase without phase", `{"allocation-method":"assign_to_phase"}`, "phase", nil},
		{"filter phase without phase", `{"filter-type":"phase"}`, "phase", nil},
		{"assign_to_category with category", `{"allocation-method":"assign_to_category"}`, "", []string{"service-category", "service-categories", cat}},
		{"assign_to_phase with phase", `{"allocation-method":"assign_to_phase"}`, "", []string{"phase", "phases", phase}},
	} {
		t.Run("catalog "+tc.name, func(t *testing.T) {
			r := e.req(http.MethodPost, "/acme/v1/governances", tok, doc("governances", "", `{"name":"G",`+tc.attrs[1:], tc.rels...))
			if tc.missing == "" {
				require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
				return
			}
			first := assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/"+tc.missing)
			assert.Contains(t, first["detail"], tc.missing)
		})
	}
	// removing the category from a governance allocated by category breaks the rule too
	g := e.create("/acme/v1/governances", tok, "governances", `{"name":"By category","allocation-method":"assign_to_category"}`, "service-category", "service-categories", cat)
	assertError(t, e.req(http.MethodPatch, "/acme/v1/governances/"+g, tok,
		`{"data":{"type":"governances","id":"`+g+`","relationships":{"service-category":{"data":null}}}}`),
		http.StatusUnprocessableEntity, "/data/relationships/service-category")
}

// Ensure rule 4: a user-defined field name holds letters, digits and
// underscores only.
func TestRule4UserDefinedFieldName(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"bad name!", false}, {"with-dash", false}, {"dotted.name", false}, {" padded", false},
		{"good_name_1", true}, {"ABC", true}, {"_x9", true},
	} {
		r := e.req(http.MethodPost, "/acme/v1/user-defined-fields", tok, doc("user-defined-fields", "",
			`{"name":"`+tc.name+`","label":"L","resource-type":"projects"}`))
		if tc.ok {
			require.Equal(t, http.StatusCreated, r.Status, "%q: %s", tc.name, r.Body)
			continue
		}
		first := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/name")
		assert.Contains(t, first["detail"], "name", "%q", tc.name)
	}
}

// Ensure rule 5: a rate table created without a currency takes the
// account's default currency; a currency the account has not set up is 422.
func TestRule5RateTableCurrency(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	r := e.req(http.MethodPost, "/v2/rate-tables", tok, doc("rate-tables", "", `{"name":"Standard"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "USD", r.attr("currency"))

	first := assertError(t, e.req(http.MethodPost, "/v2/rate-tables", tok, doc("rate-tables", "", `{"name":"Euro","currency":"EUR"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/currency")
	assert.Contains(t, first["detail"], "EUR")
	e.create("/acme/v1/currencies", tok, "currencies", `{"code":"EUR","name":"Euro","conversion-rate":"0.92"}`)
	r = e.req(http.MethodPost, "/v2/rate-tables", tok, doc("rate-tables", "", `{"name":"Euro","currency":"EUR"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "EUR", r.attr("currency"))

	// the default is the account's, not a constant
	require.NoError(t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.EnsureAccount("globex", "Globex", "GBP")
		return err
	}))
	other := e.token("globex", "admin@globex.test", "Account Admin")
	r = e.req(http.MethodPost, "/v2/rate-tables", other, doc("rate-tables", "", `{"name":"Sterling"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "GBP", r.attr("currency"))
}

// Ensure rule 6: a reference to another account's record is 422 naming
// the relationship, on create and update.
func TestRule6CrossAccountReference(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	theirClient := e.seed("globex", "clients", `{"name":"Theirs"}`)
	theirService := e.seed("globex", "services", `{"name":"Their service"}`)
	theirTable := e.seed("globex", "rate-tables", `{"name":"Their table"}`)
	ourResource := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)

	for _, tc := range []struct {
		name, method, path, body, rel string
	}{
		{"project client", http.MethodPost, "/v2/projects", doc("projects", "", `{"project-name":"P"}`, "client", "clients", theirClient), "client"},
		{"project client on update", http.MethodPatch, "/v2/projects/" + proj, doc("projects", proj, "", "client", "clients", theirClient), "client"},
		{"project rate table", http.MethodPatch, "/acme/v1/projects/" + proj, doc("projects", proj, "", "rate-table", "rate-tables", theirTable), "rate-table"},
		{"project service", http.MethodPost, "/v2/project-services", doc("project-services", "", "", "project", "projects", proj, "service", "services", theirService), "service"},
		{"resource rate", http.MethodPost, "/acme/v1/resource-rates", doc("resource-rates", "", `{"hourly-rate":1}`, "rate-table", "rate-tables", theirTable, "resource", "resources", ourResource), "rate-table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertError(t, e.req(tc.method, tc.path, tok, tc.body), http.StatusUnprocessableEntity, "/data/relationships/"+tc.rel)
		})
	}
	assert.Len(t, e.get("/v2/projects", tok).list(), 1)
	assert.Empty(t, e.get("/v2/project-services", tok).list())
	assert.Empty(t, e.get("/acme/v1/resource-rates", tok).list())
	assert.Empty(t, e.get("/v2/projects/"+proj, tok).rel("rate-table"))
}

// Ensure rule 7: a required field missing, empty or blank is 422, and so
// is a case-insensitive uniqueness clash within the account (not across
// accounts).
func TestRule7RequiredAndUnique(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, tc := range []struct{ name, attrs string }{
		{"missing", `{"domain":"x.test"}`},
		{"empty", `{"name":""}`},
		{"blank", `{"name":"   "}`},
		{"null", `{"name":null}`},
		{"tabs and newlines", `{"name":"\t\n"}`},
	} {
		t.Run("client name "+tc.name, func(t *testing.T) {
			first := assertError(t, e.req(http.MethodPost, "/v2/clients", tok, doc("clients", "", tc.attrs)),
				http.StatusUnprocessableEntity, "/data/attributes/name")
			assert.Contains(t, first["detail"], "name")
		})
	}
	assertError(t, e.req(http.MethodPost, "/v2/resources", tok, doc("resources", "", `{"name":" "}`)), http.StatusUnprocessableEntity, "/data/attributes/name")
	assertError(t, e.req(http.MethodPost, "/v2/services", tok, doc("services", "", `{}`)), http.StatusUnprocessableEntity, "/data/attributes/name")
	assertError(t, e.req(http.MethodPost, "/v2/lines-of-business", tok, doc("lines-of-business", "", `{"code":"S"}`)), http.StatusUnprocessableEntity, "/data/attributes/name")
	assertError(t, e.req(http.MethodPost, "/v2/subservices", tok, doc("subservices", "", `{"name":"Orphan"}`)), http.StatusUnprocessableEntity, "/data/relationships/service")
	assert.Empty(t, e.get("/v2/clients", tok).list())

	id := e.create("/v2/clients", tok, "clients", `{"name":"Globex"}`)
	assertError(t, e.req(http.MethodPatch, "/v2/clients/"+id, tok, doc("clients", id, `{"name":"  "}`)), http.StatusUnprocessableEntity, "/data/attributes/name")
	assertError(t, e.req(http.MethodPatch, "/v2/clients/"+id, tok, doc("clients", id, `{"name":null}`)), http.StatusUnprocessableEntity, "/data/attributes/name")

	for _, clash := range []string{"Globex", "GLOBEX", "globex"} {
		first := assertError(t, e.req(http.MethodPost, "/v2/clients", tok, doc("clients", "", `{"name":"`+clash+`"}`)),
			http.StatusUnprocessableEntity, "/data/attributes/name")
		assert.Contains(t, first["detail"], "taken")
	}
	other := e.create("/v2/clients", tok, "clients", `{"name":"Initech"}`)
	assertError(t, e.req(http.MethodPatch, "/v2/clients/"+other, tok, doc("clients", other, `{"name":"gLoBeX"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/name")
	e.patch("/v2/clients/"+id, tok, "clients", id, `{"name":"GLOBEX"}`) // its own name, recased
	// an archived record still holds its name
	e.patch("/v2/clients/"+other, tok, "clients", other, `{"active":false}`)
	assertError(t, e.req(http.MethodPost, "/v2/clients", tok, doc("clients", "", `{"name":"initech"}`)), http.StatusUnprocessableEntity, "/data/attributes/name")
	// another account may use the name
	theirs := e.token("globex", "admin@globex.test", "Account Admin")
	e.create("/v2/clients", theirs, "clients", `{"name":"Globex"}`)

}

// Ensure negative or non-numeric amounts are 422 naming the field, signed
// adjustments may be negative, and a value of the wrong JSON type is 400.
func TestAmountsAndTypes(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	ps := e.create("/v2/project-services", tok, "project-services", `{"name":"Line"}`, "project", "projects", proj)
	res := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)
	for _, tc := range []struct {
		path, typ, id, attrs, field string
		status                      int
	}{
		{"/v2/project-services/", "project-services", ps, `{"quantity":-1}`, "quantity", 422},
		{"/v2/project-services/", "project-services", ps, `{"quantity":"-0.5"}`, "quantity", 422},
		{"/v2/project-services/", "project-services", ps, `{"quantity":"abc"}`, "quantity", 422},
		{"/v2/project-services/", "project-services", ps, `{"quantity":""}`, "quantity", 422},
		{"/v2/project-services/", "project-services", ps, `{"unit-hours":-2}`, "unit-hours", 422},
		{"/v2/project-services/", "project-services", ps, `{"actual-hours":"1e3"}`, "actual-hours", 422},
		{"/v2/resources/", "resources", res, `{"hourly-rate":"-1"}`, "hourly-rate", 422},
		{"/v2/resources/", "resources", res, `{"hourly-cost":"ten"}`, "hourly-cost", 422},
		{"/v2/project-services/", "project-services", ps, `{"quantity":[1]}`, "quantity", 400},
		{"/v2/project-services/", "project-services", ps, `{"name":12}`, "name", 400},
		{"/v2/project-services/", "project-services", ps, `{"position":"first"}`, "position", 400},
		{"/v2/project-services/", "project-services", ps, `{"position":-1}`, "position", 422},
		{"/v2/project-services/", "project-services", ps, `{"status":"finished"}`, "status", 422},
		{"/v2/projects/", "projects", proj, `{"project-name":true}`, "project-name", 400},
		{"/v2/projects/", "projects", proj, `{"msa-date":"31/12/2024"}`, "msa-date", 422},
		{"/v2/projects/", "projects", proj, `{"tag-list":"a,b"}`, "tag-list", 400},
	} {
		r := e.req(http.MethodPatch, tc.path+tc.id, tok, doc(tc.typ, tc.id, tc.attrs))
		first := assertError(t, r, tc.status, "/data/attributes/"+tc.field)
		assert.Contains(t, first["detail"], tc.field, tc.attrs)
	}
	r := e.req(http.MethodPost, "/acme/v1/project-expenses", tok, doc("project-expenses", "", `{"description":"Hotel","rate":-5}`, "project", "projects", proj))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rate")

	r = e.patch("/v2/project-services/"+ps, tok, "project-services", ps, `{"quantity":"2.5","unit-hours":4}`)
	assert.Equal(t, "2.5", r.attr("quantity"))
	assert.Equal(t, "4", r.attr("unit-hours"))
	r = e.patch("/v2/projects/"+proj, tok, "projects", proj, `{"revenue-adjustment":"-100.50","cost-adjustment":-3}`)
	assert.Equal(t, "-100.5", r.attr("revenue-adjustment"))
	assert.Equal(t, "-3", r.attr("cost-adjustment"))
}
