package webapp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure a won project's page shows and edits the project's own lines
// only: a change order's copy (lines of the same project, told apart by
// their change order) is neither listed on the scope tab nor reachable
// through the project's line paths (404); a change order's document is
// named as one on the documents tab.
func TestProjectPageLeavesChangeOrdersOut(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ada := e.actor("acme", "ada@acme.test")
	pid := e.seeded["acme"].ProjectID
	_, err := e.svc.Submit(ctx, ada, pid) // no level applies: approved at once
	require.NoError(t, err)
	_, err = e.svc.Update(ctx, ada, "projects", pid, &engine.Input{Attrs: map[string]json.RawMessage{"status": json.RawMessage(`"won"`)}}, engine.Options{})
	require.NoError(t, err)
	co := e.create(ada, "change-orders", map[string]string{"title": `"Second site"`}, map[string]engine.Ref{"project": {Type: "projects", ID: pid}})
	copies, err := e.svc.List(ctx, ada, "project-services", engine.ListParams{Filters: map[string]string{"change-order": co}, PageSize: 100, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)
	require.NotEmpty(t, copies.Records, "the change order copies the project's services")
	line := copies.Records[0].ID
	before := e.apiRecord("acme", "project-services", line)["quantity"]

	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	scope := b.get("/app/acme/projects/" + pid)
	require.Equal(t, http.StatusOK, scope.Status)
	require.Contains(t, scope.Body, "This project is won: its scope is locked")
	require.NotContains(t, scope.Body, `/lines/services/`, "a won project's page offers no line control")
	own := lineCell.FindAllStringSubmatch(scope.Body, -1)
	require.NotEmpty(t, own)
	for _, m := range own {
		require.NotEqual(t, line, m[2], "the change order's line is not the project's")
	}
	p := b.post("/app/acme/projects/"+pid+"/lines/services/"+line, formOf("csrf", scope.csrf(t), "quantity", "7"), true)
	require.Equal(t, http.StatusNotFound, p.Status, p.Body)
	p = b.post("/app/acme/projects/"+pid+"/lines/services/"+line+"/remove", formOf("csrf", scope.csrf(t)), true)
	require.Equal(t, http.StatusNotFound, p.Status, p.Body)
	require.Equal(t, len(copies.Records), e.count("acme", "project-services", "change-order", co), "the copy is untouched")
	require.Equal(t, before, e.apiRecord("acme", "project-services", line)["quantity"])

	tmpl, err := e.svc.List(ctx, ada, "document-templates", engine.ListParams{Filters: map[string]string{"name": "Standard change order"},
		PageSize: 1, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, tmpl.Records, 1)
	e.create(ada, "project-documents", map[string]string{"document-type": `"change_order"`}, map[string]engine.Ref{
		"project": {Type: "projects", ID: pid}, "change-order": {Type: "change-orders", ID: co},
		"document-template": {Type: "document-templates", ID: tmpl.Records[0].ID}})
	docs := b.get("/app/acme/projects/" + pid + "/documents")
	require.Equal(t, http.StatusOK, docs.Status)
	require.Contains(t, docs.Body, "<td>Change order</td>")
}
