package pricing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// equal checks a figure against its expected decimal value, and that it is
// shown with the expected places.
func equal(t *testing.T, name string, got pricing.Fixed, want string) {
	t.Helper()
	if !got.Equal(d(want)) {
		t.Errorf("%s = %s, want %s", name, got, want)
	}
}

var usd = pricing.Currency{Code: "USD", MinorUnits: 2}

// workedExample is the worked example of docs/pricing.md.
func workedExample() *pricing.Project {
	return &pricing.Project{
		Currency:        usd,
		DefaultCurrency: usd,
		IncludeExpenses: true,
		Resources: []pricing.Resource{
			{ID: "1", Name: "Engineer", HourlyRate: d("200"), HourlyCost: d("90")},
			{ID: "2", Name: "Architect", HourlyRate: d("250"), HourlyCost: d("120")},
			{ID: "3", Name: "Project Manager", HourlyRate: d("175"), HourlyCost: d("80")},
		},
		Phases: []pricing.Phase{
			{ID: "30", Name: "Implement", Position: 3},
			{ID: "10", Name: "Plan", Position: 1},
			{ID: "20", Name: "Design", Position: 2},
		},
		Services: []pricing.Service{
			{ID: "100", Name: "Assessment", Quantity: d("2"), UnitHours: d("8"), ResourceID: "1", PhaseID: "10",
				Subservices: []pricing.Subservice{
					{ID: "101", Name: "Site survey", Quantity: d("3"), UnitHours: d("1.5")},
					{ID: "102", Name: "Report", Quantity: d("1"), UnitHours: d("4"), ResourceID: "2"},
				}},
			{ID: "200", Name: "Firewall deployment", Quantity: d("1"), UnitHours: d("16.25"), ResourceID: "1", PhaseID: "30"},
		},
		Governance: []pricing.Governance{
			{ID: "7", Name: "PM", CalculationType: pricing.PercentOfTotal, Rate: d("0.15"), ResourceID: "3"},
			{ID: "8", Name: "Kickoff", CalculationType: pricing.FixedHours, FixedHours: d("2"), ResourceID: "2"},
		},
		Expenses: []pricing.Expense{
			{ID: "50", Description: "Airfare", Quantity: d("2"), Rate: d("450")},
			{ID: "51", Description: "Per diem", Quantity: d("3"), Rate: d("75"), UnitCost: decimal.NewNullDecimal(d("60"))},
		},
		Products: []pricing.Product{
			{ID: "60", Name: "Firewall appliance", Quantity: d("2"), UnitPrice: d("1999.99"), UnitCost: d("1500")},
		},
		RevenueAdjustment: d("-250.00"),
		CostAdjustment:    d("100.00"),
	}
}

func mustPrice(t testing.TB, p *pricing.Project) *pricing.Result {
	t.Helper()
	r, err := pricing.Price(p)
	if err != nil {
		t.Fatalf("Price: %v", err)
	}
	return r
}

