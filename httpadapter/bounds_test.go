package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure every number a line carries has a bound (docs/limits.md): past
// it the write is 422 naming the field, at it the write passes, and no
// write can bring a project's sums to 10^13, what the documents show to
// the cent. The regression: a quantity of 99999999999999999999 was priced
// to about 1.8e23.
func TestNumberBounds(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	ps := e.create("/v2/project-services", tok, "project-services", `{"name":"Line","unit-hours":2}`, "project", "projects", proj)
	res := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)
	cur := e.create("/acme/v1/currencies", tok, "currencies", `{"code":"EUR","conversion-rate":"0.9"}`)

	r := e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", `{"name":"Huge","quantity":99999999999999999999}`, "project", "projects", proj))
	first := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/quantity")
	assert.Equal(t, "quantity must be at most 1000000", first["detail"])

	for _, tc := range []struct {
		path, typ, id, attrs, field, detail string
	}{
		{"/v2/project-services/", "project-services", ps, `{"quantity":"99999999999999999999"}`, "quantity", "quantity must be at most 1000000"},
		{"/v2/project-services/", "project-services", ps, `{"quantity":1000000.5}`, "quantity", "quantity must be at most 1000000"},
		{"/v2/project-services/", "project-services", ps, `{"quantity":"0.00001"}`, "quantity", "quantity has more than 4 digits after the decimal point"},
		{"/v2/project-services/", "project-services", ps, `{"unit-hours":"100000.01"}`, "unit-hours", "unit-hours must be at most 100000"},
		{"/v2/project-services/", "project-services", ps, `{"actual-hours":123456789}`, "actual-hours", "actual-hours must be at most 100000"},
		{"/v2/project-services/", "project-services", ps, `{"position":1000000001}`, "position", "position must be at most 1000000000"},
		{"/v2/resources/", "resources", res, `{"hourly-rate":"1000000000.01"}`, "hourly-rate", "hourly-rate must be at most 1000000000"},
		{"/v2/resources/", "resources", res, `{"hourly-cost":"1.00005"}`, "hourly-cost", "hourly-cost has more than 4 digits after the decimal point"},
		{"/v2/projects/", "projects", proj, `{"revenue-adjustment":"-1000000000001"}`, "revenue-adjustment", "revenue-adjustment must be between -1000000000000 and 1000000000000"},
		{"/v2/projects/", "projects", proj, `{"mrr-terms":1201}`, "mrr-terms", "mrr-terms must be at most 1200"},
		{"/acme/v1/currencies/", "currencies", cur, `{"conversion-rate":"0.0000000000001"}`, "conversion-rate", "conversion-rate has more than 12 digits after the decimal point"},
	} {
		r := e.req(http.MethodPatch, tc.path+tc.id, tok, doc(tc.typ, tc.id, tc.attrs))
		first := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/"+tc.field)
		assert.Equal(t, tc.detail, first["detail"], tc.attrs)
	}
	r = e.req(http.MethodPost, "/acme/v1/project-expenses", tok, doc("project-expenses", "", `{"description":"Hotel","rate":"1e3"}`, "project", "projects", proj))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rate")
	r = e.req(http.MethodPost, "/acme/v1/project-products", tok, doc("project-products", "", `{"name":"Box","unit-price":"2000000000"}`, "project", "projects", proj))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/unit-price")

	// at the bounds
	r = e.patch("/v2/project-services/"+ps, tok, "project-services", ps, `{"quantity":1000000,"unit-hours":"0.0001"}`)
	assert.Equal(t, "1000000", r.attr("quantity"))
	r = e.patch("/v2/projects/"+proj, tok, "projects", proj, `{"revenue-adjustment":"-1000000000000","mrr-terms":1200}`)
	assert.Equal(t, "-1000000000000", r.attr("revenue-adjustment"))
	e.patch("/v2/projects/"+proj, tok, "projects", proj, `{"revenue-adjustment":"0"}`)

	// every line within its bounds, the sum past 10^13: refused whole
	pr := e.create("/acme/v1/project-resources", tok, "project-resources", `{"name":"Costly","hourly-rate":"1000000000","hourly-cost":"1"}`,
		"project", "projects", proj)
	before := e.get("/v2/projects/"+proj, tok).attr("contract-revenue")
	r = e.req(http.MethodPatch, "/v2/project-services/"+ps, tok, doc("project-services", ps, `{"quantity":1000000,"unit-hours":100000}`,
		"project-resource", "project-resources", pr))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, string(r.Body), `the project's revenue would add up to 100000000000000000000, and a project's figures must stay below 10000000000000`)
	assert.Equal(t, before, e.get("/v2/projects/"+proj, tok).attr("contract-revenue"), "nothing written")
	assert.Equal(t, "1000000", e.get("/v2/project-services/"+ps, tok).attr("quantity"))
	assert.Equal(t, "0.0001", e.get("/v2/project-services/"+ps, tok).attr("unit-hours"))

	// the same project at a price it can hold
	r = e.patch("/v2/project-services/"+ps, tok, "project-services", ps, `{"quantity":10,"unit-hours":100}`, "project-resource", "project-resources", pr)
	assert.Equal(t, "1000000000000.00", r.attr("revenue"))
}
