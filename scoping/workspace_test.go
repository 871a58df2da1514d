package scoping_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// clientsNamed lists the account's clients (archived too) with the name.
func clientsNamed(t *testing.T, svc *scoping.Service, a *engine.Actor, name string) []*engine.Record {
	t.Helper()
	res, err := svc.List(context.Background(), a, "clients", engine.ListParams{PageSize: 100, PageNumber: 1,
		Filters: map[string]string{"name": name, "active": "true,false"}}, engine.Options{})
	require.NoError(t, err)
	return res.Records
}

func projectInput(name string) *engine.Input {
	raw, _ := json.Marshal(name)
	return &engine.Input{Attrs: map[string]json.RawMessage{"project-name": raw}, Rels: map[string]engine.RelInput{}}
}

// Ensure a project is created for a client named by name, case aside,
// the client created with it when new, in one transaction: a refused
// project leaves no client; a role that cannot create clients is told
// so; a blank name is refused.
func TestCreateProjectForClient(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	acme, sys := acctAccount(t, svc, "acme")
	existing := acctCreate(t, svc, sys, "clients", attrs("name", `"Globex"`), nil)

	res, created, err := svc.CreateProjectForClient(ctx, sys, "  globex ", projectInput("Firewall"))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, existing.ID, res.Records[0].Rel("client"))

	res, created, err = svc.CreateProjectForClient(ctx, sys, "Initech", projectInput("Edge"))
	require.NoError(t, err)
	require.True(t, created)
	newClient := clientsNamed(t, svc, sys, "Initech")
	require.Len(t, newClient, 1)
	require.Equal(t, newClient[0].ID, res.Records[0].Rel("client"))

	// the project is refused: no client is left behind
	_, _, err = svc.CreateProjectForClient(ctx, sys, "Half written", projectInput(""))
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.Empty(t, clientsNamed(t, svc, sys, "Half written"))

	_, _, err = svc.CreateProjectForClient(ctx, sys, " ", projectInput("No client"))
	acctRequireErr(t, err, scopekit.EINVALID, "/data/relationships/client", "must not be blank")

	// an engineer manages projects but not clients: existing ones only
	eng := acctMember(t, svc, acme.ID, "eng@acme.test", "Engineer")
	_, _, err = svc.CreateProjectForClient(ctx, eng, "Brand new", projectInput("Mine"))
	acctRequireErr(t, err, scopekit.EFORBIDDEN, "/data/relationships/client", "cannot create clients")
	_, _, err = svc.CreateProjectForClient(ctx, eng, "Globex", projectInput("Mine"))
	require.NoError(t, err)

	ro := acctMember(t, svc, acme.ID, "ro@acme.test", "Read Only")
	_, _, err = svc.CreateProjectForClient(ctx, ro, "Globex", projectInput("Not mine"))
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure a line moves one place among its siblings, the siblings are
// numbered again, the ends stay put, and only services, subservices and
// phases move, for a role that manages projects.
func TestMoveLine(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	acme, sys := acctAccount(t, svc, "acme")
	p := hookProject(t, svc, sys, "Moves")
	var ids []string
	for _, n := range []string{"A", "B", "C"} {
		r := acctCreate(t, svc, sys, "project-services", attrs("name", `"`+n+`"`), map[string]engine.RelInput{"project": rel("projects", p.ID)})
		ids = append(ids, r.ID)
	}
	order := func() []string {
		t.Helper()
		res, err := svc.List(ctx, sys, "project-services", engine.ListParams{PageSize: 10, PageNumber: 1, Filters: map[string]string{"project": p.ID},
			Sort: []engine.SortSpec{{Field: "position"}}}, engine.Options{})
		require.NoError(t, err)
		var names []string
		for _, r := range res.Records {
			names = append(names, r.Str("name"))
		}
		return names
	}
	require.NoError(t, svc.MoveLine(ctx, sys, "project-services", ids[2], -1))
	require.Equal(t, []string{"A", "C", "B"}, order())
	require.NoError(t, svc.MoveLine(ctx, sys, "project-services", ids[0], 1))
	require.Equal(t, []string{"C", "A", "B"}, order())
	require.NoError(t, svc.MoveLine(ctx, sys, "project-services", ids[2], -1), "the first stays first")
	require.Equal(t, []string{"C", "A", "B"}, order())
	require.NoError(t, svc.MoveLine(ctx, sys, "project-services", ids[1], 1), "the last stays last")
	require.Equal(t, []string{"C", "A", "B"}, order())

	require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(svc.MoveLine(ctx, sys, "project-expenses", ids[0], 1)))
	require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(svc.MoveLine(ctx, sys, "project-services", ids[0], 2)))
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(svc.MoveLine(ctx, sys, "project-services", "999999", 1)))
	ro := acctMember(t, svc, acme.ID, "ro@acme.test", "Read Only")
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(svc.MoveLine(ctx, ro, "project-services", ids[0], 1)))
	require.True(t, slices.Equal([]string{"C", "A", "B"}, order()))
}
