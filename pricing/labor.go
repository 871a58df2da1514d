package pricing

import "github.com/shopspring/decimal"

// labor prices every project service and subservice: professional services
// into the labor totals and breakdowns, managed services into their section.
func (pr *pricer) labor() {
	p, r := pr.p, pr.r
	terms := p.MRRTerms
	if terms == 0 {
		terms = DefaultMRRTerms
	}
	sub := 0
	for i := range p.Services {
		s := &p.Services[i]
		at := lineRef{"services", i, -1}
		k := pr.resource(s.ResourceID, at, s.ID)
		managed := s.Type == TypeManagedServices
		// A managed line's contract figure is its per-period figure × periods
		// = × terms / months (× 1 / 1 when billed once).
		periods, months := num{i: int64(terms)}, num{i: 1}
		if m, _ := periodMonths(s.PaymentFrequency); m == 0 {
			periods = num{i: 1}
		} else {
			months = num{i: int64(m)}
		}

		sf := &r.services[i]
		sf.subservices = int32(sub)
		var total, period laborAcc // the service with its subservices; per period (managed)
		priceLine := func(q, u decimal.Decimal, k int) lineFigs {
			h := mulRound(opOf(q), opOf(u), -2)
			rev, cost := pr.price(h, k)
			if managed {
				period.add(h, rev, cost)
				rev, cost = mulDivRound(rev, periods, months), mulDivRound(cost, periods, months)
			} else if k >= 0 {
				x := &r.resources[k]
				x.hours, x.revenue, x.cost, x.used = x.hours.add(h), x.revenue.add(rev), x.cost.add(cost), true
			}
			total.add(h, rev, cost)
			return lineFigs{r.fig(h), r.fig(rev), r.fig(cost)}
		}
		sf.lineFigs = priceLine(s.Quantity, s.UnitHours, k)
		for j := range s.Subservices {
			x := &s.Subservices[j]
			xk := k
			if x.ResourceID != "" || k < 0 {
				xk = pr.resource(x.ResourceID, lineRef{"services", i, j}, x.ID)
			}
			r.subservices[sub] = priceLine(x.Quantity, x.UnitHours, xk)
			sub++
		}
		sf.total = lineFigs{r.fig(total.hours), r.fig(total.revenue), r.fig(total.cost)}

		if managed {
			pr.svcPhase[i] = -1 // not labor: outside governance scopes
			pr.managed.add(total.hours, total.revenue, total.cost)
			pr.managedItem(s, periods, months, period, total)
			continue
		}
		ph := pr.phase(s.PhaseID, at, s.ID)
		pr.svcPhase[i] = int32(ph)
		loc := pr.location(s.LocationID, at, s.ID)
		pr.unphased = pr.unphased || ph == pr.noPhase()
		pr.unlocated = pr.unlocated || loc == len(p.Locations)
		pr.service.add(total.hours, total.revenue, total.cost)
		pr.phases[ph].labor.add(total.hours, total.revenue, total.cost)
		pr.locations[loc].add(total.hours, total.revenue, total.cost)
	}
}

func (pr *pricer) managedItem(s *Service, periods, months num, period, total laborAcc) {
	frequency := s.PaymentFrequency
	if frequency == "" {
		frequency = FrequencyMonthly
	}
	items := &pr.r.ManagedServices.Items
	*items = append(*items, ManagedItem{
		ServiceID:        s.ID,
		Name:             s.Name,
		PaymentFrequency: frequency,
		Periods:          Fixed{periods.dec(0).DivRound(months.dec(0), 2)},
		Hours:            hoursFixed(period.hours),
		PeriodRevenue:    pr.money(period.revenue),
		PeriodCost:       pr.money(period.cost),
		Revenue:          pr.money(total.revenue),
		Cost:             pr.money(total.cost),
		Profit:           pr.money(total.revenue.sub(total.cost)),
	})
}
