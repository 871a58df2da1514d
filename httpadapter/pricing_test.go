package httpadapter_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedWorkedExample creates docs/pricing.md's worked example in acme.
func (e *testEnv) seedWorkedExample() *demodata.Seeded {
	e.t.Helper()
	a, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(e.t, err)
	s, err := demodata.Seed(context.Background(), e.svc, a, "")
	require.NoError(e.t, err)
	return s
}

// attrsByName maps each listed record's name attribute to its attributes.
func attrsByName(r *resp, key string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, d := range r.list() {
		a := d["attributes"].(map[string]any)
		out[a[key].(string)] = a
	}
	return out
}

// Ensure the computed figures of a project and of its services,
// subservices, governance, expenses, products and resources are the worked
// example's, read through the API.
func TestComputedPricesOfWorkedExample(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	p := "?filter[project]=" + s.ProjectID

	proj := e.get("/v2/projects/"+s.ProjectID, tok)
	require.Equal(t, http.StatusOK, proj.Status)
	for name, want := range map[string]string{"total-hours": "48.86", "contract-revenue": "10794.25",
		"contract-cost": "5696.30", "contract-profit": "5097.95", "contract-margin": "0.4723", "currency": "USD"} {
		assert.Equal(t, want, proj.attr(name), name)
	}

	svcs := attrsByName(e.get("/v2/project-services"+p, tok), "name")
	assert.Equal(t, map[string]any{"extended-hours": "16.00", "total-hours": "24.50", "revenue": "5100.00", "cost": "2325.00", "custom-hours": false},
		pick(svcs["Assessment"], "extended-hours", "total-hours", "revenue", "cost", "custom-hours"))
	assert.Equal(t, map[string]any{"extended-hours": "16.25", "revenue": "3250.00", "cost": "1462.50"},
		pick(svcs["Firewall deployment"], "extended-hours", "revenue", "cost"))

	subs := attrsByName(e.get("/v2/project-subservices"+p, tok), "name")
	assert.Equal(t, map[string]any{"extended-hours": "4.50", "revenue": "900.00", "cost": "405.00"}, pick(subs["Site survey"], "extended-hours", "revenue", "cost"))
	assert.Equal(t, map[string]any{"extended-hours": "4.00", "revenue": "1000.00", "cost": "480.00"}, pick(subs["Report"], "extended-hours", "revenue", "cost"))

	gov := attrsByName(e.get("/acme/v1/project-governances"+p, tok), "name")
	assert.Equal(t, map[string]any{"hours": "6.11", "revenue": "1069.25", "cost": "488.80"}, pick(gov["Project management"], "hours", "revenue", "cost"))
	assert.Equal(t, map[string]any{"hours": "2.00", "revenue": "500.00", "cost": "240.00"}, pick(gov["Kickoff"], "hours", "revenue", "cost"))

	exp := attrsByName(e.get("/acme/v1/project-expenses"+p, tok), "description")
	assert.Equal(t, map[string]any{"revenue": "900.00", "cost": "900.00", "profit": "0.00"}, pick(exp["Airfare"], "revenue", "cost", "profit"))
	assert.Equal(t, map[string]any{"revenue": "225.00", "cost": "180.00", "profit": "45.00"}, pick(exp["Per diem"], "revenue", "cost", "profit"))

	prod := attrsByName(e.get("/acme/v1/project-products"+p, tok), "name")
	assert.Equal(t, map[string]any{"revenue": "3999.98", "cost": "3000.00", "profit": "999.98"}, pick(prod["Firewall appliance"], "revenue", "cost", "profit"))

	res := attrsByName(e.get("/acme/v1/project-resources"+p, tok), "name")
	assert.Equal(t, map[string]any{"total-hours": "6.00", "revenue": "1500.00", "cost": "720.00"}, pick(res["Architect"], "total-hours", "revenue", "cost"))
	assert.Equal(t, map[string]any{"total-hours": "36.75", "revenue": "7350.00", "cost": "3307.50"}, pick(res["Engineer"], "total-hours", "revenue", "cost"))
	assert.Equal(t, map[string]any{"total-hours": "6.11", "revenue": "1069.25", "cost": "488.80"}, pick(res["Project Manager"], "total-hours", "revenue", "cost"))

	// the same figures when the project is read with its children included
	inc := e.get("/v2/projects/"+s.ProjectID+"?include=project-services", tok)
	require.Equal(t, http.StatusOK, inc.Status, "%s", inc.Body)
	assert.Len(t, inc.Doc["included"], 2)
}

