package scoping

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Adding catalog services to projects: a project service created with a
// `service` relationship copies the catalog service (name, hours, type,
// phase, line of business, category, resource, subservices); what the
// request sends wins over what is copied.

// projectResourceDefaults fills a project resource from its catalog
// resource (fromCatalogResource) where the request does not set it.
func projectResourceDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	rid := views.ProjectResource{Record: rec}.Resource()
	if rid == "" {
		return nil
	}
	res, err := c.Get(views.TypeResources, rid)
	if err != nil {
		return nil // reported by the reference check
	}
	return fromCatalogResource(c, rec, res, c.Given)
}

// fromCatalogResource sets what a project resource takes from its catalog
// resource res: the name, the external name, and the rate and cost of the
// project's rate table (else the resource's own), each unless given says
// the request sets it. It is the one derivation of a project resource:
// for an API create (projectResourceDefaults) and for the resources a
// project derives (ensureProjectResource).
func fromCatalogResource(c *engine.Call, rec, res *engine.Record, given func(attr string) bool) error {
	if !given(views.NameName) {
		rec.Attrs[views.NameName] = res.Attrs[views.NameName]
	}
	if !given(views.NameExternalName) && res.Attrs[views.NameExternalName] != nil {
		rec.Attrs[views.NameExternalName] = res.Attrs[views.NameExternalName]
	}
	rate, cost, err := resourceRate(c, views.ProjectResource{Record: rec}.Project(), res)
	if err != nil {
		return err
	}
	if !given(views.NameHourlyRate) && rate != nil {
		rec.Attrs[views.NameHourlyRate] = rate
	}
	if !given(views.NameHourlyCost) && cost != nil {
		rec.Attrs[views.NameHourlyCost] = cost
	}
	return nil
}

// resourceRate returns the rate and cost of a catalog resource for a
// project: from the project's rate table when it has a rate for the
// resource, else the resource's own converted into the project's currency
// (pricing.md, "Currency"). A table's rates are in its currency already.
func resourceRate(c *engine.Call, projectID string, res *engine.Record) (rate, cost any, err error) {
	conv, err := catalogConversion(c, projectID)
	if err != nil {
		return nil, nil, err
	}
	rate, cost = conv.of(res.Attrs[views.NameHourlyRate]), conv.of(res.Attrs[views.NameHourlyCost])
	if conv.table == "" {
		return rate, cost, nil
	}
	rates, err := c.Find(views.TypeResourceRates, engine.Eq(views.NameRateTable, conv.table), engine.Eq(views.NameResource, res.ID))
	if err != nil || len(rates) == 0 {
		return rate, cost, err
	}
	if v := rates[0].Attrs[views.NameHourlyRate]; v != nil {
		rate = v
	}
	if v := rates[0].Attrs[views.NameHourlyCost]; v != nil {
		cost = v
	}
	return rate, cost, nil
}

// lineScope is the scope a line belongs to: a project's own lines, or a
// change order's copy.
type lineScope struct{ project, changeOrder string }

// scopeOfLine returns the scope of a line.
func scopeOfLine(r *engine.Record) lineScope {
	return lineScope{project: r.Rel(views.NameProject), changeOrder: r.Rel(views.NameChangeOrder)}
}

// where are the conditions that find the scope's lines.
func (s lineScope) where() []engine.Cond {
	if s.changeOrder != "" {
		return []engine.Cond{engine.Eq(views.NameChangeOrder, s.changeOrder)}
	}
	return []engine.Cond{engine.Eq(views.NameProject, s.project), {Field: views.NameChangeOrder, Op: engine.OpNull}}
}

// stamp puts a new line in the scope.
func (s lineScope) stamp(r *engine.Record) {
	r.SetRel(views.NameProject, s.project)
	r.SetRel(views.NameChangeOrder, s.changeOrder)
}

// ensureProjectResource returns the scope's resource for a catalog
// resource, creating it when the scope has none: a derived record, built
// whole (fromCatalogResource) and written raw (doc.go).
func ensureProjectResource(c *engine.Call, scope lineScope, resourceID string) (string, error) {
	found, err := c.Find(views.TypeProjectResources, append(scope.where(), engine.Eq(views.NameResource, resourceID))...)
	if err != nil || len(found) > 0 {
		if len(found) > 0 {
			return found[0].ID, nil
		}
		return "", err
	}
	res, err := c.Get(views.TypeResources, resourceID)
	if err != nil {
		return "", absent(err)
	}
	pr := engine.NewRecord(views.TypeProjectResources, c.AccountID())
	scope.stamp(pr)
	pr.SetRel(views.NameResource, resourceID)
	if err := fromCatalogResource(c, pr, res, func(string) bool { return false }); err != nil {
		return "", err
	}
	if err := c.Tx.Insert(pr); err != nil {
		return "", err
	}
	return pr.ID, nil
}

