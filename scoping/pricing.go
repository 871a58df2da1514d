package scoping

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Pricing wiring: the computed price figures of projects and their
// children come from one pricing run per project per request. A request
// that serves records of several projects loads the records of all of them
// with one query per child type and prices each project once.

// typedID names a record: ids are unique per type only.
type typedID struct{ typ, id string }

// pricedProject is one pricing run and where each record's figures are.
type pricedProject struct {
	res *pricing.Result
	err error // the project could not be priced; its figures stay null
	in  *pricing.Project
	idx map[typedID]int   // record → index in its input slice
	sub map[string][2]int // project-subservice id → (service, subservice)
	// recs are the records behind the input, in the input's order, by type;
	// subs[i] are the subservices of recs["project-services"][i].
	recs map[string][]*engine.Record
	subs [][]*engine.Record
}

// Pricing returns the full pricing breakdown of a project.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND when the project is
// missing or not visible; EINVALID when its data cannot be priced (for
// example a currency removed from the account).
func (s *Service) Pricing(ctx context.Context, a *engine.Actor, projectID string) (*pricing.Result, error) {
	pp, err := s.pricedRun(ctx, a, projectID)
	if err != nil {
		return nil, err
	}
	return pp.res, nil
}

// Delivery returns the delivery figures of a project: its delivery rollup
// and estimate-versus-actual table (pricing.DeliveryFigures over the same
// input and run as Pricing).
//
// Errors: as Pricing.
func (s *Service) Delivery(ctx context.Context, a *engine.Actor, projectID string) (*pricing.Delivery, error) {
	pp, err := s.pricedRun(ctx, a, projectID)
	if err != nil {
		return nil, err
	}
	return pricing.DeliveryFigures(pp.in, pp.res)
}

// pricedRun reads and prices one project the actor may see, archived or
// not, under the projects view guard.
func (s *Service) pricedRun(ctx context.Context, a *engine.Actor, projectID string) (*pricedProject, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeProjects)
	var run *pricedProject
	err := s.read(ctx, a, func(c *engine.Call) error {
		if _, err := c.GetVisible(ctx, def, projectID, engine.AnyActive(def)); err != nil {
			return err
		}
		pp, err := priced(c, []string{projectID}, nil)
		if err != nil {
			return err
		}
		run = pp[projectID]
		return run.err
	})
	return run, err
}

// priced prices the projects not priced yet in this call and returns the
// runs of all asked for. known are project records the caller has already
// read (they are not read again).
func priced(c *engine.Call, ids []string, known []*engine.Record) (map[string]*pricedProject, error) {
	if state(c).pricedCache == nil {
		state(c).pricedCache = map[string]*pricedProject{}
	}
	var todo []string
	for _, id := range ids {
		if _, ok := state(c).pricedCache[id]; !ok && id != "" && !slices.Contains(todo, id) {
			todo = append(todo, id)
		}
	}
	if len(todo) > 0 {
		if err := priceProjects(c, todo, known); err != nil {
			return nil, err
		}
	}
	return state(c).pricedCache, nil
}

// projectData is every record a pricing run reads, for a set of projects.
type projectData map[string][]*engine.Record // type → records

