package pricing

import (
	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// Delivery statuses of a project service (Service.Status).
const (
	StatusNotStarted = "not_started"
	StatusInProgress = "in_progress"
	StatusOnHold     = "on_hold"
	StatusComplete   = "complete"
	StatusCanceled   = "canceled"
)

// Delivery is how the delivery of a project stands against its estimate:
// the delivery rollup and the estimate-versus-actual table. Both cover the
// professional services lines (the labor that Price prices); managed
// services, whose hours are per billing period, are not part of them.
type Delivery struct {
	Currency         Currency         `json:"currency"`
	Rollup           DeliveryRollup   `json:"rollup"`
	EstimateVsActual EstimateVsActual `json:"estimate_vs_actual"`
}

// DeliveryRollup is the delivery rollup: per phase (in phase order, every
// phase of the project, then an entry with an empty PhaseID for services
// without a phase when there are any) and for the project.
type DeliveryRollup struct {
	Phases  []PhaseDelivery `json:"phases"`
	Project DeliveryTotals  `json:"project"`
}

// PhaseDelivery is the rollup of one phase.
type PhaseDelivery struct {
	PhaseID string `json:"phase_id"`
	Name    string `json:"name"`
	DeliveryTotals
}

// DeliveryTotals are the rollup figures of a set of services.
// EstimatedHours are the services' total hours (with their subservices),
// ActualHours the actual hours of the services and their subservices, and
// PercentComplete the estimated hours of complete services over those of
// services that are not canceled (4 places; 0 when there are none).
// Canceled services count in Services, StatusCounts and the hours.
type DeliveryTotals struct {
	Services        int          `json:"services"`
	StatusCounts    StatusCounts `json:"status_counts"`
	EstimatedHours  Fixed        `json:"estimated_hours"`
	ActualHours     Fixed        `json:"actual_hours"`
	PercentComplete Fixed        `json:"percent_complete"`
}

// StatusCounts counts services by delivery status.
type StatusCounts struct {
	NotStarted int `json:"not_started"`
	InProgress int `json:"in_progress"`
	OnHold     int `json:"on_hold"`
	Complete   int `json:"complete"`
	Canceled   int `json:"canceled"`
}

// EstimateVsActual is the estimate-versus-actual table: one row per
// project service (its own line, without its subservices) followed by one
// row per subservice, in the order of Project.Services; totals per phase
// (as the rollup's phases) and for the project, which are sums of the rows.
type EstimateVsActual struct {
	Rows   []EstimateRow   `json:"rows"`
	Phases []PhaseEstimate `json:"phases"`
	Total  EstimateTotals  `json:"total"`
}

// EstimateRow is one line of the table. EstimatedCost is the line's priced
// cost (its hours × the hourly cost of its resource) and ActualCost its
// actual hours × the same hourly cost, both rounded to the currency's minor
// units. A subservice shares its parent's phase and status.
type EstimateRow struct {
	ServiceID    string `json:"service_id"`
	SubserviceID string `json:"subservice_id"` // "" on a service's own row
	Name         string `json:"name"`
	PhaseID      string `json:"phase_id"`
	Status       string `json:"status"`
	HourlyCost   Fixed  `json:"hourly_cost"` // 0 for a line without a resource
	EstimateTotals
}

// PhaseEstimate is the table's total of one phase.
type PhaseEstimate struct {
	PhaseID string `json:"phase_id"`
	Name    string `json:"name"`
	EstimateTotals
}

// EstimateTotals are the figures of a row or a total. A row's variances
// are nil (JSON null) while the line has no actual hours recorded: a
// service not started is not 100 % under its estimate. Otherwise
// VarianceHours is ActualHours − EstimatedHours, VarianceRatio
// VarianceHours / EstimatedHours (4 places; 0 when nothing was
// estimated), VarianceCost ActualCost − EstimatedCost. A total's
// variances are those of the rows that have them, summed (the ratio over
// those rows' estimated hours); nil when no row has them. EstimatedHours,
// ActualHours and the costs of a total sum every row.
type EstimateTotals struct {
	EstimatedHours Fixed  `json:"estimated_hours"`
	ActualHours    Fixed  `json:"actual_hours"`
	VarianceHours  *Fixed `json:"variance_hours"`
	VarianceRatio  *Fixed `json:"variance_ratio"`
	EstimatedCost  Fixed  `json:"estimated_cost"`
	ActualCost     Fixed  `json:"actual_cost"`
	VarianceCost   *Fixed `json:"variance_cost"`
}

// DeliveryFigures returns the delivery figures of p, whose pricing run is
// r (the Result of Price(p)). Actual hours are rounded to 2 decimals like
// every line's hours; an empty status means StatusNotStarted.
//
// Errors (*scopekit.Error): EINVALID naming the field for an unknown status
// or negative or out-of-range actual hours ("services[2].status",
// "services[0].subservices[1].actual_hours"); EINTERNAL when r was not made
// from p.
func DeliveryFigures(p *Project, r *Result) (*Delivery, error) {
	if len(r.services) != len(p.Services) {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "the pricing result is not that of the project")
	}
	d := deliverer{p: p, r: r, order: phaseOrder(p.Phases),
		phaseIndex: newIDs(len(p.Phases), func(i int) string { return p.Phases[i].ID }),
		resources:  newIDs(len(p.Resources), func(i int) string { return p.Resources[i].ID }),
		phases:     make([]deliveryAcc, len(p.Phases)+1), costs: make([]resourceCost, len(p.Resources))}
	rows := make([]EstimateRow, 0, len(r.services)+len(r.subservices))
	for i := range p.Services {
		s := &p.Services[i]
		if managed, _, _ := s.billing(); managed {
			continue
		}
		status := s.Status
		if status == "" {
			status = StatusNotStarted
		}
		at := lineRef{"services", i, -1}
		if !validStatus(status) {
			return nil, at.invalid("status", "status must be %s, %s, %s, %s or %s",
				StatusNotStarted, StatusInProgress, StatusOnHold, StatusComplete, StatusCanceled)
		}
		subs, err := d.subservices(i)
		if err != nil {
			return nil, err
		}
		phaseID := s.PhaseID
		k, ok := d.phaseIndex.lookup(phaseID)
		if !ok { // none, or not on the project: as Price counts it
			k, phaseID = len(p.Phases), ""
			d.unphased = true
		}
		acc := &d.phases[k]
		sf := &r.services[i]
		row, err := d.row(at, s.ActualHours, r.num(sf.hours), r.num(sf.cost), s.ResourceID)
		if err != nil {
			return nil, err
		}
		row.ServiceID, row.Name, row.PhaseID, row.Status = s.ID, s.Name, phaseID, status
		rows = append(rows, row.EstimateRow)
		acc.table.add(&row)
		actual := row.actual
		for j := range s.Subservices {
			x := &s.Subservices[j]
			res := x.ResourceID
			if res == "" {
				res = s.ResourceID
			}
			sub, err := d.row(lineRef{"services", i, j}, x.ActualHours, r.num(subs[j].hours), r.num(subs[j].cost), res)
			if err != nil {
				return nil, err
			}
			sub.ServiceID, sub.SubserviceID, sub.Name, sub.PhaseID, sub.Status = s.ID, x.ID, x.Name, phaseID, status
			rows = append(rows, sub.EstimateRow)
			acc.table.add(&sub)
			actual = actual.add(sub.actual)
		}
		acc.rollup.add(status, r.num(sf.total.hours), actual)
	}
	return d.result(rows), nil
}

