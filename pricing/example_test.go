package pricing_test

import (
	"fmt"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// Price a small project: one service with a subservice, 15 % project
// management, an expense, and a revenue adjustment.
func Example() {
	usd := pricing.Currency{Code: "USD", MinorUnits: 2}
	p := &pricing.Project{
		Currency:        usd,
		IncludeExpenses: true,
		Resources: []pricing.Resource{
			{ID: "1", Name: "Engineer", HourlyRate: decimal.NewFromInt(200), HourlyCost: decimal.NewFromInt(90)},
			{ID: "2", Name: "Project Manager", HourlyRate: decimal.NewFromInt(175), HourlyCost: decimal.NewFromInt(80)},
		},
		Services: []pricing.Service{{
			ID: "10", Name: "Firewall deployment", ResourceID: "1",
			Quantity: decimal.NewFromInt(1), UnitHours: decimal.RequireFromString("16.25"),
			Subservices: []pricing.Subservice{{ID: "11", Name: "Site survey", // inherits the Engineer
				Quantity: decimal.NewFromInt(3), UnitHours: decimal.RequireFromString("1.5")}},
		}},
		Governance: []pricing.Governance{{ID: "20", Name: "Project management", ResourceID: "2",
			CalculationType: pricing.PercentOfTotal, Rate: decimal.RequireFromString("0.15")}},
		Expenses: []pricing.Expense{{ID: "30", Description: "Airfare",
			Quantity: decimal.NewFromInt(2), Rate: decimal.NewFromInt(450)}},
		RevenueAdjustment: decimal.NewFromInt(-100),
	}
	r, err := pricing.Price(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := r.Service(0)
	fmt.Println("service:", s.TotalHours, "h", s.Revenue, "/", s.Cost)
	pm := r.ProjectGovernance.Items[0]
	fmt.Println("project management:", pm.Hours, "h", pm.Revenue, "/", pm.Cost)
	fmt.Println("ps revenue:", r.ProfessionalServices.PSRevenue)
	fmt.Println("contract:", r.TotalContractValue, r.TotalContractCost, r.TotalContractProfit, r.TotalContractMargin)
	for _, row := range r.Resources.Rows {
		fmt.Println(row.ResourceSlug, row.Hours, row.Revenue)
	}
	fmt.Println(r.Resources.Total.ResourceSlug, "blended rate", r.Resources.Total.HourlyRate)
	// Output:
	// service: 20.75 h 4150.00 / 1867.50
	// project management: 3.11 h 544.25 / 248.80
	// ps revenue: 4594.25
	// contract: 5494.25 3016.30 2477.95 0.4510
	// engineer 20.75 4150.00
	// project_manager 3.11 544.25
	// project_total blended rate 196.74
}

// Convert a contract priced in yen into the account's default currency,
// as approval conditions on money do.
func ExampleResult_ToDefault() {
	p := &pricing.Project{
		Currency:        pricing.Currency{Code: "JPY", MinorUnits: 0},
		DefaultCurrency: pricing.Currency{Code: "USD", MinorUnits: 2},
		ConversionRate:  decimal.RequireFromString("151.37"), // yen per dollar
		Resources:       []pricing.Resource{{ID: "1", Name: "Engineer", HourlyRate: decimal.NewFromInt(30000)}},
		Services: []pricing.Service{{ResourceID: "1",
			Quantity: decimal.NewFromInt(1), UnitHours: decimal.RequireFromString("12.5")}},
	}
	r, err := pricing.Price(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.TotalContractValue, r.Currency.Code)
	fmt.Println(r.ToDefault(r.TotalContractValue.Decimal), "USD")
	// Output:
	// 375000 JPY
	// 2477.37 USD
}

// A line without a resource is priced at 0 and reported; it never fails
// the project.
func ExampleResult_warnings() {
	p := &pricing.Project{
		Currency: pricing.Currency{Code: "USD", MinorUnits: 2},
		Services: []pricing.Service{{ID: "10", Name: "Assessment",
			Quantity: decimal.NewFromInt(2), UnitHours: decimal.NewFromInt(8)}},
	}
	r, _ := pricing.Price(p)
	fmt.Println(r.TotalHours(), r.TotalContractValue)
	for _, w := range r.Warnings {
		fmt.Println(w.Code, w.Line, w.ID)
	}
	// Output:
	// 16.00 0.00
	// no_resource services[0] 10
}

// Compare a project's delivery with its estimate: the rollup counts
// services by status and the share of the estimate complete; the table
// prices actual hours at each line's hourly cost.
func ExampleDeliveryFigures() {
	hours := func(s string) *decimal.Decimal { h := decimal.RequireFromString(s); return &h } // actual hours recorded
	p := &pricing.Project{
		Currency:  pricing.Currency{Code: "USD", MinorUnits: 2},
		Resources: []pricing.Resource{{ID: "1", Name: "Engineer", HourlyRate: decimal.NewFromInt(200), HourlyCost: decimal.NewFromInt(90)}},
		Phases:    []pricing.Phase{{ID: "p1", Name: "Plan", Position: 1}, {ID: "p2", Name: "Implement", Position: 2}},
		Services: []pricing.Service{
			{ID: "10", Name: "Assessment", PhaseID: "p1", ResourceID: "1", Status: pricing.StatusComplete,
				Quantity: decimal.NewFromInt(1), UnitHours: decimal.NewFromInt(8), ActualHours: hours("10")},
			{ID: "20", Name: "Deployment", PhaseID: "p2", ResourceID: "1", Status: pricing.StatusInProgress,
				Quantity: decimal.NewFromInt(1), UnitHours: decimal.NewFromInt(24), ActualHours: hours("6.5")},
			{ID: "30", Name: "Training", PhaseID: "p2", ResourceID: "1", Status: pricing.StatusCanceled,
				Quantity: decimal.NewFromInt(1), UnitHours: decimal.NewFromInt(4)},
		},
	}
	r, err := pricing.Price(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	del, err := pricing.DeliveryFigures(p, r)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ph := range del.Rollup.Phases {
		fmt.Println(ph.Name, ph.Services, "services", ph.EstimatedHours, "h estimated", ph.ActualHours, "h actual", ph.PercentComplete, "complete")
	}
	fmt.Println("project", del.Rollup.Project.PercentComplete, "complete,", del.Rollup.Project.StatusCounts.Canceled, "canceled")
	for _, row := range del.EstimateVsActual.Rows {
		if row.VarianceHours == nil { // no actual hours recorded: no variance yet
			fmt.Println(row.Name, "no actual hours", row.EstimatedCost)
			continue
		}
		fmt.Println(row.Name, *row.VarianceHours, *row.VarianceRatio, row.EstimatedCost, row.ActualCost)
	}
	t := del.EstimateVsActual.Total
	fmt.Println("total", t.EstimatedHours, t.ActualHours, *t.VarianceCost)
	// Output:
	// Plan 1 services 8.00 h estimated 10.00 h actual 1.0000 complete
	// Implement 2 services 28.00 h estimated 6.50 h actual 0.0000 complete
	// project 0.2500 complete, 1 canceled
	// Assessment 2.00 0.2500 720.00 900.00
	// Deployment -17.50 -0.7292 2160.00 585.00
	// Training no actual hours 360.00
	// total 36.00 16.50 -1395.00
}
