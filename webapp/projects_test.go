package webapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

var projectLink = regexp.MustCompile(`<td><a href="/app/acme/projects/\d+">([^<]+)</a></td>`)

func projectNames(body string) []string {
	var out []string
	for _, m := range projectLink.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// Ensure the projects list searches, filters by status, client and
// dates (submitted included), sorts, and pages by 25; a bad date is a
// clear 400 naming the parameter.
func TestProjectsList(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ada := e.actor("acme", "ada@acme.test")
	for i := range 30 {
		_, _, err := e.svc.CreateProjectForClient(ctx, ada, fmt.Sprintf("Client %d", i%3), projectInput(fmt.Sprintf("Site %02d rollout", i)))
		require.NoError(t, err)
	}
	_, err := e.svc.Submit(ctx, ada, e.seeded["acme"].ProjectID) // no level applies: approved at once
	require.NoError(t, err)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")

	p := b.get("/app/acme/projects?sort=project-name")
	require.Equal(t, http.StatusOK, p.Status)
	names := projectNames(p.Body)
	require.Len(t, names, 25)
	require.Equal(t, "Globex firewall refresh", names[0])
	require.Equal(t, "Site 00 rollout", names[1])
	require.Contains(t, p.Body, "31 projects · page 1 of 2")
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(p.Body)
	require.NotNil(t, next)
	p = b.get("/app/acme/projects" + strings.ReplaceAll(next[1], "&amp;", "&"))
	require.Len(t, projectNames(p.Body), 6)
	require.Equal(t, "Site 29 rollout", projectNames(p.Body)[5])

	require.Equal(t, []string{"Site 29 rollout", "Site 28 rollout"}, projectNames(b.get("/app/acme/projects?sort=-project-name").Body)[:2])
	require.Len(t, projectNames(b.get("/app/acme/projects?q=site+1").Body), 10)
	require.Equal(t, []string{"Globex firewall refresh"}, projectNames(b.get("/app/acme/projects?status=approved").Body))
	require.Equal(t, []string{"Globex firewall refresh"}, projectNames(b.get("/app/acme/projects?submitted_from=2000-01-01").Body))
	require.Empty(t, projectNames(b.get("/app/acme/projects?submitted_to=2000-01-01").Body))
	require.Len(t, projectNames(b.get("/app/acme/projects?created_from=2000-01-01&status=draft").Body), 25)
	client := regexp.MustCompile(`<option value="(\d+)">Client 1</option>`).FindStringSubmatch(p.Body)
	require.NotNil(t, client)
	require.Len(t, projectNames(b.get("/app/acme/projects?client="+client[1]).Body), 10)

	bad := b.get("/app/acme/projects?created_from=yesterday")
	require.Equal(t, http.StatusBadRequest, bad.Status)
	require.Contains(t, bad.Body, "created_from")
}

// projectInput is a new project's input: its name.
func projectInput(name string) *engine.Input {
	raw, _ := json.Marshal(name)
	return &engine.Input{Attrs: map[string]json.RawMessage{"project-name": raw}, Rels: map[string]engine.RelInput{}}
}
