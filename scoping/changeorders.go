package scoping

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Change orders (docs/lifecycle.md): once a project is won its scope is
// locked, and changes go into a change order. A change order holds its
// own copy of the scope, made from its base version: lines of the same
// types as the project's, told apart by their change-order relationship,
// priced as a scope of their own ("c" and the change order's id, where a
// project's scope is its id: pricing.go) and compared with the base
// version for its deltas. It goes through the account's approval
// workflow (changeflow.go); accepted, its scope becomes the project's.

// Statuses of a change order.
const (
	ChangeOrderDraft    = "draft"
	ChangeOrderPending  = "pending_approval"
	ChangeOrderApproved = "approved"
	ChangeOrderDeclined = "declined"
	ChangeOrderAccepted = "accepted"
	ChangeOrderCanceled = "canceled"
)

// attrOrigin holds, on a line of a change order's copy, the id of the
// project line it stands for (absent on a line the change order adds); it
// is stored but not declared, so never served.
const attrOrigin = "origin"

// changeOrderInputs are the attributes of a change order that its pricing
// reads (its own adjustments, where a project has its own).
var changeOrderInputs = []string{views.NameRevenueAdjustment, views.NameCostAdjustment}

func declareChangeOrders(s *engine.Schema) {
	signed := func(name string) engine.AttrDef {
		return engine.AttrDef{Name: name, Kind: engine.KindDecimal, Signed: true}
	}
	rels := []engine.RelDef{owner("project", "projects"),
		{Name: "base-version", Type: "project-versions", ReadOnly: true},
		{Name: "accepted-version", Type: "project-versions", ReadOnly: true},
		inverse("approval-steps", "approval-steps", "change-order")}
	for _, typ := range projectInputTypes {
		rels = append(rels, inverse(typ, typ, "change-order"))
	}
	register(s, &engine.TypeDef{Name: "change-orders", Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{required(withMaxLen(str("title"), 200)), withMaxLen(text("reason"), 4000),
			signed("revenue-adjustment"), signed("cost-adjustment")},
			computed(engine.AttrDef{Name: "number", Kind: engine.KindInt, Sortable: true},
				enum("status", ChangeOrderDraft, ChangeOrderDraft, ChangeOrderPending, ChangeOrderApproved, ChangeOrderDeclined,
					ChangeOrderAccepted, ChangeOrderCanceled),
				str("currency"), dec("total-hours"), dec("contract-revenue"), dec("contract-cost"), dec("contract-profit"), dec("contract-margin"),
				signed("delta-revenue"), signed("delta-cost"), signed("delta-profit"), signed("delta-margin"), signed("delta-hours"),
				engine.AttrDef{Name: "submitted-at", Kind: engine.KindTime}, engine.AttrDef{Name: "approved-at", Kind: engine.KindTime},
				engine.AttrDef{Name: "accepted-at", Kind: engine.KindTime}, str("approval-stage"))),
		Rels:    rels,
		Filters: eq("project", "status"),
		Hooks: engine.Hooks{Create: createChangeOrder, Validate: validateChangeOrder, Delete: deleteChangeOrder,
			Compute: computeChangeOrders, Prefetch: accountAhead},
	})
}

// scopeLine completes the declaration of a line type of a scope: the
// change-order relationship (empty on the project's own lines) and its
// filter, whose default lists the project's own lines only; a line given
// a change order takes the change order's project.
func scopeLine(t *engine.TypeDef) {
	t.Rels = append(t.Rels, engine.RelDef{Name: views.NameChangeOrder, Type: views.TypeChangeOrders, Cascade: true})
	if t.Filters == nil {
		t.Filters = map[string]engine.FilterDef{}
	}
	t.Filters[views.NameChangeOrder] = engine.FilterDef{Default: "none", Build: func(_ context.Context, _ *engine.Call, v string) ([]engine.Cond, error) {
		if v == "none" {
			return []engine.Cond{{Field: views.NameChangeOrder, Op: engine.OpNull}}, nil
		}
		return []engine.Cond{engine.Eq(views.NameChangeOrder, engine.SplitList(v)...)}, nil
	}}
	defaults, validate := t.Hooks.Defaults, t.Hooks.Validate
	t.Hooks.Defaults = func(ctx context.Context, c *engine.Call, rec *engine.Record) error {
		joinChangeOrder(c, rec)
		if defaults == nil {
			return nil
		}
		return defaults(ctx, c, rec)
	}
	t.Hooks.Validate = func(ctx context.Context, c *engine.Call, rec, old *engine.Record) []error {
		var errs []error
		if validate != nil {
			errs = validate(ctx, c, rec, old)
		}
		return append(errs, sameScope(c, rec, old)...)
	}
}

