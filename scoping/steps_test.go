package scoping_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The approval workflow module (steps.go): approve, decline and rescope,
// the legacy step import and approvers leaving (docs/approval.md rules 2,
// 4, 5 and 6).

// Ensure decline and rescope need a comment, end the step with their
// status and comment, return the project to draft (clearing its approval
// stage) with an event, and let it be submitted again.
func TestStepsDeclineAndRescope(t *testing.T) {
	for _, action := range []string{"decline", "rescope"} {
		t.Run(action, func(t *testing.T) {
			w := newWfWorld(t)
			aID, a := w.member("a@acme.test", "Sales")
			w.level("Technical", "technical", 1, `[]`, "", 0, aID)
			_, err := w.svc.Submit(w.ctx, w.admin, w.project)
			require.NoError(t, err)
			step := w.pendingStep(w.project)

			_, err = w.act(a, step.ID, action, "  ")
			wfCode(t, scopekit.EINVALID, err)
			assert.Equal(t, "pending", w.get("approval-steps", step.ID).Str("status"))

			got, err := w.act(a, step.ID, action, "too expensive")
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"decline": "declined", "rescope": "rescoped"}[action], got.Str("status"))
			assert.Equal(t, "too expensive", got.Str("comment"))
			assert.Equal(t, engine.FormatTime(wfNow), got.Str("completed-at"))
			p := w.get("projects", w.project)
			assert.Equal(t, "draft", p.Str("status"))
			assert.Empty(t, p.Str("approval-stage"))
			assert.Empty(t, p.Str("approved-at"))
			assert.Equal(t, []string{"draft>pending_approval", "pending_approval>draft"},
				w.statusEvents(views.EventProjectStatusChanged, w.project))

			_, err = w.act(a, step.ID, "approve", "")
			wfCode(t, scopekit.ECONFLICT, err)
			_, err = w.svc.Submit(w.ctx, w.admin, w.project)
			require.NoError(t, err)
			assert.NotEqual(t, step.ID, w.pendingStep(w.project).ID, "a new submit makes a new step")
		})
	}
}

// Ensure who may act on a step: project_approvals view at least, a
// required approver (else EFORBIDDEN, even for a manager while an
// approver can still sign), visibility of the step's project, and a known
// action.
func TestStepsActionPermissions(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Sales")
	_, b := w.member("b@acme.test", "Sales")
	w.role("No approvals", map[string]string{"projects": "manage"}, "all")
	_, none := w.member("none@acme.test", "No approvals")
	engID, _ := w.member("eng@acme.test", "Engineer")
	_, manager := w.member("m@acme.test", "Account Admin")
	w.level("Technical", "technical", 1, `[]`, "", 0, aID, engID)
	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)

	other := wfAccount(t, w.svc, "other", "USD")
	for _, tc := range []struct {
		name   string
		actor  *engine.Actor
		step   string
		action string
		code   string
	}{
		{"no project_approvals", none, step.ID, "approve", scopekit.EFORBIDDEN},
		{"not an approver", b, step.ID, "approve", scopekit.EFORBIDDEN},
		{"not an approver declines", b, step.ID, "decline", scopekit.EFORBIDDEN},
		{"a manager while approvers remain", manager, step.ID, "approve", scopekit.EFORBIDDEN},
		{"an approver that cannot see the project", w.actor(engID), step.ID, "approve", scopekit.ENOTFOUND},
		{"another account", other, step.ID, "approve", scopekit.ENOTFOUND},
		{"unknown step", a, "999999", "approve", scopekit.ENOTFOUND},
		{"unknown action", a, step.ID, "veto", scopekit.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.act(tc.actor, tc.step, tc.action, "because")
			wfCode(t, tc.code, err)
		})
	}
	assert.Equal(t, "pending", w.get("approval-steps", step.ID).Str("status"))
	assert.Equal(t, map[string]string{aID: "pending", engID: "pending"}, w.requirements(step.ID))
}