// ensureProjectPhase returns the scope's phase for a catalog phase,
// creating it when the scope has none.
func ensureProjectPhase(c *engine.Call, scope lineScope, phaseID string) (string, error) {
	found, err := c.Find(views.TypeProjectPhases, append(scope.where(), engine.Eq(views.NamePhase, phaseID))...)
	if err != nil || len(found) > 0 {
		if len(found) > 0 {
			return found[0].ID, nil
		}
		return "", err
	}
	ph, err := c.Get(views.TypePhases, phaseID)
	if err != nil {
		return "", absent(err)
	}
	pp := engine.NewRecord(views.TypeProjectPhases, c.AccountID())
	scope.stamp(pp)
	pp.SetRel(views.NamePhase, phaseID)
	for _, a := range []string{views.NameName, views.NamePosition, views.NameSowLanguage} {
		if v := ph.Attrs[a]; v != nil {
			pp.Attrs[a] = v
		}
	}
	if err := c.Tx.Insert(pp); err != nil {
		return "", err
	}
	return pp.ID, nil
}

// projectServiceDefaults copies the catalog service named by a new project
// service.
func projectServiceDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	ps := views.ProjectService{Record: rec}
	sid, pid := ps.Service(), ps.Project()
	if sid == "" || pid == "" {
		return nil
	}
	svc, err := c.Get(views.TypeServices, sid)
	if err != nil {
		return nil // reported by the reference check
	}
	if _, err := c.Get(views.TypeProjects, pid); err != nil {
		return nil
	}
	for dst, src := range serviceCopies {
		if !c.Given(dst) && svc.Attrs[src] != nil {
			rec.Attrs[dst] = svc.Attrs[src]
		}
	}
	for _, r := range []string{views.NameLineOfBusiness, views.NameServiceCategory} {
		if !c.Given(r) && svc.Rel(r) != "" {
			rec.SetRel(r, svc.Rel(r))
		}
	}
	if ph := (views.Service{Record: svc}).Phase(); !c.Given(views.NameProjectPhase) && ph != "" {
		id, err := ensureProjectPhase(c, scopeOfLine(rec), ph)
		if err != nil {
			return err
		}
		rec.SetRel(views.NameProjectPhase, id)
	}
	if r := (views.Service{Record: svc}).Resource(); !c.Given(views.NameProjectResource) && r != "" {
		id, err := ensureProjectResource(c, scopeOfLine(rec), r)
		if err != nil {
			return err
		}
		rec.SetRel(views.NameProjectResource, id)
	}
	return nil
}

// serviceCopies are the attributes a project service copies from its
// catalog service, by the project service's attribute.
var serviceCopies = map[string]string{views.NameName: views.NameName, views.NameUnitHours: views.NameHours,
	views.NameServiceType: views.NameServiceType, views.NamePaymentFrequency: views.NamePaymentFrequency,
	views.NameServiceDescription: views.NameDescription, views.NameSku: views.NameSku, views.NamePosition: views.NamePosition}

// subserviceCopies are the attributes a project subservice copies from its
// catalog subservice, by the project subservice's attribute.
var subserviceCopies = map[string]string{views.NameName: views.NameName, views.NameQuantity: views.NameQuantity,
	views.NameUnitHours: views.NameHours, views.NamePosition: views.NamePosition}