// Ensure every figure of docs/pricing.md's worked example comes out as written.
func TestPrice_WorkedExample(t *testing.T) {
	r := mustPrice(t, workedExample())
	type fig struct {
		name string
		got  pricing.Fixed
		want string
	}
	lines := []struct {
		name                    string
		f                       pricing.LineFigures
		hours, total, rev, cost string
	}{
		{"Assessment", r.Service(0), "16.00", "24.50", "5100.00", "2325.00"},
		{"Site survey", r.Subservice(0, 0), "4.50", "4.50", "900.00", "405.00"},
		{"Report", r.Subservice(0, 1), "4.00", "4.00", "1000.00", "480.00"},
		{"Firewall deployment", r.Service(1), "16.25", "16.25", "3250.00", "1462.50"},
	}
	var figs []fig
	for _, l := range lines {
		figs = append(figs,
			fig{l.name + " extended hours", l.f.ExtendedHours, l.hours},
			fig{l.name + " total hours", l.f.TotalHours, l.total},
			fig{l.name + " revenue", l.f.Revenue, l.rev},
			fig{l.name + " cost", l.f.Cost, l.cost})
	}
	pm, kickoff := r.ProjectGovernance.Items[0], r.ProjectGovernance.Items[1]
	airfare, perDiem := r.TravelAndExpense.Items[0], r.TravelAndExpense.Items[1]
	appliance := r.Materials.Items[0]
	ps := r.ProfessionalServices
	total := r.Resources.Total
	figs = append(figs, []fig{
		{"PM hours", pm.Hours, "6.11"}, {"PM revenue", pm.Revenue, "1069.25"}, {"PM cost", pm.Cost, "488.80"},
		{"PM profit", pm.Profit, "580.45"}, {"PM hourly rate", pm.HourlyRate, "175"}, {"PM hourly cost", pm.HourlyCost, "80"},
		{"Kickoff hours", kickoff.Hours, "2.00"}, {"Kickoff revenue", kickoff.Revenue, "500.00"}, {"Kickoff cost", kickoff.Cost, "240.00"},
		{"Airfare revenue", airfare.Revenue, "900.00"}, {"Airfare cost", airfare.Cost, "900.00"}, {"Airfare profit", airfare.Profit, "0"},
		{"Airfare unit cost", airfare.UnitCost, "450"},
		{"Per diem revenue", perDiem.Revenue, "225.00"}, {"Per diem cost", perDiem.Cost, "180.00"}, {"Per diem profit", perDiem.Profit, "45"},
		{"appliance revenue", appliance.Revenue, "3999.98"}, {"appliance cost", appliance.Cost, "3000.00"}, {"appliance profit", appliance.Profit, "999.98"},

		{"service_hours", ps.ServiceHours, "40.75"}, {"service_revenue", ps.ServiceRevenue, "8350.00"}, {"service_cost", ps.ServiceCost, "3787.50"},
		{"pm_hours", ps.PMHours, "8.11"}, {"pm_revenue", ps.PMRevenue, "1569.25"}, {"pm_cost", ps.PMCost, "728.80"},
		{"governance hours", r.ProjectGovernance.Hours, "8.11"}, {"governance revenue", r.ProjectGovernance.Revenue, "1569.25"},
		{"governance cost", r.ProjectGovernance.Cost, "728.80"}, {"governance profit", r.ProjectGovernance.Profit, "840.45"},
		{"ps_revenue", ps.PSRevenue, "9669.25"}, {"ps_cost", ps.PSCost, "4616.30"}, {"ps_profit", ps.PSProfit, "5052.95"},
		{"professional_services.revenue", ps.Revenue, "9669.25"}, {"professional_services.cost", ps.Cost, "4616.30"},
		{"professional_services.profit", ps.Profit, "5052.95"}, {"professional_services.cost_adjustment", ps.CostAdjustment, "100.00"},
		{"revenue_adjustment", ps.RevenueAdjustment, "-250.00"}, {"professional_services.hours", ps.Hours, "48.86"},
		{"total hours", r.TotalHours(), "48.86"},
		{"travel_and_expense revenue", r.TravelAndExpense.Revenue, "1125.00"}, {"travel_and_expense cost", r.TravelAndExpense.Cost, "1080.00"},
		{"travel_and_expense profit", r.TravelAndExpense.Profit, "45.00"},
		{"materials revenue", r.Materials.Revenue, "3999.98"}, {"materials cost", r.Materials.Cost, "3000.00"},
		{"contract revenue", r.TotalContractValue, "10794.25"}, {"contract cost", r.TotalContractCost, "5696.30"},
		{"contract profit", r.TotalContractProfit, "5097.95"}, {"contract margin", r.TotalContractMargin, "0.4723"},

		{"total row service_cost", total.ServiceCost, "3787.50"}, {"total row pm_cost", total.PMCost, "728.80"},
		{"total row expense_cost", total.ExpenseCost, "1080.00"}, {"total row material_cost", total.MaterialCost, "3000.00"},
		{"total row cost_adjustment", total.CostAdjustment, "100.00"}, {"total row total_cost", total.TotalCost, "5696.30"},
		{"total row total_revenue", total.TotalRevenue, "10794.25"}, {"total row total_profit", total.TotalProfit, "5097.95"},
		{"blended hourly rate", total.HourlyRate, "203.01"}, {"blended hourly cost", total.HourlyCost, "92.43"},
		{"total row hours", total.Hours, "48.86"},
	}...)
	for _, f := range figs {
		equal(t, f.name, f.got, f.want)
	}

	// The resources table, sorted by name.
	rows := []struct{ name, slug, hours, rate, cost, revenue, lineCost, profit string }{
		{"Architect", "architect", "6.00", "250.00", "120.00", "1500.00", "720.00", "780.00"},
		{"Engineer", "engineer", "36.75", "200.00", "90.00", "7350.00", "3307.50", "4042.50"},
		{"Project Manager", "project_manager", "6.11", "175.00", "80.00", "1069.25", "488.80", "580.45"},
	}
	require.Len(t, r.Resources.Rows, len(rows))
	for i, want := range rows {
		got := r.Resources.Rows[i]
		require.Equal(t, want.name, got.ResourceName)
		require.Equal(t, want.slug, got.ResourceSlug)
		equal(t, want.name+" hours", got.Hours, want.hours)
		equal(t, want.name+" hourly_rate", got.HourlyRate, want.rate)
		equal(t, want.name+" hourly_cost", got.HourlyCost, want.cost)
		equal(t, want.name+" revenue", got.Revenue, want.revenue)
		equal(t, want.name+" cost", got.Cost, want.lineCost)
		equal(t, want.name+" profit", got.Profit, want.profit)
	}
	require.Equal(t, pricing.TotalSlug, total.ResourceSlug)

	// The project resources' computed attributes, by input index.
	for i, want := range []struct{ hours, revenue, cost string }{
		{"36.75", "7350.00", "3307.50"}, {"6.00", "1500.00", "720.00"}, {"6.11", "1069.25", "488.80"},
	} {
		f := r.Resource(i)
		equal(t, "resource hours", f.TotalHours, want.hours)
		equal(t, "resource revenue", f.Revenue, want.revenue)
		equal(t, "resource cost", f.Cost, want.cost)
	}
	require.Empty(t, r.Warnings)

	// With hardware included.
	p := workedExample()
	p.IncludeHardware = true
	r = mustPrice(t, p)
	ps = r.ProfessionalServices
	equal(t, "with hardware revenue", ps.Revenue, "13669.23")
	equal(t, "with hardware cost", ps.Cost, "7616.30")
	equal(t, "with hardware profit", ps.Profit, "6052.93")
	equal(t, "with hardware ps_revenue", ps.PSRevenue, "9669.25")
	equal(t, "with hardware ps_cost", ps.PSCost, "4616.30")
	equal(t, "with hardware ps_profit", ps.PSProfit, "5052.95")
	equal(t, "with hardware contract revenue", r.TotalContractValue, "14794.23")
	equal(t, "with hardware contract cost", r.TotalContractCost, "8696.30")
	equal(t, "with hardware material cost row", r.Resources.Total.MaterialCost, "3000.00")

	// Without expenses: the total row still shows their cost.
	p = workedExample()
	p.IncludeExpenses = false
	r = mustPrice(t, p)
	equal(t, "without expenses contract revenue", r.TotalContractValue, "9669.25")
	equal(t, "without expenses contract cost", r.TotalContractCost, "4616.30")
	equal(t, "without expenses expense_cost row", r.Resources.Total.ExpenseCost, "1080.00")
}

