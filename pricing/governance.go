package pricing

// governance prices the governance items and allocates each to phases.
//
// The base of a percent_of_total item is the hours of the professional
// services labor lines (services and their subservices, as rounded) in the
// item's scope. Allocation by effort spreads an item over the phases in
// proportion to the labor hours in its scope (all labor, its phase's, or
// its category's); assign_to_category spreads it likewise over its
// category's labor. Labor without a phase carries no weight. An item whose
// weights are all zero goes to its phase when it names a known one, else to
// the entry without a phase.
func (pr *pricer) governance() {
	p, r := pr.p, pr.r
	items := make([]GovernanceItem, len(p.Governance))
	weights := make([]num, len(pr.phases)) // per phase accumulator; scratch
	zero := pr.money(num{})
	for i := range p.Governance {
		g := &p.Governance[i]
		at := lineRef{"governance", i, -1}
		k := pr.resource(g.ResourceID, at, g.ID)
		fallback := pr.phase(g.PhaseID, at, g.ID)

		// The labor in the item's scope: the base of a percentage, and the
		// weights of an allocation by effort.
		base := pr.scope(g, weights)
		hours := mulRound(validOp(g.FixedHours), operand{c: 1}, -2)
		if g.CalculationType == PercentOfTotal {
			hours = mulRound(validOp(g.Rate), base.op(-2), -2)
		}
		rev, cost := pr.price(hours, k)
		pr.pm.add(hours, rev, cost)

		item := &items[i]
		*item = GovernanceItem{
			ID: g.ID, Name: g.Name,
			Hours: hoursFixed(hours), HourlyRate: zero, HourlyCost: zero,
			Revenue: pr.money(rev), Cost: pr.money(cost), Profit: pr.money(rev.sub(cost)),
		}
		if k >= 0 {
			res := &p.Resources[k]
			item.ResourceName = res.Name
			item.HourlyRate, item.HourlyCost = atLeast(res.HourlyRate, pr.minor), atLeast(res.HourlyCost, pr.minor)
			x := &r.resources[k]
			x.add(hours, rev, cost)
			x.used = true
		}

		switch g.AllocationMethod {
		case AssignToPhase:
			pr.share(item, fallback, hours, rev, cost)
		case AssignToCategory:
			clear(weights)
			pr.categoryHours(g.CategoryID, weights)
			pr.spread(item, hours, rev, cost, weights, fallback)
		default:
			pr.spread(item, hours, rev, cost, weights, fallback)
		}
	}
	r.ProjectGovernance.Items = items
}

// scope sets w to the labor hours per phase in the item's filter scope and
// returns their sum (labor without a phase included).
func (pr *pricer) scope(g *Governance, w []num) num {
	clear(w)
	switch g.FilterType {
	case FilterPhase:
		k, ok := pr.phaseIndex.lookup(g.PhaseID)
		if !ok {
			return num{}
		}
		w[k] = pr.phases[k].labor.hours
		return w[k]
	case FilterServiceCategory:
		return pr.categoryHours(g.CategoryID, w)
	}
	for k := range pr.phases {
		w[k] = pr.phases[k].labor.hours
	}
	return pr.service.hours
}

// categoryHours adds to w the labor hours per phase of the services of a
// category and returns their sum.
func (pr *pricer) categoryHours(category string, w []num) num {
	var sum num
	for i := range pr.p.Services {
		k := pr.svcPhase[i]
		if k < 0 || pr.p.Services[i].CategoryID != category {
			continue
		}
		h := pr.r.num(pr.r.services[i].total.hours)
		w[k] = w[k].add(h)
		sum = sum.add(h)
	}
	return sum
}

// spread allocates an item over the phases with a positive weight, in
// proportion: each share rounded half away from zero, the remainder to the
// last such phase in phase order.
func (pr *pricer) spread(item *GovernanceItem, hours, rev, cost num, w []num, fallback int) {
	var total num
	last, n := -1, 0
	for _, k := range pr.phaseOrder {
		if w[k].sign() > 0 {
			total, last, n = total.add(w[k]), k, n+1
		}
	}
	if last < 0 {
		pr.share(item, fallback, hours, rev, cost)
		return
	}
	item.Phases = make([]PhaseShare, 0, n)
	restH, restR, restC := hours, rev, cost
	for _, k := range pr.phaseOrder {
		switch {
		case w[k].sign() <= 0:
			continue
		case k == last:
			pr.share(item, k, restH, restR, restC)
			return
		}
		h, r, c := mulDivRound(hours, w[k], total), mulDivRound(rev, w[k], total), mulDivRound(cost, w[k], total)
		restH, restR, restC = restH.sub(h), restR.sub(r), restC.sub(c)
		pr.share(item, k, h, r, c)
	}
}

// share gives a part of an item to phase accumulator k.
func (pr *pricer) share(item *GovernanceItem, k int, hours, rev, cost num) {
	pr.phases[k].governance.add(hours, rev, cost)
	id := ""
	if k < len(pr.p.Phases) {
		id = pr.p.Phases[k].ID
	} else {
		pr.unphased = true
	}
	item.Phases = append(item.Phases, PhaseShare{PhaseID: id, Hours: hoursFixed(hours), Revenue: pr.money(rev), Cost: pr.money(cost)})
}
