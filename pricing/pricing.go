// Package pricing prices a ScopeKit project: pure functions over value
// types. The caller (scoping, or any Go program) describes a project's
// resources, phases, locations and lines in a Project; Price returns a
// Result with every figure the API, merge data and documents show: each
// line's hours, revenue and cost, the sections of merge data's
// project_pricing (professional services, governance, travel and expense,
// materials, managed services, the resources table), the contract totals,
// per-phase and per-location breakdowns, and warnings. Result.ToDefault
// converts an amount into the account's default currency.
//
// Rounding follows the design (docs/pricing.md): the hours of every line are
// rounded to 2 decimals before they are priced; the money of every line is
// rounded to the currency's minor units, and totals are sums of rounded
// lines; margins have 4 decimals and blended rates the currency's minor
// units; a ratio with a zero denominator is 0. Every rounding is half away
// from zero. Arithmetic is exact at any magnitude: lines are computed on
// int64 scaled integers while they fit and on big integers beyond.
//
// The package has no I/O and changes no global state (it never sets
// decimal.DivisionPrecision or decimal.MarshalJSONWithoutQuotes).
package pricing

import (
	"cmp"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// Price prices p. It fails only on input that cannot be priced, with the
// *scopekit.Error of p.Validate (code scopekit.EINVALID); a line that
// cannot be priced for want of a resource is priced at 0 and reported in
// Result.Warnings instead.
func Price(p *Project) (*Result, error) {
	if err := p.validateAllButServices(); err != nil {
		return nil, err
	}
	pr := newPricer(p)
	if !pr.labor() {
		// Checking the lines inline spares a pass over thousands of
		// decimals; validateServices names what failed.
		if err := p.validateServices(); err != nil {
			return nil, err
		}
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "pricing rejected a service that validation accepts")
	}
	pr.governance()
	pr.expenses()
	pr.materials()
	pr.totals()
	return pr.r, nil
}

// pricer holds the state of one Price call: lookups resolved once, and the
// accumulators of the breakdowns.
type pricer struct {
	p     *Project
	r     *Result
	minor int32 // money exponent is -minor

	resourceIndex ids
	phaseIndex    ids
	locationIndex ids
	rate, cost    []operand // per resource

	phaseOrder []int      // indexes of p.Phases in phase order
	phases     []phaseAcc // per phase, then one for no phase
	locations  []laborAcc // per location, then one for no location
	svcPhase   []int32    // phase accumulator of each service, -1 if managed
	unphased   bool       // something went to the accumulator without a phase
	unlocated  bool       // likewise without a location

	service, pm      laborAcc // professional services labor; governance
	managed          laborAcc // contract figures
	expense, product laborAcc // revenue and cost only
}

type laborAcc struct {
	hours, revenue, cost num
}

func (a *laborAcc) add(h, rev, cost num) {
	a.hours.addTo(h)
	a.revenue.addTo(rev)
	a.cost.addTo(cost)
}

type phaseAcc struct {
	labor, governance laborAcc
}

func newPricer(p *Project) *pricer {
	minor := int32(p.Currency.MinorUnits)
	defaultMinor, rate := minor, p.ConversionRate
	if p.DefaultCurrency.Code != "" {
		defaultMinor = int32(p.DefaultCurrency.MinorUnits)
	}
	if rate.IsZero() {
		rate = decimal.New(1, 0)
	}
	nsub := 0
	for i := range p.Services {
		nsub += len(p.Services[i].Subservices)
	}
	r := &Result{
		Currency:       p.Currency,
		minor:          minor,
		defaultMinor:   defaultMinor,
		conversionRate: rate,
		services:       make([]serviceFigs, len(p.Services)),
		subservices:    make([]lineFigs, nsub),
		resources:      make([]resourceFigs, len(p.Resources)),
		Warnings:       []Warning{},
	}
	pr := &pricer{
		p:             p,
		r:             r,
		minor:         minor,
		resourceIndex: newIDs(len(p.Resources), func(i int) string { return p.Resources[i].ID }),
		phaseIndex:    newIDs(len(p.Phases), func(i int) string { return p.Phases[i].ID }),
		locationIndex: newIDs(len(p.Locations), func(i int) string { return p.Locations[i].ID }),
		rate:          make([]operand, len(p.Resources)),
		cost:          make([]operand, len(p.Resources)),
		phaseOrder:    phaseOrder(p.Phases),
		phases:        make([]phaseAcc, len(p.Phases)+1),
		locations:     make([]laborAcc, len(p.Locations)+1),
		svcPhase:      make([]int32, len(p.Services)),
	}
	for i := range p.Resources {
		pr.rate[i] = validOp(p.Resources[i].HourlyRate)
		pr.cost[i] = validOp(p.Resources[i].HourlyCost)
	}
	return pr
}

