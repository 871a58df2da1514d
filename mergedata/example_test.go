package mergedata_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
)

// Build merge data without any store: a snapshot is records and their
// pricing run, which scoping.Service.Snapshot reads in one transaction and
// a program may equally assemble itself.
func Example() {
	rec := func(typ, id string, attrs map[string]any) *scoping.Record {
		r := scoping.NewRecord(typ, "1")
		r.ID, r.Attrs = id, attrs
		return r
	}
	project := rec("projects", "7", map[string]any{"project-name": "Firewall refresh", "status": "draft", "msa-date": "2026-03-05"})
	engineer := rec("project-resources", "1", map[string]any{"name": "Engineer"})
	plan := rec("project-phases", "1", map[string]any{"name": "Plan", "sow-language": "We assess."})
	assessment := rec("project-services", "1", map[string]any{"name": "Assessment", "quantity": "2", "unit-hours": "8",
		"service-type": "professional_services"})
	assessment.SetRel("project-resource", engineer.ID)
	assessment.SetRel("project-phase", plan.ID)

	// The pricing input describes the same records, line for line.
	res, err := pricing.Price(&pricing.Project{
		Currency:        pricing.Currency{Code: "EUR", MinorUnits: 2},
		IncludeExpenses: true,
		Resources:       []pricing.Resource{{ID: "1", Name: "Engineer", HourlyRate: decimal.NewFromInt(200), HourlyCost: decimal.NewFromInt(90)}},
		Phases:          []pricing.Phase{{ID: "1", Name: "Plan", Position: 1}},
		Services: []pricing.Service{{ID: "1", Name: "Assessment", ResourceID: "1", PhaseID: "1",
			Quantity: decimal.NewFromInt(2), UnitHours: decimal.NewFromInt(8)}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	snap := &scoping.Snapshot{
		Account:   rec("accounts", "1", map[string]any{"name": "Acme Consulting"}),
		Project:   project,
		Client:    rec("clients", "3", map[string]any{"name": "Globex Corporation"}),
		Resources: []*scoping.Record{engineer}, Phases: []*scoping.Record{plan},
		Services: []*scoping.Record{assessment}, Subservices: [][]*scoping.Record{nil},
		Pricing: res,
	}
	today := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

	v2 := mergedata.BuildV2(snap, today)
	b, _ := json.Marshal(v2.Phases[0].Services[0])
	fmt.Println(string(b))
	fmt.Println(v2.Project.StatusLabel, "|", v2.Project.PrintedOn.ToLongDate, "|", v2.Project.MSADate.ToShortDate)
	fmt.Println(v2.Currency.Unit, v2.ProjectPricing.ProfessionalServices.Revenue, v2.ProjectPricing.TotalContractMargin)

	v1 := mergedata.BuildV1(snap, today)
	fmt.Println(v1.PrintedOn, v1.MSADate, v1.Pricing.TotalRevenue)
	// Output:
	// {"name":"Assessment","description":"","sku":"","service_type":"professional_services","quantity":"2.00","unit_hours":"8.00","extended_hours":"16.00","total_hours":"16.00","resource_name":"Engineer","location_name":"","revenue":"3200.00","cost":"1440.00","subservices":[]}
	// Draft | November 22, 2026 | 03/05/2026
	// € 3200.00 0.5500
	// 11/22/2026 03/05/2026 3200.00
}
