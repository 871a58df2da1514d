package pricing_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// actual is actual hours as recorded: nil for "" (none recorded).
func actual(s string) *decimal.Decimal {
	if s == "" {
		return nil
	}
	v := d(s)
	return &v
}

// opt shows a variance, "null" for none.
func opt(f *pricing.Fixed) string {
	if f == nil {
		return "null"
	}
	return f.String()
}

// deliveryProject is a two-phase project priced with an Engineer (cost 90)
// and an Architect (cost 120); services are added per case.
func deliveryProject(services ...pricing.Service) *pricing.Project {
	return &pricing.Project{
		Currency: usd,
		Resources: []pricing.Resource{
			{ID: "1", Name: "Engineer", HourlyRate: d("200"), HourlyCost: d("90")},
			{ID: "2", Name: "Architect", HourlyRate: d("250"), HourlyCost: d("120")},
		},
		Phases:   []pricing.Phase{{ID: "20", Name: "Build", Position: 2}, {ID: "10", Name: "Plan", Position: 1}},
		Services: services,
	}
}

func mustDeliver(t *testing.T, p *pricing.Project) *pricing.Delivery {
	t.Helper()
	del, err := pricing.DeliveryFigures(p, mustPrice(t, p))
	require.NoError(t, err)
	return del
}

func svc(id, phase, status, hours, recorded string, subs ...pricing.Subservice) pricing.Service {
	return pricing.Service{ID: id, Name: "S" + id, PhaseID: phase, Status: status, ResourceID: "1",
		Quantity: d("1"), UnitHours: d(hours), ActualHours: actual(recorded), Subservices: subs}
}

// Ensure the rollup counts services by status, and that percent complete is
// the complete services' estimated hours over those not canceled, per phase
// and for the project.
func TestDeliveryRollup(t *testing.T) {
	for _, tc := range []struct {
		name     string
		services []pricing.Service
		// project figures
		count, complete, canceled  int
		estimated, actual, percent string
		phases                     []string // percent complete per phase, in phase order
	}{
		{name: "canceled services leave the denominator",
			services: []pricing.Service{svc("1", "10", "complete", "10", "9"), svc("2", "10", "canceled", "5", "1"),
				svc("3", "20", "in_progress", "5", "2")},
			count: 3, complete: 1, canceled: 1, estimated: "20.00", actual: "12.00", percent: "0.6667",
			phases: []string{"1.0000", "0.0000"}},
		{name: "only canceled services: 0",
			services: []pricing.Service{svc("1", "10", "canceled", "4", "0")},
			count:    1, canceled: 1, estimated: "4.00", actual: "0.00", percent: "0.0000",
			phases: []string{"0.0000", "0.0000"}},
		{name: "no services", estimated: "0.00", actual: "0.00", percent: "0.0000", phases: []string{"0.0000", "0.0000"}},
		{name: "subservices count in the service's estimate and actual hours",
			services: []pricing.Service{
				svc("1", "10", "complete", "16", "12",
					pricing.Subservice{ID: "11", Quantity: d("3"), UnitHours: d("1.5"), ActualHours: actual("4.5")},
					pricing.Subservice{ID: "12", Quantity: d("1"), UnitHours: d("4"), ResourceID: "2", ActualHours: actual("5.25")}),
				svc("2", "20", "not_started", "4.5", "0")},
			count: 2, complete: 1, estimated: "29.00", actual: "21.75", percent: "0.8448",
			phases: []string{"1.0000", "0.0000"}},
		{name: "an empty status is not started; no phase gets its own entry",
			services: []pricing.Service{svc("1", "", "", "3", "1"), svc("2", "99", "complete", "1", "1")},
			count:    2, complete: 1, estimated: "4.00", actual: "2.00", percent: "0.2500",
			phases: []string{"0.0000", "0.0000", "0.2500"}},
		{name: "managed services are not delivery lines",
			services: []pricing.Service{svc("1", "10", "complete", "2", "2"),
				{ID: "2", Type: pricing.TypeManagedServices, Status: "in_progress", ResourceID: "1", PhaseID: "10",
					Quantity: d("1"), UnitHours: d("40"), ActualHours: actual("7")}},
			count: 1, complete: 1, estimated: "2.00", actual: "2.00", percent: "1.0000",
			phases: []string{"1.0000", "0.0000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			del := mustDeliver(t, deliveryProject(tc.services...))
			p := del.Rollup.Project
			require.Equal(t, tc.count, p.Services)
			require.Equal(t, tc.complete, p.StatusCounts.Complete)
			require.Equal(t, tc.canceled, p.StatusCounts.Canceled)
			require.Equal(t, tc.count, p.StatusCounts.NotStarted+p.StatusCounts.InProgress+p.StatusCounts.OnHold+
				p.StatusCounts.Complete+p.StatusCounts.Canceled)
			require.Equal(t, tc.estimated, p.EstimatedHours.String())
			require.Equal(t, tc.actual, p.ActualHours.String())
			require.Equal(t, tc.percent, p.PercentComplete.String())
			var got []string
			for _, ph := range del.Rollup.Phases {
				got = append(got, ph.PercentComplete.String())
			}
			require.Equal(t, tc.phases, got)
			require.Equal(t, "10", del.Rollup.Phases[0].PhaseID, "phases in phase order")
		})
	}
}