// Ensure a submitter cannot approve its own project unless the level
// allows it (submitter-approves); when the submitter is the only approver
// of a level that does not, a project_approvals manager completes the
// step.
func TestStepsSubmitterApproves(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Account Admin")
	bID, b := w.member("b@acme.test", "Sales")
	strict, _ := w.level("Strict", "technical", 1, `[]`, "", 0, aID, bID)
	lenient := w.create(w.sys, "approval-levels", attrs("name", `"Lenient"`, "kind", `"sales"`, "position", `2`, "submitter-approves", `true`), nil).ID
	w.coverage(lenient, "", aID)
	w.level("Solo", "business", 3, `[]`, "", 0, aID)

	_, err := w.svc.Submit(w.ctx, a, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)
	require.Equal(t, strict, step.Rel("approval-level"))
	_, err = w.act(a, step.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(b, step.ID, "approve", "")
	require.NoError(t, err, "the submitter's requirement does not count: one signature completes")

	step = w.pendingStep(w.project)
	require.Equal(t, lenient, step.Rel("approval-level"))
	_, err = w.act(a, step.ID, "approve", "")
	require.NoError(t, err)

	// the submitter is the only approver: nobody can sign, so a manager
	// completes the step, recorded as its signature
	step = w.pendingStep(w.project)
	_, err = w.act(a, step.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(b, step.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(w.admin, step.ID, "approve", "override")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{aID: "pending", w.adminID: "signed"}, w.requirements(step.ID))
	p := w.get("projects", w.project)
	assert.Equal(t, "approved", p.Str("status"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("approved-at"))
}

// Ensure rules 4 and 5: archiving a user removes its service-approver and
// level-approver assignments and downgrades its pending requirements; a
// step that the remaining signatures complete moves the workflow on, and
// one that nobody can sign any more is completed by a manager.
func TestStepsArchivedApprover(t *testing.T) {
	w := newWfWorld(t)
	aID, _ := w.member("a@acme.test", "Sales")
	bID, b := w.member("b@acme.test", "Sales")
	cID, _ := w.member("c@acme.test", "Sales")
	sa := w.create(w.sys, "service-approvers", nil, map[string]engine.RelInput{"user": rel("users", aID), "line-of-business": rel("lines-of-business", w.network)})
	_, loba := w.level("Technical", "technical", 1, `[]`, "", 0, aID, bID)
	_, solo := w.level("Solo", "business", 2, `[]`, "", 0, cID)

	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	first := w.pendingStep(w.project)
	_, err = w.act(b, first.ID, "approve", "")
	require.NoError(t, err)
	require.Equal(t, "pending", w.get("approval-steps", first.ID).Str("status"))

	// archiving a completes the first step with b's signature
	_, err = w.update(w.sys, "users", aID, attrs("active", `false`), nil)
	require.NoError(t, err)
	assert.Empty(t, w.list("service-approvers", map[string]string{"user": aID}))
	_, err = w.svc.Get(w.ctx, w.sys, "service-approvers", sa.ID, engine.ListParams{}, engine.Options{})
	wfCode(t, scopekit.ENOTFOUND, err)
	assert.Equal(t, []string{bID}, w.get("line-of-business-approvals", loba).Rels["approvers"])
	assert.Equal(t, map[string]string{aID: "downgraded", bID: "signed"}, w.requirements(first.ID))
	assert.Equal(t, "approved", w.get("approval-steps", first.ID).Str("status"))

	// deleting c (its membership is deactivated) leaves the second step
	// with nobody to sign: it stays pending until a manager completes it
	second := w.pendingStep(w.project)
	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "users", cID, engine.Options{}))
	assert.Empty(t, w.get("line-of-business-approvals", solo).Rels["approvers"])
	assert.Equal(t, map[string]string{cID: "downgraded"}, w.requirements(second.ID))
	assert.Equal(t, "pending", w.get("approval-steps", second.ID).Str("status"))
	_, err = w.act(b, second.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(w.admin, second.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err) // the submitter, though a manager
	_, manager := w.member("m@acme.test", "Account Admin")
	_, err = w.act(manager, second.ID, "approve", "")
	require.NoError(t, err)
	assert.Equal(t, "approved", w.get("projects", w.project).Str("status"))
}

// Ensure rules 5 and 6: taking a user off a level downgrades its pending
// requirements on that level's steps only, and an approver added after a
// step exists is not required to sign it.
func TestStepsLevelApproversChange(t *testing.T) {
	w := newWfWorld(t)
	aID, _ := w.member("a@acme.test", "Sales")
	bID, b := w.member("b@acme.test", "Sales")
	cID, c := w.member("c@acme.test", "Sales")
	_, loba := w.level("Technical", "technical", 1, `[]`, "", 0, aID, bID)
	_, other := w.level("Business", "business", 2, `[]`, "", 0, aID)

	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)

	// a is taken off the other level: nothing changes on this step
	_, err = w.update(w.sys, "line-of-business-approvals", other, nil, map[string]engine.RelInput{"approvers": wfUsers(cID)})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{aID: "pending", bID: "pending"}, w.requirements(step.ID))

	// c is added to this level: not required; a is taken off: downgraded
	_, err = w.update(w.sys, "line-of-business-approvals", loba, nil, map[string]engine.RelInput{"approvers": wfUsers(bID, cID)})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{aID: "downgraded", bID: "pending"}, w.requirements(step.ID))
	_, err = w.act(c, step.ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err)
	_, err = w.act(b, step.ID, "approve", "")
	require.NoError(t, err)
	next := w.pendingStep(w.project)
	assert.Equal(t, []string{cID}, next.Rels["required-approvers"])
}

