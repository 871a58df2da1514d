package pricing_test

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// randomProject generates a project with every kind of line, allocation
// and filter, ids that are sometimes missing or unknown, and currencies of
// 0, 2 and 3 minor units.
func randomProject(rng *rand.Rand) *pricing.Project {
	dec := func(max int64, places int32) decimal.Decimal {
		return decimal.New(rng.Int64N(max*pow10(places)+1), -places)
	}
	pick := func(ids ...string) string { return ids[rng.IntN(len(ids))] }
	p := &pricing.Project{
		Currency:          pricing.Currency{Code: "C", MinorUnits: []int{0, 2, 2, 3}[rng.IntN(4)]},
		MRRTerms:          []int{0, 12, 36, 10}[rng.IntN(4)],
		IncludeExpenses:   rng.IntN(2) == 0,
		IncludeHardware:   rng.IntN(2) == 0,
		RevenueAdjustment: dec(500, 3).Sub(dec(500, 3)),
		CostAdjustment:    dec(500, 3).Sub(dec(500, 3)),
	}
	resources := []string{"", "unknown"}
	for i := range rng.IntN(6) + 1 {
		id := "r" + strconv.Itoa(i)
		resources = append(resources, id, id, id)
		p.Resources = append(p.Resources, pricing.Resource{ID: id, Name: []string{"b", "A", "a", "c", "Zed", "é"}[rng.IntN(6)],
			HourlyRate: dec(300, int32(rng.IntN(4))), HourlyCost: dec(200, int32(rng.IntN(4)))})
	}
	phases := []string{"", "unknown"}
	for i := range rng.IntN(5) {
		id := "ph" + strconv.Itoa(i)
		phases = append(phases, id, id)
		p.Phases = append(p.Phases, pricing.Phase{ID: id, Name: "Phase " + id, Position: rng.IntN(3)})
	}
	locations := []string{"", "unknown"}
	for i := range rng.IntN(4) {
		id := "l" + strconv.Itoa(i)
		locations = append(locations, id, id)
		p.Locations = append(p.Locations, pricing.Location{ID: id, Name: "Location " + id})
	}
	categories := []string{"", "c0", "c1", "c2"}
	for i := range rng.IntN(30) {
		s := pricing.Service{
			ID: "s" + strconv.Itoa(i), Name: "Service", Quantity: dec(5, int32(rng.IntN(3))), UnitHours: dec(40, int32(rng.IntN(4))),
			ResourceID: pick(resources...), PhaseID: pick(phases...), LocationID: pick(locations...), CategoryID: pick(categories...),
		}
		if rng.IntN(6) == 0 {
			s.Type = pricing.TypeManagedServices
			s.PaymentFrequency = pick("", pricing.FrequencyMonthly, pricing.FrequencyQuarterly, pricing.FrequencyAnnually, pricing.FrequencyOneTime)
		} else if rng.IntN(2) == 0 {
			s.Type = pricing.TypeProfessionalServices
		}
		for j := range rng.IntN(4) {
			s.Subservices = append(s.Subservices, pricing.Subservice{ID: s.ID + "." + strconv.Itoa(j),
				Quantity: dec(4, int32(rng.IntN(2))), UnitHours: dec(10, int32(rng.IntN(4))), ResourceID: pick(resources...)})
		}
		p.Services = append(p.Services, s)
	}
	for i := range rng.IntN(6) {
		g := pricing.Governance{ID: "g" + strconv.Itoa(i), Name: "Governance", ResourceID: pick(resources...),
			CalculationType:  pick(pricing.PercentOfTotal, pricing.FixedHours),
			Rate:             dec(1, 3),
			FixedHours:       dec(20, int32(rng.IntN(4))),
			AllocationMethod: pick("", pricing.ProratePhasesByEffort, pricing.AssignToPhase, pricing.AssignToCategory),
			FilterType:       pick("", pricing.FilterAllServices, pricing.FilterPhase, pricing.FilterServiceCategory),
			PhaseID:          pick(phases[1:]...),
			CategoryID:       pick(categories[1:]...),
		}
		if rng.IntN(10) == 0 {
			g.Rate = decimal.RequireFromString("9.999")
		}
		p.Governance = append(p.Governance, g)
	}
	for i := range rng.IntN(6) {
		e := pricing.Expense{ID: "e" + strconv.Itoa(i), Quantity: dec(5, int32(rng.IntN(3))), Rate: dec(500, int32(rng.IntN(4)))}
		if rng.IntN(2) == 0 {
			e.UnitCost = decimal.NewNullDecimal(dec(500, int32(rng.IntN(4))))
		}
		p.Expenses = append(p.Expenses, e)
	}
	for i := range rng.IntN(6) {
		p.Products = append(p.Products, pricing.Product{ID: "p" + strconv.Itoa(i), Quantity: dec(5, int32(rng.IntN(2))),
			UnitPrice: dec(3000, int32(rng.IntN(4))), UnitCost: dec(2000, int32(rng.IntN(4)))})
	}
	return p
}

