package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the delivery rollup and estimate-versus-actual endpoints answer
// the worked example's figures once delivery has started, as JSON:API
// documents, under the same guard and visibility as /pricing.
func TestDeliveryEndpoints(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	list := e.get("/v2/project-services?filter[project]="+s.ProjectID, tok)
	ids := map[string]string{}
	for _, d := range list.list() {
		ids[d["attributes"].(map[string]any)["name"].(string)] = d["id"].(string)
	}
	e.patch("/v2/project-services/"+ids["Assessment"], tok, "project-services", ids["Assessment"],
		`{"status":"complete","actual-hours":"18.5"}`)
	e.patch("/v2/project-services/"+ids["Firewall deployment"], tok, "project-services", ids["Firewall deployment"],
		`{"status":"in_progress","actual-hours":"4"}`)

	r := e.get("/acme/v1/projects/"+s.ProjectID+"/delivery-rollup", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "project-delivery-rollups", r.data()["type"])
	assert.Equal(t, s.ProjectID, r.data()["id"])
	project := r.attr("project").(map[string]any)
	assert.Equal(t, map[string]any{"services": 2.0, "estimated_hours": "40.75", "actual_hours": "22.50", "percent_complete": "0.6012",
		"status_counts": map[string]any{"not_started": 0.0, "in_progress": 1.0, "on_hold": 0.0, "complete": 1.0, "canceled": 0.0}}, project)
	phases := r.attr("phases").([]any)
	require.Len(t, phases, 2) // the project's phases: Plan and Implement
	assert.Equal(t, "Plan", phases[0].(map[string]any)["name"])
	assert.Equal(t, "1.0000", phases[0].(map[string]any)["percent_complete"])
	assert.Equal(t, "USD", r.attr("currency").(map[string]any)["code"])

	ev := e.get("/acme/v1/projects/"+s.ProjectID+"/estimate-vs-actual", tok)
	require.Equal(t, http.StatusOK, ev.Status, "%s", ev.Body)
	assert.Equal(t, "project-estimate-vs-actuals", ev.data()["type"])
	rows := ev.attr("rows").([]any)
	require.Len(t, rows, 4) // two services, two subservices
	first := rows[0].(map[string]any)
	assert.Equal(t, ids["Assessment"], first["service_id"])
	assert.Equal(t, "", first["subservice_id"])
	assert.Equal(t, map[string]any{"estimated_hours": "16.00", "actual_hours": "18.50", "variance_hours": "2.50", "variance_ratio": "0.1563",
		"estimated_cost": "1440.00", "actual_cost": "1665.00", "variance_cost": "225.00"},
		pick(first, "estimated_hours", "actual_hours", "variance_hours", "variance_ratio", "estimated_cost", "actual_cost", "variance_cost"))
	total := ev.attr("total").(map[string]any)
	// the estimate is what /pricing charges for services
	pr := e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", tok)
	ps := pr.attr("professional_services").(map[string]any)
	assert.Equal(t, ps["service_cost"], total["estimated_cost"])
	assert.Equal(t, ps["service_hours"], total["estimated_hours"])
	assert.Equal(t, "22.50", total["actual_hours"])

	for _, path := range []string{"/delivery-rollup", "/estimate-vs-actual"} {
		other := e.token("globex", "admin@globex.test", "Account Admin")
		assert.Equal(t, http.StatusForbidden, e.get("/acme/v1/projects/"+s.ProjectID+path, other).Status)
		assert.Equal(t, http.StatusNotFound, e.get("/globex/v1/projects/"+s.ProjectID+path, other).Status)
		assert.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/999"+path, tok).Status)
		eng := e.token("acme", "eng@acme.test", "Engineer") // visibility assigned, not a teammate
		assert.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/"+s.ProjectID+path, eng).Status)
		assert.Equal(t, http.StatusUnauthorized, e.get("/acme/v1/projects/"+s.ProjectID+path, "").Status)
		assert.Equal(t, http.StatusMethodNotAllowed, e.req(http.MethodPost, "/acme/v1/projects/"+s.ProjectID+path, tok, "").Status, path)
	}
}

// Ensure one rule for the variance of lines without actual hours
// (docs/pricing.md "Delivery figures"): null, not −100 %, in REST, in v2
// merge data and in MCP alike; a total's variance is that of the lines
// with actual hours.
func TestVarianceWithoutActualHours(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	ids := map[string]string{}
	for _, d := range e.get("/v2/project-services?filter[project]="+s.ProjectID, tok).list() {
		ids[d["attributes"].(map[string]any)["name"].(string)] = d["id"].(string)
	}
	e.patch("/v2/project-services/"+ids["Assessment"], tok, "project-services", ids["Assessment"], `{"status":"complete","actual-hours":"18.5"}`)

	rest := e.get("/acme/v1/projects/"+s.ProjectID+"/estimate-vs-actual", tok)
	require.Equal(t, http.StatusOK, rest.Status, "%s", rest.Body)
	variances := func(f map[string]any) []any {
		return []any{f["variance_hours"], f["variance_ratio"], f["variance_cost"]}
	}
	rows := rest.attr("rows").([]any)
	require.Len(t, rows, 4)
	assert.Equal(t, []any{"2.50", "0.1563", "225.00"}, variances(rows[0].(map[string]any)), "Assessment: 18.5 of 16 hours")
	for _, r := range rows[1:] { // its subservices and Firewall deployment: nothing recorded
		assert.Equal(t, []any{nil, nil, nil}, variances(r.(map[string]any)), "%v", r)
	}
	total := rest.attr("total").(map[string]any)
	assert.Equal(t, []any{"2.50", "0.1563", "225.00"}, variances(total), "the total: the lines with actual hours")
	assert.Equal(t, "40.75", total["estimated_hours"], "the estimate is still every line's")

	md := mergeData(t, e.get(mergeDataPath(s.ProjectID, "?version=2"), tok), s.ProjectID, 2)
	ev := md["delivery"].(map[string]any)["estimate_vs_actual"].(map[string]any)
	assert.Equal(t, rest.attr("rows"), ev["rows"], "merge data: the same rows")
	assert.Equal(t, rest.attr("total"), ev["total"])
	assert.Equal(t, rest.attr("phases"), ev["phases"])

	var out struct {
		Rows  []map[string]any `json:"rows"`
		Total map[string]any   `json:"total"`
	}
	call(t, e.mcpSession(tok), mcpadapter.ToolEstimateVsActual, map[string]any{"project_id": s.ProjectID}, &out)
	require.Len(t, out.Rows, 4)
	for i, r := range rows {
		assert.Equal(t, variances(r.(map[string]any)), variances(out.Rows[i]), "MCP row %d", i)
	}
	assert.Equal(t, variances(total), variances(out.Total))
}
