package scoping_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The approval workflow module (workflow.go): submit, the walk through the
// levels, direct status changes and the events they record
// (docs/approval.md). The wf* fixture is in wfworld_test.go.

// Ensure submit walks the levels in order, skipping one whose coverage
// misses the project's lines (rule 1), gives the first applicable level a
// step whose required approvers all must sign (required-approvals 0), and
// approves the project when the last signature completes the walk.
func TestWorkflowSubmitWalksLevels(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Sales")
	bID, b := w.member("b@acme.test", "Sales")
	w.level("Security review", "technical", 1, `[]`, w.security, 0, aID)
	business, _ := w.level("Business", "business", 2, `[]`, "", 0, aID, bID)

	res, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	p := res.Records[0]
	assert.Equal(t, "pending_approval", p.Str("status"))
	assert.Equal(t, "business", p.Str("approval-stage"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("submitted-at"))
	assert.Empty(t, p.Str("approved-at"))

	step := w.pendingStep(w.project)
	assert.Equal(t, business, step.Rel("approval-level"))
	assert.Equal(t, "business", step.Str("kind"))
	assert.Equal(t, int64(2), step.Int("position"))
	assert.False(t, step.Bool("legacy"))
	assert.ElementsMatch(t, []string{aID, bID}, step.Rels["required-approvers"])
	assert.Equal(t, map[string]string{aID: "pending", bID: "pending"}, w.requirements(step.ID))

	got, err := w.act(a, step.ID, "approve", "fine by me")
	require.NoError(t, err)
	assert.Equal(t, "pending", got.Str("status"), "one of two signatures")
	assert.Equal(t, "pending_approval", w.get("projects", w.project).Str("status"))
	_, err = w.act(a, step.ID, "approve", "")
	wfCode(t, scopekit.ECONFLICT, err)

	got, err = w.act(b, step.ID, "approve", "")
	require.NoError(t, err)
	assert.Equal(t, "approved", got.Str("status"))
	assert.Equal(t, "fine by me", got.Str("comment"))
	assert.Equal(t, engine.FormatTime(wfNow), got.Str("completed-at"))
	assert.Equal(t, map[string]string{aID: "signed", bID: "signed"}, w.requirements(step.ID))

	p = w.get("projects", w.project)
	assert.Equal(t, "approved", p.Str("status"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("approved-at"), "the workflow completed")
	assert.Empty(t, p.Str("approval-stage"))
	assert.Equal(t, []string{"draft>pending_approval", "pending_approval>approved"},
		w.statusEvents(views.EventProjectStatusChanged, w.project))

	_, err = w.svc.Submit(w.ctx, w.admin, w.project)
	wfCode(t, scopekit.ECONFLICT, err)
}

// Ensure a completed step moves the walk on past its position, to the
// next level whose conditions hold; a level whose conditions do not hold
// is passed.
func TestWorkflowConditionsAndNextLevel(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Sales")
	bID, b := w.member("b@acme.test", "Sales")
	w.level("Technical", "technical", 1, `[{"field":"total_hours","operator":"gte","value":"10"}]`, "", 0, aID)
	w.level("Big deals", "sales", 2, `[{"field":"contract_revenue","operator":"gt","value":"5000"}]`, "", 0, bID)
	business, _ := w.level("Business", "business", 3, `[{"field":"contract_margin","operator":"gte","value":"0.4"},{"field":"line_of_business","operator":"eq","value":"`+w.network+`"}]`, "", 1, bID)

	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	first := w.pendingStep(w.project)
	assert.Equal(t, "technical", first.Str("kind"))
	_, err = w.act(b, first.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(a, first.ID, "approve", "")
	require.NoError(t, err)

	next := w.pendingStep(w.project)
	assert.Equal(t, business, next.Rel("approval-level"), "the sales level's condition does not hold")
	assert.Equal(t, "business", w.get("projects", w.project).Str("approval-stage"))
	_, err = w.act(b, next.ID, "approve", "")
	require.NoError(t, err)
	assert.Equal(t, "approved", w.get("projects", w.project).Str("status"))
	assert.Len(t, w.steps(w.project, "approved"), 2)
}

// Ensure a project no level applies to is approved at once on submit,
// with approved-at set and no step.
func TestWorkflowSubmitWithoutLevelsApproves(t *testing.T) {
	w := newWfWorld(t)
	// an archived level and a level whose only approver is not active
	// apply to nothing
	aID, _ := w.member("a@acme.test", "Sales")
	archived, _ := w.level("Old", "technical", 1, `[]`, "", 0, aID)
	_, err := w.update(w.sys, "approval-levels", archived, attrs("active", `false`), nil)
	require.NoError(t, err)
	var gone string
	require.NoError(t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		u, err := ad.EnsureMember(w.acct, scoping.Member{Email: "gone@acme.test", Name: "Gone", Role: "Sales", Status: "deactivated"})
		gone = u.ID
		return err
	}))
	w.level("Inactive approver", "technical", 2, `[]`, "", 0, gone)

	res, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	p := res.Records[0]
	assert.Equal(t, "approved", p.Str("status"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("approved-at"))
	assert.Empty(t, w.steps(w.project, ""))
	assert.Equal(t, []string{"draft>pending_approval", "pending_approval>approved"},
		w.statusEvents(views.EventProjectStatusChanged, w.project))
}

// Ensure submit's errors: projects manage is needed, the project must be
// visible (an assigned role sees only its projects; another account's id
// is not found) and a draft.
func TestWorkflowSubmitErrors(t *testing.T) {
	w := newWfWorld(t)
	_, readOnly := w.member("ro@acme.test", "Read Only")
	engID, eng := w.member("eng@acme.test", "Engineer")
	_, otherProject := w.otherProject()
	approved := w.approvedProject("Approved")

	for _, tc := range []struct {
		name    string
		actor   *engine.Actor
		project string
		code    string
	}{
		{"no projects manage", readOnly, w.project, scopekit.EFORBIDDEN},
		{"assigned, not a teammate", eng, w.project, scopekit.ENOTFOUND},
		{"another account's project", w.admin, otherProject, scopekit.ENOTFOUND},
		{"unknown project", w.admin, "999999", scopekit.ENOTFOUND},
		{"not a draft", w.admin, approved, scopekit.ECONFLICT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.svc.Submit(w.ctx, tc.actor, tc.project)
			wfCode(t, tc.code, err)
		})
	}
	assert.Equal(t, "draft", w.get("projects", w.project).Str("status"))

	// a teammate with an assigned role may submit (its visibility is
	// loaded once per actor: a new request resolves a new one)
	w.create(w.sys, "project-teammates", nil, map[string]engine.RelInput{"project": rel("projects", w.project), "user": rel("users", engID)})
	res, err := w.svc.Submit(w.ctx, w.actor(engID), w.project)
	require.NoError(t, err)
	assert.Equal(t, "approved", res.Records[0].Str("status"))
}

// Ensure direct status changes follow the table of docs/approval.md: they
// need project_approvals manage, only the listed changes are allowed (409
// otherwise, 422 for an unknown value), a new project starts as draft, a
// directly set status never sets approved-at, leaving pending_approval
// cancels the pending steps, and every change records an event.
func TestWorkflowDirectStatusChanges(t *testing.T) {
	w := newWfWorld(t)
	_, sales := w.member("s@acme.test", "Sales")

	_, err := w.svc.Create(w.ctx, w.admin, "projects", &engine.Input{Attrs: attrs("project-name", `"New"`, "status", `"approved"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", w.client)}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)
	p := w.create(w.admin, "projects", attrs("project-name", `"New"`, "status", `"draft"`), map[string]engine.RelInput{"client": rel("clients", w.client)})
	assert.Equal(t, "draft", p.Str("status"))
	assert.Empty(t, w.statusEvents(views.EventProjectStatusChanged, p.ID), "creating a project emits no event")

	_, err = w.update(sales, "projects", w.project, attrs("status", `"approved"`), nil)
	wfCode(t, scopekit.EFORBIDDEN, err)
	// a write that leaves the status as it is needs no approval permission
	_, err = w.update(sales, "projects", w.project, attrs("status", `"draft"`, "executive-summary", `"x"`), nil)
	require.NoError(t, err)

	steps := []struct {
		to   string
		code string
	}{
		{"won", scopekit.ECONFLICT},
		{"pending_approval", scopekit.ECONFLICT},
		{"bogus", scopekit.EINVALID},
		{"approved", ""},
		{"draft", scopekit.ECONFLICT},
		{"won", ""},
		{"lost", scopekit.ECONFLICT},
		{"canceled", ""},
		{"draft", ""},
		{"canceled", ""},
		{"approved", scopekit.ECONFLICT},
	}
	var want []string
	from := "draft"
	for _, st := range steps {
		got, err := w.update(w.admin, "projects", w.project, attrs("status", fmt.Sprintf("%q", st.to)), nil)
		if st.code != "" {
			wfCode(t, st.code, err)
			continue
		}
		require.NoError(t, err, "%s -> %s", from, st.to)
		assert.Equal(t, st.to, got.Str("status"))
		assert.Empty(t, got.Str("approved-at"), "a directly set status never sets approved-at")
		want = append(want, from+">"+st.to)
		from = st.to
	}
	assert.Equal(t, want, w.statusEvents(views.EventProjectStatusChanged, w.project))

	// lost -> draft (reopen)
	other := w.newProject("Lost", w.network)
	for _, st := range []string{"approved", "lost", "draft"} {
		_, err := w.update(w.admin, "projects", other, attrs("status", fmt.Sprintf("%q", st)), nil)
		require.NoError(t, err, st)
	}
}

// Ensure leaving pending_approval directly (reopen to draft, or approve)
// cancels the pending steps and clears the approval stage; approving so
// leaves approved-at empty.
func TestWorkflowDirectChangeCancelsPendingSteps(t *testing.T) {
	for _, to := range []string{"draft", "approved", "canceled"} {
		t.Run(to, func(t *testing.T) {
			w := newWfWorld(t)
			aID, a := w.member("a@acme.test", "Sales")
			w.level("Technical", "technical", 1, `[]`, "", 0, aID)
			_, err := w.svc.Submit(w.ctx, w.admin, w.project)
			require.NoError(t, err)
			step := w.pendingStep(w.project)

			p, err := w.update(w.admin, "projects", w.project, attrs("status", fmt.Sprintf("%q", to)), nil)
			require.NoError(t, err)
			assert.Equal(t, to, p.Str("status"))
			assert.Empty(t, p.Str("approval-stage"))
			assert.Empty(t, p.Str("approved-at"))
			st := w.get("approval-steps", step.ID)
			assert.Equal(t, "canceled", st.Str("status"))
			assert.Equal(t, engine.FormatTime(wfNow), st.Str("completed-at"))
			assert.Empty(t, w.steps(w.project, "pending"))
			_, err = w.act(a, step.ID, "approve", "")
			wfCode(t, scopekit.ECONFLICT, err)
			assert.Equal(t, []string{"draft>pending_approval", "pending_approval>" + to},
				w.statusEvents(views.EventProjectStatusChanged, w.project))
		})
	}
}

// Ensure the project's lines of business include its services' lines: a
// level covering only a service's line applies, and a coverage's own
// required-approvals overrides the level's.
func TestWorkflowServiceLinesAndCoverageCount(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Sales")
	bID, _ := w.member("b@acme.test", "Sales")
	ps := w.list("project-services", map[string]string{"project": w.project})[0]
	_, err := w.update(w.sys, "project-services", ps.ID, nil, map[string]engine.RelInput{"line-of-business": rel("lines-of-business", w.security)})
	require.NoError(t, err)
	level, _ := w.level("Security", "technical", 1, `[]`, w.security, 0, aID, bID)
	_, err = w.svc.Create(w.ctx, w.sys, "line-of-business-approvals", &engine.Input{Attrs: attrs("required-approvals", `1`),
		Rels: map[string]engine.RelInput{"approval-level": rel("approval-levels", level), "line-of-business": rel("lines-of-business", w.network),
			"approvers": wfUsers(bID)}}, engine.Options{})
	require.NoError(t, err)

	_, err = w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)
	assert.ElementsMatch(t, []string{aID, bID}, step.Rels["required-approvers"])
	_, err = w.act(a, step.ID, "approve", "")
	require.NoError(t, err, "the count of the project's own line: one signature")
	assert.Equal(t, "approved", w.get("projects", w.project).Str("status"))
}

// Ensure rule 3: money conditions compare amounts converted to the
// account's default currency; hours are not converted.
func TestWorkflowMoneyConditionsConverted(t *testing.T) {
	w := newWfWorld(t)
	require.NoError(t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		_, err := ad.EnsureCurrency(w.acct, "EUR", "Euro", "0.5")
		return err
	}))
	eur := w.create(w.sys, "rate-tables", attrs("name", `"Euro"`, "currency", `"EUR"`), nil).ID
	aID, _ := w.member("a@acme.test", "Sales")
	w.level("Big deals", "business", 1, `[{"field":"contract_revenue","operator":"gt","value":"1500"},{"field":"total_hours","operator":"eq","value":"10"}]`, "", 0, aID)

	euro := w.newProject("Euro", w.network)
	_, err := w.update(w.sys, "projects", euro, nil, map[string]engine.RelInput{"rate-table": rel("rate-tables", eur)})
	require.NoError(t, err)
	require.Equal(t, "EUR", w.get("projects", euro).Str("currency"))

	res, err := w.svc.Submit(w.ctx, w.admin, euro)
	require.NoError(t, err)
	assert.Equal(t, "pending_approval", res.Records[0].Str("status"), "1000 EUR is 2000 USD")
	res, err = w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	assert.Equal(t, "approved", res.Records[0].Str("status"), "1000 USD is below the threshold")
}

// Ensure a change of a project service's delivery status records a
// service_status_changed event, and other edits record none.
func TestWorkflowServiceStatusEvents(t *testing.T) {
	w := newWfWorld(t)
	ps := w.list("project-services", map[string]string{"project": w.project})[0]
	assert.Equal(t, "not_started", ps.Str("status"))
	for _, st := range []string{"in_progress", "in_progress", "complete"} {
		_, err := w.update(w.sys, "project-services", ps.ID, attrs("status", fmt.Sprintf("%q", st)), nil)
		require.NoError(t, err)
	}
	_, err := w.update(w.sys, "project-services", ps.ID, attrs("quantity", `3`), nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"not_started>in_progress", "in_progress>complete"},
		w.statusEvents(views.EventServiceStatusChanged, ps.ID))
}

// Ensure concurrent approvals of a one-signature step complete it once:
// one approver wins, the other finds the step no longer pending, and the
// project is approved with a single event.
func TestWorkflowConcurrentApprovals(t *testing.T) {
	w := newWfWorld(t)
	var ids []string
	var actors []*engine.Actor
	for i := range 4 {
		id, a := w.member(fmt.Sprintf("u%d@acme.test", i), "Sales")
		ids, actors = append(ids, id), append(actors, a)
	}
	w.level("Technical", "technical", 1, `[]`, "", 1, ids...)
	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)

	errs := make([]error, len(actors))
	var wg sync.WaitGroup
	for i, a := range actors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = w.svc.StepAction(w.ctx, a, step.ID, "approve", "")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		assert.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "%v", err)
	}
	assert.Equal(t, 1, ok)
	assert.Equal(t, "approved", w.get("approval-steps", step.ID).Str("status"))
	assert.Equal(t, []string{"draft>pending_approval", "pending_approval>approved"},
		w.statusEvents(views.EventProjectStatusChanged, w.project))
}