func pick(m map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// Ensure the pricing endpoint returns the whole breakdown with docs/pricing.md's
// names and the worked example's figures.
func TestPricingEndpoint(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	r := e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "project-pricings", r.data()["type"])
	assert.Equal(t, s.ProjectID, r.data()["id"])
	ps := r.attr("professional_services").(map[string]any)
	for name, want := range map[string]string{"revenue": "9669.25", "cost": "4616.30", "profit": "5052.95",
		"ps_revenue": "9669.25", "ps_cost": "4616.30", "ps_profit": "5052.95", "cost_adjustment": "100.00"} {
		assert.Equal(t, want, ps[name], name)
	}
	assert.Equal(t, "10794.25", r.attr("total_contract_value"))
	rows := r.attr("resources").([]any)
	total := rows[len(rows)-1].(map[string]any)
	assert.Equal(t, "project_total", total["resource_slug"])
	for name, want := range map[string]string{"hourly_rate": "203.01", "hourly_cost": "92.43", "total_cost": "5696.30",
		"service_cost": "3787.50", "pm_cost": "728.80", "expense_cost": "1080.00", "material_cost": "3000.00"} {
		assert.Equal(t, want, total[name], name)
	}
	for _, k := range []string{"currency", "phases", "locations", "warnings", "project_governance", "travel_and_expense", "materials", "managed_services"} {
		assert.Contains(t, r.data()["attributes"], k)
	}

	// visibility and permissions hold
	other := e.token("globex", "admin@globex.test", "Account Admin")
	assert.Equal(t, http.StatusForbidden, e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", other).Status)
	assert.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/999/pricing", tok).Status)
	eng := e.token("acme", "eng@acme.test", "Engineer") // visibility assigned, not a teammate
	assert.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", eng).Status)
}

// Ensure bad amounts are rejected naming the field, huge ones too
// (docs/limits.md), and the largest a line may carry is priced exactly.
func TestPricingBadAndHugeInput(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	for _, tc := range []struct{ body, status, pointer string }{
		{`{"quantity":-1}`, "422", "/data/attributes/quantity"},
		{`{"quantity":"ten"}`, "422", "/data/attributes/quantity"},
		{`{"quantity":true}`, "400", "/data/attributes/quantity"},
		{`{"unit-hours":"-0.5"}`, "422", "/data/attributes/unit-hours"},
		{`{"unit-hours":"1e400"}`, "422", "/data/attributes/unit-hours"},
	} {
		r := e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", tc.body, "project", "projects", s.ProjectID))
		require.Equal(t, tc.status, r.firstError()["status"], "%s: %s", tc.body, r.Body)
		assert.Equal(t, tc.pointer, r.firstError()["source"].(map[string]any)["pointer"], tc.body)
	}
	before := e.get("/v2/projects/"+s.ProjectID, tok).attr("contract-revenue")
	huge := `{"name":"Huge","quantity":"99999999999999999999","unit-hours":"99999999999999999999.99"}`
	r := e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", huge, "project", "projects", s.ProjectID))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/quantity")
	assert.Contains(t, string(r.Body), `"pointer":"/data/attributes/unit-hours"`)
	assert.Equal(t, before, e.get("/v2/projects/"+s.ProjectID, tok).attr("contract-revenue"))

	// the largest line there may be: priced exactly, read back
	most := `{"name":"Most","quantity":"1000000","unit-hours":"100000"}`
	e.create("/v2/project-services", tok, "project-services", most, "project", "projects", s.ProjectID)
	proj := e.get("/v2/projects/"+s.ProjectID, tok)
	require.Equal(t, http.StatusOK, proj.Status)
	rev, err := decimal.NewFromString(proj.attr("contract-revenue").(string))
	require.NoError(t, err)
	cost, err := decimal.NewFromString(proj.attr("contract-cost").(string))
	require.NoError(t, err)
	profit, err := decimal.NewFromString(proj.attr("contract-profit").(string))
	require.NoError(t, err)
	// the line has no resource, but governance at 15 % of all hours grows with it
	assert.True(t, rev.GreaterThan(decimal.New(1, 12)), "revenue %s", rev)
	assert.True(t, profit.Equal(rev.Sub(cost)), "profit %s = %s - %s", profit, rev, cost)
}
