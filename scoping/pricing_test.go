package scoping_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure a read prices each project once, however many of its records it
// serves or includes.
func TestOnePricingRunPerProjectPerRequest(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	first, err := demodata.Seed(ctx, svc, a, "")
	require.NoError(t, err)
	// a second project with the same catalog
	res, err := svc.Create(ctx, a, "projects", &scoping.Input{Attrs: attrs("project-name", `"Second"`),
		Rels: map[string]scoping.RelInput{"client": rel("clients", first.ClientID)}}, false)
	require.NoError(t, err)
	second := res.Records[0].ID
	_, err = svc.ApplyBlueprint(ctx, a, second, first.BlueprintID)
	require.NoError(t, err)

	var runs atomic.Int64
	scoping.CountPricing(svc, &runs)
	list, err := svc.List(ctx, a, "project-services", scoping.ListParams{Include: []string{"project-subservices", "project", "project-resource"}}, false)
	require.NoError(t, err)
	require.Len(t, list.Records, 4)
	require.Equal(t, int64(2), runs.Load(), "two projects, two runs")

	runs.Store(0)
	_, err = svc.List(ctx, a, "projects", scoping.ListParams{Include: []string{"project-services", "project-governances", "project-resources", "project-expenses"}}, false)
	require.NoError(t, err)
	require.Equal(t, int64(2), runs.Load())
}