func pow10(n int32) int64 {
	r := int64(1)
	for range n {
		r *= 10
	}
	return r
}

// Ensure the invariants of pricing hold over a few hundred generated
// projects: profit = revenue − cost everywhere; totals are sums of the
// rounded lines, each line priced on its rounded hours; resource rows,
// phase and location breakdowns and governance allocations add up.
func TestPrice_Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(20261122, 1))
	for n := range 400 {
		p := randomProject(rng)
		r, err := pricing.Price(p)
		if err != nil {
			t.Fatalf("project %d: %v", n, err)
		}
		c := &checker{t: t, n: n, m: int32(p.Currency.MinorUnits)}
		c.check(p, r)
		if t.Failed() {
			b, _ := json.MarshalIndent(p, "", " ")
			t.Fatalf("project %d failed:\n%s", n, b)
		}
	}
}

type checker struct {
	t *testing.T
	n int
	m int32
}

// figure is a pricing.Fixed or a decimal.Decimal.
type figure interface {
	Equal(decimal.Decimal) bool
	String() string
}

func (c *checker) eq(name string, got figure, want decimal.Decimal) {
	c.t.Helper()
	if !got.Equal(want) {
		c.t.Errorf("project %d: %s = %s, want %s", c.n, name, got, want)
	}
}

func (c *checker) profit(name string, rev, cost, profit pricing.Fixed) {
	c.t.Helper()
	c.eq(name+" profit", profit, rev.Sub(cost.Decimal))
}

func (c *checker) places(name string, f pricing.Fixed, places int32) {
	c.t.Helper()
	if f.Places() != places {
		c.t.Errorf("project %d: %s = %s has %d places, want %d", c.n, name, f, f.Places(), places)
	}
}

