package documents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proposalRows renders the Standard proposal for a snapshot and returns
// its slides' text and the rows (cells) of its services and investment
// tables.
func proposalRows(t *testing.T, snap *views.Snapshot) (slides []string, services, investment [][]string) {
	t.Helper()
	out, err := documents.RenderFormat(context.Background(), documents.FormatPPTX, documents.StandardProposal(), mergedata.BuildV2(snap, now))
	require.NoError(t, err)
	slides = slidesText(t, out)
	require.Len(t, slides, 4)
	rows := func(slide string) [][]string {
		var out [][]string
		for _, line := range strings.Split(slide, "\n") {
			if strings.HasSuffix(line, "|") {
				out = append(out, strings.Split(strings.TrimSuffix(line, "|"), "|"))
			}
		}
		return out
	}
	return slides, rows(slides[2]), rows(slides[3])
}

// money reads an en-US USD amount as the money filter prints it.
func usd(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(strings.NewReplacer("$", "", ",", "").Replace(s))
	require.NoError(t, err, "amount %q", s)
	return d
}

// checkProposal checks the Standard proposal of a snapshot: every figure
// is the pricing result's, the services table's rows add up to
// professional services (governance and the adjustment on rows of their
// own, under headings of their own), and the investment's lines to the
// contract total.
func checkProposal(t *testing.T, snap *views.Snapshot) []string {
	t.Helper()
	res := snap.Pricing
	slides, services, investment := proposalRows(t, snap)
	require.Equal(t, []string{"Service", "Quantity", "Hours", "Price"}, services[0])
	sumHours, sumPrice := decimal.Zero, decimal.Zero
	last := services[len(services)-1]
	for _, r := range services[1 : len(services)-1] {
		if r[2] != "" {
			h, err := decimal.NewFromString(strings.ReplaceAll(r[2], ",", ""))
			require.NoError(t, err)
			sumHours = sumHours.Add(h)
		}
		if r[3] != "" {
			sumPrice = sumPrice.Add(usd(t, r[3]))
		}
	}
	require.Equal(t, "Professional services", last[0])
	assert.True(t, usd(t, last[3]).Equal(sumPrice), "the services' rows add up to %s, the total says %s", sumPrice, last[3])
	assert.True(t, usd(t, last[3]).Equal(res.ProfessionalServices.PSRevenue.Decimal), "professional services")
	assert.True(t, sumHours.Equal(res.ProfessionalServices.Hours.Decimal), "hours: rows %s, pricing %s", sumHours, res.ProfessionalServices.Hours)
	if g := res.ProjectGovernance; !g.Revenue.IsZero() {
		require.Contains(t, slides[2], "\nProject governance||||\n", "governance under a heading of its own")
	}
	if adj := res.ProfessionalServices.RevenueAdjustment; !adj.IsZero() {
		require.Contains(t, slides[2], "Adjustment|||"+enUS("$", adj.String())+"|")
	}
	total := investment[len(investment)-1]
	require.Equal(t, "Contract total (USD)", total[0])
	sum := decimal.Zero
	for _, r := range investment[:len(investment)-1] {
		sum = sum.Add(usd(t, r[1]))
	}
	assert.True(t, usd(t, total[1]).Equal(sum), "the investment's lines add up to %s, the total says %s", sum, total[1])
	assert.True(t, usd(t, total[1]).Equal(res.TotalContractValue.Decimal))
	require.Contains(t, slides[1], enUS("$", res.TotalContractValue.String()), "the summary has the contract total")
	return slides
}

// Ensure the Standard proposal adds up for the demo project, a project
// with nothing but governance and the large project: its summary slide
// sums the proposal up, the services table adds up to professional
// services (the large project's by phase, its 1,000 services would not
// fit a slide), governance and the adjustment are not part of a phase,
// and hardware left out of the contract is said to be quoted separately.
func TestStandardProposalAddsUp(t *testing.T) {
	e := mustEnv(t)
	seeded := e.SeedDemo()
	slides := checkProposal(t, e.snapshot(seeded.ProjectID))
	require.Contains(t, slides[1], "48.86\nhours of professional services")
	require.Contains(t, slides[1], "Plan: 24.50 hours · Implement: 16.25 hours")
	require.Contains(t, slides[2], "Implement||||\nFirewall deployment|1.00|16.25|$3,250.00|\nProject governance||||\nProject management||6.11|$1,069.25|")
	require.Contains(t, slides[3], "Hardware and materials are quoted separately, not part of the contract total: $3,999.98.")

	empty := e.Create("projects", map[string]any{"project-name": "Empty"}, "client", "clients", seeded.ClientID)
	slides = checkProposal(t, e.snapshot(empty))
	require.NotContains(t, slides[3], "Travel and expense", "no line without expenses")

	slides = checkProposal(t, e.large())
	require.Contains(t, slides[2], "Phase 0||9,327.50|$1,826,081.50|")
	require.Contains(t, slides[2], "The statement of work lists the 1,000 services, phase by phase.")
	require.NotContains(t, slides[2], "Service 0-0")
}