// Ensure the phase breakdown allocates governance by effort, the remainder
// to the last phase in phase order, and keeps phases in position order.
func TestPrice_WorkedExamplePhases(t *testing.T) {
	r := mustPrice(t, workedExample())
	require.Len(t, r.Phases, 3)
	for i, id := range []string{"10", "20", "30"} {
		require.Equal(t, id, r.Phases[i].PhaseID)
	}
	// PM 6.11 h over Plan 24.50 h and Implement 16.25 h of 40.75:
	// Plan round(6.11 × 24.5 / 40.75) = 3.67, Implement the rest 2.44;
	// 1069.25 -> 642.86 + 426.39; 488.80 -> 293.88 + 194.92.
	pm := r.ProjectGovernance.Items[0]
	require.Len(t, pm.Phases, 2)
	equal(t, "PM Plan hours", pm.Phases[0].Hours, "3.67")
	equal(t, "PM Plan revenue", pm.Phases[0].Revenue, "642.86")
	equal(t, "PM Plan cost", pm.Phases[0].Cost, "293.88")
	equal(t, "PM Implement hours", pm.Phases[1].Hours, "2.44")
	equal(t, "PM Implement revenue", pm.Phases[1].Revenue, "426.39")
	equal(t, "PM Implement cost", pm.Phases[1].Cost, "194.92")
	// Kickoff 2 h: Plan 1.20, Implement 0.80; 500 -> 300.61 + 199.39.
	k := r.ProjectGovernance.Items[1]
	equal(t, "Kickoff Plan hours", k.Phases[0].Hours, "1.20")
	equal(t, "Kickoff Plan revenue", k.Phases[0].Revenue, "300.61")
	equal(t, "Kickoff Implement hours", k.Phases[1].Hours, "0.80")

	plan, design, impl := r.Phases[0], r.Phases[1], r.Phases[2]
	equal(t, "Plan service hours", plan.ServiceHours, "24.50")
	equal(t, "Plan governance hours", plan.GovernanceHours, "4.87")
	equal(t, "Plan hours", plan.Hours, "29.37")
	equal(t, "Plan revenue", plan.Revenue, "6043.47")
	equal(t, "Design hours", design.Hours, "0")
	equal(t, "Implement hours", impl.Hours, "19.49")
	require.Len(t, r.ProfessionalServices.Phases, 3)
	// Without locations all labor is in the entry without a location.
	require.Len(t, r.Locations, 1)
	require.Equal(t, "", r.Locations[0].LocationID)
	equal(t, "unlocated hours", r.Locations[0].Hours, "40.75")
}