// Ensure each row of the estimate-versus-actual table has the line's own
// hours, its variance and ratio, and costs at the line's hourly cost; and
// that the totals are sums of the rows.
func TestEstimateVsActual(t *testing.T) {
	type row struct{ id, est, act, varH, ratio, estCost, actCost, varCost string }
	for _, tc := range []struct {
		name     string
		services []pricing.Service
		rows     []row
		total    row
	}{
		{name: "actual above estimate",
			services: []pricing.Service{svc("1", "10", "in_progress", "8", "10")},
			rows:     []row{{"1", "8.00", "10.00", "2.00", "0.2500", "720.00", "900.00", "180.00"}},
			total:    row{"", "8.00", "10.00", "2.00", "0.2500", "720.00", "900.00", "180.00"}},
		{name: "actual below estimate, rounded to hundredths",
			services: []pricing.Service{svc("1", "10", "complete", "8", "6.005")},
			rows:     []row{{"1", "8.00", "6.01", "-1.99", "-0.2488", "720.00", "540.90", "-179.10"}},
			total:    row{"", "8.00", "6.01", "-1.99", "-0.2488", "720.00", "540.90", "-179.10"}},
		{name: "no estimate: the ratio is 0",
			services: []pricing.Service{svc("1", "10", "in_progress", "0", "3")},
			rows:     []row{{"1", "0.00", "3.00", "3.00", "0.0000", "0.00", "270.00", "270.00"}},
			total:    row{"", "0.00", "3.00", "3.00", "0.0000", "0.00", "270.00", "270.00"}},
		{name: "no actual hours yet: no variance",
			services: []pricing.Service{svc("1", "10", "not_started", "2", "")},
			rows:     []row{{"1", "2.00", "0.00", "null", "null", "180.00", "0.00", "null"}},
			total:    row{"", "2.00", "0.00", "null", "null", "180.00", "0.00", "null"}},
		{name: "0 actual hours recorded: 100 % under",
			services: []pricing.Service{svc("1", "10", "complete", "2", "0")},
			rows:     []row{{"1", "2.00", "0.00", "-2.00", "-1.0000", "180.00", "0.00", "-180.00"}},
			total:    row{"", "2.00", "0.00", "-2.00", "-1.0000", "180.00", "0.00", "-180.00"}},
		{name: "totals: the variance of the lines with actual hours",
			services: []pricing.Service{svc("1", "10", "complete", "8", "10"), svc("2", "20", "not_started", "4", "")},
			rows: []row{{"1", "8.00", "10.00", "2.00", "0.2500", "720.00", "900.00", "180.00"},
				{"2", "4.00", "0.00", "null", "null", "360.00", "0.00", "null"}},
			total: row{"", "12.00", "10.00", "2.00", "0.2500", "1080.00", "900.00", "180.00"}},
		{name: "canceled services keep their rows",
			services: []pricing.Service{svc("1", "10", "canceled", "4", "1"), svc("2", "20", "complete", "1", "1")},
			rows: []row{{"1", "4.00", "1.00", "-3.00", "-0.7500", "360.00", "90.00", "-270.00"},
				{"2", "1.00", "1.00", "0.00", "0.0000", "90.00", "90.00", "0.00"}},
			total: row{"", "5.00", "2.00", "-3.00", "-0.6000", "450.00", "180.00", "-270.00"}},
		{name: "subservices: own rows, own or inherited resource",
			services: []pricing.Service{svc("1", "10", "in_progress", "16", "12",
				pricing.Subservice{ID: "11", Quantity: d("3"), UnitHours: d("1.5"), ActualHours: actual("6")},
				pricing.Subservice{ID: "12", Quantity: d("1"), UnitHours: d("4"), ResourceID: "2", ActualHours: actual("5")})},
			rows: []row{{"1", "16.00", "12.00", "-4.00", "-0.2500", "1440.00", "1080.00", "-360.00"},
				{"11", "4.50", "6.00", "1.50", "0.3333", "405.00", "540.00", "135.00"},
				{"12", "4.00", "5.00", "1.00", "0.2500", "480.00", "600.00", "120.00"}},
			total: row{"", "24.50", "23.00", "-1.50", "-0.0612", "2325.00", "2220.00", "-105.00"}},
		{name: "a line without a resource costs nothing",
			services: []pricing.Service{{ID: "1", PhaseID: "10", Quantity: d("1"), UnitHours: d("2"), ActualHours: actual("3")}},
			rows:     []row{{"1", "2.00", "3.00", "1.00", "0.5000", "0.00", "0.00", "0.00"}},
			total:    row{"", "2.00", "3.00", "1.00", "0.5000", "0.00", "0.00", "0.00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := deliveryProject(tc.services...)
			res := mustPrice(t, p)
			del, err := pricing.DeliveryFigures(p, res)
			require.NoError(t, err)
			ev := del.EstimateVsActual
			figs := func(id string, f pricing.EstimateTotals) row {
				return row{id, f.EstimatedHours.String(), f.ActualHours.String(), opt(f.VarianceHours), opt(f.VarianceRatio),
					f.EstimatedCost.String(), f.ActualCost.String(), opt(f.VarianceCost)}
			}
			var rows []row
			for _, r := range ev.Rows {
				id := r.ServiceID
				if r.SubserviceID != "" {
					id = r.SubserviceID
				}
				rows = append(rows, figs(id, r.EstimateTotals))
			}
			require.Equal(t, tc.rows, rows)
			require.Equal(t, tc.total, figs("", ev.Total))
			// The estimate is what was priced.
			require.True(t, ev.Total.EstimatedCost.Equal(res.ProfessionalServices.ServiceCost.Decimal))
			require.True(t, ev.Total.EstimatedHours.Equal(res.ProfessionalServices.ServiceHours.Decimal))
			// Phase totals add up to the project's.
			var est, act, cost = d("0"), d("0"), d("0")
			for _, ph := range ev.Phases {
				est, act, cost = est.Add(ph.EstimatedHours.Decimal), act.Add(ph.ActualHours.Decimal), cost.Add(ph.ActualCost.Decimal)
			}
			require.True(t, est.Equal(ev.Total.EstimatedHours.Decimal))
			require.True(t, act.Equal(ev.Total.ActualHours.Decimal))
			require.True(t, cost.Equal(ev.Total.ActualCost.Decimal))
		})
	}
}