// joinChangeOrder gives a new line of a change order (named directly, or
// through its parent service) the change order's project.
func joinChangeOrder(c *engine.Call, rec *engine.Record) {
	if rec.Type == views.TypeProjectSubservices {
		if p, err := c.Get(views.TypeProjectServices, rec.Rel(views.NameProjectService)); err == nil {
			rec.SetRel(views.NameChangeOrder, p.Rel(views.NameChangeOrder))
		}
	}
	if co := rec.Rel(views.NameChangeOrder); co != "" {
		if r, err := c.Get(views.TypeChangeOrders, co); err == nil {
			rec.SetRel(views.NameProject, r.Rel(views.NameProject))
		}
	}
}

// sameScope keeps a line in its scope: it cannot move between a project's
// lines and a change order's, and refers only to lines of its own scope.
func sameScope(c *engine.Call, rec, old *engine.Record) []error {
	co := rec.Rel(views.NameChangeOrder)
	if old != nil && old.Rel(views.NameChangeOrder) != co {
		return []error{engine.Invalid(engine.RelPointer(views.NameChangeOrder), "a line stays in its scope: it cannot move to or from a change order")}
	}
	def := mustLookup(c.Engine.Schema(), rec.Type)
	var errs []error
	for _, rd := range def.Rels {
		if !rd.Stored() || rd.ToMany || rd.Name == views.NameProject || !slices.Contains(projectInputTypes, rd.Type) {
			continue
		}
		id := rec.Rel(rd.Name)
		if id == "" || (old != nil && old.Rel(rd.Name) == id) {
			continue
		}
		if target, err := c.Get(rd.Type, id); err == nil && target.Rel(views.NameChangeOrder) != co {
			what := "the project's own lines"
			if co != "" {
				what = "lines of change-orders " + co
			}
			errs = append(errs, engine.Invalid(engine.RelPointer(rd.Name), "%s %s is not one of %s", rd.Type, id, what))
		}
	}
	return errs
}

// coScope is the pricing scope of a change order's copy.
func coScope(id string) string { return "c" + id }

// changeOrderOf returns the change order of a pricing scope ("" for a
// project's).
func changeOrderOf(scope string) string {
	if len(scope) > 1 && scope[0] == 'c' {
		return scope[1:]
	}
	return ""
}

