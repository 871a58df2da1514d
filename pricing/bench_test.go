package pricing_test

import (
	"strconv"
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// largeProject is the benchmark's project (docs/pricing.md): 25 locations × 40
// services × 3 subservices (4,000 labor lines), 12 resources, 6 governance
// items of mixed types, 50 expenses and 50 products.
func largeProject() *pricing.Project {
	p := &pricing.Project{Currency: usd, DefaultCurrency: usd, IncludeExpenses: true, IncludeHardware: true,
		RevenueAdjustment: d("-1234.56"), CostAdjustment: d("99.99")}
	for i := range 12 {
		p.Resources = append(p.Resources, pricing.Resource{
			ID: strconv.Itoa(1000 + i), Name: "Resource " + strconv.Itoa(i),
			HourlyRate: decimal.New(int64(15000+1250*i), -2), HourlyCost: decimal.New(int64(7000+575*i), -2),
		})
	}
	for i := range 5 {
		p.Phases = append(p.Phases, pricing.Phase{ID: strconv.Itoa(2000 + i), Name: "Phase " + strconv.Itoa(i), Position: i})
	}
	for l := range 25 {
		loc := strconv.Itoa(3000 + l)
		p.Locations = append(p.Locations, pricing.Location{ID: loc, Name: "Site " + loc})
		for s := range 40 {
			n := l*40 + s
			svc := pricing.Service{
				ID: strconv.Itoa(10000 + n), Name: "Service " + strconv.Itoa(n),
				Quantity: decimal.New(int64(1+n%4), 0), UnitHours: decimal.New(int64(50+n%37*25), -2),
				ResourceID: p.Resources[n%12].ID, PhaseID: p.Phases[n%5].ID, LocationID: loc,
				CategoryID: "cat" + strconv.Itoa(n%3),
			}
			for k := range 3 {
				sub := pricing.Subservice{
					ID: strconv.Itoa(100000 + n*3 + k), Name: "Sub " + strconv.Itoa(k),
					Quantity: decimal.New(int64(1+k), 0), UnitHours: decimal.New(int64(125+k*33+n%7), -3),
				}
				if k == 1 {
					sub.ResourceID = p.Resources[(n+5)%12].ID
				}
				svc.Subservices = append(svc.Subservices, sub)
			}
			p.Services = append(p.Services, svc)
		}
	}
	p.Governance = []pricing.Governance{
		{ID: "g1", Name: "PM", CalculationType: pricing.PercentOfTotal, Rate: d("0.15"), ResourceID: p.Resources[0].ID},
		{ID: "g2", Name: "QA", CalculationType: pricing.PercentOfTotal, Rate: d("0.05"), ResourceID: p.Resources[1].ID,
			FilterType: pricing.FilterServiceCategory, CategoryID: "cat1"},
		{ID: "g3", Name: "Design review", CalculationType: pricing.PercentOfTotal, Rate: d("0.1"), ResourceID: p.Resources[2].ID,
			FilterType: pricing.FilterPhase, PhaseID: p.Phases[1].ID},
		{ID: "g4", Name: "Kickoff", CalculationType: pricing.FixedHours, FixedHours: d("8"), ResourceID: p.Resources[3].ID,
			AllocationMethod: pricing.AssignToPhase, PhaseID: p.Phases[0].ID},
		{ID: "g5", Name: "Security", CalculationType: pricing.FixedHours, FixedHours: d("12.5"), ResourceID: p.Resources[4].ID,
			AllocationMethod: pricing.AssignToCategory, CategoryID: "cat2"},
		{ID: "g6", Name: "Steering", CalculationType: pricing.PercentOfTotal, Rate: d("0.02"), ResourceID: p.Resources[5].ID},
	}
	for i := range 50 {
		p.Expenses = append(p.Expenses, pricing.Expense{
			ID: "e" + strconv.Itoa(i), Description: "Expense " + strconv.Itoa(i),
			Quantity: decimal.New(int64(1+i%5), 0), Rate: decimal.New(int64(2500+i*317), -2),
			UnitCost: decimal.NewNullDecimal(decimal.New(int64(2000+i*211), -2)),
		})
		p.Products = append(p.Products, pricing.Product{
			ID: "p" + strconv.Itoa(i), Name: "Product " + strconv.Itoa(i), SKU: "SKU-" + strconv.Itoa(i),
			Quantity: decimal.New(int64(1+i%3), 0), UnitPrice: decimal.New(int64(99999+i*1013), -2), UnitCost: decimal.New(int64(75000+i*707), -2),
		})
	}
	return p
}

func BenchmarkPriceLargeProject(b *testing.B) {
	p := largeProject()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pricing.Price(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeliveryLargeProject computes the delivery figures of the
// benchmark's project (every service with a status and actual hours) from
// its pricing run, as merge data and the delivery endpoints do.
func BenchmarkDeliveryLargeProject(b *testing.B) {
	p := largeProject()
	statuses := []string{pricing.StatusNotStarted, pricing.StatusInProgress, pricing.StatusOnHold, pricing.StatusComplete, pricing.StatusCanceled}
	for i := range p.Services {
		s := &p.Services[i]
		actual := decimal.New(int64(i%40*25), -2)
		s.Status, s.ActualHours = statuses[i%5], &actual
		for j := range s.Subservices {
			sub := decimal.New(int64(j*50), -2)
			s.Subservices[j].ActualHours = &sub
		}
	}
	r, err := pricing.Price(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pricing.DeliveryFigures(p, r); err != nil {
			b.Fatal(err)
		}
	}
}
