package scoping

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Step actions (approve, decline, rescope), the legacy step import and
// the removal of approvers.

// loadStep builds the state machine's view of a stored step.
func loadStep(c *engine.Call, rec *engine.Record) (*approval.Step, []*engine.Record, error) {
	reqs, err := c.Find(views.TypeApprovalRequirements, engine.Eq(views.NameApprovalStep, rec.ID))
	if err != nil {
		return nil, nil, err
	}
	st := &approval.Step{Status: rec.Str(views.NameStatus), Legacy: rec.Bool(views.NameLegacy),
		RequiredApprovals: int(rec.Int(views.NameRequiredApprovals)), SubmitterApproves: rec.Bool(views.NameSubmitterApproves),
		Submitter: rec.Str(attrSubmitter), Comment: rec.Str(views.NameComment)}
	for _, r := range reqs {
		req := approval.Requirement{UserID: r.Rel(views.NameUser), Status: r.Str(views.NameStatus)}
		if t, err := time.Parse(engine.TimeFormat, r.Str(views.NameSignedAt)); err == nil {
			req.SignedAt = t
		}
		st.Requirements = append(st.Requirements, req)
	}
	return st, reqs, nil
}

// storeStep writes back what the state machine changed.
func storeStep(c *engine.Call, rec *engine.Record, st *approval.Step, reqs []*engine.Record) error {
	for i, req := range st.Requirements {
		if i >= len(reqs) { // a manager completing a step nobody can sign any more (rule 5)
			r := engine.NewRecord(views.TypeApprovalRequirements, rec.AccountID)
			r.Attrs[views.NameStatus] = req.Status
			if !req.SignedAt.IsZero() {
				r.Attrs[views.NameSignedAt] = engine.FormatTime(req.SignedAt)
			}
			r.SetRel(views.NameApprovalStep, rec.ID)
			r.SetRel(views.NameUser, req.UserID)
			r.SetRel(views.NameProject, rec.Rel(views.NameProject))
			if err := c.Tx.Insert(r); err != nil {
				return err
			}
			continue
		}
		r := reqs[i]
		if r.Str(views.NameStatus) == req.Status {
			continue
		}
		r.Attrs[views.NameStatus] = req.Status
		if !req.SignedAt.IsZero() {
			r.Attrs[views.NameSignedAt] = engine.FormatTime(req.SignedAt)
		}
		if err := c.Tx.Replace(r); err != nil {
			return err
		}
	}
	rec.Attrs[views.NameStatus] = st.Status
	if st.Comment != "" {
		rec.Attrs[views.NameComment] = st.Comment
	}
	if !st.CompletedAt.IsZero() {
		rec.Attrs[views.NameCompletedAt] = engine.FormatTime(st.CompletedAt)
	}
	return c.Tx.Replace(rec)
}

// follow carries a step's outcome to its project: a completed step moves
// the walk on (a legacy step completes the workflow); a declined or
// rescoped one returns the project to draft.
func follow(c *engine.Call, step *engine.Record, out approval.Outcome) error {
	if out != approval.Completed && out != approval.Declined && out != approval.Rescoped {
		return nil
	}
	if step.Rel(views.NameChangeOrder) != "" {
		return followChangeOrder(c, step, out) // changeflow.go
	}
	proj, err := c.Get(views.TypeProjects, step.Rel(views.NameProject))
	if err != nil {
		return err
	}
	switch {
	case out == approval.Completed && step.Bool(views.NameLegacy):
		return completeWorkflow(c, proj)
	case out == approval.Completed:
		return advance(c, proj, int(step.Int(views.NamePosition)))
	}
	if out == approval.Rescoped {
		versionAtCommit(c, proj.ID, VersionRescoped)
	}
	delete(proj.Attrs, views.NameApprovalStage)
	return setProjectStatus(c, proj, "draft")
}

