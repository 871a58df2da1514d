package scoping

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Snapshot reads a project and everything around it in one transaction and
// prices it once, as a views.Snapshot (the type lives with the views, so
// that its readers need not import the domain): what a project's page
// shows, under projects view.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a missing
// project or one outside the actor's visibility; EINVALID when it cannot
// be priced.
func (s *Service) Snapshot(ctx context.Context, a *engine.Actor, projectID string) (*views.Snapshot, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	return s.snapshot(ctx, a, projectID)
}

// MergeData reads the snapshot merge data is built from (package
// mergedata): Snapshot's, under merge_data view (docs/mergedata.md), which
// opens merge data to a role that may not read projects otherwise.
func (s *Service) MergeData(ctx context.Context, a *engine.Actor, projectID string) (*views.Snapshot, error) {
	if err := a.Require("merge_data", false); err != nil {
		return nil, err
	}
	return s.snapshot(ctx, a, projectID)
}

// UpdateLine changes a line of a project (a record of one of the types a
// pricing run reads: a project service, subservice, governance item,
// expense, product, resource, phase or location) as Update does, and
// answers with the project's snapshot as the write left it, in the same
// transaction: its pricing run is the one the write stored its figures
// from, not a second one (what a page redrawn after an edit shows).
//
// Errors: Update's; EBADREQUEST for a type that is no line of a project.
func (s *Service) UpdateLine(ctx context.Context, a *engine.Actor, typ, id string, in *engine.Input) (*views.Snapshot, error) {
	if !slices.Contains(projectInputTypes, typ) {
		return nil, scopekit.Errorf(scopekit.EBADREQUEST, "%s is not a line of a project", typ)
	}
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	var snap *views.Snapshot
	_, err := s.eng.UpdateThen(ctx, a, typ, id, in, engine.Options{}, func(ctx context.Context, read *engine.Call, rec *engine.Record) error {
		pid := rec.Rel(views.NameProject)
		if w := read.Write; w != nil {
			if ptx, ok := w.Tx.(*pricingTx); ok && !ptx.touched {
				if pp := ptx.runs[lineKey(read.AccountID(), pid)]; pp != nil {
					state(read).pricedCache = map[string]*pricedProject{pid: pp}
				}
			}
		}
		var err error
		snap, err = s.snapshotIn(ctx, read, pid)
		return err
	})
	if err != nil {
		return nil, err
	}
	return snap, nil
}

// snapshot reads the snapshot of a project visible to a.
func (s *Service) snapshot(ctx context.Context, a *engine.Actor, projectID string) (*views.Snapshot, error) {
	var snap *views.Snapshot
	err := s.read(ctx, a, func(c *engine.Call) (err error) {
		snap, err = s.snapshotIn(ctx, c, projectID)
		return err
	})
	return snap, err
}

// snapshotIn reads the snapshot of a project visible to the call's actor,
// archived or not, in the call's transaction.
func (s *Service) snapshotIn(ctx context.Context, c *engine.Call, projectID string) (*views.Snapshot, error) {
	def := mustLookup(s.Schema(), views.TypeProjects)
	proj, err := c.GetVisible(ctx, def, projectID, engine.AnyActive(def))
	if err != nil {
		return nil, err
	}
	runs, err := priced(c, []string{proj.ID}, []*engine.Record{proj})
	if err != nil {
		return nil, err
	}
	pp := runs[proj.ID]
	snap, err := snapshotOf(c, proj, pp)
	if err != nil {
		return nil, err
	}
	held, err := heldVersion(c, proj, pp)
	if err != nil {
		return nil, err
	}
	snap.Version = viewOf[views.ProjectVersion](held)
	return snap, fillSnapshot(c, snap)
}

// snapshotOf is the snapshot of proj's scope as the pricing run pp has it
// (without the records around it: fillSnapshot).
func snapshotOf(c *engine.Call, proj *engine.Record, pp *pricedProject) (*views.Snapshot, error) {
	if pp.err != nil {
		return nil, pp.err
	}
	delivery, err := pricing.DeliveryFigures(pp.in, pp.res)
	if err != nil {
		return nil, err
	}
	snap := &views.Snapshot{Account: views.Account{Record: c.Actor.Account}, Project: views.Project{Record: proj},
		Pricing: pp.res, Delivery: delivery,
		Locations:   views.Of[views.ProjectLocation](pp.recs[views.TypeProjectLocations]),
		Phases:      views.Of[views.ProjectPhase](pp.recs[views.TypeProjectPhases]),
		Resources:   views.Of[views.ProjectResource](pp.recs[views.TypeProjectResources]),
		Services:    views.Of[views.ProjectService](pp.recs[views.TypeProjectServices]),
		Subservices: make([][]views.ProjectSubservice, len(pp.subs)),
		Governance:  views.Of[views.ProjectGovernance](pp.recs[views.TypeProjectGovernances]),
		Expenses:    views.Of[views.ProjectExpense](pp.recs[views.TypeProjectExpenses]),
		Products:    views.Of[views.ProjectProduct](pp.recs[views.TypeProjectProducts])}
	for i, subs := range pp.subs {
		snap.Subservices[i] = views.Of[views.ProjectSubservice](subs)
	}
	return snap, nil
}