// legacyInput is the input of a legacy step import.
func legacyInput(project string, approvers ...string) *engine.Input {
	return &engine.Input{Attrs: attrs("legacy", `true`), Rels: map[string]engine.RelInput{
		"project": rel("projects", project), "required-approvers": wfUsers(approvers...)}}
}

// Ensure rule 2 and the import of docs/resources.md: a legacy step needs
// settings manage, legacy true, a visible draft or pending project and at
// least one user of the account; only legacy, comment, project and
// required-approvers may be sent.
func TestStepsLegacyImportErrors(t *testing.T) {
	w := newWfWorld(t)
	aID, _ := w.member("a@acme.test", "Sales")
	_, sales := w.member("s@acme.test", "Sales")
	_, otherProject := w.otherProject()
	won := w.approvedProject("Won")

	with := func(f func(in *engine.Input)) *engine.Input {
		in := legacyInput(w.project, aID)
		f(in)
		return in
	}
	for _, tc := range []struct {
		name  string
		actor *engine.Actor
		in    *engine.Input
		code  string
		field string
	}{
		{"no settings manage", sales, legacyInput(w.project, aID), scopekit.EFORBIDDEN, ""},
		{"legacy false", w.sys, with(func(in *engine.Input) { in.Attrs["legacy"] = json.RawMessage(`false`) }), scopekit.EINVALID, "/data/attributes/legacy"},
		{"legacy not a bool", w.sys, with(func(in *engine.Input) { in.Attrs["legacy"] = json.RawMessage(`"yes"`) }), scopekit.EINVALID, "/data/attributes/legacy"},
		{"legacy missing", w.sys, with(func(in *engine.Input) { delete(in.Attrs, "legacy") }), scopekit.EINVALID, "/data/attributes/legacy"},
		{"another attribute", w.sys, with(func(in *engine.Input) { in.Attrs["status"] = json.RawMessage(`"approved"`) }), scopekit.EBADREQUEST, "/data/attributes/status"},
		{"comment not a string", w.sys, with(func(in *engine.Input) { in.Attrs["comment"] = json.RawMessage(`1`) }), scopekit.EBADREQUEST, "/data/attributes/comment"},
		{"another relationship", w.sys, with(func(in *engine.Input) { in.Rels["approval-level"] = rel("approval-levels", "1") }), scopekit.EBADREQUEST, "/data/relationships/approval-level"},
		{"no project", w.sys, with(func(in *engine.Input) { delete(in.Rels, "project") }), scopekit.EINVALID, "/data/relationships/project"},
		{"project of another type", w.sys, with(func(in *engine.Input) { in.Rels["project"] = rel("clients", w.client) }), scopekit.EINVALID, "/data/relationships/project"},
		{"unknown project", w.sys, legacyInput("999999", aID), scopekit.EINVALID, "/data/relationships/project"},
		{"another account's project", w.sys, legacyInput(otherProject, aID), scopekit.EINVALID, "/data/relationships/project"},
		{"approved project", w.sys, legacyInput(won, aID), scopekit.ECONFLICT, ""},
		{"no approvers", w.sys, legacyInput(w.project), scopekit.EINVALID, "/data/relationships/required-approvers"},
		{"approvers not users", w.sys, with(func(in *engine.Input) {
			in.Rels["required-approvers"] = engine.RelInput{ToMany: true, Refs: []engine.Ref{{Type: "clients", ID: w.client}}}
		}), scopekit.EBADREQUEST, "/data/relationships/required-approvers"},
		{"unknown approver", w.sys, legacyInput(w.project, aID, "999999"), scopekit.EINVALID, "/data/relationships/required-approvers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.svc.Create(w.ctx, tc.actor, "approval-steps", tc.in, engine.Options{})
			wfCode(t, tc.code, err)
			if tc.field != "" {
				assert.Equal(t, tc.field, scopekit.List(err)[0].Field, "%v", err)
			}
		})
	}
	assert.Empty(t, w.steps(w.project, ""))
	assert.Equal(t, "draft", w.get("projects", w.project).Str("status"))
}

