package scoping

import (
	"context"
	"math"
	"slices"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// A change order's life (docs/lifecycle.md): submitted, it walks the
// account's approval levels as a project does, its conditions reading the
// change order's new totals and its deltas; approved, it is accepted (by
// the client through a share link, or directly) and its scope becomes the
// project's, with a new version; a change order whose base is no longer
// the project's latest version is rebased first.

// setChangeOrderStatus moves a change order to status and records the
// event, in the call's transaction.
func setChangeOrderStatus(c *engine.Call, co *engine.Record, status string) error {
	old := co.Str(views.NameStatus)
	if old == status {
		return nil
	}
	co.Attrs[views.NameStatus] = status
	if err := c.Tx.Replace(co); err != nil {
		return err
	}
	return recordEvent(c, views.EventChangeOrderStatusChanged, co, co.Rel(views.NameProject), old, status)
}

// ChangeOrderAction runs submit, cancel, accept or rebase on a change
// order and answers it.
//
// submit (projects manage): a draft goes to pending_approval and gets the
// step of the first level that applies, or is approved at once. cancel
// (projects manage): anything not accepted is canceled, its pending steps
// with it. accept (project_approvals manage): an approved change order's
// scope becomes the project's and a version is taken (accepted); 409 when
// its base is not the project's latest version (the detail names it).
// rebase (projects manage): a draft, declined or approved change order is
// based on the latest version again, keeping its own changes (where the
// project changed a line the change order changed too, the change order's
// wins); it is a draft again.
//
// Errors: EFORBIDDEN without the permission; ENOTFOUND outside the
// actor's visibility; ECONFLICT for a status the action does not take.
func (s *Service) ChangeOrderAction(ctx context.Context, a *engine.Actor, id, action string) (*engine.Result, error) {
	guard := "projects"
	if action == "accept" {
		guard = "project_approvals"
	}
	if err := a.Require("projects", action != "accept"); err != nil {
		return nil, err
	}
	return s.recordAction(ctx, a, guard, true, views.TypeChangeOrders, id, func(c *engine.Call, co *engine.Record) error {
		switch action {
		case "submit":
			return submitChangeOrder(c, co)
		case "cancel":
			return cancelChangeOrder(c, co)
		case "accept":
			return acceptChangeOrder(c, co)
		case "rebase":
			return rebaseChangeOrder(c, co)
		}
		return scopekit.Errorf(scopekit.ENOTFOUND, "no action %q on change-orders", action)
	})
}

func submitChangeOrder(c *engine.Call, co *engine.Record) error {
	if st := co.Str(views.NameStatus); st != ChangeOrderDraft {
		return scopekit.Errorf(scopekit.ECONFLICT, "only a draft change order can be submitted; this one is %s", st)
	}
	co.Attrs[views.NameSubmittedAt] = engine.FormatTime(svcOf(c).Now())
	co.Attrs[attrSubmitter] = c.Actor.UserID
	delete(co.Attrs, views.NameApprovedAt)
	if err := setChangeOrderStatus(c, co, ChangeOrderPending); err != nil {
		return err
	}
	return advanceChangeOrder(c, co, math.MinInt)
}

// advanceChangeOrder creates the step of the first level that applies to
// the change order after position after, or approves it when none does.
func advanceChangeOrder(c *engine.Call, co *engine.Record, after int) error {
	facts, err := changeOrderFacts(c, co)
	if err != nil {
		return err
	}
	return advanceOwner(c, co, facts, after, co.Rel(views.NameProject), co.ID, func() error {
		co.Attrs[views.NameApprovedAt] = engine.FormatTime(svcOf(c).Now())
		delete(co.Attrs, views.NameApprovalStage)
		return setChangeOrderStatus(c, co, ChangeOrderApproved)
	})
}

// changeOrderFacts are what level conditions read of a change order: its
// new contract and its deltas from its base version, money in the
// account's default currency; the lines of business of the project and of
// the change order's services.
func changeOrderFacts(c *engine.Call, co *engine.Record) (approval.Facts, error) {
	pp, err := coRun(c, co)
	if err != nil {
		return approval.Facts{}, err
	}
	state(c).pricedCache = nil // the change order changes as the workflow runs
	proj, err := c.Get(views.TypeProjects, co.Rel(views.NameProject))
	if err != nil {
		return approval.Facts{}, err
	}
	base, err := c.Get(views.TypeProjectVersions, co.Rel(views.NameBaseVersion))
	if err != nil {
		return approval.Facts{}, err
	}
	res := pp.res
	conv := func(d decimal.Decimal) decimal.Decimal { return res.ToDefault(d).Decimal }
	f := approval.Facts{
		Money: map[string]decimal.Decimal{
			approval.FieldContractRevenue: conv(res.TotalContractValue.Decimal),
			approval.FieldContractCost:    conv(res.TotalContractCost.Decimal),
			approval.FieldContractProfit:  conv(res.TotalContractProfit.Decimal),
			approval.FieldDeltaRevenue:    conv(res.TotalContractValue.Sub(base.Dec(views.NameContractRevenue))),
			approval.FieldDeltaCost:       conv(res.TotalContractCost.Sub(base.Dec(views.NameContractCost))),
		},
		ContractMargin: res.TotalContractMargin.Decimal,
		DeltaMargin:    res.TotalContractMargin.Sub(base.Dec(views.NameContractMargin)),
		TotalHours:     res.TotalHours().Decimal,
		LineOfBusiness: proj.Rel(views.NameLineOfBusiness),
		Client:         proj.Rel(views.NameClient),
		PaymentTerm:    proj.Rel(views.NamePaymentTerm),
	}
	if lob := proj.Rel(views.NameLineOfBusiness); lob != "" {
		f.LinesOfBusiness = append(f.LinesOfBusiness, lob)
	}
	for _, s := range pp.recs[views.TypeProjectServices] {
		if lob := s.Rel(views.NameLineOfBusiness); lob != "" && !slices.Contains(f.LinesOfBusiness, lob) {
			f.LinesOfBusiness = append(f.LinesOfBusiness, lob)
		}
	}
	return f, nil
}

// coRun prices a change order's copy as the call's transaction has it.
func coRun(c *engine.Call, co *engine.Record) (*pricedProject, error) {
	key := coScope(co.ID)
	delete(state(c).pricedCache, key)
	runs, err := priced(c, []string{key}, nil)
	if err != nil {
		return nil, err
	}
	pp := runs[key]
	if pp == nil || pp.err != nil {
		return nil, pricingError(pp)
	}
	return pp, nil
}

// pricingError is the error of a run that could not price its scope.
func pricingError(pp *pricedProject) error {
	if pp == nil {
		return scopekit.Errorf(scopekit.ENOTFOUND, "the change order's scope is missing")
	}
	return pp.err
}

// followChangeOrder carries a change order's step outcome to it: a
// completed step moves the walk on; a declined one declines it, a
// rescoped one sends it back to draft.
func followChangeOrder(c *engine.Call, step *engine.Record, out approval.Outcome) error {
	co, err := c.Get(views.TypeChangeOrders, step.Rel(views.NameChangeOrder))
	if err != nil {
		return err
	}
	switch out {
	case approval.Completed:
		return advanceChangeOrder(c, co, int(step.Int(views.NamePosition)))
	case approval.Declined:
		delete(co.Attrs, views.NameApprovalStage)
		return setChangeOrderStatus(c, co, ChangeOrderDeclined)
	}
	delete(co.Attrs, views.NameApprovalStage)
	return setChangeOrderStatus(c, co, ChangeOrderDraft)
}

func cancelChangeOrder(c *engine.Call, co *engine.Record) error {
	switch st := co.Str(views.NameStatus); st {
	case ChangeOrderAccepted, ChangeOrderCanceled:
		return scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is %s already", co.ID, st)
	}
	steps, err := c.Find(views.TypeApprovalSteps, engine.Eq(views.NameChangeOrder, co.ID), engine.Eq(views.NameStatus, approval.StepPending))
	if err != nil {
		return err
	}
	if err := cancelSteps(c, steps); err != nil {
		return err
	}
	delete(co.Attrs, views.NameApprovalStage)
	return setChangeOrderStatus(c, co, ChangeOrderCanceled)
}

// acceptChangeOrder makes an approved change order's scope the project's
// and takes the version (accepted) that the change order records.
func acceptChangeOrder(c *engine.Call, co *engine.Record) error {
	if st := co.Str(views.NameStatus); st != ChangeOrderApproved {
		return scopekit.Errorf(scopekit.ECONFLICT, "only an approved change order can be accepted; this one is %s", st)
	}
	proj, err := c.Get(views.TypeProjects, co.Rel(views.NameProject))
	if err != nil {
		return err
	}
	if err := onLatestVersion(c, co); err != nil {
		return err
	}
	frozen, err := coFrozen(c, co)
	if err != nil {
		return err
	}
	if err := applyToProject(c, proj.ID, frozen); err != nil {
		return err
	}
	for _, a := range changeOrderInputs {
		if v, ok := co.Attrs[a]; ok {
			proj.Attrs[a] = v
		} else {
			delete(proj.Attrs, a)
		}
	}
	if err := c.Tx.Replace(proj); err != nil {
		return err
	}
	co.Attrs[views.NameAcceptedAt] = engine.FormatTime(svcOf(c).Now())
	if err := setChangeOrderStatus(c, co, ChangeOrderAccepted); err != nil {
		return err
	}
	c.BeforeCommit(func(context.Context) error { // once the project's new scope is priced
		p, err := c.Tx.Get(views.TypeProjects, proj.AccountID, proj.ID)
		if err != nil {
			return err
		}
		v, _, err := takeVersion(c, p, VersionAccepted, "", "Change order "+co.Str(views.NameNumber)+": "+co.Str(views.NameTitle))
		if err != nil {
			return err
		}
		cur, err := c.Tx.Get(views.TypeChangeOrders, co.AccountID, co.ID)
		if err != nil {
			return err
		}
		cur.SetRel(views.NameAcceptedVersion, v.ID)
		return c.Tx.Replace(cur)
	})
	return nil
}

// onLatestVersion refuses a change order whose base is not the project's
// latest version (another change order was accepted since).
func onLatestVersion(c *engine.Call, co *engine.Record) error {
	latest, err := latestVersion(c, co.Rel(views.NameProject))
	if err != nil {
		return err
	}
	if latest != nil && latest.ID != co.Rel(views.NameBaseVersion) {
		base, _ := c.Get(views.TypeProjectVersions, co.Rel(views.NameBaseVersion))
		number := "?"
		if base != nil {
			number = strconv.FormatInt(base.Int(views.NameNumber), 10)
		}
		return scopekit.Errorf(scopekit.ECONFLICT, "change-orders %s is based on version %s, but the project is at version %d (project-versions %s) now: rebase it first (POST .../change-orders/%s/rebase)",
			co.ID, number, latest.Int(views.NameNumber), latest.ID, co.ID)
	}
	return nil
}

// coFrozen freezes a change order's copy as the call's transaction has
// it: its lines named by the project lines they stand for (their origin),
// those it adds by their own ids, and its pricing's phases likewise.
func coFrozen(c *engine.Call, co *engine.Record) (*storedScope, error) {
	pp, err := coRun(c, co)
	if err != nil {
		return nil, err
	}
	ident := map[string]map[string]string{}
	note := func(r *engine.Record) {
		if ident[r.Type] == nil {
			ident[r.Type] = map[string]string{}
		}
		if o := r.Str(attrOrigin); o != "" {
			ident[r.Type][r.ID] = o
		}
	}
	for _, recs := range pp.recs {
		for _, r := range recs {
			note(r)
		}
	}
	for _, subs := range pp.subs {
		for _, r := range subs {
			note(r)
		}
	}
	id := func(typ, v string) string {
		if o, ok := ident[typ][v]; ok {
			return o
		}
		return v
	}
	proj, err := c.Get(views.TypeProjects, co.Rel(views.NameProject))
	if err != nil {
		return nil, err
	}
	cp := proj.Clone()
	for _, a := range changeOrderInputs {
		cp.Attrs[a] = co.Attrs[a]
	}
	res := *pp.res // its phases under the project's phase ids
	res.Phases = slices.Clone(res.Phases)
	for i := range res.Phases {
		res.Phases[i].PhaseID = id(views.TypeProjectPhases, res.Phases[i].PhaseID)
	}
	res.ProfessionalServices.Phases = res.Phases
	raw, err := freezeScope(c.Engine.Schema(), cp, &pricedProject{res: &res, in: pp.in, idx: pp.idx, sub: pp.sub, recs: pp.recs, subs: pp.subs}, id)
	if err != nil {
		return nil, err
	}
	return decodeScope(raw)
}

// rebaseChangeOrder bases a change order on the project's latest version:
// its copy becomes that version's scope with the change order's own
// changes (from its old base) made again; the change order is a draft.
func rebaseChangeOrder(c *engine.Call, co *engine.Record) error {
	switch st := co.Str(views.NameStatus); st {
	case ChangeOrderDraft, ChangeOrderDeclined, ChangeOrderApproved:
	default:
		return scopekit.Errorf(scopekit.ECONFLICT, "a %s change order cannot be rebased", st)
	}
	latest, err := latestVersion(c, co.Rel(views.NameProject))
	if err != nil || latest == nil || latest.ID == co.Rel(views.NameBaseVersion) {
		return err // on the latest version already
	}
	read := func(v *engine.Record) (map[string][]*snapLine, error) {
		stored, err := storedVersion(c, v)
		if err != nil {
			return nil, err
		}
		return frozenLines(stored)
	}
	oldBase, err := c.Get(views.TypeProjectVersions, co.Rel(views.NameBaseVersion))
	if err != nil {
		return err
	}
	base, err := read(oldBase)
	if err != nil {
		return err
	}
	newBase, err := read(latest)
	if err != nil {
		return err
	}
	frozen, err := coFrozen(c, co)
	if err != nil {
		return err
	}
	own, err := frozenLines(frozen)
	if err != nil {
		return err
	}
	existing, err := changeOrderRecords(c, co.ID)
	if err != nil {
		return err
	}
	if _, err := applyScope(c, scopeTarget{projectID: co.Rel(views.NameProject), changeOrder: co.ID, existing: existing},
		rebased(base, own, newBase)); err != nil {
		return err
	}
	co.SetRel(views.NameBaseVersion, latest.ID)
	delete(co.Attrs, views.NameApprovedAt)
	delete(co.Attrs, views.NameApprovalStage)
	if co.Str(views.NameStatus) == ChangeOrderDraft {
		return c.Tx.Replace(co)
	}
	return setChangeOrderStatus(c, co, ChangeOrderDraft)
}

// rebased is the scope of newBase with the changes own made to base: a
// line own changed or added is own's, a line own removed is gone, any
// other line is newBase's (as the project has it now).
func rebased(base, own, newBase map[string][]*snapLine) map[string][]*snapLine {
	out := map[string][]*snapLine{}
	for _, typ := range projectInputTypes {
		inBase, inOwn := indexLines(base[typ]), indexLines(own[typ])
		taken := map[string]bool{}
		for _, l := range newBase[typ] {
			b, wasBase := inBase[l.ID]
			o, kept := inOwn[l.ID]
			switch {
			case wasBase && !kept: // removed by the change order
			case wasBase && !sameLine(b, o):
				out[typ] = append(out[typ], o)
			default:
				out[typ] = append(out[typ], l)
			}
			taken[l.ID] = true
		}
		for _, o := range own[typ] {
			b, wasBase := inBase[o.ID]
			if taken[o.ID] || (wasBase && sameLine(b, o)) {
				continue // the project's version of it, or removed there
			}
			out[typ] = append(out[typ], o) // added, or changed where the project removed it
		}
	}
	return out
}

func indexLines(ls []*snapLine) map[string]*snapLine {
	m := make(map[string]*snapLine, len(ls))
	for _, l := range ls {
		m[l.ID] = l
	}
	return m
}

// sameLine reports whether two frozen lines have the same fields (their
// figures aside: a price moves with other lines).
func sameLine(a, b *snapLine) bool {
	return sameValue(a.Attributes, b.Attributes) && sameValue(a.Relationships, b.Relationships)
}

// changeOrderRecords reads a change order's copy, by type and by the
// identity of the line each stands for (its origin, or its own id).
func changeOrderRecords(c *engine.Call, coID string) (map[string]map[string]*engine.Record, error) {
	out := map[string]map[string]*engine.Record{}
	for _, typ := range projectInputTypes {
		recs, err := c.Find(typ, engine.Eq(views.NameChangeOrder, coID))
		if err != nil {
			return nil, err
		}
		out[typ] = map[string]*engine.Record{}
		for _, r := range recs {
			ident := r.ID
			if o := r.Str(attrOrigin); o != "" {
				ident = o
			}
			out[typ][ident] = r
		}
	}
	return out, nil
}

// ChangeOrderDeltas is a change order priced as the difference against its
// base version: lines added, removed and changed with their deltas, per
// phase, and the new contract's totals with the change.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a change order
// missing or outside the actor's visibility.
func (s *Service) ChangeOrderDeltas(ctx context.Context, a *engine.Actor, id string) (*VersionDiff, error) {
	def, err := s.ReadableType(a, views.TypeChangeOrders)
	if err != nil {
		return nil, err
	}
	var d *VersionDiff
	err = s.read(ctx, a, func(c *engine.Call) error {
		co, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		d, err = changeOrderDiff(c, co)
		return err
	})
	return d, err
}

// changeOrderDiff compares a change order's copy with its base version.
func changeOrderDiff(c *engine.Call, co *engine.Record) (*VersionDiff, error) {
	base, err := c.Get(views.TypeProjectVersions, co.Rel(views.NameBaseVersion))
	if err != nil {
		return nil, err
	}
	from, err := storedVersion(c, base)
	if err != nil {
		return nil, err
	}
	to, err := coFrozen(c, co)
	if err != nil {
		return nil, err
	}
	d, err := diffScopes(from, to)
	if err != nil {
		return nil, err
	}
	d.From = diffEnd(base, d.From.Currency)
	return d, nil
}