// deliverer is the state of one DeliveryFigures call.
type deliverer struct {
	p                     *Project
	r                     *Result
	order                 []int
	phaseIndex, resources ids
	phases                []deliveryAcc // per phase, then one for no phase
	unphased              bool
	costs                 []resourceCost // per resource, resolved on first use
}

// resourceCost is a resource's hourly cost as an operand and as shown.
type resourceCost struct {
	op    operand
	shown Fixed
	set   bool
}

type deliveryAcc struct {
	rollup rollupAcc
	table  tableAcc
}

type rollupAcc struct {
	services            int
	counts              StatusCounts
	estimated, actual   num // hundredths of an hour
	complete, countable num // estimated hours of complete and of not canceled services
}

func (a *rollupAcc) add(status string, estimated, actual num) {
	a.services++
	a.estimated.addTo(estimated)
	a.actual.addTo(actual)
	switch status {
	case StatusNotStarted:
		a.counts.NotStarted++
	case StatusInProgress:
		a.counts.InProgress++
	case StatusOnHold:
		a.counts.OnHold++
	case StatusComplete:
		a.counts.Complete++
	case StatusCanceled:
		a.counts.Canceled++
	}
	if status == StatusComplete {
		a.complete.addTo(estimated)
	}
	if status != StatusCanceled {
		a.countable.addTo(estimated)
	}
}

