package scoping_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// seededProject is the worked example in a fresh account.
func seededProject(t *testing.T) (*scoping.Service, *engine.Actor, string) {
	t.Helper()
	svc, a := mustSetup(t)
	seeded, err := demodata.Seed(context.Background(), svc, a, "")
	require.NoError(t, err)
	return svc, a, seeded.ProjectID
}

// versions lists a project's versions by number.
func versions(t *testing.T, svc *scoping.Service, a *engine.Actor, projectID string) []*engine.Record {
	t.Helper()
	res, err := svc.List(context.Background(), a, views.TypeProjectVersions,
		engine.ListParams{Filters: map[string]string{"project": projectID}, Sort: []engine.SortSpec{{Field: "number"}}}, engine.Options{})
	require.NoError(t, err)
	return res.Records
}

// Ensure a project gets a version at creation, that a version of an
// unchanged scope is the latest one (same digest, no copy), that a change
// makes a new numbered version with its own digest and figures, and that
// versions are read-only but for name and comment and never deleted.
func TestVersionsTakenAndDeduplicated(t *testing.T) {
	ctx := context.Background()
	svc, a, pid := seededProject(t)
	vs := versions(t, svc, a, pid)
	require.Len(t, vs, 1)
	first := vs[0]
	require.EqualValues(t, 1, first.Int("number"))
	require.Equal(t, scoping.VersionCreated, first.Str("reason"))
	require.Len(t, first.Str("digest"), 64)
	require.Positive(t, first.Int("size"))

	// a change of scope after creation (the demo is seeded in one
	// transaction, so its creation version holds it all): a manual
	// version is new
	_, err := svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("revenue-adjustment", `"-300"`)}, engine.Options{})
	require.NoError(t, err)
	res, created, err := svc.TakeVersion(ctx, a, pid, "Quote sent", "as mailed on Monday")
	require.NoError(t, err)
	require.True(t, created)
	second := res.Records[0]
	require.EqualValues(t, 2, second.Int("number"))
	require.Equal(t, scoping.VersionManual, second.Str("reason"))
	require.Equal(t, "Quote sent", second.Str("name"))
	require.NotEqual(t, first.Str("digest"), second.Str("digest"))
	proj, err := svc.Get(ctx, a, "projects", pid, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	for _, f := range []string{"contract-revenue", "contract-cost", "contract-profit", "contract-margin", "total-hours", "currency"} {
		require.Equal(t, proj.Records[0].Str(f), second.Str(f), f)
	}

	again, created, err := svc.TakeVersion(ctx, a, pid, "again", "")
	require.NoError(t, err)
	require.False(t, created, "an unchanged scope answers the latest version")
	require.Equal(t, second.ID, again.Records[0].ID)
	require.Len(t, versions(t, svc, a, pid), 2)

	// delivery progress is not scope
	svcs, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)
	line := svcs.Records[0].ID
	_, err = svc.Update(ctx, a, "project-services", line, &engine.Input{Attrs: attrs("status", `"in_progress"`, "actual-hours", `"3"`)}, engine.Options{})
	require.NoError(t, err)
	_, created, err = svc.TakeVersion(ctx, a, pid, "", "")
	require.NoError(t, err)
	require.False(t, created, "delivery status and actual hours leave the scope as it was")

	_, err = svc.Update(ctx, a, "project-services", line, &engine.Input{Attrs: attrs("quantity", `"7"`)}, engine.Options{})
	require.NoError(t, err)
	res, created, err = svc.TakeVersion(ctx, a, pid, "", "")
	require.NoError(t, err)
	require.True(t, created)
	require.EqualValues(t, 3, res.Records[0].Int("number"))

	// name and comment can change; nothing else
	_, err = svc.Update(ctx, a, views.TypeProjectVersions, second.ID, &engine.Input{Attrs: attrs("name", `"Quote v1"`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, views.TypeProjectVersions, second.ID, &engine.Input{Attrs: attrs("digest", `"00"`)}, engine.Options{Strict: true})
	require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(err))
	err = svc.Delete(ctx, a, views.TypeProjectVersions, second.ID, engine.Options{})
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
}

