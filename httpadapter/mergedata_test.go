package httpadapter_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mergeDataPath(projectID, query string) string {
	return "/acme/v1/projects/" + projectID + "/merge-data" + query
}

// mergeData returns the tree of a merge-data document after checking its
// envelope: data {type merge-data, id, attributes {version, merge-data}}.
func mergeData(t *testing.T, r *resp, projectID string, version int) map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	d := r.data()
	assert.Equal(t, "merge-data", d["type"])
	assert.Equal(t, projectID, d["id"])
	attrs := d["attributes"].(map[string]any)
	assert.Len(t, attrs, 2, "version and merge-data only")
	assert.Equal(t, float64(version), attrs["version"], "version is a JSON number")
	tree, ok := attrs["merge-data"].(map[string]any)
	require.True(t, ok, "%s", r.Body)
	return tree
}

// Ensure merge data is v1 without version or with version=1, v2 with
// version=2, in the envelope of docs/mergedata.md, and that v2's project_pricing
// holds the same figures as the pricing endpoint.
func TestMergeDataEndpoint(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()

	for _, q := range []string{"", "?version=1"} {
		r := e.get(mergeDataPath(s.ProjectID, q), tok)
		v1 := mergeData(t, r, s.ProjectID, 1)
		assert.Equal(t, "Globex firewall refresh", v1["project_name"], q)
		assert.Equal(t, "Globex Corporation", v1["client_name"], q)
		assert.Equal(t, "Acme", v1["account_name"], q)
		assert.Regexp(t, `^\d\d/\d\d/\d{4}$`, v1["printed_on"], q)
		assert.Equal(t, "10794.25", v1["pricing"].(map[string]any)["total_revenue"], q)
		assert.NotContains(t, v1, "project_pricing", q)
		assert.Contains(t, r.Doc["links"].(map[string]any)["self"], "/acme/v1/projects/"+s.ProjectID+"/merge-data")
	}

	before := time.Now().UTC().Format("2006-01-02")
	v2 := mergeData(t, e.get(mergeDataPath(s.ProjectID, "?version=2"), tok), s.ProjectID, 2)
	after := time.Now().UTC().Format("2006-01-02")
	project := v2["project"].(map[string]any)
	assert.Equal(t, s.ProjectID, project["id"])
	assert.Equal(t, "draft", project["status"])
	assert.Equal(t, "Draft", project["status_label"])
	assert.Contains(t, []string{before, after}, project["printed_on"].(map[string]any)["value"], "printed_on is today")
	assert.Nil(t, project["msa_date"])
	assert.Equal(t, "", project["solution_summary"])
	assert.Equal(t, map[string]any{"code": "USD", "unit": "$", "minor_units": float64(2)}, v2["currency"])

	pricing := e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", tok)
	require.Equal(t, http.StatusOK, pricing.Status, "%s", pricing.Body)
	want := map[string]any{}
	for k, v := range pricing.data()["attributes"].(map[string]any) {
		switch k {
		case "currency", "phases", "locations", "warnings":
		default:
			want[k] = v
		}
	}
	assert.Equal(t, want, v2["project_pricing"], "v2 project_pricing is the pricing endpoint's breakdown")
	ps := v2["project_pricing"].(map[string]any)["professional_services"].(map[string]any)
	assert.Equal(t, "9669.25", ps["revenue"])
	assert.Equal(t, "9669.25", ps["ps_revenue"])
}

// Ensure the version parameter accepts only 1 and 2, naming the parameter
// otherwise.
func TestMergeDataVersionParameter(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	for _, q := range []string{"?version=3", "?version=abc", "?version=", "?version=v2", "?version=1&version=2", "?version=02"} {
		r := e.get(mergeDataPath(s.ProjectID, q), tok)
		assertError(t, r, http.StatusBadRequest, "version")
	}
}

// Ensure merge data needs merge_data view (403), the project's visibility
// and the account (404).
func TestMergeDataPermissionsAndVisibility(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	path := mergeDataPath(s.ProjectID, "?version=2")

	// The Engineer role has merge_data none, whatever the project.
	eng := e.token("acme", "eng@acme.test", "Engineer")
	assertError(t, e.get(path, eng), http.StatusForbidden, "")
	assertError(t, e.get(mergeDataPath("999", ""), eng), http.StatusForbidden, "")

	// A role with merge_data view and visibility assigned sees only the
	// projects it is an active teammate of.
	require.NoError(t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.EnsureRole(e.accts["acme"], "Scoped Writer", map[string]string{"projects": "view", "merge_data": "view"}, "assigned")
		return err
	}))
	writerID, writer := e.user("acme", "writer@acme.test", "Scoped Writer")
	assertError(t, e.get(path, writer), http.StatusNotFound, "")
	tm := e.create("/acme/v1/project-teammates", tok, "project-teammates", "", "project", "projects", s.ProjectID, "user", "users", writerID)
	mergeData(t, e.get(path, writer), s.ProjectID, 2)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, tok, "").Status)
	assertError(t, e.get(path, writer), http.StatusNotFound, "")

	// Missing, and in another account.
	assertError(t, e.get(mergeDataPath("999", ""), tok), http.StatusNotFound, "")
	globex := e.token("globex", "admin@globex.test", "Account Admin")
	assertError(t, e.get("/globex/v1/projects/"+s.ProjectID+"/merge-data", globex), http.StatusNotFound, "")
	assertError(t, e.get(path, globex), http.StatusForbidden, "")
	// v2 routes have no merge-data read
	assert.NotEqual(t, http.StatusOK, e.get("/v2/projects/"+s.ProjectID+"/merge-data", tok).Status)
}

// Ensure removed teammates are not in v2 merge data, read through the API.
func TestMergeDataExcludesRemovedTeammates(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	stayID, _ := e.user("acme", "stay@acme.test", "Sales")
	goneID, _ := e.user("acme", "gone@acme.test", "Sales")
	for _, u := range []string{stayID, goneID} {
		e.create("/acme/v1/project-teammates", tok, "project-teammates", "", "project", "projects", s.ProjectID, "user", "users", u)
	}
	teammates := func() any {
		v2 := mergeData(t, e.get(mergeDataPath(s.ProjectID, "?version=2"), tok), s.ProjectID, 2)
		return v2["project"].(map[string]any)["teammates"]
	}
	assert.Equal(t, []any{
		map[string]any{"name": "stay@acme.test", "email": "stay@acme.test"},
		map[string]any{"name": "gone@acme.test", "email": "gone@acme.test"},
	}, teammates())

	list := e.get("/acme/v1/project-teammates?filter[project]="+s.ProjectID+"&filter[user]="+goneID, tok)
	require.Len(t, list.ids(), 1, "%s", list.Body)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+list.ids()[0], tok, "").Status)
	assert.Equal(t, []any{map[string]any{"name": "stay@acme.test", "email": "stay@acme.test"}}, teammates())
}

// Ensure GET /v1/merge-data/schema serves v2's generated JSON Schema
// without a token, the bytes of docs/mergedata-v2.schema.json.
func TestMergeDataSchema(t *testing.T) {
	e := mustEnv(t)
	r := e.get("/v1/merge-data/schema", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "application/schema+json", r.Header.Get("Content-Type"))
	want, err := os.ReadFile(filepath.Join("..", "docs", "mergedata-v2.schema.json"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(r.Body))
}
