package scoping

import (
	"context"
	"math"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// The project status and the unified approval workflow (docs/approval.md),
// wired to the records: the pure state machine in package approval
// decides; this file reads its inputs from the store, writes its outcomes
// back, and records an event for every status change in the same
// transaction.

// attrSubmitter holds, on a submitted project and its steps, the user who
// submitted it; it is stored but not declared, so never served.
const attrSubmitter = "submitter"

// setProjectStatus moves a project to status and records the event.
func setProjectStatus(c *engine.Call, proj *engine.Record, status string) error {
	old := proj.Str(views.NameStatus)
	if old == status {
		return nil
	}
	proj.Attrs[views.NameStatus] = status
	if err := c.Tx.Replace(proj); err != nil {
		return err
	}
	return recordEvent(c, views.EventProjectStatusChanged, proj, proj.ID, old, status)
}

// validateProjectStatus checks a status set through a write: a new project
// starts as draft; a change needs project_approvals manage and must be a
// direct change the table of docs/approval.md allows.
func validateProjectStatus(c *engine.Call, rec, old *engine.Record) error {
	st := rec.Str(views.NameStatus)
	if old == nil {
		if c.Given(views.NameStatus) && st != "draft" {
			return engine.Invalid(engine.AttrPointer(views.NameStatus), "a new project starts as draft; submit it or change its status afterwards")
		}
		rec.Attrs[views.NameStatus] = "draft"
		return nil
	}
	if st == old.Str(views.NameStatus) {
		return nil
	}
	if !c.Actor.Can("project_approvals", true) {
		return scopekit.Errorf(scopekit.EFORBIDDEN, "changing a project's status directly needs the project_approvals permission at manage level")
	}
	_, err := approval.Transition(old.Str(views.NameStatus), st)
	return err
}

// afterProjectWrite records the event of a direct status change and
// cancels pending steps where the change calls for it. A directly set
// status never sets approved-at.
func afterProjectWrite(ctx context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		if err := joinCreatedProject(c, rec); err != nil {
			return err
		}
		versionAtCommit(c, rec.ID, VersionCreated)
		return addRequiredGovernance(ctx, c, rec, old)
	}
	from, to := old.Str(views.NameStatus), rec.Str(views.NameStatus)
	if from == to {
		return nil
	}
	cancel, err := approval.Transition(from, to)
	if err != nil {
		return err
	}
	if cancel {
		if err := cancelPendingSteps(c, rec.ID); err != nil {
			return err
		}
		delete(rec.Attrs, views.NameApprovalStage)
		if err := c.Tx.Replace(rec); err != nil {
			return err
		}
	}
	return recordEvent(c, views.EventProjectStatusChanged, rec, rec.ID, from, to)
}

// afterProjectServiceWrite records a change of a project service's
// delivery status.
func afterProjectServiceWrite(ctx context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		return copySubservices(ctx, c, rec, old)
	}
	if from, to := old.Str(views.NameStatus), rec.Str(views.NameStatus); from != to {
		return recordEvent(c, views.EventServiceStatusChanged, rec, rec.Rel(views.NameProject), from, to)
	}
	return nil
}

// Submit sends a draft project into the approval workflow: it sets
// submitted-at, moves the project to pending_approval and creates the
// first applicable step, or approves the project when no level applies.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND outside the
// actor's visibility; ECONFLICT when the project is not a draft.
func (s *Service) Submit(ctx context.Context, a *engine.Actor, projectID string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "projects", true, views.TypeProjects, projectID, func(c *engine.Call, proj *engine.Record) error {
		if proj.Str(views.NameStatus) != "draft" {
			return scopekit.Errorf(scopekit.ECONFLICT, "only a draft project can be submitted; this one is %s", proj.Str(views.NameStatus))
		}
		proj.Attrs[views.NameSubmittedAt] = engine.FormatTime(s.Now())
		proj.Attrs[attrSubmitter] = a.UserID
		delete(proj.Attrs, views.NameApprovedAt)
		if err := setProjectStatus(c, proj, "pending_approval"); err != nil {
			return err
		}
		if err := restoreTeammate(c, mustLookup(s.Schema(), views.TypeProjects), proj); err != nil {
			return err
		}
		versionAtCommit(c, proj.ID, VersionSubmitted)
		return advance(c, proj, math.MinInt)
	})
}

