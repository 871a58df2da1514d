package httpadapter_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a list page read again (its records shared by the store's page
// cache, their JSON by the render cache) shows every change since, made
// through the API or written to the store by another instance, and
// never a record removed.
func TestListPagesShowChanges(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Paged client"}`)
	var ids []string
	for range 5 {
		ids = append(ids, e.create("/v2/projects", tok, "projects", `{"project-name":"Paged"}`, "client", "clients", client))
	}
	names := func(path string) map[string]any {
		t.Helper()
		r := e.get(path, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		out := map[string]any{}
		for _, d := range r.list() {
			out[d["id"].(string)] = d["attributes"].(map[string]any)["project-name"]
		}
		return out
	}
	for _, path := range []string{"/v2/projects?page[size]=250", "/acme/v1/projects?page[size]=250"} {
		for range 3 { // warm
			require.Equal(t, "Paged", names(path)[ids[2]])
		}
	}
	e.patch("/v2/projects/"+ids[2], tok, "projects", ids[2], `{"project-name":"Renamed through the API"}`)
	assert.Equal(t, "Renamed through the API", names("/v2/projects?page[size]=250")[ids[2]])
	assert.Equal(t, "Renamed through the API", names("/acme/v1/projects?page[size]=250")[ids[2]])

	// another instance's write: straight to the store
	require.NoError(t, e.db.Update(context.Background(), func(tx engine.Tx) error {
		r, err := tx.Get("projects", e.accts["acme"], ids[3])
		if err != nil {
			return err
		}
		r.Attrs["project-name"] = "Renamed elsewhere"
		return tx.Replace(r)
	}))
	assert.Equal(t, "Renamed elsewhere", names("/v2/projects?page[size]=250")[ids[3]])

	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/v2/projects/"+ids[4], tok, "").Status)
	got := names("/v2/projects?page[size]=250")
	assert.NotContains(t, got, ids[4])
	assert.Equal(t, "Paged", got[ids[0]])
	assert.Equal(t, "Renamed elsewhere", names("/v2/projects?page[size]=250&fields[projects]=project-name")[ids[3]], "a sparse fieldset")
}
