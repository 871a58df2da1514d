package mergedata_test

import (
	"testing"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
)

// The v2 fields a statement of work needs beyond the figures: each phase's
// services and governance apart, the count of services and the account's
// general terms.

// checkPhaseParts checks a phase's v2 service and governance figures: the
// pricing result's, the service figures adding up from the phase's
// professional services; v1 has none of them.
func checkPhaseParts(t *testing.T, p any, pt pricing.PhaseTotals, v2 bool) {
	t.Helper()
	parts := map[string]pricing.Fixed{"service_hours": pt.ServiceHours, "service_revenue": pt.ServiceRevenue,
		"governance_hours": pt.GovernanceHours, "governance_revenue": pt.GovernanceRevenue}
	if !v2 {
		for k := range parts {
			assert.NotContains(t, p, k)
		}
		return
	}
	for k, want := range parts {
		assert.Equal(t, want.String(), at(t, p, k), k)
	}
	hours, revenue := decimal.Zero, decimal.Zero
	for _, s := range at(t, p, "services").([]any) {
		if at(t, s, "service_type") == "managed_services" {
			continue
		}
		hours = hours.Add(decimal.RequireFromString(at(t, s, "total_hours").(string)))
		revenue = revenue.Add(decimal.RequireFromString(at(t, s, "revenue").(string)))
	}
	assert.True(t, hours.Equal(pt.ServiceHours.Decimal), "%s: service hours %s, services add up to %s", pt.Name, pt.ServiceHours, hours)
	assert.True(t, revenue.Equal(pt.ServiceRevenue.Decimal), "%s: service revenue %s, services add up to %s", pt.Name, pt.ServiceRevenue, revenue)
}

// Ensure v2 counts the project's services, managed ones included, and
// lists the account's active general terms by position.
func TestServiceCountAndGeneralTerms(t *testing.T) {
	e := mustEnv(t)
	pid := e.seedRich()
	e.Create("general-terms", map[string]any{"name": "Scope", "body": "First.", "position": 0})
	gone := e.Create("general-terms", map[string]any{"name": "Old", "body": "Archived.", "position": 9})
	e.Update("general-terms", gone, map[string]any{"active": false})
	snap := e.snapshot(pid)
	v2 := tree(t, mergedata.BuildV2(snap, now))
	assert.Equal(t, float64(len(snap.Services)), at(t, v2, "project", "service_count"))
	assert.Equal(t, float64(4), at(t, v2, "project", "service_count"))
	terms := at(t, v2, "general_terms").([]any)
	var names []string
	for _, term := range terms {
		names = append(names, at(t, term, "name").(string))
	}
	assert.Equal(t, []string{"Scope", "Confidentiality", "Acceptance of deliverables", "Warranty"}, names)
	assert.Equal(t, "First.", at(t, terms, 0, "body"))
	v1 := tree(t, mergedata.BuildV1(snap, now))
	assert.NotContains(t, v1, "general_terms")
}