// Ensure the allocation methods and filters put governance where they say.
func TestPrice_GovernanceAllocation(t *testing.T) {
	p := workedExample()
	p.Services[0].CategoryID = "c1"
	p.Services[1].CategoryID = "c2"
	p.Governance = []pricing.Governance{
		{Name: "to Design", CalculationType: pricing.FixedHours, FixedHours: d("3"), ResourceID: "3",
			AllocationMethod: pricing.AssignToPhase, PhaseID: "20"},
		{Name: "c2 only", CalculationType: pricing.PercentOfTotal, Rate: d("0.1"), ResourceID: "3",
			FilterType: pricing.FilterServiceCategory, CategoryID: "c2"},
		{Name: "Plan only", CalculationType: pricing.PercentOfTotal, Rate: d("0.5"), ResourceID: "3",
			FilterType: pricing.FilterPhase, PhaseID: "10"},
		{Name: "by c1", CalculationType: pricing.FixedHours, FixedHours: d("1"), ResourceID: "3",
			AllocationMethod: pricing.AssignToCategory, CategoryID: "c1"},
		{Name: "nothing in c9", CalculationType: pricing.FixedHours, FixedHours: d("1"), ResourceID: "3",
			AllocationMethod: pricing.AssignToCategory, CategoryID: "c9"},
	}
	r := mustPrice(t, p)
	items := r.ProjectGovernance.Items
	share := func(i int) (ids []string) {
		for _, s := range items[i].Phases {
			ids = append(ids, s.PhaseID)
		}
		return ids
	}
	require.Equal(t, []string{"20"}, share(0))
	equal(t, "c2 hours", items[1].Hours, "1.63") // 10 % of 16.25 = 1.625
	require.Equal(t, []string{"30"}, share(1))
	equal(t, "Plan only hours", items[2].Hours, "12.25") // 50 % of 24.5
	require.Equal(t, []string{"10"}, share(2))
	require.Equal(t, []string{"10"}, share(3))
	require.Equal(t, []string{""}, share(4)) // no labor in c9, no phase named
	require.Equal(t, "", r.Phases[len(r.Phases)-1].PhaseID)
	equal(t, "no-phase governance", r.Phases[len(r.Phases)-1].GovernanceHours, "1.00")
}

