package workbook_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/workbook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure every total of both workbooks, read back as a reader sees them,
// is the sum of the rows it totals and the pricing endpoint's figure, to
// the cent: for the demo project, the large project and random projects
// (lines with and without resources, phases and managed services,
// governance of every kind, adjustments of either sign, USD, EUR and JPY,
// payment terms with and without expenses and hardware).
func TestWorkbooksAddUp(t *testing.T) {
	t.Run("demo", func(t *testing.T) {
		e := snapshottest.New(t)
		addsUp(t, e, e.SeedDemo().ProjectID)
	})
	t.Run("large", func(t *testing.T) {
		if testing.Short() {
			t.Skip("large fixture")
		}
		e := snapshottest.New(t)
		addsUp(t, e, e.SeedLarge())
	})
	t.Run("random", func(t *testing.T) {
		e := newRandomEnv(t)
		n := 60
		if testing.Short() {
			n = 12
		}
		seen := map[string]bool{}
		for seed := range uint64(n) {
			pid := e.project(seed)
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				for _, c := range addsUp(t, e.Env, pid) {
					seen[c] = true
				}
			})
		}
		if !testing.Short() { // the set covers what can go wrong
			for _, c := range []string{"no minor units", "minor units", "no payment term", "expenses in", "expenses out", "hardware in",
				"hardware out", "managed services", "line without a resource", "labor without a phase", "negative adjustment"} {
				assert.True(t, seen[c], "no random project has %s", c)
			}
		}
	})
	t.Run("governance rounded to 0 hours", func(t *testing.T) {
		e := newRandomEnv(t)
		addsUp(t, e.Env, e.tinyGovernance())
	})
}