func (c *checker) check(p *pricing.Project, r *pricing.Result) {
	t := c.t
	zero := decimal.Zero
	resource := map[string]*pricing.Resource{}
	for i := range p.Resources {
		if _, dup := resource[p.Resources[i].ID]; !dup {
			resource[p.Resources[i].ID] = &p.Resources[i]
		}
	}
	// price is the reference: decimal arithmetic, hours rounded first.
	price := func(q, u decimal.Decimal, id string) (h, rev, cost decimal.Decimal, priced bool) {
		h = q.Mul(u).Round(2)
		res, ok := resource[id]
		if !ok {
			return h, zero, zero, false
		}
		return h, h.Mul(res.HourlyRate).Round(c.m), h.Mul(res.HourlyCost).Round(c.m), true
	}
	terms := p.MRRTerms
	if terms == 0 {
		terms = 12
	}
	var labor, managed [3]decimal.Decimal
	unpriced := zero // hours of lines without a resource
	managedItem := 0
	for i, s := range p.Services {
		managedLine := s.Type == pricing.TypeManagedServices
		// contract turns a managed line's per-period money into the
		// contract's: × terms / months, rounded; billed once: as is.
		contract := func(x decimal.Decimal) decimal.Decimal {
			months := map[string]int64{"": 1, pricing.FrequencyMonthly: 1, pricing.FrequencyQuarterly: 3, pricing.FrequencyAnnually: 12}[s.PaymentFrequency]
			if !managedLine || s.PaymentFrequency == pricing.FrequencyOneTime {
				return x
			}
			return x.Mul(decimal.NewFromInt(int64(terms))).DivRound(decimal.NewFromInt(months), c.m)
		}
		f := r.Service(i)
		h, rev, cost, ok := price(s.Quantity, s.UnitHours, s.ResourceID)
		c.eq("service "+s.ID+" extended hours", f.ExtendedHours, h)
		th, tr, tc := h, contract(rev), contract(cost)
		lineUnpriced := zero
		if !ok {
			lineUnpriced = h
		}
		for j, sub := range s.Subservices {
			id := sub.ResourceID
			if id == "" {
				id = s.ResourceID
			}
			sh, sr, sc, ok := price(sub.Quantity, sub.UnitHours, id)
			sf := r.Subservice(i, j)
			c.eq("subservice hours", sf.ExtendedHours, sh)
			c.eq("subservice revenue", sf.Revenue, contract(sr))
			c.eq("subservice cost", sf.Cost, contract(sc))
			th, tr, tc = th.Add(sh), tr.Add(contract(sr)), tc.Add(contract(sc))
			if !ok {
				lineUnpriced = lineUnpriced.Add(sh)
			}
		}
		c.eq("service total hours", f.TotalHours, th)
		c.eq("service revenue", f.Revenue, tr)
		c.eq("service cost", f.Cost, tc)
		c.places("service revenue", f.Revenue, c.m)
		c.places("service hours", f.TotalHours, 2)
		if managedLine {
			item := r.ManagedServices.Items[managedItem]
			managedItem++
			c.eq("managed item hours", item.Hours, th)
			c.eq("managed item revenue", item.Revenue, tr)
			c.eq("managed item cost", item.Cost, tc)
			c.profit("managed item", item.Revenue, item.Cost, item.Profit)
			managed = [3]decimal.Decimal{managed[0].Add(th), managed[1].Add(tr), managed[2].Add(tc)}
			continue
		}
		unpriced = unpriced.Add(lineUnpriced)
		labor = [3]decimal.Decimal{labor[0].Add(th), labor[1].Add(tr), labor[2].Add(tc)}
	}
	if managedItem != len(r.ManagedServices.Items) {
		t.Errorf("project %d: %d managed items, want %d", c.n, len(r.ManagedServices.Items), managedItem)
	}
	ps := r.ProfessionalServices
	c.eq("service_hours", ps.ServiceHours, labor[0])
	c.eq("service_revenue", ps.ServiceRevenue, labor[1])
	c.eq("service_cost", ps.ServiceCost, labor[2])
	c.eq("managed revenue", r.ManagedServices.Revenue, managed[1])
	c.eq("managed cost", r.ManagedServices.Cost, managed[2])
	c.profit("managed", r.ManagedServices.Revenue, r.ManagedServices.Cost, r.ManagedServices.Profit)

	// Governance: items sum to pm_*, each priced on its rounded hours, each
	// allocation summing exactly to its item.
	var pm [3]decimal.Decimal
	for i, g := range p.Governance {
		item := r.ProjectGovernance.Items[i]
		res, ok := resource[g.ResourceID]
		if ok {
			c.eq("governance revenue", item.Revenue, item.Hours.Mul(res.HourlyRate).Round(c.m))
			c.eq("governance cost", item.Cost, item.Hours.Mul(res.HourlyCost).Round(c.m))
		} else {
			c.eq("governance revenue", item.Revenue, zero)
			unpriced = unpriced.Add(item.Hours.Decimal)
		}
		if g.CalculationType == pricing.FixedHours {
			c.eq("governance fixed hours", item.Hours, g.FixedHours.Round(2))
		}
		c.profit("governance item", item.Revenue, item.Cost, item.Profit)
		pm = [3]decimal.Decimal{pm[0].Add(item.Hours.Decimal), pm[1].Add(item.Revenue.Decimal), pm[2].Add(item.Cost.Decimal)}
		var alloc [3]decimal.Decimal
		if len(item.Phases) == 0 {
			t.Errorf("project %d: governance %d has no allocation", c.n, i)
		}
		for _, s := range item.Phases {
			alloc = [3]decimal.Decimal{alloc[0].Add(s.Hours.Decimal), alloc[1].Add(s.Revenue.Decimal), alloc[2].Add(s.Cost.Decimal)}
		}
		c.eq("allocated hours", item.Hours, alloc[0])
		c.eq("allocated revenue", item.Revenue, alloc[1])
		c.eq("allocated cost", item.Cost, alloc[2])
	}
	c.eq("pm_hours", ps.PMHours, pm[0])
	c.eq("pm_revenue", ps.PMRevenue, pm[1])
	c.eq("pm_cost", ps.PMCost, pm[2])
	c.eq("governance section revenue", r.ProjectGovernance.Revenue, pm[1])
	c.profit("governance section", r.ProjectGovernance.Revenue, r.ProjectGovernance.Cost, r.ProjectGovernance.Profit)

	// Expenses and materials.
	var exp, mat [2]decimal.Decimal
	for i, e := range p.Expenses {
		item := r.TravelAndExpense.Items[i]
		unitCost := e.Rate
		if e.UnitCost.Valid {
			unitCost = e.UnitCost.Decimal
		}
		c.eq("expense revenue", item.Revenue, e.Quantity.Mul(e.Rate).Round(c.m))
		c.eq("expense cost", item.Cost, e.Quantity.Mul(unitCost).Round(c.m))
		c.profit("expense", item.Revenue, item.Cost, item.Profit)
		exp = [2]decimal.Decimal{exp[0].Add(item.Revenue.Decimal), exp[1].Add(item.Cost.Decimal)}
	}
	for i, x := range p.Products {
		item := r.Materials.Items[i]
		c.eq("product revenue", item.Revenue, x.Quantity.Mul(x.UnitPrice).Round(c.m))
		c.eq("product cost", item.Cost, x.Quantity.Mul(x.UnitCost).Round(c.m))
		c.profit("product", item.Revenue, item.Cost, item.Profit)
		mat = [2]decimal.Decimal{mat[0].Add(item.Revenue.Decimal), mat[1].Add(item.Cost.Decimal)}
	}
	c.eq("expense revenue", r.TravelAndExpense.Revenue, exp[0])
	c.eq("expense cost", r.TravelAndExpense.Cost, exp[1])
	c.profit("expense section", r.TravelAndExpense.Revenue, r.TravelAndExpense.Cost, r.TravelAndExpense.Profit)
	c.eq("material revenue", r.Materials.Revenue, mat[0])
	c.eq("material cost", r.Materials.Cost, mat[1])
	c.profit("materials", r.Materials.Revenue, r.Materials.Cost, r.Materials.Profit)

	// Professional services and the contract.
	revAdj, costAdj := p.RevenueAdjustment.Round(c.m), p.CostAdjustment.Round(c.m)
	psRev, psCost := labor[1].Add(pm[1]).Add(revAdj), labor[2].Add(pm[2]).Add(costAdj)
	c.eq("ps_revenue", ps.PSRevenue, psRev)
	c.eq("ps_cost", ps.PSCost, psCost)
	c.profit("ps", ps.PSRevenue, ps.PSCost, ps.PSProfit)
	c.eq("hours", ps.Hours, labor[0].Add(pm[0]))
	c.eq("total hours", r.TotalHours(), labor[0].Add(pm[0]))
	hwRev, hwCost, exRev, exCost := zero, zero, zero, zero
	if p.IncludeHardware {
		hwRev, hwCost = mat[0], mat[1]
	}
	if p.IncludeExpenses {
		exRev, exCost = exp[0], exp[1]
	}
	c.eq("professional_services revenue", ps.Revenue, psRev.Add(hwRev))
	c.eq("professional_services cost", ps.Cost, psCost.Add(hwCost))
	c.profit("professional_services", ps.Revenue, ps.Cost, ps.Profit)
	contractRev := psRev.Add(managed[1]).Add(exRev).Add(hwRev)
	contractCost := psCost.Add(managed[2]).Add(exCost).Add(hwCost)
	c.eq("contract revenue", r.TotalContractValue, contractRev)
	c.eq("contract cost", r.TotalContractCost, contractCost)
	c.profit("contract", r.TotalContractValue, r.TotalContractCost, r.TotalContractProfit)
	margin := zero
	if !contractRev.IsZero() {
		margin = contractRev.Sub(contractCost).DivRound(contractRev, 4)
	}
	c.eq("contract margin", r.TotalContractMargin, margin)
	c.places("contract value", r.TotalContractValue, c.m)
	c.places("contract margin", r.TotalContractMargin, 4)

	// Resource rows sum to labor plus governance (less what no resource prices).
	var rows [3]decimal.Decimal
	prev := ""
	for _, row := range r.Resources.Rows {
		c.profit("resource row", row.Revenue, row.Cost, row.Profit)
		rows = [3]decimal.Decimal{rows[0].Add(row.Hours.Decimal), rows[1].Add(row.Revenue.Decimal), rows[2].Add(row.Cost.Decimal)}
		if prev != "" && lessFold(row.ResourceName, prev) {
			t.Errorf("project %d: resource rows not sorted: %q after %q", c.n, row.ResourceName, prev)
		}
		prev = row.ResourceName
	}
	c.eq("resource rows hours + unpriced", ps.Hours, rows[0].Add(unpriced))
	c.eq("resource rows revenue", ps.ServiceRevenue.Add(ps.PMRevenue.Decimal), rows[1])
	c.eq("resource rows cost", ps.ServiceCost.Add(ps.PMCost.Decimal), rows[2])
	var resources [3]decimal.Decimal
	for i := range p.Resources {
		f := r.Resource(i)
		resources = [3]decimal.Decimal{resources[0].Add(f.TotalHours.Decimal), resources[1].Add(f.Revenue.Decimal), resources[2].Add(f.Cost.Decimal)}
	}
	c.eq("project resources hours", resources[0], rows[0])
	c.eq("project resources revenue", resources[1], rows[1])
	total := r.Resources.Total
	c.eq("total row total_cost", total.TotalCost, contractCost)
	c.eq("total row total_revenue", total.TotalRevenue, contractRev)
	c.profit("total row", total.TotalRevenue, total.TotalCost, total.TotalProfit)
	c.eq("total row expense_cost", total.ExpenseCost, exp[1])
	c.eq("total row material_cost", total.MaterialCost, mat[1])
	c.eq("total row cost_adjustment", total.CostAdjustment, costAdj)

	// Phase breakdown sums to labor plus governance; locations to labor.
	var phases, phaseLabor, phaseGov [3]decimal.Decimal
	for _, ph := range r.Phases {
		c.profit("phase", ph.Revenue, ph.Cost, ph.Profit)
		c.eq("phase hours", ph.Hours, ph.ServiceHours.Add(ph.GovernanceHours.Decimal))
		phases = [3]decimal.Decimal{phases[0].Add(ph.Hours.Decimal), phases[1].Add(ph.Revenue.Decimal), phases[2].Add(ph.Cost.Decimal)}
		phaseLabor = [3]decimal.Decimal{phaseLabor[0].Add(ph.ServiceHours.Decimal), phaseLabor[1].Add(ph.ServiceRevenue.Decimal), phaseLabor[2].Add(ph.ServiceCost.Decimal)}
		phaseGov = [3]decimal.Decimal{phaseGov[0].Add(ph.GovernanceHours.Decimal), phaseGov[1].Add(ph.GovernanceRevenue.Decimal), phaseGov[2].Add(ph.GovernanceCost.Decimal)}
	}
	c.eq("phases hours", ps.Hours, phases[0])
	c.eq("phases revenue", ps.ServiceRevenue.Add(ps.PMRevenue.Decimal), phases[1])
	c.eq("phases cost", ps.ServiceCost.Add(ps.PMCost.Decimal), phases[2])
	c.eq("phases labor hours", ps.ServiceHours, phaseLabor[0])
	c.eq("phases governance revenue", ps.PMRevenue, phaseGov[1])
	for i := 1; i < len(r.Phases); i++ {
		if r.Phases[i].PhaseID == "" && i != len(r.Phases)-1 {
			t.Errorf("project %d: the entry without a phase is not last", c.n)
		}
	}
	var locs [3]decimal.Decimal
	for _, l := range r.Locations {
		c.profit("location", l.Revenue, l.Cost, l.Profit)
		locs = [3]decimal.Decimal{locs[0].Add(l.Hours.Decimal), locs[1].Add(l.Revenue.Decimal), locs[2].Add(l.Cost.Decimal)}
	}
	c.eq("locations hours", ps.ServiceHours, locs[0])
	c.eq("locations revenue", ps.ServiceRevenue, locs[1])
	c.eq("locations cost", ps.ServiceCost, locs[2])

	if _, err := json.Marshal(r); err != nil {
		t.Errorf("project %d: JSON: %v", c.n, err)
	}
}

func lessFold(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	for i := 0; i < len(ra) && i < len(rb); i++ {
		x, y := lower(ra[i]), lower(rb[i])
		if x != y {
			return x < y
		}
	}
	return len(ra) < len(rb)
}

func lower(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}