// StepAction runs approve, decline or rescope on a step for the actor and
// returns the step. The caller must be a required approver of the pending
// step (or, when none remains, a project_approvals manager) and hold
// project_approvals at view level at least.
//
// Errors: EFORBIDDEN (not an approver, or the submitter where the level
// does not allow it); ENOTFOUND outside visibility; ECONFLICT for a step
// that is not pending or a second signature; EINVALID for a missing
// comment on decline or rescope.
func (s *Service) StepAction(ctx context.Context, a *engine.Actor, stepID, action, comment string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "project_approvals", false, views.TypeApprovalSteps, stepID, func(c *engine.Call, rec *engine.Record) error {
		st, reqs, err := loadStep(c, rec)
		if err != nil {
			return err
		}
		who := approval.Actor{UserID: a.UserID, CanManage: a.Can("project_approvals", true)}
		var out approval.Outcome
		switch action {
		case "approve":
			out, err = st.Approve(who, s.Now(), comment)
		case "decline":
			out, err = st.Decline(who, s.Now(), comment)
		case "rescope":
			out, err = st.Rescope(who, s.Now(), comment)
		default:
			return scopekit.Errorf(scopekit.ENOTFOUND, "no action %q on approval-steps", action)
		}
		if err != nil {
			return err
		}
		if err := storeStep(c, rec, st, reqs); err != nil {
			return err
		}
		return follow(c, rec, out)
	})
}

// importLegacyStep is the one write of approval-steps: a step imported
// from a previous system (rule 2). It needs settings manage; the project
// must be draft or pending_approval; its pending unified steps are
// canceled and the imported step is its only pending step.
func importLegacyStep(_ context.Context, c *engine.Call, in *engine.Input) (*engine.Record, error) {
	if err := c.Actor.Require("settings", true); err != nil {
		return nil, err
	}
	for name, raw := range in.Attrs {
		if name != views.NameLegacy && name != views.NameComment {
			return nil, engine.BadAttr(name, "only legacy and comment can be set when importing a step")
		}
		if name == views.NameLegacy {
			var legacy bool
			if json.Unmarshal(raw, &legacy) != nil || !legacy {
				return nil, engine.Invalid(engine.AttrPointer(views.NameLegacy), "approval steps are created only by imports: legacy must be true")
			}
		}
	}
	if _, ok := in.Attrs[views.NameLegacy]; !ok {
		return nil, engine.Invalid(engine.AttrPointer(views.NameLegacy), "approval steps are created only by imports: legacy must be true")
	}
	for name := range in.Rels {
		if name != views.NameProject && name != views.NameRequiredApprovers {
			return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, engine.RelPointer(name), "only project and required-approvers can be set when importing a step")
		}
	}
	projRef, approvers := in.Rels[views.NameProject], in.Rels[views.NameRequiredApprovers]
	if len(projRef.Refs) != 1 || projRef.ToMany || projRef.Refs[0].Type != views.TypeProjects {
		return nil, engine.Invalid(engine.RelPointer(views.NameProject), "project can't be blank")
	}
	def := mustLookup(c.Engine.Schema(), views.TypeProjects)
	proj, err := c.GetVisible(context.Background(), def, projRef.Refs[0].ID, nil)
	if err != nil {
		return nil, engine.Invalid(engine.RelPointer(views.NameProject), "projects %s does not exist in this account", projRef.Refs[0].ID)
	}
	if st := proj.Str(views.NameStatus); st != "draft" && st != "pending_approval" {
		return nil, scopekit.Errorf(scopekit.ECONFLICT, "a legacy step can be imported only for a draft or pending project; this one is %s", st)
	}
	if !approvers.ToMany || len(approvers.Refs) == 0 {
		return nil, engine.Invalid(engine.RelPointer(views.NameRequiredApprovers), "required-approvers must list at least one user")
	}
	var uids []string
	for _, r := range approvers.Refs {
		if r.Type != views.TypeUsers {
			return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, engine.RelPointer(views.NameRequiredApprovers), "required-approvers must reference users")
		}
		if _, err := c.Get(views.TypeUsers, r.ID); err != nil {
			return nil, engine.Invalid(engine.RelPointer(views.NameRequiredApprovers), "users %s does not exist in this account", r.ID)
		}
		if !slices.Contains(uids, r.ID) {
			uids = append(uids, r.ID)
		}
	}
	if err := cancelPendingSteps(c, proj.ID); err != nil {
		return nil, err
	}
	if proj.Str(views.NameSubmittedAt) == "" {
		proj.Attrs[views.NameSubmittedAt] = engine.FormatTime(svcOf(c).Now())
	}
	proj.Attrs[views.NameApprovalStage] = "legacy"
	if proj.Str(views.NameStatus) == "pending_approval" {
		if err := c.Tx.Replace(proj); err != nil {
			return nil, err
		}
	} else if err := setProjectStatus(c, proj, "pending_approval"); err != nil {
		return nil, err
	}
	step := engine.NewRecord(views.TypeApprovalSteps, c.AccountID())
	step.Attrs[views.NameKind], step.Attrs[views.NamePosition], step.Attrs[views.NameStatus], step.Attrs[views.NameLegacy] = "legacy", int64(0), approval.StepPending, true
	step.Attrs[views.NameRequiredApprovals] = int64(0)
	if raw, ok := in.Attrs[views.NameComment]; ok {
		var cm string
		if json.Unmarshal(raw, &cm) != nil {
			return nil, engine.BadAttr(views.NameComment, "comment must be a string")
		}
		if strings.TrimSpace(cm) != "" {
			step.Attrs[views.NameComment] = cm
		}
	}
	step.SetRel(views.NameProject, proj.ID)
	step.Rels[views.NameRequiredApprovers] = uids
	return step, insertStep(c, step)
}