// Ensure money rounds half away from zero at .005 for both signs, JPY has
// no decimals, and hours are rounded before they are priced.
func TestPrice_Rounding(t *testing.T) {
	for _, tt := range []struct {
		name                string
		currency            pricing.Currency
		quantity, unitHours string
		rate                string
		revAdj, costAdj     string
		hours, revenue      string
		psRevenue, psCost   string
	}{
		// 1 h × 0.005 = 0.005 -> 0.01; adjustments ±0.005 -> ±0.01.
		{"half up", usd, "1", "1", "0.005", "0.005", "-0.005", "1.00", "0.01", "0.02", "-0.01"},
		{"below half", usd, "1", "1", "0.0049", "-0.0049", "0.0049", "1.00", "0.00", "0.00", "0.00"},
		{"negative half", usd, "1", "1", "0", "-0.005", "-0.015", "1.00", "0.00", "-0.01", "-0.02"},
		// 0.125 h -> 0.13 h, priced 0.13 × 100 = 13.00 (not 12.50).
		{"hours first", usd, "1", "0.125", "100", "0", "0", "0.13", "13.00", "13.00", "0.00"},
		{"hours 0.124", usd, "0.5", "0.249", "100", "0", "0", "0.12", "12.00", "12.00", "0.00"},
		// JPY: 1.5 h × 333 = 499.5 -> 500; adjustment -0.5 -> -1.
		{"JPY", pricing.Currency{Code: "JPY"}, "1", "1.5", "333", "-0.5", "0.49", "1.50", "500", "499", "0"},
		{"JPY below half", pricing.Currency{Code: "JPY"}, "1", "1.49", "100", "0", "0", "1.49", "149", "149", "0"},
		{"three places", pricing.Currency{Code: "BHD", MinorUnits: 3}, "1", "1", "0.0005", "0", "0", "1.00", "0.001", "0.001", "0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &pricing.Project{
				Currency:          tt.currency,
				Resources:         []pricing.Resource{{ID: "r", Name: "R", HourlyRate: d(tt.rate), HourlyCost: d("0")}},
				Services:          []pricing.Service{{Quantity: d(tt.quantity), UnitHours: d(tt.unitHours), ResourceID: "r"}},
				RevenueAdjustment: d(tt.revAdj),
				CostAdjustment:    d(tt.costAdj),
			}
			r := mustPrice(t, p)
			equal(t, "hours", r.Service(0).ExtendedHours, tt.hours)
			equal(t, "revenue", r.Service(0).Revenue, tt.revenue)
			equal(t, "ps_revenue", r.ProfessionalServices.PSRevenue, tt.psRevenue)
			equal(t, "ps_cost", r.ProfessionalServices.PSCost, tt.psCost)
			places := int32(tt.currency.MinorUnits)
			require.Equal(t, places, r.Service(0).Revenue.Places(), "revenue places")
			require.Equal(t, places, r.TotalContractValue.Places(), "contract places")
			require.Equal(t, int32(2), r.Service(0).ExtendedHours.Places(), "hours places")
			require.Equal(t, int32(4), r.TotalContractMargin.Places(), "margin places")
		})
	}
}

// Ensure managed services are priced per period × periods, in their own
// section, and stay out of professional services and labor hours.
func TestPrice_ManagedServices(t *testing.T) {
	for _, tt := range []struct {
		frequency string
		terms     int
		periods   string
		revenue   string // per period 10 h × 100 = 1000 (+ subservice 2 h × 100)
	}{
		{pricing.FrequencyMonthly, 12, "12", "14400"},
		{"", 12, "12", "14400"},
		{pricing.FrequencyQuarterly, 12, "4", "4800"},
		{pricing.FrequencyAnnually, 12, "1", "1200"},
		{pricing.FrequencyOneTime, 12, "1", "1200"},
		{pricing.FrequencyMonthly, 36, "36", "43200"},
		{pricing.FrequencyQuarterly, 36, "12", "14400"},
		{pricing.FrequencyAnnually, 36, "3", "3600"},
		{pricing.FrequencyOneTime, 36, "1", "1200"},
		{pricing.FrequencyMonthly, 0, "12", "14400"}, // 0: the default 12
		{pricing.FrequencyQuarterly, 10, "3.33", "4000"},
	} {
		t.Run(fmt.Sprintf("%s/%d", tt.frequency, tt.terms), func(t *testing.T) {
			p := &pricing.Project{
				Currency: usd, MRRTerms: tt.terms, IncludeExpenses: true,
				Resources: []pricing.Resource{{ID: "r", Name: "Ops", HourlyRate: d("100"), HourlyCost: d("40")}},
				Services: []pricing.Service{
					{ID: "m", Name: "Monitoring", Type: pricing.TypeManagedServices, PaymentFrequency: tt.frequency,
						Quantity: d("1"), UnitHours: d("10"), ResourceID: "r",
						Subservices: []pricing.Subservice{{Quantity: d("2"), UnitHours: d("1")}}},
					{ID: "s", Name: "Setup", Quantity: d("1"), UnitHours: d("5"), ResourceID: "r"},
				},
			}
			r := mustPrice(t, p)
			ms := r.ManagedServices
			require.Len(t, ms.Items, 1)
			item := ms.Items[0]
			equal(t, "periods", item.Periods, tt.periods)
			equal(t, "hours per period", item.Hours, "12")
			equal(t, "period revenue", item.PeriodRevenue, "1200")
			equal(t, "period cost", item.PeriodCost, "480")
			equal(t, "item revenue", item.Revenue, tt.revenue)
			equal(t, "section revenue", ms.Revenue, tt.revenue)
			want := d(tt.revenue).Mul(d("0.4")).Round(2).String() // cost is 40 % of revenue here
			equal(t, "section cost", ms.Cost, want)
			equal(t, "section profit", ms.Profit, d(tt.revenue).Sub(d(want)).String())
			equal(t, "service revenue", r.Service(0).Revenue, tt.revenue)
			equal(t, "service hours", r.Service(0).TotalHours, "12")
			equal(t, "labor hours", r.ProfessionalServices.ServiceHours, "5")
			equal(t, "ps revenue", r.ProfessionalServices.PSRevenue, "500")
			equal(t, "total hours", r.TotalHours(), "5")
			equal(t, "contract revenue", r.TotalContractValue, d(tt.revenue).Add(d("500")).String())
			require.Len(t, r.Resources.Rows, 1)
			equal(t, "resource row hours", r.Resources.Rows[0].Hours, "5")
		})
	}
}