// advance creates the step of the first level that applies after position
// after, or completes the workflow when none does.
func advance(c *engine.Call, proj *engine.Record, after int) error {
	facts, err := approvalFacts(c, proj)
	if err != nil {
		return err
	}
	return advanceOwner(c, proj, facts, after, proj.ID, "", func() error { return completeWorkflow(c, proj) })
}

// advanceOwner is one step of a workflow, the project's or a change
// order's (owner; changeOrder its id, "" for the project): the step of the
// first level whose conditions facts meet after position after, or
// complete when none does.
func advanceOwner(c *engine.Call, owner *engine.Record, facts approval.Facts, after int, projectID, changeOrder string, complete func() error) error {
	levels, err := approvalLevels(c)
	if err != nil {
		return err
	}
	plan, ok, err := approval.Next(levels, facts, after)
	if err != nil {
		return err
	}
	if !ok {
		return complete()
	}
	if err := insertPlannedStep(c, plan, projectID, changeOrder, owner.Str(attrSubmitter)); err != nil {
		return err
	}
	owner.Attrs[views.NameApprovalStage] = plan.Kind
	return c.Tx.Replace(owner)
}

// insertPlannedStep stores the step of a plan for a project, or for one of
// its change orders (changeOrder not empty).
func insertPlannedStep(c *engine.Call, plan approval.Plan, projectID, changeOrder, submitter string) error {
	step := engine.NewRecord(views.TypeApprovalSteps, c.AccountID())
	step.Attrs[views.NameKind], step.Attrs[views.NamePosition], step.Attrs[views.NameStatus], step.Attrs[views.NameLegacy] = plan.Kind, int64(plan.Position), approval.StepPending, false
	step.Attrs[views.NameRequiredApprovals], step.Attrs[views.NameSubmitterApproves] = int64(plan.RequiredApprovals), plan.SubmitterApproves
	step.Attrs[attrSubmitter] = submitter
	step.SetRel(views.NameProject, projectID)
	step.SetRel(views.NameChangeOrder, changeOrder)
	step.SetRel(views.NameApprovalLevel, plan.LevelID)
	if len(plan.Approvers) > 0 {
		step.Rels[views.NameRequiredApprovers] = slices.Clone(plan.Approvers)
	}
	return insertStep(c, step)
}

// insertStep stores a step and one pending requirement per required
// approver.
func insertStep(c *engine.Call, step *engine.Record) error {
	if err := c.Tx.Insert(step); err != nil {
		return err
	}
	for _, uid := range step.Rels[views.NameRequiredApprovers] {
		req := engine.NewRecord(views.TypeApprovalRequirements, step.AccountID)
		req.Attrs[views.NameStatus] = approval.Pending
		req.SetRel(views.NameApprovalStep, step.ID)
		req.SetRel(views.NameUser, uid)
		req.SetRel(views.NameProject, step.Rel(views.NameProject))
		if err := c.Tx.Insert(req); err != nil {
			return err
		}
	}
	return nil
}

// completeWorkflow approves the project: the only way approved-at is set.
func completeWorkflow(c *engine.Call, proj *engine.Record) error {
	proj.Attrs[views.NameApprovedAt] = engine.FormatTime(svcOf(c).Now())
	delete(proj.Attrs, views.NameApprovalStage)
	return setProjectStatus(c, proj, "approved")
}

