package pricing_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// FuzzPrice prices projects built from fuzzed quantities, hours, rates and
// adjustments (huge exponents, negatives, many decimals): Price must not
// panic, and either fail with EINVALID or return figures whose profit is
// revenue − cost.
func FuzzPrice(f *testing.F) {
	f.Add("2", "8", "200", "90", "0.15", "2", "-250", uint8(2), 12, uint8(0))
	f.Add("1e300", "1e300", "1e30", "1e29", "9.999", "1e-300", "1e30", uint8(0), 36, uint8(255))
	f.Add("0.125", "3.3333333333333333333333", "99.995", "0.005", "0.0001", "0.125", "-0.005", uint8(3), 10, uint8(7))
	f.Add("-1", "8", "200", "90", "10", "2", "0", uint8(2), -1, uint8(1))
	f.Add("9223372036854775807", "92233720368547758.07", "1e-1000", "9.99e999", "0", "0", "0", uint8(18), 1, uint8(3))
	f.Fuzz(func(t *testing.T, qty, hours, rate, cost, govRate, fixed, adj string, minor uint8, terms int, flags uint8) {
		num := func(s string) decimal.Decimal {
			v, err := decimal.NewFromString(s)
			if err != nil {
				return decimal.Zero
			}
			return v
		}
		q, h, rt, c, a := num(qty), num(hours), num(rate), num(cost), num(adj)
		frequencies := []string{pricing.FrequencyMonthly, pricing.FrequencyQuarterly, pricing.FrequencyAnnually, pricing.FrequencyOneTime}
		p := &pricing.Project{
			Currency:          pricing.Currency{Code: "X", MinorUnits: int(minor % 20)},
			MRRTerms:          terms,
			IncludeExpenses:   flags&1 != 0,
			IncludeHardware:   flags&2 != 0,
			RevenueAdjustment: a,
			CostAdjustment:    a.Neg(),
			Resources: []pricing.Resource{
				{ID: "a", Name: "A", HourlyRate: rt, HourlyCost: c},
				{ID: "b", Name: "B", HourlyRate: c, HourlyCost: rt},
			},
			Phases: []pricing.Phase{{ID: "p1", Position: 2}, {ID: "p2", Position: 1}},
			Services: []pricing.Service{
				{Quantity: q, UnitHours: h, ResourceID: "a", PhaseID: "p1", CategoryID: "c",
					Subservices: []pricing.Subservice{{Quantity: h, UnitHours: q, ResourceID: "b"}, {Quantity: q, UnitHours: q}}},
				{Quantity: h, UnitHours: h, ResourceID: "b", PhaseID: "p2"},
				{Type: pricing.TypeManagedServices, PaymentFrequency: frequencies[flags>>2&3], Quantity: q, UnitHours: h, ResourceID: "a"},
			},
			Governance: []pricing.Governance{
				{CalculationType: pricing.PercentOfTotal, Rate: num(govRate), ResourceID: "a"},
				{CalculationType: pricing.FixedHours, FixedHours: num(fixed), ResourceID: "b", AllocationMethod: pricing.AssignToCategory, CategoryID: "c"},
				{CalculationType: pricing.PercentOfTotal, Rate: num(govRate), ResourceID: "b", FilterType: pricing.FilterPhase, PhaseID: "p2"},
			},
			Expenses: []pricing.Expense{{Quantity: q, Rate: rt, UnitCost: decimal.NewNullDecimal(c)}},
			Products: []pricing.Product{{Quantity: h, UnitPrice: rt, UnitCost: c}},
		}
		r, err := pricing.Price(p)
		if err != nil {
			var e *scopekit.Error
			if !errors.As(err, &e) || e.Code != scopekit.EINVALID || e.Field == "" {
				t.Fatalf("Price: %v, want an EINVALID error naming a field", err)
			}
			return
		}
		check := func(name string, rev, cost, profit pricing.Fixed) {
			if !profit.Equal(rev.Sub(cost.Decimal)) {
				t.Fatalf("%s: profit %s != revenue %s - cost %s", name, profit, rev, cost)
			}
		}
		ps := r.ProfessionalServices
		check("contract", r.TotalContractValue, r.TotalContractCost, r.TotalContractProfit)
		check("professional services", ps.Revenue, ps.Cost, ps.Profit)
		check("ps", ps.PSRevenue, ps.PSCost, ps.PSProfit)
		check("governance", r.ProjectGovernance.Revenue, r.ProjectGovernance.Cost, r.ProjectGovernance.Profit)
		check("managed", r.ManagedServices.Revenue, r.ManagedServices.Cost, r.ManagedServices.Profit)
		check("expenses", r.TravelAndExpense.Revenue, r.TravelAndExpense.Cost, r.TravelAndExpense.Profit)
		check("materials", r.Materials.Revenue, r.Materials.Cost, r.Materials.Profit)
		check("total row", r.Resources.Total.TotalRevenue, r.Resources.Total.TotalCost, r.Resources.Total.TotalProfit)
		for _, row := range r.Resources.Rows {
			check("resource row", row.Revenue, row.Cost, row.Profit)
		}
		for _, ph := range r.Phases {
			check("phase", ph.Revenue, ph.Cost, ph.Profit)
		}
		if want := ps.ServiceHours.Add(ps.PMHours.Decimal); !r.TotalHours().Equal(want) {
			t.Fatalf("total hours %s, want %s", r.TotalHours(), want)
		}
		_ = r.Service(0)
		_ = r.Subservice(0, 1)
		_ = r.Resource(1)
		_ = r.ToDefault(r.TotalContractValue.Decimal)
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("JSON: %v", err)
		}
	})
}