// copySubservices adds the active subservices of the catalog service to a
// newly created project service.
func copySubservices(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	psv := views.ProjectService{Record: rec}
	if old != nil || psv.Service() == "" {
		return nil
	}
	subs, err := c.Find(views.TypeSubservices, engine.Eq(views.NameService, psv.Service()), engine.Eq(views.NameActive, "true"))
	if err != nil {
		return err
	}
	for _, s := range subs {
		ps := engine.NewRecord(views.TypeProjectSubservices, c.AccountID())
		ps.SetRel(views.NameProjectService, rec.ID)
		scopeOfLine(rec).stamp(ps)
		ps.SetRel(views.NameSubservice, s.ID)
		for dst, src := range subserviceCopies {
			if v := s.Attrs[src]; v != nil {
				ps.Attrs[dst] = v
			}
		}
		if r := (views.Subservice{Record: s}).Resource(); r != "" {
			id, err := ensureProjectResource(c, scopeOfLine(rec), r)
			if err != nil {
				return err
			}
			ps.SetRel(views.NameProjectResource, id)
		}
		if err := c.Tx.Insert(ps); err != nil {
			return err
		}
	}
	return nil
}

// ServiceToAdd is what AddService adds to a project.
type ServiceToAdd struct {
	// Input is the project service as a create of project-services takes
	// it: the project and the catalog service (relationships), and what
	// the request sets itself (quantity, the project's phase, resource or
	// location, ...); what it leaves out is copied from the catalog
	// service.
	Input *engine.Input
	// Phase and Resource, when set, name a phase and a resource of the
	// catalog to put the service on: the project's own is used, derived
	// from the catalog's when the project has none yet, as for the
	// catalog service's own phase and resource. Each excludes the
	// project's phase (resource) in Input.
	Phase, Resource string
}

// AddService adds a catalog service to a project: the one use case
// behind a create of project-services, whatever the adapter (the REST
// route, MCP's scopekit_add_service_to_project, the workspace). The
// catalog service is copied (name, hours, type, phase, line of business,
// category, resource, subservices; what the input sets wins), and the
// project gets its own phase and resource for catalog ones, in the same
// transaction.
//
// Errors: those of Create; EINVALID naming project-phase or
// project-resource for a catalog phase or resource not in the account,
// or given beside the project's own.
func (s *Service) AddService(ctx context.Context, a *engine.Actor, add ServiceToAdd, opts engine.Options) (*engine.Result, error) {
	in := add.Input
	if in == nil {
		in = &engine.Input{}
	}
	if add.Phase == "" && add.Resource == "" {
		return s.eng.Create(ctx, a, views.TypeProjectServices, in, opts)
	}
	return s.eng.CreateAfter(ctx, a, views.TypeProjectServices, in, opts, func(c *engine.Call) error {
		var pid, co string
		if r := in.Rels[views.NameProject].Refs; len(r) == 1 {
			pid = r[0].ID
		}
		if r := in.Rels[views.NameChangeOrder].Refs; len(r) == 1 {
			co = r[0].ID
		}
		if pid == "" {
			return nil // the create reports the missing project
		}
		projDef := mustLookup(s.Schema(), views.TypeProjects)
		if _, err := c.GetVisible(ctx, projDef, pid, nil); err != nil {
			return err
		}
		return catalogPlaces(c, lineScope{project: pid, changeOrder: co}, in, add.Phase, add.Resource)
	})
}

// UpdateService changes a project service (id) as an update of
// project-services takes upd.Input; upd.Phase and upd.Resource name a
// phase and a resource of the catalog as for AddService: the line's own
// scope's (its project's, or its change order's) are used, derived from
// the catalog's in the same transaction when there are none yet. The one
// use case behind MCP's scopekit_update_project_service.
//
// Errors: those of Update; EINVALID as AddService's.
func (s *Service) UpdateService(ctx context.Context, a *engine.Actor, id string, upd ServiceToAdd, opts engine.Options) (*engine.Result, error) {
	in := upd.Input
	if in == nil {
		in = &engine.Input{}
	}
	if upd.Phase == "" && upd.Resource == "" {
		return s.eng.Update(ctx, a, views.TypeProjectServices, id, in, opts)
	}
	def, err := s.eng.WritableType(a, views.TypeProjectServices)
	if err != nil {
		return nil, err
	}
	if _, err := s.eng.Write(ctx, a, opts, in.Meta, func(c *engine.Call) error {
		old, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		if err := catalogPlaces(c, scopeOfLine(old), in, upd.Phase, upd.Resource); err != nil {
			return err
		}
		_, err = c.UpdateRecord(ctx, def, old, in)
		return err
	}); err != nil {
		return nil, err
	}
	return s.eng.Get(ctx, a, views.TypeProjectServices, id, engine.ListParams{}, opts)
}

