package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Snapshot is a project with everything its documents and merge data are
// filled from, read in one transaction, with its pricing run. The record
// lists follow the pricing input: Services[i] is priced as
// Pricing.Service(i), Subservices[i][j] as Pricing.Subservice(i, j),
// Resources[i] as Pricing.Resource(i), and Governance, Expenses and
// Products[i] as the i-th item of their pricing section.
type Snapshot struct {
	Account *Record
	Project *Record
	// Related records of the project; nil when the relationship is empty.
	Client, LineOfBusiness, SalesExecutive, PresalesEngineer, PaymentTerm, RateTable *Record
	// Teammates are the users on the project, removed teammates excluded,
	// in the order they were added.
	Teammates []*Record
	Locations []*Record
	Phases    []*Record
	Resources []*Record
	Services  []*Record
	// Subservices[i] are the subservices of Services[i].
	Subservices [][]*Record
	Governance  []*Record
	Expenses    []*Record
	Products    []*Record
	// Catalog holds the catalog records the lines refer to, by type and id
	// ("services", "subservices", "service-categories",
	// "expense-categories", "lines-of-business", "phases").
	Catalog map[string]map[string]*Record
	// Currency is the currency record of the project's currency (nil when
	// the account has none for it).
	Currency *Record
	Pricing  *pricing.Result
	// Delivery are the project's delivery figures, from the same pricing
	// run.
	Delivery *pricing.Delivery
}

// Snapshot reads a project and everything around it in one transaction and
// prices it once. guard is the permission the caller's use needs at view
// level (merge_data for merge data).
//
// Errors: EFORBIDDEN without guard view; ENOTFOUND for a missing project or
// one outside the actor's visibility; EINVALID when it cannot be priced.
func (s *Service) Snapshot(ctx context.Context, a *Actor, projectID, guard string) (*Snapshot, error) {
	if err := a.Require(guard, false); err != nil {
		return nil, err
	}
	return s.snapshot(ctx, a, projectID)
}

// snapshot reads the snapshot of a project visible to a.
func (s *Service) snapshot(ctx context.Context, a *Actor, projectID string) (*Snapshot, error) {
	def := mustLookup(s.Schema(), views.TypeProjects)
	var snap *Snapshot
	err := s.read(ctx, a, func(c *Call) error {
		proj, err := c.GetVisible(ctx, def, projectID, engine.AnyActive(def))
		if err != nil {
			return err
		}
		runs, err := priced(c, []string{proj.ID}, []*Record{proj})
		if err != nil {
			return err
		}
		pp := runs[proj.ID]
		if pp.err != nil {
			return pp.err
		}
		delivery, err := pricing.DeliveryFigures(pp.in, pp.res)
		if err != nil {
			return err
		}
		snap = &Snapshot{Account: a.Account, Project: proj, Pricing: pp.res, Delivery: delivery,
			Locations: pp.recs[views.TypeProjectLocations], Phases: pp.recs[views.TypeProjectPhases],
			Resources: pp.recs[views.TypeProjectResources], Services: pp.recs[views.TypeProjectServices], Subservices: pp.subs,
			Governance: pp.recs[views.TypeProjectGovernances], Expenses: pp.recs[views.TypeProjectExpenses],
			Products: pp.recs[views.TypeProjectProducts]}
		return fillSnapshot(c, snap)
	})
	return snap, err
}

// fillSnapshot reads the records around the project: one query per type,
// never one per line.
func fillSnapshot(c *Call, snap *Snapshot) error {
	p := snap.Project
	one := func(typ, rel string) (*Record, error) {
		id := p.Rel(rel)
		if id == "" {
			return nil, nil
		}
		r, err := c.Get(typ, id)
		if err != nil {
			return nil, nil // a dangling reference reads as empty
		}
		return r, nil
	}
	var err error
	for _, f := range []struct {
		dst      **Record
		typ, rel string
	}{{&snap.Client, views.TypeClients, views.NameClient}, {&snap.LineOfBusiness, views.TypeLinesOfBusiness, views.NameLineOfBusiness},
		{&snap.SalesExecutive, views.TypeUsers, views.NameSalesExecutive}, {&snap.PresalesEngineer, views.TypeUsers, views.NamePresalesEngineer},
		{&snap.PaymentTerm, views.TypePaymentTerms, views.NamePaymentTerm}, {&snap.RateTable, views.TypeRateTables, views.NameRateTable}} {
		if *f.dst, err = one(f.typ, f.rel); err != nil {
			return err
		}
	}
	tms, err := c.Find(views.TypeProjectTeammates, Eq(views.NameProject, p.ID), Cond{Field: views.NameRemovedAt, Op: OpNull})
	if err != nil {
		return err
	}
	uids := make([]string, 0, len(tms))
	for _, t := range tms {
		uids = append(uids, t.Rel(views.NameUser))
	}
	if len(uids) > 0 {
		users, err := c.Find(views.TypeUsers, Eq("id", uids...))
		if err != nil {
			return err
		}
		byUser := byID(users)
		for _, id := range uids {
			if u, ok := byUser[id]; ok {
				snap.Teammates = append(snap.Teammates, u)
			}
		}
	}
	snap.Catalog = map[string]map[string]*Record{}
	refs := map[string][]string{}
	add := func(typ, id string) {
		if id != "" {
			refs[typ] = append(refs[typ], id)
		}
	}
	for _, s := range snap.Services {
		add(views.TypeServices, s.Rel(views.NameService))
		add(views.TypeServiceCategories, s.Rel(views.NameServiceCategory))
		add(views.TypeLinesOfBusiness, s.Rel(views.NameLineOfBusiness))
	}
	for _, subs := range snap.Subservices {
		for _, s := range subs {
			add(views.TypeSubservices, s.Rel(views.NameSubservice))
		}
	}
	for _, ph := range snap.Phases {
		add(views.TypePhases, ph.Rel(views.NamePhase))
	}
	for _, e := range snap.Expenses {
		add(views.TypeExpenseCategories, e.Rel(views.NameExpenseCategory))
	}
	for typ, ids := range refs {
		recs, err := c.Find(typ, Eq("id", ids...))
		if err != nil {
			return err
		}
		snap.Catalog[typ] = byID(recs)
	}
	code := c.Actor.Account.Str(views.NameDefaultCurrency)
	if snap.RateTable != nil && snap.RateTable.Str(views.NameCurrency) != "" {
		code = snap.RateTable.Str(views.NameCurrency)
	}
	curs, err := c.Find(views.TypeCurrencies, Eq(views.NameCode, code))
	if err != nil {
		return err
	}
	if len(curs) > 0 {
		snap.Currency = curs[0]
	}
	return nil
}
