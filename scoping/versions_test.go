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

	// the seed added lines after creation: a manual version is new
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
	_, err := svc.Submit(ctx, a, pid)
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