func loadProjectData(c *engine.Call, ids []string, known []*engine.Record) (projectData, error) {
	d := projectData{}
	want := make(map[string]bool, len(ids))
	var cos []string // the change orders among the scopes
	for _, id := range ids {
		want[id] = true
		if co := changeOrderOf(id); co != "" {
			cos = append(cos, co)
		}
	}
	have := map[string]bool{}
	for _, p := range known {
		if want[p.ID] && !have[p.ID] {
			d[views.TypeProjects] = append(d[views.TypeProjects], p)
			have[p.ID] = true
		}
	}
	var missing []string
	for _, id := range ids {
		if !have[id] && changeOrderOf(id) == "" {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		projects, err := c.Find(views.TypeProjects, engine.Eq("id", missing...))
		if err != nil {
			return nil, err
		}
		d[views.TypeProjects] = append(d[views.TypeProjects], projects...)
	}
	if len(cos) > 0 {
		copies, err := changeOrderScopes(c, cos)
		if err != nil {
			return nil, err
		}
		d[views.TypeChangeOrders] = copies.orders
		d[views.TypeProjects] = append(d[views.TypeProjects], copies.projects...)
	}
	var withLines []string
	for _, id := range ids {
		if changeOrderOf(id) == "" && !state(c).childless[id] {
			withLines = append(withLines, id)
		}
	}
	// the lines of every type and the currencies in one round trip where
	// the store reads ahead, then what the lines refer to in another
	conds := func() [][]engine.Cond {
		var out [][]engine.Cond
		if len(withLines) > 0 {
			out = append(out, []engine.Cond{engine.Eq(views.NameProject, withLines...), {Field: views.NameChangeOrder, Op: engine.OpNull}})
		}
		if len(cos) > 0 {
			out = append(out, []engine.Cond{engine.Eq(views.NameChangeOrder, cos...)})
		}
		return out
	}()
	for _, typ := range projectInputTypes {
		for _, where := range conds {
			c.FindAhead(typ, where...)
		}
	}
	c.FindAhead(views.TypeCurrencies)
	for _, typ := range projectInputTypes {
		for _, where := range conds {
			recs, err := c.Find(typ, where...)
			if err != nil {
				return nil, err
			}
			d[typ] = append(d[typ], recs...)
		}
		sortByPosition(d[typ])
	}
	// what the lines refer to outside the project
	refs := []struct{ typ, from, rel string }{
		{views.TypeRateTables, views.TypeProjects, views.NameRateTable}, {views.TypePaymentTerms, views.TypeProjects, views.NamePaymentTerm},
		{views.TypeExpenseCategories, views.TypeProjectExpenses, views.NameExpenseCategory},
		{views.TypeServices, views.TypeProjectServices, views.NameService}, {views.TypeSubservices, views.TypeProjectSubservices, views.NameSubservice},
	}
	rids := make([][]string, len(refs))
	for i, ref := range refs {
		for _, r := range d[ref.from] {
			if id := r.Rel(ref.rel); id != "" {
				rids[i] = append(rids[i], id)
			}
		}
		if len(rids[i]) > 0 {
			c.FindAhead(ref.typ, engine.Eq("id", rids[i]...))
		}
	}
	for i, ref := range refs {
		if len(rids[i]) == 0 {
			continue
		}
		recs, err := c.Find(ref.typ, engine.Eq("id", rids[i]...))
		if err != nil {
			return nil, err
		}
		d[ref.typ] = recs
	}
	currencies, err := c.Find(views.TypeCurrencies)
	if err != nil {
		return nil, err
	}
	d[views.TypeCurrencies] = currencies
	return d, nil
}

func byID(recs []*engine.Record) map[string]*engine.Record {
	m := make(map[string]*engine.Record, len(recs))
	for _, r := range recs {
		m[r.ID] = r
	}
	return m
}

// byProject groups records by their pricing scope: a project's own lines
// under its id, a change order's copy under coScope.
func byProject(recs []*engine.Record) map[string][]*engine.Record {
	m := map[string][]*engine.Record{}
	for _, r := range recs {
		m[projectOfPriced(r)] = append(m[projectOfPriced(r)], r)
	}
	return m
}

func priceProjects(c *engine.Call, ids []string, known []*engine.Record) error {
	d, err := loadProjectData(c, ids, known)
	if err != nil {
		return err
	}
	return priceData(c, d, ids)
}

// priceData prices the projects ids from their loaded data into the call's
// cache of runs.
func priceData(c *engine.Call, d projectData, ids []string) (err error) {
	_, end := svcOf(c).Span(c.Ctx, "pricing")
	defer func() { end(err) }()
	acct, err := txAccount(c)
	if err != nil {
		return err
	}
	tables, terms, cats := byID(d[views.TypeRateTables]), byID(d[views.TypePaymentTerms]), byID(d[views.TypeExpenseCategories])
	currencies := map[string]*engine.Record{}
	for _, cur := range d[views.TypeCurrencies] {
		currencies[cur.Str(views.NameCode)] = cur
	}
	groups := map[string]map[string][]*engine.Record{}
	for _, typ := range projectInputTypes {
		groups[typ] = byProject(d[typ])
	}
	for _, proj := range d[views.TypeProjects] {
		g := func(typ string) []*engine.Record { return groups[typ][proj.ID] }
		in, pp := pricingInput(acct, proj, g, tables, terms, cats, currencies)
		pp.in = in
		pp.res, pp.err = svcOf(c).price(in)
		state(c).pricedCache[proj.ID] = pp
	}
	for _, id := range ids { // missing projects price as nothing
		if _, ok := state(c).pricedCache[id]; !ok {
			state(c).pricedCache[id] = &pricedProject{err: engine.NotFound(views.TypeProjects, id)}
		}
	}
	return nil
}

func currencyOf(code string, currencies map[string]*engine.Record) (pricing.Currency, decimal.Decimal) {
	cur := pricing.Currency{Code: code, MinorUnits: 2}
	rate := decimal.NewFromInt(1)
	if r, ok := currencies[code]; ok {
		cur.MinorUnits = int(r.Int(views.NameMinorUnits))
		if d, ok := r.DecOK(views.NameConversionRate); ok {
			rate = d
		}
	}
	return cur, rate
}

// pricingInput describes one project to the pricing engine.
func pricingInput(acct, proj *engine.Record, g func(string) []*engine.Record, tables, terms, cats, currencies map[string]*engine.Record) (*pricing.Project, *pricedProject) {
	pp := &pricedProject{idx: map[typedID]int{}, sub: map[string][2]int{}, recs: map[string][]*engine.Record{}}
	for _, typ := range []string{views.TypeProjectResources, views.TypeProjectPhases, views.TypeProjectLocations, views.TypeProjectServices,
		views.TypeProjectGovernances, views.TypeProjectExpenses, views.TypeProjectProducts} {
		pp.recs[typ] = g(typ)
	}
	defCode := acct.Str(views.NameDefaultCurrency)
	code := defCode
	if t, ok := tables[proj.Rel(views.NameRateTable)]; ok && t.Str(views.NameCurrency) != "" {
		code = t.Str(views.NameCurrency)
	}
	in := &pricing.Project{MRRTerms: int(proj.Int(views.NameMrrTerms)), IncludeExpenses: true,
		RevenueAdjustment: proj.Dec(views.NameRevenueAdjustment), CostAdjustment: proj.Dec(views.NameCostAdjustment)}
	in.Currency, in.ConversionRate = currencyOf(code, currencies)
	in.DefaultCurrency, _ = currencyOf(defCode, currencies)
	if code == defCode {
		in.ConversionRate = decimal.NewFromInt(1)
	}
	if t, ok := terms[proj.Rel(views.NamePaymentTerm)]; ok {
		in.IncludeExpenses, in.IncludeHardware = t.Bool(views.NameIncludeExpenses), t.Bool(views.NameIncludeHardware)
	}
	for i, r := range g(views.TypeProjectResources) {
		pp.idx[typedID{r.Type, r.ID}] = i
		in.Resources = append(in.Resources, pricing.Resource{ID: r.ID, Name: r.Str(views.NameName), Slug: r.Str(views.NameCode),
			HourlyRate: r.Dec(views.NameHourlyRate), HourlyCost: r.Dec(views.NameHourlyCost)})
	}
	for _, r := range g(views.TypeProjectPhases) {
		in.Phases = append(in.Phases, pricing.Phase{ID: r.ID, Name: r.Str(views.NameName), Position: int(r.Int(views.NamePosition))})
	}
	for _, r := range g(views.TypeProjectLocations) {
		in.Locations = append(in.Locations, pricing.Location{ID: r.ID, Name: r.Str(views.NameName)})
	}
	subsOf := map[string][]*engine.Record{}
	for _, r := range g(views.TypeProjectSubservices) {
		subsOf[r.Rel(views.NameProjectService)] = append(subsOf[r.Rel(views.NameProjectService)], r)
	}
	pp.subs = make([][]*engine.Record, len(pp.recs[views.TypeProjectServices]))
	for i, s := range g(views.TypeProjectServices) {
		pp.idx[typedID{s.Type, s.ID}] = i
		pp.subs[i] = subsOf[s.ID]
		line := pricing.Service{ID: s.ID, Name: s.Str(views.NameName), Type: s.Str(views.NameServiceType),
			PaymentFrequency: s.Str(views.NamePaymentFrequency), Quantity: s.Dec(views.NameQuantity), UnitHours: s.Dec(views.NameUnitHours),
			ResourceID: s.Rel(views.NameProjectResource), PhaseID: s.Rel(views.NameProjectPhase), LocationID: s.Rel(views.NameProjectLocation),
			CategoryID: s.Rel(views.NameServiceCategory), Status: s.Str(views.NameStatus), ActualHours: actualHours(s)}
		for j, sub := range subsOf[s.ID] {
			pp.sub[sub.ID] = [2]int{i, j}
			line.Subservices = append(line.Subservices, pricing.Subservice{ID: sub.ID, Name: sub.Str(views.NameName),
				Quantity: sub.Dec(views.NameQuantity), UnitHours: sub.Dec(views.NameUnitHours), ResourceID: sub.Rel(views.NameProjectResource),
				ActualHours: actualHours(sub)})
		}
		in.Services = append(in.Services, line)
	}
	for i, r := range g(views.TypeProjectGovernances) {
		pp.idx[typedID{r.Type, r.ID}] = i
		in.Governance = append(in.Governance, pricing.Governance{ID: r.ID, Name: r.Str(views.NameName),
			CalculationType: r.Str(views.NameCalculationType), Rate: r.Dec(views.NameRate), FixedHours: r.Dec(views.NameFixedHours),
			AllocationMethod: r.Str(views.NameAllocationMethod), FilterType: r.Str(views.NameFilterType),
			ResourceID: r.Rel(views.NameProjectResource), PhaseID: r.Rel(views.NameProjectPhase), CategoryID: r.Rel(views.NameServiceCategory)})
	}
	for i, r := range g(views.TypeProjectExpenses) {
		pp.idx[typedID{r.Type, r.ID}] = i
		e := pricing.Expense{ID: r.ID, Description: r.Str(views.NameDescription), Quantity: r.Dec(views.NameQuantity), Rate: r.Dec(views.NameRate)}
		if cat, ok := cats[r.Rel(views.NameExpenseCategory)]; ok {
			e.Category = cat.Str(views.NameName)
		}
		if uc, ok := r.DecOK(views.NameUnitCost); ok {
			e.UnitCost = decimal.NewNullDecimal(uc)
		}
		in.Expenses = append(in.Expenses, e)
	}
	for i, r := range g(views.TypeProjectProducts) {
		pp.idx[typedID{r.Type, r.ID}] = i
		in.Products = append(in.Products, pricing.Product{ID: r.ID, Name: r.Str(views.NameName), SKU: r.Str(views.NameSku),
			Quantity: r.Dec(views.NameQuantity), UnitPrice: r.Dec(views.NameUnitPrice), UnitCost: r.Dec(views.NameUnitCost)})
	}
	return in, pp
}

// computePrices is the Compute hook of every priced type. Figures stored
// on write are served as they are; only projects whose stored figures are
// stale (storedprices.go) are priced, once per request, and their records'
// figures set from that run. Custom hours compare with the catalog.
func computePrices(_ context.Context, c *engine.Call, recs []*engine.Record) error {
	projects := make(map[string]*engine.Record, len(recs))
	var want []string
	for _, r := range recs {
		if r.Type == views.TypeProjects || r.Type == views.TypeChangeOrders {
			projects[projectOfPriced(r)] = r
		} else if pid := projectOfPriced(r); pid != "" && !slices.Contains(want, pid) {
			want = append(want, pid)
		}
	}
	want = slices.DeleteFunc(want, func(id string) bool { return projects[id] != nil })
	var wantProjects, wantOrders []string
	for _, id := range want {
		if co := changeOrderOf(id); co != "" {
			wantOrders = append(wantOrders, co)
		} else {
			wantProjects = append(wantProjects, id)
		}
	}
	for _, q := range []struct {
		typ string
		ids []string
	}{{views.TypeProjects, wantProjects}, {views.TypeChangeOrders, wantOrders}} {
		if len(q.ids) == 0 {
			continue
		}
		found, err := c.Find(q.typ, engine.Eq("id", q.ids...))
		if err != nil {
			return err
		}
		for _, p := range found {
			projects[projectOfPriced(p)] = p
		}
	}
	acct, fromActor, err := figuresAccount(c)
	if err != nil {
		return err
	}
	stale, ids, known := staleProjects(recs, projects, acct)
	if fromActor && len(ids) > 0 {
		// some figures carry another epoch than the actor's account: the
		// account as this transaction sees it decides
		if acct, err = txAccount(c); err != nil {
			return err
		}
		stale, ids, known = staleProjects(recs, projects, acct)
	}
	if len(ids) > 0 {
		if _, err := priced(c, ids, known); err != nil {
			return err
		}
	}
	var catalog map[string]*engine.Record // catalog hours, for custom-hours
	for i, r := range recs {
		copied := false
		change := func() { // a copy: the records may be shared (engine.TypeDef.ComputeCopies)
			if !copied {
				r, copied = r.Clone(), true
				recs[i] = r
			}
		}
		if stale[projectOfPriced(r)] {
			change()
			setFigures(c, r)
		}
		if r.Type == views.TypeProjectServices || r.Type == views.TypeProjectSubservices {
			if catalog == nil {
				var err error
				if catalog, err = catalogLines(c, recs); err != nil {
					return err
				}
			}
			change()
			r.Attrs[views.NameCustomHours] = customHours(r, catalog)
		}
	}
	return nil
}

// figuresAccount returns the account stored figures are checked against.
// A read takes the actor's (kept in memory, and as new as the request
// where the store is shared: auth.Syncer) when fromActor: figures that
// carry its price epoch are served as stored, as of when the request
// began, without reading the account again. A write, or a call that has
// read the account already, takes the account as its transaction sees it.
func figuresAccount(c *engine.Call) (acct *engine.Record, fromActor bool, err error) {
	if _, write := c.Tx.(*pricingTx); !write && state(c).acct == nil {
		if a := c.Actor.Account; a != nil && a.ID == c.AccountID() {
			return a, true, nil
		}
	}
	acct, err = txAccount(c)
	return acct, false, err
}

// staleProjects returns the projects of recs whose figures are not those
// of acct's price epoch: by id, in order, and those of them at hand.
func staleProjects(recs []*engine.Record, projects map[string]*engine.Record, acct *engine.Record) (map[string]bool, []string, []*engine.Record) {
	epoch, _ := epochOf(acct, priceEpochAttr)
	stale := map[string]bool{}
	var ids []string
	var known []*engine.Record
	for _, r := range recs {
		pid := projectOfPriced(r)
		if stale[pid] || pid == "" {
			continue
		}
		if p := projects[pid]; p == nil || !pricesFresh(p, epoch) {
			stale[pid] = true
			ids = append(ids, pid)
			if p != nil && p.Type == views.TypeProjects {
				known = append(known, p)
			}
		}
	}
	return stale, ids, known
}

// projectOfPriced returns the pricing scope a priced record belongs to:
// its project, or its change order's copy (coScope).
func projectOfPriced(r *engine.Record) string {
	switch r.Type {
	case views.TypeProjects:
		return r.ID
	case views.TypeChangeOrders:
		return coScope(r.ID)
	}
	if co := r.Rel(views.NameChangeOrder); co != "" {
		return coScope(co)
	}
	return r.Rel(views.NameProject)
}

// setFigures sets the price figures of r from the call's pricing run of its
// project (none when the project could not be priced: a read never fails
// for pricing) and reports whether they changed.
func setFigures(c *engine.Call, r *engine.Record) bool {
	names := figureAttrs[r.Type]
	var vals [6]any // by position in names; nil: no figure
	put := func(name string, f pricing.Fixed) { vals[slices.Index(names, name)] = f.String() }
	if pp := state(c).pricedCache[projectOfPriced(r)]; pp != nil {
		if (r.Type == views.TypeProjects || r.Type == views.TypeChangeOrders) && pp.in != nil {
			vals[0] = pp.in.Currency.Code
		}
		if pp.err == nil {
			lineFigures(r, pp, put)
		}
	}
	changed := false
	for i, n := range names {
		if vals[i] == nil {
			if _, ok := r.Attrs[n]; ok {
				delete(r.Attrs, n)
				changed = true
			}
			continue
		}
		if old, ok := r.Attrs[n].(string); !ok || old != vals[i] {
			r.Attrs[n] = vals[i]
			changed = true
		}
	}
	return changed
}

// lineFigures passes the figures of r in the run pp to put.
func lineFigures(r *engine.Record, pp *pricedProject, put func(string, pricing.Fixed)) {
	res := pp.res
	switch r.Type {
	case views.TypeProjects, views.TypeChangeOrders:
		put(views.NameTotalHours, res.TotalHours())
		put(views.NameContractRevenue, res.TotalContractValue)
		put(views.NameContractCost, res.TotalContractCost)
		put(views.NameContractProfit, res.TotalContractProfit)
		put(views.NameContractMargin, res.TotalContractMargin)
	case views.TypeProjectServices, views.TypeProjectSubservices:
		var f pricing.LineFigures
		if r.Type == views.TypeProjectServices {
			i, ok := pp.idx[typedID{r.Type, r.ID}]
			if !ok {
				return
			}
			f = res.Service(i)
			put(views.NameTotalHours, f.TotalHours)
		} else {
			ij, ok := pp.sub[r.ID]
			if !ok {
				return
			}
			f = res.Subservice(ij[0], ij[1])
		}
		put(views.NameExtendedHours, f.ExtendedHours)
		put(views.NameRevenue, f.Revenue)
		put(views.NameCost, f.Cost)
	case views.TypeProjectGovernances:
		if i, ok := pp.idx[typedID{r.Type, r.ID}]; ok {
			it := res.ProjectGovernance.Items[i]
			put(views.NameHours, it.Hours)
			put(views.NameRevenue, it.Revenue)
			put(views.NameCost, it.Cost)
		}
	case views.TypeProjectExpenses, views.TypeProjectProducts:
		i, ok := pp.idx[typedID{r.Type, r.ID}]
		if !ok {
			return
		}
		var revenue, cost, profit pricing.Fixed
		if r.Type == views.TypeProjectExpenses {
			it := res.TravelAndExpense.Items[i]
			revenue, cost, profit = it.Revenue, it.Cost, it.Profit
		} else {
			it := res.Materials.Items[i]
			revenue, cost, profit = it.Revenue, it.Cost, it.Profit
		}
		put(views.NameRevenue, revenue)
		put(views.NameCost, cost)
		put(views.NameProfit, profit)
	case views.TypeProjectResources:
		if i, ok := pp.idx[typedID{r.Type, r.ID}]; ok {
			f := res.Resource(i)
			put(views.NameTotalHours, f.TotalHours)
			put(views.NameRevenue, f.Revenue)
			put(views.NameCost, f.Cost)
		}
	}
}