// Ensure a line without a resource is priced at 0 and reported, and a
// subservice without one inherits its parent's or, when the parent has
// none either, is reported too.
func TestPrice_Warnings(t *testing.T) {
	p := workedExample()
	p.Services[0].ResourceID = ""        // Assessment and Site survey (inherits none)
	p.Services[1].ResourceID = "404"     // unknown
	p.Services[1].LocationID = "nowhere" // unknown
	p.Governance[1].ResourceID = ""      // Kickoff
	r := mustPrice(t, p)
	type w struct{ code, line, id string }
	var got []w
	for _, x := range r.Warnings {
		got = append(got, w{x.Code, x.Line, x.ID})
		require.NotEmpty(t, x.Message)
	}
	require.Equal(t, []w{
		{pricing.WarnNoResource, "services[0]", "100"},
		{pricing.WarnNoResource, "services[0].subservices[0]", "101"},
		{pricing.WarnUnknownResource, "services[1]", "200"},
		{pricing.WarnUnknownLocation, "services[1]", "200"},
		{pricing.WarnNoResource, "governance[1]", "8"},
	}, got)
	equal(t, "Assessment hours", r.Service(0).TotalHours, "24.50")
	equal(t, "Assessment revenue (Report only)", r.Service(0).Revenue, "1000.00")
	equal(t, "Site survey revenue", r.Subservice(0, 0).Revenue, "0")
	equal(t, "Firewall revenue", r.Service(1).Revenue, "0")
	equal(t, "Kickoff hours", r.ProjectGovernance.Items[1].Hours, "2")
	equal(t, "Kickoff revenue", r.ProjectGovernance.Items[1].Revenue, "0")
	// Hours still count: the effort exists, only its price is unknown.
	equal(t, "service hours", r.ProfessionalServices.ServiceHours, "40.75")
	equal(t, "service revenue", r.ProfessionalServices.ServiceRevenue, "1000.00")
}