// Ensure submitting and rescoping take versions (the scope submitted, and
// the scope sent back), deduplicated like any other.
func TestVersionsAtSubmitAndRescope(t *testing.T) {
	ctx := context.Background()
	svc, a, pid := seededProject(t)
	_, err := svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("revenue-adjustment", `"-300"`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Submit(ctx, a, pid)
	require.NoError(t, err)
	vs := versions(t, svc, a, pid)
	require.Len(t, vs, 2)
	require.Equal(t, scoping.VersionSubmitted, vs[1].Str("reason"))
	// no level applies: the project is approved at once; submitting again
	// after a reopen takes no copy of the same scope
	_, err = svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("status", `"canceled"`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("status", `"draft"`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Submit(ctx, a, pid)
	require.NoError(t, err)
	require.Len(t, versions(t, svc, a, pid), 2)
}

// Ensure a revert gives the project the version's scope again: changed
// lines and attributes as they were, deleted lines recreated (with new
// ids, their subservices under them), added lines removed, the same price
// to the cent, and a new version (reverted); only a draft reverts, and
// only to a version of its own.
func TestRevert(t *testing.T) {
	ctx := context.Background()
	svc, a, pid := seededProject(t)
	res, _, err := svc.TakeVersion(ctx, a, pid, "before", "")
	require.NoError(t, err)
	v := res.Records[0]
	before, err := svc.Pricing(ctx, a, pid)
	require.NoError(t, err)

	list := func(typ string) []*engine.Record {
		r, err := svc.List(ctx, a, typ, engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
		require.NoError(t, err)
		return r.Records
	}
	services := list("project-services")
	require.Len(t, services, 2)
	withSubs := services[0]
	require.Len(t, list("project-subservices"), 2)
	require.NoError(t, svc.Delete(ctx, a, "project-services", withSubs.ID, engine.Options{}))
	_, err = svc.Update(ctx, a, "project-services", services[1].ID, &engine.Input{Attrs: attrs("quantity", `"9"`, "name", `"Renamed"`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Create(ctx, a, "project-expenses", &engine.Input{Attrs: attrs("description", `"Hotel"`, "rate", `"100"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", pid)}}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("project-name", `"Other name"`, "revenue-adjustment", `"0"`)}, engine.Options{})
	require.NoError(t, err)

	out, err := svc.Revert(ctx, a, pid, v.ID)
	require.NoError(t, err)
	require.Equal(t, "Globex firewall refresh", out.Records[0].Str("project-name"))
	require.Equal(t, before.TotalContractValue.String(), out.Records[0].Str("contract-revenue"))
	after, err := svc.Pricing(ctx, a, pid)
	require.NoError(t, err)
	require.Equal(t, before.TotalContractValue.String(), after.TotalContractValue.String())
	require.Equal(t, before.TotalContractCost.String(), after.TotalContractCost.String())
	byName := map[string]*engine.Record{}
	for _, s := range list("project-services") {
		byName[s.Str("name")] = s
	}
	require.Len(t, byName, 2)
	require.Equal(t, services[1].ID, byName["Firewall deployment"].ID, "a changed line keeps its id")
	require.Equal(t, "1", byName["Firewall deployment"].Str("quantity"))
	recreated := byName[withSubs.Str("name")]
	require.NotEqual(t, withSubs.ID, recreated.ID, "a deleted line comes back with a new id")
	require.Equal(t, withSubs.Str("quantity"), recreated.Str("quantity"))
	subs := list("project-subservices")
	require.Len(t, subs, 2)
	for _, s := range subs {
		require.Equal(t, recreated.ID, s.Rel("project-service"), "subservices hang under the recreated service")
	}
	require.Len(t, list("project-expenses"), 2, "the hotel added since is gone")

	vs := versions(t, svc, a, pid)
	last := vs[len(vs)-1]
	require.Equal(t, scoping.VersionReverted, last.Str("reason"))
	d, err := svc.DiffVersions(ctx, a, pid, "2", scoping.Current)
	require.NoError(t, err)
	require.Equal(t, "0.00", d.Total.Delta.Revenue)
	require.Empty(t, d.Project)

	_, err = svc.Revert(ctx, a, pid, "999")
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	_, err = svc.Submit(ctx, a, pid)
	require.NoError(t, err)
	_, err = svc.Revert(ctx, a, pid, v.ID)
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "an approved project is not reverted")
}