// phaseOrder returns the indexes of phases in phase order: by Position,
// ties in the order given.
func phaseOrder(phases []Phase) []int {
	order := make([]int, len(phases))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(phases[a].Position, phases[b].Position)
	})
	return order
}

// noPhase is the index of the accumulator of what has no phase.
func (pr *pricer) noPhase() int { return len(pr.p.Phases) }

// resource resolves a line's resource id; -1 (with a warning) when there is
// none or it is unknown.
func (pr *pricer) resource(id string, at lineRef, lineID string) int {
	if id != "" {
		if k, ok := pr.resourceIndex.lookup(id); ok {
			return k
		}
		pr.warn(WarnUnknownResource, "resource "+id+" is not on the project; the line is priced at 0", at, lineID)
		return -1
	}
	pr.warn(WarnNoResource, "the line has no resource; it is priced at 0", at, lineID)
	return -1
}

// phase resolves a phase id to its accumulator; unknown ids warn.
func (pr *pricer) phase(id string, at lineRef, lineID string) int {
	if id == "" {
		return pr.noPhase()
	}
	if k, ok := pr.phaseIndex.lookup(id); ok {
		return k
	}
	pr.warn(WarnUnknownPhase, "phase "+id+" is not on the project; the line is counted without a phase", at, lineID)
	return pr.noPhase()
}

func (pr *pricer) location(id string, at lineRef, lineID string) int {
	if id == "" {
		return len(pr.p.Locations)
	}
	if k, ok := pr.locationIndex.lookup(id); ok {
		return k
	}
	pr.warn(WarnUnknownLocation, "location "+id+" is not on the project; the line is counted without a location", at, lineID)
	return len(pr.p.Locations)
}

func (pr *pricer) warn(code, message string, at lineRef, id string) {
	pr.r.Warnings = append(pr.r.Warnings, Warning{Code: code, Message: message, Line: at.String(), ID: id})
}

// price returns the revenue and cost of hours (exponent -2) of resource k,
// zero when k < 0.
func (pr *pricer) price(hours num, k int) (revenue, cost num) {
	if k < 0 {
		return num{}, num{}
	}
	h := hours.op(-2)
	return mulRound(h, pr.rate[k], -pr.minor), mulRound(h, pr.cost[k], -pr.minor)
}

func (pr *pricer) money(n num) Fixed { return Fixed{n.dec(pr.minor)} }

func hoursFixed(n num) Fixed { return Fixed{n.dec(2)} }

// ids resolves the ids of one list (resources, phases, locations) to their
// indexes; the first of duplicate ids wins. Lines repeat a few ids, so a
// small direct-mapped cache keyed on the id's last bytes answers most
// lookups before the map (whose hashing dominated the lookups' cost).
type ids struct {
	index map[string]int
	cache [32]idSlot
}

type idSlot struct {
	id  string
	k   int
	set bool
}

func newIDs(n int, id func(int) string) ids {
	if n == 0 {
		return ids{} // lookups in a nil map find nothing, without allocating one
	}
	x := ids{index: make(map[string]int, n)}
	for i := n - 1; i >= 0; i-- {
		x.index[id(i)] = i
	}
	return x
}

func (x *ids) lookup(id string) (int, bool) {
	h := uint32(len(id))
	for i := max(0, len(id)-4); i < len(id); i++ {
		h = h*31 + uint32(id[i])
	}
	slot := &x.cache[(h*2654435761)>>27]
	if slot.set && slot.id == id {
		return slot.k, true
	}
	k, ok := x.index[id]
	if ok {
		*slot = idSlot{id, k, true}
	}
	return k, ok
}