// Ensure invalid input fails with EINVALID naming the line and field.
func TestPrice_Invalid(t *testing.T) {
	for _, tt := range []struct {
		field string
		edit  func(p *pricing.Project)
	}{
		{"services[1].quantity", func(p *pricing.Project) { p.Services[1].Quantity = d("-1") }},
		{"services[0].unit_hours", func(p *pricing.Project) { p.Services[0].UnitHours = d("-0.01") }},
		{"services[0].subservices[1].quantity", func(p *pricing.Project) { p.Services[0].Subservices[1].Quantity = d("-2") }},
		{"services[0].service_type", func(p *pricing.Project) { p.Services[0].Type = "other" }},
		{"services[0].payment_frequency", func(p *pricing.Project) {
			p.Services[0].Type, p.Services[0].PaymentFrequency = pricing.TypeManagedServices, "weekly"
		}},
		{"resources[1].hourly_rate", func(p *pricing.Project) { p.Resources[1].HourlyRate = decimal.New(1, 1000) }},
		{"resources[2].hourly_cost", func(p *pricing.Project) { p.Resources[2].HourlyCost = d("-80") }},
		{"resources[0].hourly_rate", func(p *pricing.Project) { p.Resources[0].HourlyRate = decimal.New(1, -1001) }},
		{"governance[0].rate", func(p *pricing.Project) { p.Governance[0].Rate = d("10") }},
		{"governance[0].rate", func(p *pricing.Project) { p.Governance[0].Rate = d("-0.1") }},
		{"governance[1].fixed_hours", func(p *pricing.Project) { p.Governance[1].FixedHours = d("-2") }},
		{"governance[1].calculation_type", func(p *pricing.Project) { p.Governance[1].CalculationType = "" }},
		{"governance[0].service_category", func(p *pricing.Project) { p.Governance[0].AllocationMethod = pricing.AssignToCategory }},
		{"governance[0].project_phase", func(p *pricing.Project) { p.Governance[0].FilterType = pricing.FilterPhase }},
		{"governance[0].filter_type", func(p *pricing.Project) { p.Governance[0].FilterType = "some" }},
		{"governance[0].allocation_method", func(p *pricing.Project) { p.Governance[0].AllocationMethod = "some" }},
		{"expenses[1].unit_cost", func(p *pricing.Project) { p.Expenses[1].UnitCost = decimal.NewNullDecimal(d("-1")) }},
		{"expenses[0].rate", func(p *pricing.Project) { p.Expenses[0].Rate = d("-450") }},
		{"products[0].unit_price", func(p *pricing.Project) { p.Products[0].UnitPrice = d("-1") }},
		{"products[0].quantity", func(p *pricing.Project) { p.Products[0].Quantity = d("-1") }},
		{"mrr_terms", func(p *pricing.Project) { p.MRRTerms = -1 }},
		{"currency.minor_units", func(p *pricing.Project) { p.Currency.MinorUnits = -1 }},
		{"conversion_rate", func(p *pricing.Project) { p.ConversionRate = d("-1") }},
		{"conversion_rate", func(p *pricing.Project) { p.Currency = pricing.Currency{Code: "EUR", MinorUnits: 2} }},
	} {
		t.Run(tt.field, func(t *testing.T) {
			p := workedExample()
			tt.edit(p)
			_, err := pricing.Price(p)
			var e *scopekit.Error
			require.True(t, errors.As(err, &e), "err = %v", err)
			require.Equal(t, scopekit.EINVALID, e.Code)
			require.Equal(t, tt.field, e.Field)
		})
	}
}

// Ensure amounts convert to the default currency: amount / rate, rounded
// half away from zero to the default currency's minor units.
func TestResult_ToDefault(t *testing.T) {
	p := workedExample()
	p.Currency = pricing.Currency{Code: "JPY"}
	p.ConversionRate = d("150")
	r := mustPrice(t, p)
	for _, tt := range []struct{ amount, want string }{
		{"15000", "100.00"}, {"100", "0.67"}, {"0.75", "0.01"}, {"0.74", "0.00"}, {"-0.75", "-0.01"}, {"0", "0.00"},
	} {
		got := r.ToDefault(d(tt.amount))
		require.True(t, got.Equal(d(tt.want)), "ToDefault(%s) = %s, want %s", tt.amount, got, tt.want)
		require.Equal(t, tt.want, got.String())
	}
	// In the default currency conversion only rounds.
	r = mustPrice(t, workedExample())
	require.Equal(t, "10794.25", r.ToDefault(r.TotalContractValue.Decimal).String())
}

// Ensure catalog amounts convert into a project's currency: amount ×
// rate, rounded half away from zero to the project currency's minor
// units.
func TestFromDefault(t *testing.T) {
	jpy, eur, bhd := pricing.Currency{Code: "JPY"}, pricing.Currency{Code: "EUR", MinorUnits: 2}, pricing.Currency{Code: "BHD", MinorUnits: 3}
	for _, tt := range []struct {
		amount, rate string
		cur          pricing.Currency
		want         string
	}{
		{"175", "150", jpy, "26250"}, {"1999.99", "150", jpy, "299999"}, {"0.5", "1", jpy, "1"}, {"-0.5", "1", jpy, "-1"},
		{"200", "0.9234", eur, "184.68"}, {"0.005", "1", eur, "0.01"}, {"1999.99", "0.376", bhd, "751.996"}, {"0", "150", jpy, "0"},
	} {
		got := pricing.FromDefault(d(tt.amount), d(tt.rate), tt.cur)
		require.True(t, got.Equal(d(tt.want)), "FromDefault(%s, %s, %s) = %s, want %s", tt.amount, tt.rate, tt.cur.Code, got, tt.want)
	}
}

