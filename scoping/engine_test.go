package scoping_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// mustSetup opens a real bbolt store in a temp dir with one account and
// returns the service and a system actor of that account.
func mustSetup(t testing.TB) (*scoping.Service, *engine.Actor) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	var acctID string
	require.NoError(t, svc.Setup(context.Background(), func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme", "USD")
		acctID = acct.ID
		return err
	}))
	actor, err := svc.SystemActor(context.Background(), acctID)
	require.NoError(t, err)
	return svc, actor
}

func attrs(kv ...string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	return m
}

func rel(typ, id string) engine.RelInput {
	return engine.RelInput{Refs: []engine.Ref{{Type: typ, ID: id}}}
}

// Ensure the engine creates, lists with filters and paging, and copies a
// catalog service into a project.
func TestEngineSmoke(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	res, err := svc.Create(ctx, a, "clients", &engine.Input{Attrs: attrs("name", `"Globex"`)}, engine.Options{})
	require.NoError(t, err)
	client := res.Records[0]
	require.Equal(t, "Globex", client.Str("name"))

	_, err = svc.Create(ctx, a, "clients", &engine.Input{Attrs: attrs("name", `"globex"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)

	res, err = svc.Create(ctx, a, "resources", &engine.Input{Attrs: attrs("name", `"Engineer"`, "hourly-rate", `200`, "hourly-cost", `"90"`)}, engine.Options{})
	require.NoError(t, err)
	eng := res.Records[0]
	res, err = svc.Create(ctx, a, "phases", &engine.Input{Attrs: attrs("name", `"Plan"`, "position", `1`)}, engine.Options{})
	require.NoError(t, err)
	plan := res.Records[0]
	res, err = svc.Create(ctx, a, "services", &engine.Input{Attrs: attrs("name", `"Assessment"`, "hours", `8`),
		Rels: map[string]engine.RelInput{"phase": rel("phases", plan.ID), "resource": rel("resources", eng.ID)}}, engine.Options{})
	require.NoError(t, err)
	service := res.Records[0]
	_, err = svc.Create(ctx, a, "subservices", &engine.Input{Attrs: attrs("name", `"Survey"`, "hours", `"1.5"`, "quantity", `3`),
		Rels: map[string]engine.RelInput{"service": rel("services", service.ID)}}, engine.Options{})
	require.NoError(t, err)

	res, err = svc.Create(ctx, a, "projects", &engine.Input{Attrs: attrs("project-name", `"Firewall"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", client.ID)}}, engine.Options{})
	require.NoError(t, err)
	proj := res.Records[0]
	require.Equal(t, "draft", proj.Str("status"))
	require.Equal(t, "USD", proj.Str("currency"))

	res, err = svc.Create(ctx, a, "project-services", &engine.Input{Attrs: attrs("quantity", `2`),
		Rels: map[string]engine.RelInput{"project": rel("projects", proj.ID), "service": rel("services", service.ID)}}, engine.Options{})
	require.NoError(t, err)
	ps := res.Records[0]
	require.Equal(t, "Assessment", ps.Str("name"))
	require.Equal(t, "8", ps.Str("unit-hours"))
	require.Equal(t, "2", ps.Str("quantity"))
	require.NotEmpty(t, ps.Rel("project-phase"))
	require.NotEmpty(t, ps.Rel("project-resource"))

	subs, err := svc.Related(ctx, a, "project-services", ps.ID, "project-subservices", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, subs.Records, 1)
	require.Equal(t, proj.ID, subs.Records[0].Rel("project"))

	prs, err := svc.List(ctx, a, "project-resources", engine.ListParams{Filters: map[string]string{"project": proj.ID}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, prs.Total)
	require.Equal(t, "200", prs.Records[0].Str("hourly-rate"))

	for i := 0; i < 7; i++ {
		_, err := svc.Create(ctx, a, "clients", &engine.Input{Attrs: attrs("name", `"C`+string(rune('a'+i))+`"`)}, engine.Options{})
		require.NoError(t, err)
	}
	page, err := svc.List(ctx, a, "clients", engine.ListParams{PageNumber: 2, PageSize: 3}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, 8, page.Total)
	require.Len(t, page.Records, 3)
	named, err := svc.List(ctx, a, "clients", engine.ListParams{Filters: map[string]string{"name": "LOB"}, Sort: []engine.SortSpec{{Field: "name", Desc: true}}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, 1, named.Total)

	require.NoError(t, svc.Delete(ctx, a, "projects", proj.ID, engine.Options{}))
	_, err = svc.Get(ctx, a, "project-services", ps.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure deleting a user deactivates its membership and deleting a role
// that users hold is a conflict.
func TestDeleteUserAndRole(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	res, err := svc.Create(ctx, a, "roles", &engine.Input{Attrs: attrs("name", `"Auditor"`, "permissions", `{"projects":"view"}`)}, engine.Options{})
	require.NoError(t, err)
	role := res.Records[0]
	res, err = svc.Create(ctx, a, "users", &engine.Input{Attrs: attrs("name", `"Ann"`, "email", `"ann@acme.test"`),
		Rels: map[string]engine.RelInput{"roles": {ToMany: true, Refs: []engine.Ref{{Type: "roles", ID: role.ID}}}}}, engine.Options{})
	require.NoError(t, err)
	user := res.Records[0]
	require.Equal(t, "invited", user.Str("status"))

	err = svc.Delete(ctx, a, "roles", role.ID, engine.Options{})
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "%v", err)

	require.NoError(t, svc.Delete(ctx, a, "users", user.ID, engine.Options{}))
	got, err := svc.Get(ctx, a, "users", user.ID, engine.ListParams{Filters: map[string]string{"active": "false"}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "deactivated", got.Records[0].Str("status"))

	_, err = svc.Update(ctx, a, "users", user.ID, &engine.Input{Rels: map[string]engine.RelInput{"roles": {ToMany: true}}}, engine.Options{})
	require.NoError(t, err)
	require.NoError(t, svc.Delete(ctx, a, "roles", role.ID, engine.Options{}))
}

// Ensure a field refused as it was decoded is reported once: a
// relationship naming a record that does not exist is not also blank, an
// attribute outside its values is not also missing.
func TestOneErrorPerField(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	_, err := svc.Create(ctx, a, "projects", &engine.Input{Attrs: attrs("project-name", `"Firewall"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", "999")}}, engine.Options{})
	var errs scopekit.Errors
	require.ErrorAs(t, err, &errs, "%v", err)
	require.Len(t, errs, 1, "%v", err)
	require.Equal(t, "/data/relationships/client", errs[0].Field)
	require.Contains(t, errs[0].Message, "clients 999 does not exist in this account")
	_, err = svc.Create(ctx, a, "project-documents", &engine.Input{Attrs: attrs("document-type", `"exe"`)}, engine.Options{})
	require.ErrorAs(t, err, &errs, "%v", err)
	fields := map[string]int{}
	for _, e := range errs {
		fields[e.Field]++
	}
	for f, n := range fields {
		require.Equal(t, 1, n, "field %s reported %d times: %v", f, n, err)
	}
}