// createChangeOrder is the create of change-orders: a won project's scope
// copied from its latest version (taken now when none holds the scope)
// into a draft change order, numbered after the project's others.
func createChangeOrder(ctx context.Context, c *engine.Call, in *engine.Input) (*engine.Record, error) {
	def := mustLookup(c.Engine.Schema(), views.TypeChangeOrders)
	co := engine.NewRecord(views.TypeChangeOrders, c.AccountID())
	var errs scopekit.Errors
	for _, name := range slices.Sorted(maps.Keys(in.Attrs)) {
		at, ok := def.Attr(name)
		if !ok || (at.Computed && c.Opts.Strict) {
			return nil, engine.BadAttr(name, "%s is not a writable attribute of change-orders", name)
		}
		if at.Computed {
			continue
		}
		v, e := engine.DecodeAttr(at, in.Attrs[name])
		switch {
		case e != nil && e.Code == scopekit.EBADREQUEST:
			return nil, e
		case e != nil:
			errs = append(errs, e)
		case v != nil:
			co.Attrs[name] = v
		}
	}
	for name := range in.Rels {
		if name != views.NameProject {
			return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, engine.RelPointer(name), "a change order takes only its project")
		}
	}
	titleRefused := slices.ContainsFunc(errs, func(e *scopekit.Error) bool { return e.Field == engine.AttrPointer(views.NameTitle) })
	if engine.Blank(co.Attrs[views.NameTitle]) && !titleRefused { // a title refused is not also blank
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameTitle), "title can't be blank"))
	}
	ref := in.Rels[views.NameProject]
	var proj *engine.Record
	if len(ref.Refs) == 1 && !ref.ToMany && ref.Refs[0].Type == views.TypeProjects {
		var err error
		if proj, err = c.GetVisible(ctx, mustLookup(c.Engine.Schema(), views.TypeProjects), ref.Refs[0].ID, nil); err != nil {
			errs = append(errs, engine.Invalid(engine.RelPointer(views.NameProject), "projects %s does not exist in this account", ref.Refs[0].ID))
		}
	} else if len(ref.Refs) == 1 && !ref.ToMany {
		errs = append(errs, engine.Invalid(engine.RelPointer(views.NameProject), "project must name a projects resource, not %s", ref.Refs[0].Type))
	} else {
		errs = append(errs, engine.Invalid(engine.RelPointer(views.NameProject), "project can't be blank"))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if st := proj.Str(views.NameStatus); st != "won" {
		return nil, scopekit.Errorf(scopekit.ECONFLICT, "change orders are for won projects; projects %s is %s: change its scope directly", proj.ID, st)
	}
	base, _, err := takeVersion(c, proj, VersionManual, "", "")
	if err != nil {
		return nil, err
	}
	others, err := c.Find(views.TypeChangeOrders, engine.Eq(views.NameProject, proj.ID))
	if err != nil {
		return nil, err
	}
	number := int64(1)
	for _, o := range others {
		number = max(number, o.Int(views.NameNumber)+1)
	}
	co.Attrs[views.NameNumber], co.Attrs[views.NameStatus] = json.Number(strconv.FormatInt(number, 10)), ChangeOrderDraft
	for _, a := range changeOrderInputs {
		if _, given := co.Attrs[a]; !given && proj.Attrs[a] != nil {
			co.Attrs[a] = proj.Attrs[a]
		}
	}
	co.SetRel(views.NameProject, proj.ID)
	co.SetRel(views.NameBaseVersion, base.ID)
	if err := c.Tx.Insert(co); err != nil {
		return nil, err
	}
	return co, copyVersionInto(c, co, base, nil)
}

// copyVersionInto makes the change order's copy the scope of the version
// (its lines there now matched by origin: existing, nil for none).
func copyVersionInto(c *engine.Call, co, version *engine.Record, existing map[string]map[string]*engine.Record) error {
	stored, err := storedVersion(c, version)
	if err != nil {
		return err
	}
	lines, err := frozenLines(stored)
	if err != nil {
		return err
	}
	_, err = applyScope(c, scopeTarget{projectID: co.Rel(views.NameProject), changeOrder: co.ID, existing: existing}, lines)
	return err
}

