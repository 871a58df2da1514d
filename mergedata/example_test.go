package mergedata_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Build merge data without any store: a snapshot is typed views of
// records and their pricing run, which scoping.Service.Snapshot reads in
// one transaction and a program may equally assemble itself.
func Example() {
	rec := func(typ, id string, attrs map[string]any) *engine.Record {
		r := engine.NewRecord(typ, "1")
		r.ID, r.Attrs = id, attrs
		return r
	}
	project := rec(views.TypeProjects, "7", map[string]any{views.NameProjectName: "Firewall refresh", views.NameStatus: "draft",
		views.NameMsaDate: "2026-03-05"})
	engineer := rec(views.TypeProjectResources, "1", map[string]any{views.NameName: "Engineer"})
	plan := rec(views.TypeProjectPhases, "1", map[string]any{views.NameName: "Plan", views.NameSowLanguage: "We assess."})
	assessment := rec(views.TypeProjectServices, "1", map[string]any{views.NameName: "Assessment", views.NameQuantity: "2",
		views.NameUnitHours: "8", views.NameServiceType: "professional_services"})
	assessment.SetRel(views.NameProjectResource, engineer.ID)
	assessment.SetRel(views.NameProjectPhase, plan.ID)

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
	snap := &views.Snapshot{
		Account:   views.Account{Record: rec(views.TypeAccounts, "1", map[string]any{views.NameName: "Acme Consulting"})},
		Project:   views.Project{Record: project},
		Client:    &views.Client{Record: rec(views.TypeClients, "3", map[string]any{views.NameName: "Globex Corporation"})},
		Resources: []views.ProjectResource{{Record: engineer}}, Phases: []views.ProjectPhase{{Record: plan}},
		Services: []views.ProjectService{{Record: assessment}}, Subservices: [][]views.ProjectSubservice{nil},
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
	// {"name":"Assessment","description":"","sku":"","service_type":"professional_services","quantity":"2.00","unit_hours":"8.00","extended_hours":"16.00","total_hours":"16.00","resource_name":"Engineer","location_name":"","revenue":"3200.00","cost":"1440.00","extended_revenue":"3200.00","subservices":[]}
	// Draft | November 22, 2026 | 03/05/2026
	// € 3200.00 0.5500
	// 11/22/2026 03/05/2026 3200.00
}