func (a *rollupAcc) merge(b *rollupAcc) {
	a.services += b.services
	a.counts.NotStarted += b.counts.NotStarted
	a.counts.InProgress += b.counts.InProgress
	a.counts.OnHold += b.counts.OnHold
	a.counts.Complete += b.counts.Complete
	a.counts.Canceled += b.counts.Canceled
	a.estimated.addTo(b.estimated)
	a.actual.addTo(b.actual)
	a.complete.addTo(b.complete)
	a.countable.addTo(b.countable)
}

// tableAcc sums rows: hours in hundredths, money in minor units; the
// recorded sums and count are those of the rows with actual hours.
type tableAcc struct {
	estimated, actual, estimatedCost, actualCost num
	recorded                                     int
	recordedEstimated, recordedEstimatedCost     num
}

func (a *tableAcc) add(row *deliveryRow) { a.merge(&row.tableAcc) }

func (a *tableAcc) merge(b *tableAcc) {
	a.estimated.addTo(b.estimated)
	a.actual.addTo(b.actual)
	a.estimatedCost.addTo(b.estimatedCost)
	a.actualCost.addTo(b.actualCost)
	a.recorded += b.recorded
	a.recordedEstimated.addTo(b.recordedEstimated)
	a.recordedEstimatedCost.addTo(b.recordedEstimatedCost)
}

// deliveryRow is a row with its figures as scaled integers.
type deliveryRow struct {
	EstimateRow
	tableAcc
}

var one = operand{c: 1}

// row builds the figures of one line: estimated hours and cost as Price
// computed them, actual hours as given (rounded to 2 places; none: nil),
// priced with the hourly cost of resource id.
func (d *deliverer) row(at lineRef, actualHours *decimal.Decimal, estimated, estimatedCost num, resource string) (deliveryRow, error) {
	var actual num
	if actualHours != nil {
		a, ok := opOf(*actualHours)
		if !ok {
			if actualHours.Sign() < 0 {
				return deliveryRow{}, at.invalid("actual_hours", "actual_hours must be zero or positive")
			}
			return deliveryRow{}, at.invalid("actual_hours", "actual_hours is out of range")
		}
		actual = mulRound(a, one, -2)
	}
	minor := d.r.minor
	hourlyCost := Fixed{zeros[minor]}
	var actualCost num
	if k, ok := d.resources.lookup(resource); ok && resource != "" {
		c := &d.costs[k]
		if !c.set {
			*c = resourceCost{op: validOp(d.p.Resources[k].HourlyCost), shown: atLeast(d.p.Resources[k].HourlyCost, minor), set: true}
		}
		actualCost = mulRound(actual.op(-2), c.op, -minor)
		hourlyCost = c.shown
	}
	row := deliveryRow{tableAcc: tableAcc{estimated: estimated, actual: actual, estimatedCost: estimatedCost, actualCost: actualCost}}
	if actualHours != nil {
		row.recorded, row.recordedEstimated, row.recordedEstimatedCost = 1, estimated, estimatedCost
	}
	row.HourlyCost = hourlyCost
	row.EstimateTotals = d.totals(&row.tableAcc)
	return row, nil
}

