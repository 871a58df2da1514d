package scoping_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// Ensure reads serve the figures stored on write and price nothing; a
// write prices only the projects whose inputs it changed, once; a project
// whose stored figures are not trusted is priced on read until refreshed.
func TestReadsServeStoredPrices(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	first, err := demodata.Seed(ctx, svc, a, "")
	require.NoError(t, err)
	// a second project with the same catalog
	res, err := svc.Create(ctx, a, "projects", &engine.Input{Attrs: attrs("project-name", `"Second"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", first.ClientID)}}, engine.Options{})
	require.NoError(t, err)
	second := res.Records[0].ID
	_, err = svc.ApplyBlueprint(ctx, a, second, first.BlueprintID)
	require.NoError(t, err)

	var runs atomic.Int64
	scoping.CountPricing(svc, &runs)
	list, err := svc.List(ctx, a, "project-services", engine.ListParams{Include: []string{"project-subservices", "project", "project-resource"}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, list.Records, 4)
	_, err = svc.List(ctx, a, "projects", engine.ListParams{Include: []string{"project-services", "project-governances", "project-resources", "project-expenses"}}, engine.Options{})
	require.NoError(t, err)
	got, err := svc.Get(ctx, a, "projects", first.ProjectID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "10794.25", got.Records[0].Str("contract-revenue"), "pricing.md's worked example")
	require.Zero(t, runs.Load(), "reads price nothing")

	_, err = svc.Pricing(ctx, a, first.ProjectID)
	require.NoError(t, err)
	require.Equal(t, int64(1), runs.Load(), "the full breakdown is priced on request")

	runs.Store(0)
	line := list.Records[0]
	res, err = svc.Update(ctx, a, "project-services", line.ID, &engine.Input{Attrs: attrs("quantity", `5`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(1), runs.Load(), "a line write prices its project once")
	require.NotEqual(t, line.Str("revenue"), res.Records[0].Str("revenue"), "the response has the new figures")

	before, err := svc.Get(ctx, a, "projects", first.ProjectID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	runs.Store(0)
	terms, err := svc.List(ctx, a, "payment-terms", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, "payment-terms", terms.Records[0].ID, &engine.Input{Attrs: attrs("include-hardware", `true`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, int64(2), runs.Load(), "a shared input re-prices the account's projects after the write")
	runs.Store(0)
	got, err = svc.Get(ctx, a, "projects", first.ProjectID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.True(t, before.Records[0].Dec("contract-revenue").Add(decimal.RequireFromString("3999.98")).Equal(
		got.Records[0].Dec("contract-revenue")), "hardware now included")
	require.Zero(t, runs.Load())

	require.NoError(t, scoping.ForgetStoredPrices(ctx, svc, a.AccountID(), second))
	want, err := svc.Get(ctx, a, "projects", first.ProjectID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Zero(t, runs.Load())
	for range 2 {
		got, err = svc.Get(ctx, a, "projects", second, engine.ListParams{Include: []string{"project-services"}}, engine.Options{})
		require.NoError(t, err)
	}
	require.Equal(t, int64(2), runs.Load(), "untrusted figures: priced on every read, once per request")
	require.NoError(t, svc.RefreshAllPrices(ctx))
	require.Equal(t, int64(3), runs.Load(), "the refresh prices the untrusted project only")
	runs.Store(0)
	again, err := svc.Get(ctx, a, "projects", second, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Zero(t, runs.Load())
	require.Equal(t, scoping.Figures(got.Records[0]), scoping.Figures(again.Records[0]))
	require.NotEqual(t, scoping.Figures(want.Records[0]), scoping.Figures(again.Records[0]))
}
