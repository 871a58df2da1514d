package pricing

import (
	"slices"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

func (pr *pricer) expenses() {
	p := pr.p
	items := make([]ExpenseItem, len(p.Expenses))
	for i := range p.Expenses {
		e := &p.Expenses[i]
		unitCost := e.Rate
		if e.UnitCost.Valid {
			unitCost = e.UnitCost.Decimal
		}
		q := validOp(e.Quantity)
		rev, cost := mulRound(q, validOp(e.Rate), -pr.minor), mulRound(q, validOp(unitCost), -pr.minor)
		pr.expense.add(num{}, rev, cost)
		items[i] = ExpenseItem{
			ID: e.ID, Description: e.Description, Category: e.Category,
			Quantity: atLeast(e.Quantity, 2), Rate: atLeast(e.Rate, pr.minor), UnitCost: atLeast(unitCost, pr.minor),
			Revenue: pr.money(rev), Cost: pr.money(cost), Profit: pr.money(rev.sub(cost)),
		}
	}
	pr.r.TravelAndExpense.Items = items
}

func (pr *pricer) materials() {
	p := pr.p
	items := make([]MaterialItem, len(p.Products))
	for i := range p.Products {
		x := &p.Products[i]
		q := validOp(x.Quantity)
		rev, cost := mulRound(q, validOp(x.UnitPrice), -pr.minor), mulRound(q, validOp(x.UnitCost), -pr.minor)
		pr.product.add(num{}, rev, cost)
		items[i] = MaterialItem{
			ID: x.ID, Name: x.Name, SKU: x.SKU,
			Quantity: atLeast(x.Quantity, 2), UnitPrice: atLeast(x.UnitPrice, pr.minor), UnitCost: atLeast(x.UnitCost, pr.minor),
			Revenue: pr.money(rev), Cost: pr.money(cost), Profit: pr.money(rev.sub(cost)),
		}
	}
	pr.r.Materials.Items = items
}

// totals sums the sections, the contract, the resources table and the
// breakdowns. Adjustments are money: rounded like a line.
func (pr *pricer) totals() {
	p, r, m := pr.p, pr.r, pr.minor
	// Totals are sums of rounded lines: exact integers in minor units, so
	// they are added as nums (int64 while they fit) and turned into
	// decimals once each, at the currency's scale.
	money := func(n num) Fixed { return Fixed{n.dec(m)} }
	sum := func(ns ...num) num {
		var s num
		for _, n := range ns {
			s.addTo(n)
		}
		return s
	}
	included := func(yes bool, n num) num {
		if yes {
			return n
		}
		return num{}
	}

	serviceRev, serviceCost := pr.service.revenue, pr.service.cost
	pmRev, pmCost := pr.pm.revenue, pr.pm.cost
	revAdj, costAdj := minorUnits(p.RevenueAdjustment, m), minorUnits(p.CostAdjustment, m)
	psRev, psCost := sum(serviceRev, pmRev, revAdj), sum(serviceCost, pmCost, costAdj)
	expRev, expCost := pr.expense.revenue, pr.expense.cost
	matRev, matCost := pr.product.revenue, pr.product.cost
	mgdRev, mgdCost := pr.managed.revenue, pr.managed.cost
	laborHours := pr.service.hours.add(pr.pm.hours)

	psTotalRev := sum(psRev, included(p.IncludeHardware, matRev))
	psTotalCost := sum(psCost, included(p.IncludeHardware, matCost))
	contractRev := sum(psRev, mgdRev, included(p.IncludeExpenses, expRev), included(p.IncludeHardware, matRev))
	contractCost := sum(psCost, mgdCost, included(p.IncludeExpenses, expCost), included(p.IncludeHardware, matCost))
	contractProfit := contractRev.sub(contractCost)

	phases := pr.phaseTotals()
	r.ProfessionalServices = ProfessionalServices{
		Revenue:           money(psTotalRev),
		Cost:              money(psTotalCost),
		CostAdjustment:    money(costAdj),
		Profit:            money(psTotalRev.sub(psTotalCost)),
		PSRevenue:         money(psRev),
		PSCost:            money(psCost),
		PSProfit:          money(psRev.sub(psCost)),
		RevenueAdjustment: money(revAdj),
		Hours:             hoursFixed(laborHours),
		ServiceHours:      hoursFixed(pr.service.hours),
		ServiceRevenue:    money(serviceRev),
		ServiceCost:       money(serviceCost),
		PMHours:           hoursFixed(pr.pm.hours),
		PMRevenue:         money(pmRev),
		PMCost:            money(pmCost),
		Phases:            phases,
	}
	r.Phases = phases
	r.ProjectGovernance.Hours = r.ProfessionalServices.PMHours
	r.ProjectGovernance.Revenue, r.ProjectGovernance.Cost = r.ProfessionalServices.PMRevenue, r.ProfessionalServices.PMCost
	r.ProjectGovernance.Profit = money(pmRev.sub(pmCost))
	r.TravelAndExpense.Revenue, r.TravelAndExpense.Cost = money(expRev), money(expCost)
	r.TravelAndExpense.Profit = money(expRev.sub(expCost))
	r.Materials.Revenue, r.Materials.Cost = money(matRev), money(matCost)
	r.Materials.Profit = money(matRev.sub(matCost))
	r.ManagedServices.Revenue, r.ManagedServices.Cost = money(mgdRev), money(mgdCost)
	r.ManagedServices.Profit = money(mgdRev.sub(mgdCost))
	if r.ManagedServices.Items == nil {
		r.ManagedServices.Items = []ManagedItem{}
	}

	r.TotalContractValue, r.TotalContractCost = money(contractRev), money(contractCost)
	r.TotalContractProfit = money(contractProfit)
	r.TotalContractMargin = ratio(r.TotalContractProfit.Decimal, r.TotalContractValue.Decimal, 4)

	laborH := r.ProfessionalServices.Hours.Decimal
	r.Resources = ResourceTable{
		Rows: pr.resourceRows(),
		Total: ResourceTotal{
			ResourceName:   "Project Total",
			ResourceSlug:   TotalSlug,
			Hours:          r.ProfessionalServices.Hours,
			ServiceCost:    r.ProfessionalServices.ServiceCost,
			PMCost:         r.ProfessionalServices.PMCost,
			ExpenseCost:    r.TravelAndExpense.Cost,
			MaterialCost:   r.Materials.Cost,
			CostAdjustment: r.ProfessionalServices.CostAdjustment,
			TotalCost:      r.TotalContractCost,
			TotalRevenue:   r.TotalContractValue,
			TotalProfit:    r.TotalContractProfit,
			HourlyRate:     ratio(money(serviceRev.add(pmRev)).Decimal, laborH, m),
			HourlyCost:     ratio(money(serviceCost.add(pmCost)).Decimal, laborH, m),
		},
	}
	r.Locations = pr.locationTotals()
}

// roundHalfAway rounds d to places decimals, half away from zero for both
// signs (decimal.Round does so: it adds ±0.5 at places+1 then truncates
// toward zero), with the exponent -places.
func roundHalfAway(d decimal.Decimal, places int32) decimal.Decimal {
	return d.Round(places)
}

// minorUnits returns d rounded half away from zero to places, as an
// integer count of 10^-places.
func minorUnits(d decimal.Decimal, places int32) num {
	return numOfBig(roundHalfAway(d, places).Shift(places).BigInt())
}

// ratio returns a / b rounded half away from zero to places, 0 when b is 0.
func ratio(a, b decimal.Decimal, places int32) Fixed {
	if b.IsZero() {
		return Fixed{decimal.New(0, -places)}
	}
	return Fixed{a.DivRound(b, places)}
}

func (pr *pricer) phaseTotals() []PhaseTotals {
	p := pr.p
	out := make([]PhaseTotals, 0, len(pr.phases))
	add := func(k int, id, name string) {
		a := &pr.phases[k]
		h, rev, cost := a.labor.hours.add(a.governance.hours), a.labor.revenue.add(a.governance.revenue), a.labor.cost.add(a.governance.cost)
		out = append(out, PhaseTotals{
			PhaseID: id, Name: name,
			ServiceHours: hoursFixed(a.labor.hours), ServiceRevenue: pr.money(a.labor.revenue), ServiceCost: pr.money(a.labor.cost),
			GovernanceHours: hoursFixed(a.governance.hours), GovernanceRevenue: pr.money(a.governance.revenue), GovernanceCost: pr.money(a.governance.cost),
			Hours: hoursFixed(h), Revenue: pr.money(rev), Cost: pr.money(cost), Profit: pr.money(rev.sub(cost)),
		})
	}
	for _, k := range pr.phaseOrder {
		add(k, p.Phases[k].ID, p.Phases[k].Name)
	}
	if pr.unphased {
		add(pr.noPhase(), "", "")
	}
	return out
}

func (pr *pricer) locationTotals() []LocationTotals {
	p := pr.p
	out := make([]LocationTotals, 0, len(pr.locations))
	add := func(k int, id, name string) {
		a := &pr.locations[k]
		out = append(out, LocationTotals{
			LocationID: id, Name: name,
			Hours: hoursFixed(a.hours), Revenue: pr.money(a.revenue), Cost: pr.money(a.cost), Profit: pr.money(a.revenue.sub(a.cost)),
		})
	}
	for k := range p.Locations {
		add(k, p.Locations[k].ID, p.Locations[k].Name)
	}
	if pr.unlocated {
		add(len(p.Locations), "", "")
	}
	return out
}

// resourceRows returns the resources table's rows: the resources used by a
// labor line or a governance item, sorted by name (case-insensitive, then
// as given).
func (pr *pricer) resourceRows() []ResourceRow {
	p, r := pr.p, pr.r
	rows := make([]ResourceRow, 0, len(p.Resources))
	for k := range p.Resources {
		x := &r.resources[k]
		if !x.used {
			continue
		}
		res := &p.Resources[k]
		slug := res.Slug
		if slug == "" {
			slug = Slug(res.Name)
		}
		rows = append(rows, ResourceRow{
			ResourceID: res.ID, ResourceName: res.Name, ResourceSlug: slug,
			Hours:      hoursFixed(x.hours),
			HourlyRate: atLeast(res.HourlyRate, pr.minor), HourlyCost: atLeast(res.HourlyCost, pr.minor),
			Revenue: pr.money(x.revenue), Cost: pr.money(x.cost), Profit: pr.money(x.revenue.sub(x.cost)),
		})
	}
	slices.SortStableFunc(rows, func(a, b ResourceRow) int {
		if c := compareFold(a.ResourceName, b.ResourceName); c != 0 {
			return c
		}
		return strings.Compare(a.ResourceName, b.ResourceName)
	})
	return rows
}

// compareFold compares strings rune by rune, ignoring case.
func compareFold(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		x, y := unicode.ToLower(ra[i]), unicode.ToLower(rb[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return len(ra) - len(rb)
}

// Slug derives a slug from a name: lower-case letters and digits, runs of
// anything else as one "_" ("Project Manager" -> "project_manager").
// Resource rows use it when a resource has no slug; merge data uses it for
// phases.
func Slug(name string) string {
	var b strings.Builder
	gap := false
	for _, c := range name {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			if gap && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			gap = false
		} else {
			gap = true
		}
	}
	return b.String()
}