// Ensure the JSON form uses merge data's names, quotes decimals, keeps the
// currency's places and puts the total row last in resources.
func TestResult_JSON(t *testing.T) {
	r := mustPrice(t, workedExample())
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	require.ElementsMatch(t, []string{
		"currency", "professional_services", "project_governance", "travel_and_expense", "materials",
		"managed_services", "resources", "total_contract_value", "total_contract_cost",
		"total_contract_profit", "total_contract_margin", "phases", "locations", "warnings",
	}, keys)
	require.Equal(t, "10794.25", m["total_contract_value"])
	require.Equal(t, "0.4723", m["total_contract_margin"])
	ps := m["professional_services"].(map[string]any)
	require.Equal(t, "100.00", ps["cost_adjustment"])
	require.Equal(t, "5052.95", ps["ps_profit"])
	gov := m["project_governance"].(map[string]any)["items"].([]any)[0].(map[string]any)
	require.Equal(t, "175.00", gov["hourly_rate"])
	require.Equal(t, "580.45", gov["profit"])
	te := m["travel_and_expense"].(map[string]any)["items"].([]any)[0].(map[string]any)
	require.Equal(t, "0.00", te["profit"])
	require.Equal(t, "2.00", te["quantity"])
	res := m["resources"].([]any)
	require.Len(t, res, 4)
	require.Equal(t, "Architect", res[0].(map[string]any)["resource_name"])
	last := res[3].(map[string]any)
	require.Equal(t, "project_total", last["resource_slug"])
	require.Equal(t, "203.01", last["hourly_rate"])
	require.Equal(t, "1080.00", last["expense_cost"])
	require.Equal(t, []any{}, m["warnings"])
	require.Equal(t, []any{}, m["managed_services"].(map[string]any)["items"])
	require.Equal(t, map[string]any{"code": "USD", "minor_units": float64(2)}, m["currency"])

	// It decodes back into a Result with the same JSON.
	var back pricing.Result
	require.NoError(t, json.Unmarshal(b, &back))
	require.Len(t, back.Resources.Rows, 3)
	require.Equal(t, pricing.TotalSlug, back.Resources.Total.ResourceSlug)
	require.Equal(t, "7350.00", fmt.Sprint(back.Resources.Rows[1].Revenue)) // places kept
	again, err := json.Marshal(&back)
	require.NoError(t, err)
	require.JSONEq(t, string(b), string(again))
}

// Ensure huge values neither overflow nor panic, and stay exact.
func TestPrice_HugeValues(t *testing.T) {
	p := &pricing.Project{
		Currency:  usd,
		Resources: []pricing.Resource{{ID: "r", Name: "R", HourlyRate: d("1e30"), HourlyCost: d("1e29")}},
		Services: []pricing.Service{
			{Quantity: d("1e30"), UnitHours: d("1"), ResourceID: "r"},
			{Quantity: d("1"), UnitHours: d("9223372036854775807"), ResourceID: "r"},
		},
		Governance: []pricing.Governance{{CalculationType: pricing.PercentOfTotal, Rate: d("9.99"), ResourceID: "r"}},
	}
	r := mustPrice(t, p)
	equal(t, "hours", r.Service(0).ExtendedHours, "1e30")
	equal(t, "revenue", r.Service(0).Revenue, "1e60")
	equal(t, "revenue 2", r.Service(1).Revenue, "9223372036854775807e30")
	labor := d("1e30").Add(d("9223372036854775807"))
	equal(t, "service hours", r.ProfessionalServices.ServiceHours, labor.String())
	pm := labor.Mul(d("9.99")).Round(2)
	equal(t, "pm hours", r.ProfessionalServices.PMHours, pm.String())
	equal(t, "contract revenue", r.TotalContractValue, labor.Add(pm).Mul(d("1e30")).String())
	equal(t, "blended rate", r.Resources.Total.HourlyRate, "1e30")
	require.Equal(t, "1000000000000000000000000000000.00", r.Service(0).ExtendedHours.String())
}