// validateChangeOrder keeps a change order's project, and lets its title,
// reason and adjustments change only while it is a draft.
func validateChangeOrder(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	if old == nil {
		return nil
	}
	if rec.Rel(views.NameProject) != old.Rel(views.NameProject) {
		return []error{engine.Invalid(engine.RelPointer(views.NameProject), "a change order cannot move to another project")}
	}
	if st := old.Str(views.NameStatus); st != ChangeOrderDraft {
		for _, a := range []string{views.NameTitle, views.NameReason, views.NameRevenueAdjustment, views.NameCostAdjustment} {
			if !sameValue(rec.Attrs[a], old.Attrs[a]) {
				return []error{scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is %s: only a draft changes", rec.ID, st)}
			}
		}
	}
	return nil
}

// deleteChangeOrder removes a change order that was never accepted (its
// copy with it); an accepted one is part of the project's history.
func deleteChangeOrder(_ context.Context, c *engine.Call, rec *engine.Record) error {
	switch st := rec.Str(views.NameStatus); st {
	case ChangeOrderDraft, ChangeOrderDeclined, ChangeOrderCanceled:
	default:
		return scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is %s: cancel it first (an accepted one stays as the project's history)", rec.ID, st)
	}
	return c.Remove(mustLookup(c.Engine.Schema(), views.TypeChangeOrders), rec)
}

// computeChangeOrders serves a change order's figures: the new contract's
// (stored prices, as a project's) and the deltas from its base version.
func computeChangeOrders(ctx context.Context, c *engine.Call, recs []*engine.Record) error {
	if err := computePrices(ctx, c, recs); err != nil {
		return err
	}
	var bases []string
	for _, r := range recs {
		if b := r.Rel(views.NameBaseVersion); b != "" {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return nil
	}
	found, err := c.Find(views.TypeProjectVersions, engine.Eq("id", bases...))
	if err != nil {
		return err
	}
	byVersion := byID(found)
	for _, r := range recs {
		base := byVersion[r.Rel(views.NameBaseVersion)]
		if base == nil {
			continue
		}
		for delta, figure := range map[string]string{views.NameDeltaRevenue: views.NameContractRevenue, views.NameDeltaCost: views.NameContractCost,
			views.NameDeltaProfit: views.NameContractProfit, views.NameDeltaMargin: views.NameContractMargin, views.NameDeltaHours: views.NameTotalHours} {
			after, ok := r.DecOK(figure)
			if !ok {
				delete(r.Attrs, delta)
				continue
			}
			r.Attrs[delta] = after.Sub(base.Dec(figure)).StringFixed(max(0, -after.Exponent()))
		}
	}
	return nil
}

// lockedScope refuses a write, through the generic routes, to a scope
// that is settled: a won project's own lines and attributes (changes go
// into a change order), and the copy of a change order that is not a
// draft. Delivery progress (a service's status and actual hours) and a
// project's status move on.
func lockedScope(c *engine.Call, def *engine.TypeDef, rec *engine.Record) error {
	if def.Name != views.TypeProjects && !slices.Contains(projectInputTypes, def.Name) {
		return nil
	}
	if c.Input != nil && onlyProgress(def.Name, c.Input) {
		return nil
	}
	if co := rec.Rel(views.NameChangeOrder); co != "" {
		o, err := c.Get(views.TypeChangeOrders, co)
		if err == nil && o.Str(views.NameStatus) != ChangeOrderDraft {
			return scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is %s: its scope changes only while it is a draft", co, o.Str(views.NameStatus))
		}
		return nil
	}
	pid := rec.Rel(views.NameProject)
	if def.Name == views.TypeProjects {
		pid = rec.ID
	}
	p, err := c.Get(views.TypeProjects, pid)
	if err == nil && p.Str(views.NameStatus) == "won" {
		return scopekit.Errorf(scopekit.ECONFLICT, "projects %s is won: its scope is locked; change it through a change order (POST change-orders with the project, then edit its lines)", pid)
	}
	return nil
}

// onlyProgress reports whether a write names only what is not scope.
func onlyProgress(typ string, in *engine.Input) bool {
	free := append([]string{views.NameActive}, notScope[typ]...)
	for n := range in.Attrs {
		if !slices.Contains(free, n) {
			return false
		}
	}
	return len(in.Rels) == 0
}

// coCopies are the change orders of some scopes, and for each the
// project record its copy is priced as (the project's, under the scope's
// id, with the change order's adjustments).
type coCopies struct{ orders, projects []*engine.Record }

func changeOrderScopes(c *engine.Call, ids []string) (coCopies, error) {
	var out coCopies
	orders, err := c.Find(views.TypeChangeOrders, engine.Eq("id", ids...))
	if err != nil {
		return out, err
	}
	var pids []string
	for _, o := range orders {
		pids = append(pids, o.Rel(views.NameProject))
	}
	if len(pids) == 0 {
		return out, nil
	}
	projects, err := c.Find(views.TypeProjects, engine.Eq("id", pids...))
	if err != nil {
		return out, err
	}
	byProj := byID(projects)
	for _, o := range orders {
		p := byProj[o.Rel(views.NameProject)]
		if p == nil {
			continue
		}
		cp := p.Clone()
		cp.ID = coScope(o.ID)
		for _, a := range changeOrderInputs {
			if v, ok := o.Attrs[a]; ok {
				cp.Attrs[a] = v
			} else {
				delete(cp.Attrs, a)
			}
		}
		out.orders, out.projects = append(out.orders, o), append(out.projects, cp)
	}
	return out, nil
}