// cancelPendingSteps cancels the project's pending steps (its own, not
// those of its change orders).
func cancelPendingSteps(c *engine.Call, projectID string) error {
	steps, err := c.Find(views.TypeApprovalSteps, engine.Eq(views.NameProject, projectID), engine.Eq(views.NameStatus, approval.StepPending),
		engine.Cond{Field: views.NameChangeOrder, Op: engine.OpNull})
	if err != nil {
		return err
	}
	return cancelSteps(c, steps)
}

// cancelSteps cancels steps.
func cancelSteps(c *engine.Call, steps []*engine.Record) error {
	for _, st := range steps {
		st.Attrs[views.NameStatus], st.Attrs[views.NameCompletedAt] = approval.StepCanceled, engine.FormatTime(svcOf(c).Now())
		if err := c.Tx.Replace(st); err != nil {
			return err
		}
	}
	return nil
}

// approvalLevels reads the active levels with their coverage; approvers
// who are not active members are left out.
func approvalLevels(c *engine.Call) ([]approval.Level, error) {
	recs, err := c.Find(views.TypeApprovalLevels, engine.Eq(views.NameActive, "true"))
	if err != nil {
		return nil, err
	}
	lobas, err := c.Find(views.TypeLineOfBusinessApprovals)
	if err != nil {
		return nil, err
	}
	active, err := c.Find(views.TypeUsers, engine.Eq(views.NameStatus, auth.StatusActive))
	if err != nil {
		return nil, err
	}
	isActive := map[string]bool{}
	for _, u := range active {
		isActive[u.ID] = true
	}
	cover := map[string][]approval.Coverage{}
	for _, l := range lobas {
		cv := approval.Coverage{LineOfBusiness: l.Rel(views.NameLineOfBusiness)}
		for _, uid := range l.Rels[views.NameApprovers] {
			if isActive[uid] {
				cv.Approvers = append(cv.Approvers, uid)
			}
		}
		if _, ok := l.Attrs[views.NameRequiredApprovals]; ok {
			n := int(l.Int(views.NameRequiredApprovals))
			cv.RequiredApprovals = &n
		}
		cover[l.Rel(views.NameApprovalLevel)] = append(cover[l.Rel(views.NameApprovalLevel)], cv)
	}
	levels := make([]approval.Level, 0, len(recs))
	for _, r := range recs {
		conds, err := approval.ParseConditions(r.Attrs[views.NameConditions])
		if err != nil {
			return nil, err
		}
		levels = append(levels, approval.Level{ID: r.ID, Position: int(r.Int(views.NamePosition)), Kind: r.Str(views.NameKind),
			Conditions: conds, RequiredApprovals: int(r.Int(views.NameRequiredApprovals)),
			SubmitterApproves: r.Bool(views.NameSubmitterApproves), Coverage: cover[r.ID]})
	}
	return levels, nil
}

// approvalFacts are what level conditions read of a project: money in the
// account's default currency (rule 3), everything else as it is.
func approvalFacts(c *engine.Call, proj *engine.Record) (approval.Facts, error) {
	runs, err := priced(c, []string{proj.ID}, nil)
	if err != nil {
		return approval.Facts{}, err
	}
	state(c).pricedCache = nil // the project changes as the workflow runs
	pp := runs[proj.ID]
	if pp.err != nil {
		return approval.Facts{}, pp.err
	}
	res := pp.res
	// a project changes the contract from none: its deltas are its figures
	f := approval.Facts{
		Money: map[string]decimal.Decimal{
			approval.FieldContractRevenue: res.ToDefault(res.TotalContractValue.Decimal).Decimal,
			approval.FieldContractCost:    res.ToDefault(res.TotalContractCost.Decimal).Decimal,
			approval.FieldContractProfit:  res.ToDefault(res.TotalContractProfit.Decimal).Decimal,
			approval.FieldDeltaRevenue:    res.ToDefault(res.TotalContractValue.Decimal).Decimal,
			approval.FieldDeltaCost:       res.ToDefault(res.TotalContractCost.Decimal).Decimal,
		},
		ContractMargin: res.TotalContractMargin.Decimal,
		DeltaMargin:    res.TotalContractMargin.Decimal,
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