// fillSnapshot reads the records around the project: one query per type,
// never one per line.
func fillSnapshot(c *engine.Call, snap *views.Snapshot) error {
	p := snap.Project
	one := func(typ, id string) *engine.Record {
		if id == "" {
			return nil
		}
		r, err := c.Get(typ, id)
		if err != nil {
			return nil // a dangling reference reads as empty
		}
		return r
	}
	snap.Client = viewOf[views.Client](one(views.TypeClients, p.Client()))
	snap.LineOfBusiness = viewOf[views.LineOfBusiness](one(views.TypeLinesOfBusiness, p.LineOfBusiness()))
	snap.SalesExecutive = viewOf[views.User](one(views.TypeUsers, p.SalesExecutive()))
	snap.PresalesEngineer = viewOf[views.User](one(views.TypeUsers, p.PresalesEngineer()))
	snap.PaymentTerm = viewOf[views.PaymentTerm](one(views.TypePaymentTerms, p.PaymentTerm()))
	snap.RateTable = viewOf[views.RateTable](one(views.TypeRateTables, p.RateTable()))

	tms, err := c.Find(views.TypeProjectTeammates, engine.Eq(views.NameProject, p.ID), engine.Cond{Field: views.NameRemovedAt, Op: engine.OpNull})
	if err != nil {
		return err
	}
	uids := make([]string, 0, len(tms))
	for _, t := range tms {
		uids = append(uids, views.ProjectTeammate{Record: t}.User())
	}
	if len(uids) > 0 {
		users, err := c.Find(views.TypeUsers, engine.Eq("id", uids...))
		if err != nil {
			return err
		}
		byUser := byID(users)
		for _, id := range uids {
			if u, ok := byUser[id]; ok {
				snap.Teammates = append(snap.Teammates, views.User{Record: u})
			}
		}
	}
	if err := fillCatalog(c, snap); err != nil {
		return err
	}
	terms, err := c.Find(views.TypeGeneralTerms, engine.Eq(views.NameActive, "true"))
	if err != nil {
		return err
	}
	sortByPosition(terms)
	snap.GeneralTerms = views.Of[views.GeneralTerm](terms)
	code := c.Actor.Account.Str(views.NameDefaultCurrency)
	if t := snap.RateTable; t != nil && t.Currency() != "" {
		code = t.Currency()
	}
	curs, err := c.Find(views.TypeCurrencies, engine.Eq(views.NameCode, code))
	if err != nil {
		return err
	}
	if len(curs) > 0 {
		snap.Currency = &views.Currency{Record: curs[0]}
	}
	snap.SurveyAnswers, err = surveyAnswers(c, p.ID)
	return err
}

// fillCatalog reads the catalog records the snapshot's lines refer to.
func fillCatalog(c *engine.Call, snap *views.Snapshot) error {
	var services, categories, lobs, subservices, phases, expenseCats []string
	add := func(ids *[]string, id string) {
		if id != "" {
			*ids = append(*ids, id)
		}
	}
	for _, s := range snap.Services {
		add(&services, s.Service())
		add(&categories, s.ServiceCategory())
		add(&lobs, s.LineOfBusiness())
	}
	for _, subs := range snap.Subservices {
		for _, s := range subs {
			add(&subservices, s.Subservice())
		}
	}
	for _, ph := range snap.Phases {
		add(&phases, ph.Phase())
	}
	for _, e := range snap.Expenses {
		add(&expenseCats, e.ExpenseCategory())
	}
	cat := &snap.Catalog
	var err error
	if cat.Services, err = findViews[views.Service](c, views.TypeServices, services); err != nil {
		return err
	}
	if cat.ServiceCategories, err = findViews[views.ServiceCategory](c, views.TypeServiceCategories, categories); err != nil {
		return err
	}
	if cat.LinesOfBusiness, err = findViews[views.LineOfBusiness](c, views.TypeLinesOfBusiness, lobs); err != nil {
		return err
	}
	if cat.Subservices, err = findViews[views.Subservice](c, views.TypeSubservices, subservices); err != nil {
		return err
	}
	if cat.Phases, err = findViews[views.Phase](c, views.TypePhases, phases); err != nil {
		return err
	}
	cat.ExpenseCategories, err = findViews[views.ExpenseCategory](c, views.TypeExpenseCategories, expenseCats)
	return err
}

// findViews reads the records of type typ with the given ids as views by
// id; nil without ids.
func findViews[V views.View](c *engine.Call, typ string, ids []string) (map[string]V, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	recs, err := c.Find(typ, engine.Eq("id", ids...))
	if err != nil {
		return nil, err
	}
	out := make(map[string]V, len(recs))
	for _, r := range recs {
		out[r.ID] = V{r}
	}
	return out, nil
}

// viewOf returns r as a view, nil for no record.
func viewOf[V views.View](r *engine.Record) *V {
	if r == nil {
		return nil
	}
	return &V{r}
}
