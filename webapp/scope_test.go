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

// serviceNames are the names of the project's service rows, in order.
func serviceNames(body string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`<tbody id="line-svc-\d+"[^>]*>\s*<tr[^>]*>\s*<td class="name">([^<]+)`).FindAllStringSubmatch(body, -1) {
		names = append(names, m[1])
	}
	return names
}

// Ensure the scope's changes work as forms without script (each answers
// with the page again) and with htmx (each answers with the scope): a
// blueprint applied, a service moved and removed, governance, an expense
// and a product added and removed.
func TestScopeChanges(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid := e.seeded["acme"].ProjectID
	base := "/app/acme/projects/" + pid
	scope := b.get(base)
	csrf := scope.csrf(t)
	before := serviceNames(scope.Body)
	require.Equal(t, []string{"Assessment", "Firewall deployment"}, before)

	p := b.post(base+"/blueprint", formOf("csrf", csrf, "blueprint", e.seeded["acme"].BlueprintID, "once", strings.Repeat("b", 20)), true)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "added from the blueprint")
	after := serviceNames(b.get(base).Body)
	require.Greater(t, len(after), len(before))

	// move the last up, without script: back to the page
	ids := regexp.MustCompile(`<tbody id="line-svc-(\d+)"`).FindAllStringSubmatch(b.get(base).Body, -1)
	last := ids[len(ids)-1][1]
	p = b.post(base+"/lines/services/"+last+"/move", formOf("csrf", csrf, "direction", "up"), false)
	require.Equal(t, http.StatusOK, p.Status)
	require.True(t, strings.HasSuffix(p.URL, base), p.URL)
	moved := serviceNames(p.Body)
	require.Equal(t, after[len(after)-1], moved[len(moved)-2])

	// remove it with htmx: the scope comes back without it
	p = b.post(base+"/lines/services/"+last+"/remove", formOf("csrf", csrf), true)
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, `id="scope"`)
	require.Contains(t, p.Body, `hx-swap-oob="innerHTML:#figures-box"`)
	require.NotContains(t, p.Body, `id="line-svc-`+last+`"`)
	require.Len(t, serviceNames(p.Body), len(after)-1)

	for _, add := range []struct{ kind, name string }{
		{"governances", "Steering"}, {"expenses", "Hotel"}, {"products", ""},
	} {
		form := formOf("csrf", csrf, "once", strings.Repeat(add.kind[:1], 20))
		switch add.kind {
		case "governances":
			form.Set("name", add.name)
			form.Set("rate", "0.05")
		case "expenses":
			form.Set("description", add.name)
			form.Set("rate", "180")
			form.Set("quantity", "3")
		case "products":
			form.Set("product", e.product(t))
			form.Set("quantity", "2")
		}
		p = b.post(base+"/lines/"+add.kind, form, false)
		require.Equal(t, http.StatusOK, p.Status, "%s: %s", add.kind, p.Body)
		row := regexp.MustCompile(`<tr id="line-`+add.kind+`-(\d+)">`).FindAllStringSubmatch(p.Body, -1)
		require.NotEmpty(t, row, add.kind)
		id := row[len(row)-1][1]
		p = b.post(base+"/lines/"+add.kind+"/"+id+"/remove", formOf("csrf", csrf), false)
		require.Equal(t, http.StatusOK, p.Status)
		require.NotContains(t, p.Body, `id="line-`+add.kind+`-`+id+`"`, add.kind)
	}
	require.Greater(t, requireFiguresMatch(t, b.get(base).Body, e.pricing("acme", pid)), 10)
}

// product is a product of acme's catalog.
func (e *env) product(t *testing.T) string {
	t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	res, err := e.svc.List(context.Background(), sys, "products", engine.ListParams{PageSize: 1, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)
	return res.Records[0].ID
}

// Ensure an approver declines and rescopes with a comment (a decline
// without one is refused, and says so), from the approval tab.
func TestApprovalActions(t *testing.T) {
	e := newEnv(t)
	e.approvalLevel("amy@acme.test")
	pid := e.seeded["acme"].ProjectID
	ada := e.browser()
	ada.signIn("acme", "ada@acme.test")
	tab := ada.get("/app/acme/projects/" + pid + "/approval")
	require.Contains(t, tab.Body, `id="submit-project"`)
	p := ada.post("/app/acme/projects/"+pid+"/submit", formOf("csrf", tab.csrf(t)), false)
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "Pending approval")
	require.NotContains(t, p.Body, `id="submit-project"`)
	require.NotContains(t, p.Body, `/approve"`, "ada is not asked to sign")
	p = ada.post("/app/acme/projects/"+pid+"/submit", formOf("csrf", tab.csrf(t)), false)
	require.Equal(t, http.StatusConflict, p.Status, "a double submit")

	amy := e.browser()
	amy.signIn("acme", "amy@acme.test")
	inbox := amy.get("/app/acme/approvals")
	require.Contains(t, inbox.Body, "Globex firewall refresh")
	step := regexp.MustCompile(`/steps/(\d+)/approve`).FindStringSubmatch(inbox.Body)[1]
	p = amy.post("/app/acme/steps/"+step+"/decline", formOf("csrf", inbox.csrf(t)), false)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status)
	require.Contains(t, p.Body, "comment")
	p = amy.post("/app/acme/steps/"+step+"/rescope", formOf("csrf", inbox.csrf(t), "comment", "Add the wireless survey"), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Add the wireless survey")
	require.Contains(t, p.Body, "Draft")
	require.Empty(t, regexp.MustCompile(`/steps/\d+/approve`).FindString(amy.get("/app/acme/approvals").Body), "the inbox is empty")
}