// Ensure a legacy import on a draft project makes it pending (with an
// event and submitted-at), on a pending project cancels its unified steps
// so the imported step is its only pending one, and that approving the
// legacy step approves the project with approved-at (rule 2).
func TestStepsLegacyImport(t *testing.T) {
	w := newWfWorld(t)
	aID, a := w.member("a@acme.test", "Sales")
	bID, b := w.member("b@acme.test", "Sales")
	w.level("Technical", "technical", 1, `[]`, "", 0, bID)

	// a draft project
	in := legacyInput(w.project, aID, aID)
	in.Attrs["comment"] = json.RawMessage(`"imported from the old tool"`)
	res, err := w.svc.Create(w.ctx, w.sys, "approval-steps", in, engine.Options{})
	require.NoError(t, err)
	step := res.Records[0]
	assert.True(t, step.Bool("legacy"))
	assert.Equal(t, "legacy", step.Str("kind"))
	assert.Equal(t, "pending", step.Str("status"))
	assert.Equal(t, "imported from the old tool", step.Str("comment"))
	assert.Equal(t, []string{aID}, step.Rels["required-approvers"], "approvers are listed once")
	p := w.get("projects", w.project)
	assert.Equal(t, "pending_approval", p.Str("status"))
	assert.Equal(t, "legacy", p.Str("approval-stage"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("submitted-at"))
	assert.Equal(t, []string{"draft>pending_approval"}, w.statusEvents(views.EventProjectStatusChanged, w.project))

	_, err = w.act(a, step.ID, "approve", "")
	require.NoError(t, err)
	p = w.get("projects", w.project)
	assert.Equal(t, "approved", p.Str("status"))
	assert.Equal(t, engine.FormatTime(wfNow), p.Str("approved-at"))
	assert.Empty(t, w.steps(w.project, "pending"), "a legacy step completes the workflow")

	// a project pending on a unified step
	other := w.newProject("Pending", w.network)
	_, err = w.svc.Submit(w.ctx, w.admin, other)
	require.NoError(t, err)
	unified := w.pendingStep(other)
	res, err = w.svc.Create(w.ctx, w.sys, "approval-steps", legacyInput(other, aID, bID), engine.Options{})
	require.NoError(t, err)
	legacy := res.Records[0]
	assert.Equal(t, "canceled", w.get("approval-steps", unified.ID).Str("status"))
	assert.Equal(t, legacy.ID, w.pendingStep(other).ID)
	assert.Equal(t, "legacy", w.get("projects", other).Str("approval-stage"))
	assert.Equal(t, []string{"draft>pending_approval"}, w.statusEvents(views.EventProjectStatusChanged, other),
		"the project stays pending: no status change")
	_, err = w.act(b, unified.ID, "approve", "")
	wfCode(t, scopekit.ECONFLICT, err)

	// a legacy step with two approvers needs both
	_, err = w.act(a, legacy.ID, "approve", "")
	require.NoError(t, err)
	assert.Equal(t, "pending_approval", w.get("projects", other).Str("status"))
	_, err = w.act(b, legacy.ID, "approve", "")
	require.NoError(t, err)
	assert.Equal(t, "approved", w.get("projects", other).Str("status"))
}

// Ensure approval steps and requirements are read-only apart from the
// import: an update is refused.
func TestStepsReadOnly(t *testing.T) {
	w := newWfWorld(t)
	aID, _ := w.member("a@acme.test", "Sales")
	w.level("Technical", "technical", 1, `[]`, "", 0, aID)
	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	step := w.pendingStep(w.project)
	_, err = w.update(w.sys, "approval-steps", step.ID, attrs("status", `"approved"`), nil)
	wfCode(t, scopekit.EFORBIDDEN, err)
	assert.Equal(t, "pending", w.get("approval-steps", step.ID).Str("status"))
	for _, r := range w.list("approval-requirements", map[string]string{"approval-step": step.ID}) {
		_, err = w.update(w.sys, "approval-requirements", r.ID, attrs("status", `"signed"`), nil)
		wfCode(t, scopekit.EFORBIDDEN, err)
	}
	assert.Equal(t, map[string]string{aID: "pending"}, w.requirements(step.ID))
}