// Ensure the worked example's table matches its priced lines.
func TestEstimateVsActual_WorkedExample(t *testing.T) {
	p := workedExample()
	p.Services[0].Status, p.Services[0].ActualHours = pricing.StatusComplete, actual("17.5")
	p.Services[0].Subservices[1].ActualHours = actual("3")
	res := mustPrice(t, p)
	del, err := pricing.DeliveryFigures(p, res)
	require.NoError(t, err)
	require.Len(t, del.EstimateVsActual.Rows, 4)
	for i, r := range del.EstimateVsActual.Rows {
		require.Equal(t, []string{"100", "101", "102", "200"}[i], map[bool]string{true: r.SubserviceID, false: r.ServiceID}[r.SubserviceID != ""])
	}
	equal(t, "report estimated cost", del.EstimateVsActual.Rows[2].EstimatedCost, res.Subservice(0, 1).Cost.String())
	equal(t, "report actual cost", del.EstimateVsActual.Rows[2].ActualCost, "360.00")
	equal(t, "total estimated hours", del.EstimateVsActual.Total.EstimatedHours, "40.75")
	equal(t, "total estimated cost", del.EstimateVsActual.Total.EstimatedCost, "3787.50")
	equal(t, "rollup estimated", del.Rollup.Project.EstimatedHours, "40.75")
	equal(t, "rollup actual", del.Rollup.Project.ActualHours, "20.50")
	// Assessment (24.50 h with its subservices) is complete: 24.5 / 40.75.
	equal(t, "percent complete", del.Rollup.Project.PercentComplete, "0.6012")
	require.Equal(t, "Plan", del.Rollup.Phases[0].Name)
	equal(t, "plan percent", del.Rollup.Phases[0].PercentComplete, "1.0000")
	equal(t, "implement percent", del.Rollup.Phases[2].PercentComplete, "0.0000")
}

// Ensure bad delivery input is an EINVALID error naming the field, and a
// result of another project is refused.
func TestDeliveryFigures_Errors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(p *pricing.Project)
		field string
	}{
		{"unknown status", func(p *pricing.Project) { p.Services[1].Status = "done" }, "services[1].status"},
		{"negative actual hours", func(p *pricing.Project) { p.Services[0].ActualHours = actual("-1") }, "services[0].actual_hours"},
		{"negative subservice actual hours", func(p *pricing.Project) { p.Services[0].Subservices[1].ActualHours = actual("-0.5") },
			"services[0].subservices[1].actual_hours"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := workedExample()
			tc.edit(p)
			_, err := pricing.DeliveryFigures(p, mustPrice(t, p))
			require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
			require.Equal(t, tc.field, err.(*scopekit.Error).Field)
		})
	}
	p, other := workedExample(), workedExample()
	other.Services = other.Services[:1]
	_, err := pricing.DeliveryFigures(p, mustPrice(t, other))
	require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err))
	other = workedExample()
	other.Services[0].Subservices = nil
	_, err = pricing.DeliveryFigures(p, mustPrice(t, other))
	require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err))
}