func (d *deliverer) totals(a *tableAcc) EstimateTotals {
	t := EstimateTotals{
		EstimatedHours: hoursFixed(a.estimated),
		ActualHours:    hoursFixed(a.actual),
		EstimatedCost:  d.money(a.estimatedCost),
		ActualCost:     d.money(a.actualCost),
	}
	if a.recorded > 0 {
		// rows without actual hours have none to subtract from
		variance := a.actual.sub(a.recordedEstimated)
		hours, r, cost := hoursFixed(variance), ratio4(variance, a.recordedEstimated), d.money(a.actualCost.sub(a.recordedEstimatedCost))
		t.VarianceHours, t.VarianceRatio, t.VarianceCost = &hours, &r, &cost
	}
	return t
}

func (d *deliverer) money(n num) Fixed { return Fixed{n.dec(d.r.minor)} }

// subservices returns the figures of the subservices of service i; an
// error when the result has another count of them than the project.
func (d *deliverer) subservices(i int) ([]lineFigs, error) {
	r := d.r
	start, end := int(r.services[i].subservices), len(r.subservices)
	if i+1 < len(r.services) {
		end = int(r.services[i+1].subservices)
	}
	if start > end || end > len(r.subservices) || end-start != len(d.p.Services[i].Subservices) {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "the pricing result is not that of the project")
	}
	return r.subservices[start:end], nil
}

// result turns the accumulators into the Delivery.
func (d *deliverer) result(rows []EstimateRow) *Delivery {
	p := d.p
	out := &Delivery{Currency: d.r.Currency, EstimateVsActual: EstimateVsActual{Rows: rows}}
	var project deliveryAcc
	add := func(k int, id, name string) {
		a := &d.phases[k]
		project.rollup.merge(&a.rollup)
		project.table.merge(&a.table)
		out.Rollup.Phases = append(out.Rollup.Phases, PhaseDelivery{PhaseID: id, Name: name, DeliveryTotals: a.rollup.totals()})
		out.EstimateVsActual.Phases = append(out.EstimateVsActual.Phases,
			PhaseEstimate{PhaseID: id, Name: name, EstimateTotals: d.totals(&a.table)})
	}
	out.Rollup.Phases = make([]PhaseDelivery, 0, len(d.phases))
	out.EstimateVsActual.Phases = make([]PhaseEstimate, 0, len(d.phases))
	for _, k := range d.order {
		add(k, p.Phases[k].ID, p.Phases[k].Name)
	}
	if d.unphased {
		add(len(p.Phases), "", "")
	}
	out.Rollup.Project = project.rollup.totals()
	out.EstimateVsActual.Total = d.totals(&project.table)
	return out
}

func (a *rollupAcc) totals() DeliveryTotals {
	return DeliveryTotals{
		Services:        a.services,
		StatusCounts:    a.counts,
		EstimatedHours:  hoursFixed(a.estimated),
		ActualHours:     hoursFixed(a.actual),
		PercentComplete: ratio4(a.complete, a.countable),
	}
}

func validStatus(s string) bool {
	switch s {
	case StatusNotStarted, StatusInProgress, StatusOnHold, StatusComplete, StatusCanceled:
		return true
	}
	return false
}

// ratio4 returns a / b rounded half away from zero to 4 places, 0 when b
// is 0: ratio's figure, on integers while they fit (a ratio per row would
// otherwise cost a decimal division each).
func ratio4(a, b num) Fixed {
	const limit = 1 << 48 // a × 10^4 and 2 × remainder stay within int64
	if b.isZero() {
		return Fixed{zeros[4]}
	}
	if a.b != nil || b.b != nil || a.i <= -limit || a.i >= limit || b.i <= -limit || b.i >= limit {
		return ratio(a.dec(2), b.dec(2), 4)
	}
	n := a.i * 10000
	q, r := n/b.i, n%b.i
	if 2*abs64(r) >= abs64(b.i) {
		if (n < 0) != (b.i < 0) {
			q--
		} else {
			q++
		}
	}
	return Fixed{num{i: q}.dec(4)}
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
