package pricing

import "github.com/shopspring/decimal"

// labor prices every project service and subservice: professional services
// into the labor totals and breakdowns, managed services into their section.
// It stops and returns false at the first line that validateServices rejects.
func (pr *pricer) labor() bool {
	p, r := pr.p, pr.r
	terms := p.MRRTerms
	if terms == 0 {
		terms = DefaultMRRTerms
	}
	sub := 0
	for i := range p.Services {
		s := &p.Services[i]
		at := lineRef{"services", i, -1}
		managed, months, bad := s.billing()
		if bad != "" {
			return false
		}
		sp := servicePricing{managed: managed}
		if managed {
			// A managed line's contract figure is its per-period figure ×
			// periods = × terms / months (× 1 / 1 when billed once).
			sp.periods, sp.months = num{i: int64(terms)}, num{i: int64(months)}
			if months == 0 {
				sp.periods, sp.months = num{i: 1}, num{i: 1}
			}
		}
		k := pr.resource(s.ResourceID, at, s.ID)

		sf := &r.services[i]
		sf.subservices = int32(sub)
		var ok bool
		if sf.lineFigs, ok = pr.line(&sp, s.Quantity, s.UnitHours, k); !ok {
			return false
		}
		for j := range s.Subservices {
			x := &s.Subservices[j]
			xk := k
			if x.ResourceID != "" || k < 0 {
				xk = pr.resource(x.ResourceID, lineRef{"services", i, j}, x.ID)
			}
			if r.subservices[sub], ok = pr.line(&sp, x.Quantity, x.UnitHours, xk); !ok {
				return false
			}
			sub++
		}
		t := &sp.total
		sf.total = lineFigs{r.fig(t.hours), r.fig(t.revenue), r.fig(t.cost)}

		if sp.managed {
			pr.svcPhase[i] = -1 // not labor: outside governance scopes
			pr.managed.add(t.hours, t.revenue, t.cost)
			pr.managedItem(s, &sp)
			continue
		}
		ph := pr.phase(s.PhaseID, at, s.ID)
		loc := pr.location(s.LocationID, at, s.ID)
		pr.svcPhase[i] = int32(ph)
		pr.unphased = pr.unphased || ph == pr.noPhase()
		pr.unlocated = pr.unlocated || loc == len(p.Locations)
		pr.service.add(t.hours, t.revenue, t.cost)
		pr.phases[ph].labor.add(t.hours, t.revenue, t.cost)
		pr.locations[loc].add(t.hours, t.revenue, t.cost)
	}
	return true
}

// servicePricing is the state of one service while its lines are priced.
type servicePricing struct {
	managed         bool
	periods, months num      // managed: contract = per period × periods / months
	total           laborAcc // the service with its subservices (contract figures)
	period          laborAcc // managed: per period
}

// line prices one line of resource k (none when k < 0); false when its
// quantity or unit hours are invalid.
func (pr *pricer) line(sp *servicePricing, quantity, unitHours decimal.Decimal, k int) (lineFigs, bool) {
	q, okQ := opOf(quantity)
	u, okU := opOf(unitHours)
	if !okQ || !okU {
		return lineFigs{}, false
	}
	h := mulRound(q, u, -2)
	rev, cost := pr.price(h, k)
	if sp.managed {
		sp.period.add(h, rev, cost)
		rev, cost = mulDivRound(rev, sp.periods, sp.months), mulDivRound(cost, sp.periods, sp.months)
	} else if k >= 0 {
		x := &pr.r.resources[k]
		x.add(h, rev, cost)
		x.used = true
	}
	sp.total.add(h, rev, cost)
	return lineFigs{pr.r.fig(h), pr.r.fig(rev), pr.r.fig(cost)}, true
}

func (pr *pricer) managedItem(s *Service, sp *servicePricing) {
	frequency := s.PaymentFrequency
	if frequency == "" {
		frequency = FrequencyMonthly
	}
	items := &pr.r.ManagedServices.Items
	*items = append(*items, ManagedItem{
		ServiceID:        s.ID,
		Name:             s.Name,
		PaymentFrequency: frequency,
		Periods:          Fixed{sp.periods.dec(0).DivRound(sp.months.dec(0), 2)},
		Hours:            hoursFixed(sp.period.hours),
		PeriodRevenue:    pr.money(sp.period.revenue),
		PeriodCost:       pr.money(sp.period.cost),
		Revenue:          pr.money(sp.total.revenue),
		Cost:             pr.money(sp.total.cost),
		Profit:           pr.money(sp.total.revenue.sub(sp.total.cost)),
	})
}
