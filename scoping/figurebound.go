package scoping

import (
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// maxFigure bounds every figure of a project, in its currency: below
// 10^13, a spreadsheet cell (15 significant digits) still shows an amount
// to the cent, and so do the documents and both stores. The bounds of the
// numbers a line carries (decl.go) keep each line far below it; a project
// of many such lines is refused when a write would bring a sum to it.
var maxFigure = decimal.New(1, 13)

// checkFigures refuses a pricing that has a sum at or past maxFigure:
// the hours, and the revenue and the cost of every section together, as
// if the payment term included expenses and hardware (so that changing
// the term can never bring a total past it). Lines are never negative,
// and adjustments are bounded, so every line, phase, resource and total
// lies within these sums.
func checkFigures(r *pricing.Result) error {
	ps := r.ProfessionalServices
	sum := func(fs ...pricing.Fixed) decimal.Decimal {
		var s decimal.Decimal
		for _, f := range fs {
			s = s.Add(f.Abs())
		}
		return s
	}
	managedHours := make([]pricing.Fixed, 0, len(r.ManagedServices.Items))
	for _, it := range r.ManagedServices.Items {
		managedHours = append(managedHours, it.Hours)
	}
	for _, f := range []struct {
		what string
		v    decimal.Decimal
	}{
		{"hours", sum(append(managedHours, ps.ServiceHours, ps.PMHours)...)},
		{"revenue", sum(ps.ServiceRevenue, ps.PMRevenue, ps.RevenueAdjustment, r.ManagedServices.Revenue, r.TravelAndExpense.Revenue, r.Materials.Revenue)},
		{"cost", sum(ps.ServiceCost, ps.PMCost, ps.CostAdjustment, r.ManagedServices.Cost, r.TravelAndExpense.Cost, r.Materials.Cost)},
	} {
		if f.v.GreaterThanOrEqual(maxFigure) {
			return scopekit.Errorf(scopekit.EINVALID, "the project's %s would add up to %s, and a project's figures must stay below %s: lower a quantity, hours or a rate",
				f.what, f.v.String(), maxFigure.String())
		}
	}
	return nil
}