// removeApprover handles a user leaving the approvals of an account
// (archived) or of one level: its pending requirements on steps (of that
// level, when levelID is set) are downgraded so that others can complete
// them (rule 5); a step that the remaining signatures complete moves the
// workflow on.
func removeApprover(c *engine.Call, userID, levelID string) error {
	reqs, err := c.Find(views.TypeApprovalRequirements, engine.Eq(views.NameUser, userID), engine.Eq(views.NameStatus, approval.Pending))
	if err != nil {
		return err
	}
	for _, r := range reqs {
		step, err := c.Get(views.TypeApprovalSteps, r.Rel(views.NameApprovalStep))
		if err != nil || step.Str(views.NameStatus) != approval.StepPending || (levelID != "" && step.Rel(views.NameApprovalLevel) != levelID) {
			continue
		}
		st, all, err := loadStep(c, step)
		if err != nil {
			return err
		}
		changed, completed := st.RemoveUser(userID, svcOf(c).Now())
		if !changed {
			continue
		}
		if err := storeStep(c, step, st, all); err != nil {
			return err
		}
		if completed {
			if err := follow(c, step, approval.Completed); err != nil {
				return err
			}
		}
	}
	return nil
}

// userLeftApprovals removes an archived user's service-approver and
// level-approver assignments (rule 4) and downgrades its pending
// requirements (rule 5).
func userLeftApprovals(c *engine.Call, user *engine.Record) error {
	sas, err := c.Find(views.TypeServiceApprovers, engine.Eq(views.NameUser, user.ID))
	if err != nil {
		return err
	}
	for _, sa := range sas {
		if err := c.Tx.Delete(views.TypeServiceApprovers, sa.AccountID, sa.ID); err != nil {
			return err
		}
	}
	lobas, err := c.Find(views.TypeLineOfBusinessApprovals, engine.Eq(views.NameApprovers, user.ID))
	if err != nil {
		return err
	}
	for _, l := range lobas {
		l.Rels[views.NameApprovers] = slices.DeleteFunc(l.Rels[views.NameApprovers], func(id string) bool { return id == user.ID })
		if len(l.Rels[views.NameApprovers]) == 0 {
			delete(l.Rels, views.NameApprovers)
		}
		if err := c.Tx.Replace(l); err != nil {
			return err
		}
	}
	return removeApprover(c, user.ID, "")
}

// afterLevelApproversWrite downgrades the pending requirements of users
// taken off a level (rule 5).
func afterLevelApproversWrite(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		return nil
	}
	for _, uid := range old.Rels[views.NameApprovers] {
		if !slices.Contains(rec.Rels[views.NameApprovers], uid) {
			if err := removeApprover(c, uid, rec.Rel(views.NameApprovalLevel)); err != nil {
				return err
			}
		}
	}
	return nil
}
