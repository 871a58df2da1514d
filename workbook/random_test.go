package workbook_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// randomEnv is an account for random projects: rate tables in USD, EUR
// (2 minor units) and JPY (0), payment terms with every combination of
// include-expenses and include-hardware, and two service categories.
type randomEnv struct {
	*snapshottest.Env
	tables, terms, categories []string
}

func newRandomEnv(tb testing.TB) *randomEnv {
	tb.Helper()
	e := &randomEnv{Env: snapshottest.New(tb)}
	require.NoError(tb, e.Svc.Setup(context.Background(), func(a *scoping.Admin) error {
		for _, c := range []struct{ code, name, rate string }{{"EUR", "Euro", "0.9"}, {"JPY", "Yen", "150"}} {
			if _, err := a.EnsureCurrency(e.Acct, c.code, c.name, c.rate); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(tb, e.DB.Update(context.Background(), func(tx engine.Tx) error {
		in := demodata.NewInserter(tx, e.Acct)
		ins := in.Insert
		for _, code := range []string{"USD", "EUR", "JPY"} {
			e.tables = append(e.tables, ins(views.TypeRateTables, map[string]any{views.NameName: code, views.NameCurrency: code}, nil))
		}
		for _, x := range []bool{false, true} {
			for _, h := range []bool{false, true} {
				e.terms = append(e.terms, ins(views.TypePaymentTerms, map[string]any{views.NameName: fmt.Sprintf("expenses %v, hardware %v", x, h),
					views.NamePricingModel: "fixed_fee", views.NameIncludeExpenses: x, views.NameIncludeHardware: h}, nil))
			}
		}
		for _, name := range []string{"Network", "Security"} {
			e.categories = append(e.categories, ins(views.TypeServiceCategories, map[string]any{views.NameName: name}, nil))
		}
		return in.Err
	}))
	return e
}

// project writes a project drawn from seed in one transaction and returns
// its id: random resources (some lines have none), phases (positions may
// tie), locations, professional and managed services with subservices,
// governance of every calculation, filter and allocation, expenses with
// and without a unit cost, products, adjustments of any sign and places,
// a currency of 0 or 2 minor units and a payment term (or none).
func (e *randomEnv) project(seed uint64) string {
	e.TB.Helper()
	r := rand.New(rand.NewPCG(seed, 20))
	pick := func(ids []string) string { // "" one time in four
		if len(ids) == 0 || r.IntN(4) == 0 {
			return ""
		}
		return ids[r.IntN(len(ids))]
	}
	currency := r.IntN(3)
	scale := []int{1, 1, 150}[currency] // JPY prices are larger
	var pid string
	require.NoError(e.TB, e.DB.Update(context.Background(), func(tx engine.Tx) error {
		in := demodata.NewInserter(tx, e.Acct)
		ins := in.Insert
		term := ""
		if k := r.IntN(len(e.terms) + 1); k < len(e.terms) {
			term = e.terms[k]
		}
		pid = ins(views.TypeProjects, map[string]any{views.NameProjectName: fmt.Sprintf("Random %d", seed), views.NameActive: true,
			views.NameStatus: "draft", views.NameMrrTerms: int64(r.IntN(37)),
			views.NameRevenueAdjustment: signed(r, 500*scale), views.NameCostAdjustment: signed(r, 300*scale)},
			map[string]string{views.NameRateTable: e.tables[currency], views.NamePaymentTerm: term})
		p := map[string]string{views.NameProject: pid}
		var resources, phases, locations []string
		for i := range 1 + r.IntN(4) {
			resources = append(resources, ins(views.TypeProjectResources, map[string]any{views.NameName: fmt.Sprintf("Resource %d", i),
				views.NameHourlyRate: amount(r, 300*scale), views.NameHourlyCost: amount(r, 150*scale)}, p))
		}
		for i := range r.IntN(4) {
			phases = append(phases, ins(views.TypeProjectPhases, map[string]any{views.NameName: fmt.Sprintf("Phase %d", i),
				views.NamePosition: int64(r.IntN(3))}, p))
		}
		for i := range r.IntN(3) {
			locations = append(locations, ins(views.TypeProjectLocations, map[string]any{views.NameName: fmt.Sprintf("Site %d", i)}, p))
		}
		frequencies := []string{pricing.FrequencyMonthly, pricing.FrequencyQuarterly, pricing.FrequencyAnnually, pricing.FrequencyOneTime}
		for i := range r.IntN(9) {
			attrs := map[string]any{views.NameName: fmt.Sprintf("Service %d", i), views.NameQuantity: amount(r, 5),
				views.NameUnitHours: amount(r, 24), views.NameServiceType: pricing.TypeProfessionalServices, views.NamePosition: int64(i)}
			if r.IntN(5) == 0 {
				attrs[views.NameServiceType] = pricing.TypeManagedServices
				attrs[views.NamePaymentFrequency] = frequencies[r.IntN(len(frequencies))]
			}
			svc := ins(views.TypeProjectServices, attrs, map[string]string{views.NameProject: pid,
				views.NameProjectResource: pick(resources), views.NameProjectPhase: pick(phases),
				views.NameProjectLocation: pick(locations), views.NameServiceCategory: pick(e.categories)})
			for j := range r.IntN(4) {
				ins(views.TypeProjectSubservices, map[string]any{views.NameName: fmt.Sprintf("Sub %d.%d", i, j),
					views.NameQuantity: amount(r, 4), views.NameUnitHours: amount(r, 8), views.NamePosition: int64(j)},
					map[string]string{views.NameProject: pid, views.NameProjectService: svc, views.NameProjectResource: pick(resources)})
			}
		}
		for i := range r.IntN(5) {
			// An item filtered by or assigned to a phase needs one; every
			// item names a category, which only those of a category use.
			phase, kinds := pick(phases), 3
			if phase == "" {
				kinds = 2
			}
			filter := []string{pricing.FilterAllServices, pricing.FilterServiceCategory, pricing.FilterPhase}[r.IntN(kinds)]
			allocation := []string{pricing.ProratePhasesByEffort, pricing.AssignToCategory, pricing.AssignToPhase}[r.IntN(kinds)]
			attrs := map[string]any{views.NameName: fmt.Sprintf("Governance %d", i), views.NameCalculationType: pricing.PercentOfTotal,
				views.NameRate: fmt.Sprintf("0.%03d", r.IntN(300)), views.NameFilterType: filter, views.NameAllocationMethod: allocation}
			switch r.IntN(4) {
			case 0, 1:
				attrs[views.NameCalculationType], attrs[views.NameFixedHours] = pricing.FixedHours, amount(r, 12)
			case 2: // shares of a few minutes round to 0 hours, not to 0 money
				attrs[views.NameCalculationType], attrs[views.NameFixedHours] = pricing.FixedHours, fmt.Sprintf("0.0%d", 1+r.IntN(9))
			}
			ins(views.TypeProjectGovernances, attrs, map[string]string{views.NameProject: pid, views.NameProjectResource: pick(resources),
				views.NameProjectPhase: phase, views.NameServiceCategory: e.categories[r.IntN(len(e.categories))]})
		}
		for i := range r.IntN(5) {
			attrs := map[string]any{views.NameDescription: fmt.Sprintf("Expense %d", i), views.NameQuantity: amount(r, 6),
				views.NameRate: amount(r, 500*scale)}
			if r.IntN(3) > 0 {
				attrs[views.NameUnitCost] = amount(r, 500*scale)
			}
			ins(views.TypeProjectExpenses, attrs, p)
		}
		for i := range r.IntN(4) {
			ins(views.TypeProjectProducts, map[string]any{views.NameName: fmt.Sprintf("Product %d", i), views.NameSku: fmt.Sprintf("SKU-%d", i),
				views.NameQuantity: amount(r, 10), views.NameUnitPrice: amount(r, 3000*scale), views.NameUnitCost: amount(r, 2500*scale)}, p)
		}
		return in.Err
	}))
	return pid
}

// tinyGovernance writes a project whose only governance item, 0.01 h,
// is spread over three phases of equal labor: two shares round to 0
// hours and keep their money (0.67 of the 2.00). It returns its id.
func (e *randomEnv) tinyGovernance() string {
	e.TB.Helper()
	var pid string
	require.NoError(e.TB, e.DB.Update(context.Background(), func(tx engine.Tx) error {
		in := demodata.NewInserter(tx, e.Acct)
		ins := in.Insert
		pid = ins(views.TypeProjects, map[string]any{views.NameProjectName: "Tiny governance", views.NameActive: true, views.NameStatus: "draft"}, nil)
		p := map[string]string{views.NameProject: pid}
		res := ins(views.TypeProjectResources, map[string]any{views.NameName: "Engineer", views.NameHourlyRate: "200", views.NameHourlyCost: "90"}, p)
		for i := range 3 {
			phase := ins(views.TypeProjectPhases, map[string]any{views.NameName: fmt.Sprintf("Phase %d", i), views.NamePosition: int64(i)}, p)
			ins(views.TypeProjectServices, map[string]any{views.NameName: fmt.Sprintf("Service %d", i), views.NameQuantity: "1",
				views.NameUnitHours: "8", views.NameServiceType: pricing.TypeProfessionalServices},
				map[string]string{views.NameProject: pid, views.NameProjectResource: res, views.NameProjectPhase: phase})
		}
		ins(views.TypeProjectGovernances, map[string]any{views.NameName: "Check-in", views.NameCalculationType: pricing.FixedHours,
			views.NameFixedHours: "0.01", views.NameAllocationMethod: pricing.ProratePhasesByEffort},
			map[string]string{views.NameProject: pid, views.NameProjectResource: res})
		return in.Err
	}))
	return pid
}

// amount is a decimal text in [0, max) with 0 to 3 places: more places
// than a currency has, so that lines round.
func amount(r *rand.Rand, max int) string {
	places := r.IntN(4)
	unit := []int{1, 10, 100, 1000}[places]
	n := r.IntN(max * unit)
	if places == 0 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%d.%0*d", n/unit, places, n%unit)
}

// signed is an amount of either sign, or "" (no adjustment) one time in
// four.
func signed(r *rand.Rand, max int) string {
	switch r.IntN(4) {
	case 0:
		return ""
	case 1:
		return "-" + amount(r, max)
	}
	return amount(r, max)
}