// catalogPlaces points in at the scope's own phase and resource for the
// catalog's phase and resource ids (each "" for none), made in c's
// transaction when the scope has none.
func catalogPlaces(c *engine.Call, scope lineScope, in *engine.Input, phase, resource string) error {
	for _, d := range []struct {
		id, rel, typ, what, noun string
		ensure                   func(c *engine.Call, scope lineScope, id string) (string, error)
	}{
		{phase, views.NameProjectPhase, views.TypeProjectPhases, views.TypePhases, "phase", ensureProjectPhase},
		{resource, views.NameProjectResource, views.TypeProjectResources, views.TypeResources, "resource", ensureProjectResource},
	} {
		if d.id == "" {
			continue
		}
		if _, given := in.Rels[d.rel]; given {
			return scopekit.FieldErrorf(scopekit.EINVALID, engine.RelPointer(d.rel), "give a %s of the project or of the catalog, not both", d.noun)
		}
		if _, err := c.Get(d.what, d.id); err != nil {
			if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
				return scopekit.FieldErrorf(scopekit.EINVALID, engine.RelPointer(d.rel), "%s %s does not exist in this account", d.what, d.id)
			}
			return err
		}
		id, err := d.ensure(c, scope, d.id)
		if err != nil {
			return err
		}
		if in.Rels == nil {
			in.Rels = map[string]engine.RelInput{}
		}
		in.Rels[d.rel] = engine.RelInput{Refs: []engine.Ref{{Type: d.typ, ID: id}}}
	}
	return nil
}

// ApplyBlueprint adds every active service of the blueprint to the project,
// each with its blueprint item's quantity, and returns the created project
// services.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND for a project
// outside the actor's visibility; EINVALID for a blueprint not in the
// account.
func (s *Service) ApplyBlueprint(ctx context.Context, a *engine.Actor, projectID, blueprintID string) (*engine.Result, error) {
	if err := a.Require("projects", true); err != nil {
		return nil, err
	}
	psDef := mustLookup(s.Schema(), views.TypeProjectServices)
	projDef := mustLookup(s.Schema(), views.TypeProjects)
	var created []*engine.Record
	res := &engine.Result{}
	_, err := s.eng.WriteThenRead(ctx, a, engine.Options{}, nil, func(c *engine.Call) error {
		if _, err := c.GetVisible(ctx, projDef, projectID, nil); err != nil {
			return err
		}
		if _, err := c.Get(views.TypeBlueprints, blueprintID); err != nil {
			return scopekit.FieldErrorf(scopekit.EINVALID, "/data/id", "blueprints %s does not exist in this account", blueprintID)
		}
		items, err := c.Find(views.TypeBlueprintItems, engine.Eq(views.NameBlueprint, blueprintID))
		if err != nil {
			return err
		}
		sortByPosition(items)
		for _, it := range items {
			svc, err := c.Get(views.TypeServices, views.BlueprintItem{Record: it}.Service())
			if err != nil || !svc.Active() {
				continue
			}
			in := &engine.Input{Rels: map[string]engine.RelInput{
				views.NameProject: {Refs: []engine.Ref{{Type: views.TypeProjects, ID: projectID}}},
				views.NameService: {Refs: []engine.Ref{{Type: views.TypeServices, ID: svc.ID}}},
			}}
			if q, ok := it.Attrs[views.NameQuantity].(string); ok {
				in.Attrs = map[string]json.RawMessage{views.NameQuantity: json.RawMessage(strconv.Quote(q))}
			}
			rec, _, err := c.CreateRecord(ctx, psDef, in)
			if err != nil {
				return err
			}
			created = append(created, rec)
		}
		return nil
	}, func(ctx context.Context, c *engine.Call) error {
		// served as stored: the commit steps stored the price figures
		// (psDef.Reread), which the records as created lack
		for i, r := range created {
			cur, err := c.Get(psDef.Name, r.ID)
			if err != nil {
				return err
			}
			created[i] = cur
		}
		res.Records, res.Total = created, len(created)
		return c.Compute(ctx, psDef, res.Records)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// absent is nil for an ENOTFOUND error (a catalog record gone since:
// nothing to copy) and err for any other, such as a failing store.
func absent(err error) error {
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	return err
}

func sortByPosition(recs []*engine.Record) {
	q := engine.Query{Sort: []engine.SortKey{{Field: views.NamePosition, Numeric: true}}}
	q.SortRecords(recs)
}