// addsUp checks the workbooks of a project: every sheet's sums, then its
// totals against the figures of the pricing endpoint. It returns the
// cases the project shows.
func addsUp(t *testing.T, e *snapshottest.Env, pid string) (cases []string) {
	snap := e.Snapshot(pid)
	res, err := e.Svc.Pricing(context.Background(), e.Actor, pid)
	require.NoError(t, err)

	xlsx, err := workbook.Pricing(snap)
	require.NoError(t, err)
	f := openBook(t, xlsx)
	sheets := map[string]*grid{}
	for _, name := range f.GetSheetList() {
		g := readGrid(t, f, name)
		if name == "Summary" || name == "Resources" || name == "Phases" {
			require.Positive(t, g.checkBlocks(), "%s has totals", name)
		} else {
			g.checkBlocks()
		}
		sheets[name] = g
	}
	includeExpenses, includeHardware := true, false // a project without a payment term
	if term := snap.PaymentTerm; term != nil {
		includeExpenses, includeHardware = term.IncludeExpenses(), term.IncludeHardware()
	}
	ps, t9 := res.ProfessionalServices, res.Resources.Total
	laborRevenue, laborCost := add(ps.ServiceRevenue, ps.PMRevenue), add(ps.ServiceCost, ps.PMCost)

	s := sheets["Summary"]
	s.expect("Services", ps.ServiceRevenue, ps.ServiceCost, sub(ps.ServiceRevenue, ps.ServiceCost), ps.ServiceHours)
	s.expect("Project governance", ps.PMRevenue, ps.PMCost, res.ProjectGovernance.Profit, ps.PMHours)
	s.expect("Adjustment", ps.RevenueAdjustment, ps.CostAdjustment, sub(ps.RevenueAdjustment, ps.CostAdjustment))
	s.expect("Professional services", ps.PSRevenue, ps.PSCost, ps.PSProfit, ps.Hours)
	s.expect("Total contract", res.TotalContractValue, res.TotalContractCost, res.TotalContractProfit)
	s.expect("Contract margin", res.TotalContractMargin)
	totalRow, _ := s.row("Total contract")
	for _, sec := range []struct {
		name                  string
		revenue, cost, profit pricing.Fixed
		in                    bool
	}{
		{"Travel and expense", res.TravelAndExpense.Revenue, res.TravelAndExpense.Cost, res.TravelAndExpense.Profit, includeExpenses},
		{"Materials", res.Materials.Revenue, res.Materials.Cost, res.Materials.Profit, includeHardware},
		{"Managed services", res.ManagedServices.Revenue, res.ManagedServices.Cost, res.ManagedServices.Profit, true},
	} {
		s.expect(sec.name, sec.revenue, sec.cost, sec.profit)
		r, _ := s.row(sec.name)
		require.Equal(t, sec.in, r.n < totalRow.n, "%s is counted in the total contract only when the contract includes it", sec.name)
		require.Equal(t, map[bool]string{true: "Yes", false: "No"}[sec.in], r.cells[5], sec.name)
		rc := sheets["Resources"]
		rc.expect(sec.name, nil, nil, nil, nil, sec.cost)
		r, _ = rc.row(sec.name)
		costRow, _ := rc.row("Total cost")
		require.Equal(t, sec.in, r.n < costRow.n, "%s is counted in the total cost only when the contract includes it", sec.name)
	}

	rc := sheets["Resources"]
	for _, row := range res.Resources.Rows {
		rc.expect(row.ResourceName, row.Hours, row.HourlyRate, row.HourlyCost, row.Revenue, row.Cost, row.Profit)
	}
	rc.expect("Total", t9.Hours, nil, nil, laborRevenue, laborCost, sub(laborRevenue, laborCost))
	rc.expect("Blended hourly rate and cost", nil, t9.HourlyRate, t9.HourlyCost)
	rc.expect("Services", nil, nil, nil, nil, t9.ServiceCost)
	rc.expect("Project governance", nil, nil, nil, nil, t9.PMCost)
	rc.expect("Cost adjustment", nil, nil, nil, nil, t9.CostAdjustment)
	rc.expect("Total cost", nil, nil, nil, nil, res.TotalContractCost)

	ph := sheets["Phases"]
	for _, p := range res.Phases {
		ph.expect(phaseName(p), p.ServiceHours, p.ServiceRevenue, p.ServiceCost, p.GovernanceHours, p.GovernanceRevenue, p.GovernanceCost,
			p.Hours, p.Revenue, p.Cost, p.Profit)
	}
	ph.expect("Total", ps.ServiceHours, ps.ServiceRevenue, ps.ServiceCost, ps.PMHours, ps.PMRevenue, ps.PMCost, ps.Hours,
		laborRevenue, laborCost, sub(laborRevenue, laborCost))
	gov := res.ProjectGovernance
	sheets["Governance"].expect("Total", nil, gov.Hours, nil, nil, gov.Revenue, gov.Cost, gov.Profit)
	tne := res.TravelAndExpense
	sheets["Travel and expense"].expect("Total", nil, nil, nil, nil, tne.Revenue, tne.Cost, tne.Profit)
	mat := res.Materials
	sheets["Materials"].expect("Total", nil, nil, nil, nil, mat.Revenue, mat.Cost, mat.Profit)
	if ms := res.ManagedServices; len(ms.Items) > 0 {
		sheets["Managed services"].expect("Total", nil, nil, nil, nil, nil, ms.Revenue, ms.Cost, ms.Profit)
	} else {
		require.NotContains(t, sheets, "Managed services")
	}

	xlsx, err = workbook.Breakdown(snap)
	require.NoError(t, err)
	b := readGrid(t, openBook(t, xlsx), "Breakdown")
	require.Positive(t, b.checkOutline())
	skip := make([]any, 7) // the columns before Line hours
	for _, p := range res.Phases {
		b.expect(phaseName(p), append(skip, nil, p.Hours, p.Revenue)...)
	}
	b.expect("Total", append(skip, nil, ps.Hours, laborRevenue)...)
	if len(res.ManagedServices.Items) > 0 {
		b.expect("Managed services", append(skip, nil, nil, res.ManagedServices.Revenue)...)
	}
	for i, svc := range snap.Services { // names are unique in these projects
		line := res.Service(i)
		b.expect(svc.Name(), append(skip, line.ExtendedHours, line.TotalHours, line.Revenue)...)
	}

	is := func(c string, yes bool) {
		if yes {
			cases = append(cases, c)
		}
	}
	is("no minor units", res.Currency.MinorUnits == 0)
	is("minor units", res.Currency.MinorUnits == 2)
	is("no payment term", snap.PaymentTerm == nil)
	is("expenses in", includeExpenses && !res.TravelAndExpense.Cost.IsZero())
	is("expenses out", !includeExpenses && !res.TravelAndExpense.Cost.IsZero())
	is("hardware in", includeHardware && !res.Materials.Cost.IsZero())
	is("hardware out", !includeHardware && !res.Materials.Cost.IsZero())
	is("managed services", len(res.ManagedServices.Items) > 0)
	is("negative adjustment", ps.RevenueAdjustment.IsNegative())
	for _, w := range res.Warnings {
		is("line without a resource", w.Code == pricing.WarnNoResource)
	}
	for _, p := range res.Phases {
		is("labor without a phase", p.PhaseID == "" && !p.ServiceHours.IsZero())
	}
	return cases
}

// phaseName is how the sheets name a phase of pricing's breakdown.
func phaseName(p pricing.PhaseTotals) string {
	if p.PhaseID == "" {
		return "No phase"
	}
	return p.Name
}

func add(a, b pricing.Fixed) pricing.Fixed { return pricing.Fixed{Decimal: a.Add(b.Decimal)} }
func sub(a, b pricing.Fixed) pricing.Fixed { return pricing.Fixed{Decimal: a.Sub(b.Decimal)} }
