package scoping_test

import (
	"fmt"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// wonProject returns the world's project set won directly (a line of
// 10 h at 100/h).
func (w *wfWorld) wonProject() string {
	w.t.Helper()
	for _, st := range []string{"approved", "won"} {
		_, err := w.update(w.admin, "projects", w.project, attrs("status", `"`+st+`"`), nil)
		require.NoError(w.t, err)
	}
	return w.project
}

// changeOrder opens a change order of the project.
func (w *wfWorld) changeOrder(project, title string) *engine.Record {
	w.t.Helper()
	return w.create(w.admin, "change-orders", attrs("title", `"`+title+`"`), map[string]engine.RelInput{"project": rel("projects", project)})
}

// coLines lists a change order's lines of a type.
func (w *wfWorld) coLines(typ, co string) []*engine.Record {
	return w.list(typ, map[string]string{"change-order": co})
}

func (w *wfWorld) coAction(a *engine.Actor, co, action string) (*engine.Record, error) {
	res, err := w.svc.ChangeOrderAction(w.ctx, a, co, action)
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

// Ensure a won project's scope is locked (its lines and attributes; a
// service's delivery status and actual hours move on) and that a change
// order is for won projects only.
func TestWonProjectScopeIsLocked(t *testing.T) {
	w := newWfWorld(t)
	_, err := w.svc.Create(w.ctx, w.admin, "change-orders", &engine.Input{Attrs: attrs("title", `"Early"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", w.project)}}, engine.Options{})
	wfCode(t, scopekit.ECONFLICT, err)
	p := w.wonProject()
	line := w.list("project-services", map[string]string{"project": p})[0]
	_, err = w.update(w.admin, "project-services", line.ID, attrs("quantity", `3`), nil)
	wfCode(t, scopekit.ECONFLICT, err)
	require.Contains(t, err.Error(), "change order")
	_, err = w.update(w.admin, "project-services", line.ID, attrs("status", `"in_progress"`, "actual-hours", `"4"`), nil)
	require.NoError(t, err, "delivery progress moves on")
	_, err = w.update(w.admin, "projects", p, attrs("project-name", `"Renamed"`), nil)
	wfCode(t, scopekit.ECONFLICT, err)
	_, err = w.svc.Create(w.ctx, w.admin, "project-expenses", &engine.Input{Attrs: attrs("description", `"Hotel"`, "rate", `1`),
		Rels: map[string]engine.RelInput{"project": rel("projects", p)}}, engine.Options{})
	wfCode(t, scopekit.ECONFLICT, err)
	wfCode(t, scopekit.ECONFLICT, w.svc.Delete(w.ctx, w.admin, "project-services", line.ID, engine.Options{}))
	_, err = w.update(w.admin, "projects", p, attrs("status", `"canceled"`), nil)
	require.NoError(t, err, "its status still changes")
}

// Ensure a change order copies the base version's scope into lines of its
// own (the project's lists leave them out; filter[change-order] lists
// them), is priced as its own scope with deltas from its base that equal
// its deltas read, refers only to lines of its own copy, and once accepted
// gives the project its scope with a version (accepted).
func TestChangeOrderCopyPriceAccept(t *testing.T) {
	w := newWfWorld(t)
	p := w.wonProject()
	co := w.changeOrder(p, "More work")
	require.EqualValues(t, 1, co.Int("number"))
	require.Equal(t, scoping.ChangeOrderDraft, co.Str("status"))
	require.NotEmpty(t, co.Rel("base-version"))
	require.Equal(t, "1000.00", co.Str("contract-revenue"))
	require.Equal(t, "0.00", co.Str("delta-revenue"))

	own := w.list("project-services", map[string]string{"project": p})
	require.Len(t, own, 1, "the project's lists leave the copy out")
	lines := w.coLines("project-services", co.ID)
	require.Len(t, lines, 1)
	require.NotEqual(t, own[0].ID, lines[0].ID)
	res := w.coLines("project-resources", co.ID)
	require.Len(t, res, 1)
	require.Equal(t, res[0].ID, lines[0].Rel("project-resource"), "the copy refers to its own resource")

	_, err := w.update(w.admin, "project-services", lines[0].ID, attrs("quantity", `2`), nil)
	require.NoError(t, err)
	added := w.create(w.admin, "project-services", attrs("name", `"Extra"`, "unit-hours", `5`),
		map[string]engine.RelInput{"change-order": rel("change-orders", co.ID), "project-resource": rel("project-resources", res[0].ID)})
	require.Equal(t, p, added.Rel("project"), "a line of a change order takes its project")
	require.Equal(t, "500.00", added.Str("revenue"))
	_, err = w.svc.Create(w.ctx, w.admin, "project-services", &engine.Input{Attrs: attrs("name", `"Cross"`),
		Rels: map[string]engine.RelInput{"change-order": rel("change-orders", co.ID), "project-resource": rel("project-resources", own[0].Rel("project-resource"))}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)

	co = w.get("change-orders", co.ID)
	require.Equal(t, "2500.00", co.Str("contract-revenue"))
	require.Equal(t, "1500.00", co.Str("delta-revenue"))
	require.Equal(t, "1000.00", w.get("projects", p).Str("contract-revenue"), "the project is priced as it was")
	d, err := w.svc.ChangeOrderDeltas(w.ctx, w.admin, co.ID)
	require.NoError(t, err)
	require.Equal(t, co.Str("delta-revenue"), d.Total.Delta.Revenue)
	require.Len(t, d.Added, 1)
	require.Equal(t, added.ID, d.Added[0].ID)
	changed := map[string]scoping.LineDiff{}
	for _, l := range d.Changed {
		changed[l.Type+"/"+l.ID] = l
	}
	require.Contains(t, changed, "project-services/"+own[0].ID, "a copy's line is named by the project line it stands for")
	require.Equal(t, "1000.00", changed["project-services/"+own[0].ID].Delta.Revenue)

	_, err = w.coAction(w.admin, co.ID, "accept")
	wfCode(t, scopekit.ECONFLICT, err) // not approved yet
	co, err = w.coAction(w.admin, co.ID, "submit")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderApproved, co.Str("status"), "no level applies: approved at once")
	_, err = w.update(w.admin, "project-services", lines[0].ID, attrs("quantity", `5`), nil)
	wfCode(t, scopekit.ECONFLICT, err) // the copy is settled once submitted
	co, err = w.coAction(w.admin, co.ID, "accept")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderAccepted, co.Str("status"))
	proj := w.get("projects", p)
	require.Equal(t, "2500.00", proj.Str("contract-revenue"))
	require.Equal(t, "won", proj.Str("status"))
	own = w.list("project-services", map[string]string{"project": p})
	require.Len(t, own, 2)
	v := w.get("project-versions", co.Rel("accepted-version"))
	require.Equal(t, scoping.VersionAccepted, v.Str("reason"))
	require.Equal(t, "2500.00", v.Str("contract-revenue"))
	require.Equal(t, []string{"draft>pending_approval", "pending_approval>approved", "approved>accepted"},
		w.statusEvents("change_order_status_changed", co.ID), "each status change is an event")
}

// Ensure two change orders on one base: the first accepted goes through;
// the second is refused (409 naming the newer version) until rebased, and
// a rebase keeps its own changes over the new base.
func TestChangeOrderRebase(t *testing.T) {
	w := newWfWorld(t)
	p := w.wonProject()
	a, b := w.changeOrder(p, "A"), w.changeOrder(p, "B")
	require.Equal(t, a.Rel("base-version"), b.Rel("base-version"))
	aLine := w.coLines("project-services", a.ID)[0]
	_, err := w.update(w.admin, "project-services", aLine.ID, attrs("quantity", `2`), nil)
	require.NoError(t, err)
	bRes := w.coLines("project-resources", b.ID)[0]
	w.create(w.admin, "project-services", attrs("name", `"Training"`, "unit-hours", `4`),
		map[string]engine.RelInput{"change-order": rel("change-orders", b.ID), "project-resource": rel("project-resources", bRes.ID)})
	for _, co := range []string{a.ID, b.ID} {
		_, err := w.coAction(w.admin, co, "submit")
		require.NoError(t, err)
	}
	_, err = w.coAction(w.admin, a.ID, "accept")
	require.NoError(t, err)
	_, err = w.coAction(w.admin, b.ID, "accept")
	wfCode(t, scopekit.ECONFLICT, err)
	require.Contains(t, err.Error(), "rebase")
	latest := w.get("change-orders", a.ID).Rel("accepted-version")
	require.Contains(t, err.Error(), "project-versions "+latest)
	base, now := w.get("project-versions", b.Rel("base-version")), w.get("project-versions", latest)
	require.Contains(t, err.Error(), fmt.Sprintf("based on version %d, but the project is at version %d (", base.Int("number"), now.Int("number")),
		"the message names both versions' numbers")

	b, err = w.coAction(w.admin, b.ID, "rebase")
	require.NoError(t, err)
	require.Equal(t, latest, b.Rel("base-version"))
	require.Equal(t, scoping.ChangeOrderDraft, b.Str("status"), "a rebased change order is approved again")
	b = w.get("change-orders", b.ID)
	require.Equal(t, "2400.00", b.Str("contract-revenue"), "A's second unit and B's training")
	require.Equal(t, "400.00", b.Str("delta-revenue"))
	_, err = w.coAction(w.admin, b.ID, "submit")
	require.NoError(t, err)
	_, err = w.coAction(w.admin, b.ID, "accept")
	require.NoError(t, err)
	require.Equal(t, "2400.00", w.get("projects", p).Str("contract-revenue"))
}

// Ensure a change order walks the approval levels whose conditions its
// deltas meet: a level for changes over 1,000 applies to a large change
// and not a small one; an approver's decline declines the change order,
// a rescope sends it back to draft, an approval approves it.
func TestChangeOrderApproval(t *testing.T) {
	w := newWfWorld(t)
	approverID, approver := w.member("boss@acme.test", "Account Admin")
	w.level("Big changes", "business", 1, `[{"field":"delta_revenue","operator":"gt","value":"1000"}]`, "", 1, approverID)
	p := w.wonProject()

	small := w.changeOrder(p, "Small")
	line := w.coLines("project-services", small.ID)[0]
	_, err := w.update(w.admin, "project-services", line.ID, attrs("unit-hours", `15`), nil) // +500
	require.NoError(t, err)
	small, err = w.coAction(w.admin, small.ID, "submit")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderApproved, small.Str("status"))
	_, err = w.coAction(w.admin, small.ID, "cancel")
	require.NoError(t, err)

	big := w.changeOrder(p, "Big")
	line = w.coLines("project-services", big.ID)[0]
	_, err = w.update(w.admin, "project-services", line.ID, attrs("quantity", `3`), nil) // +2000
	require.NoError(t, err)
	require.True(t, decimal.RequireFromString(w.get("change-orders", big.ID).Str("delta-revenue")).Equal(decimal.NewFromInt(2000)))
	big, err = w.coAction(w.admin, big.ID, "submit")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderPending, big.Str("status"))
	steps := w.list("approval-steps", map[string]string{"change-order": big.ID})
	require.Len(t, steps, 1)
	_, err = w.act(approver, steps[0].ID, "rescope", "split it")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderDraft, w.get("change-orders", big.ID).Str("status"))
	require.Equal(t, "won", w.get("projects", p).Str("status"), "the project's status is left alone")

	_, err = w.coAction(w.admin, big.ID, "submit")
	require.NoError(t, err)
	steps = w.list("approval-steps", map[string]string{"change-order": big.ID, "status": "pending"})
	_, err = w.act(approver, steps[0].ID, "decline", "too much")
	require.NoError(t, err)
	require.Equal(t, scoping.ChangeOrderDeclined, w.get("change-orders", big.ID).Str("status"))

	_, err = w.coAction(w.admin, big.ID, "submit")
	wfCode(t, scopekit.ECONFLICT, err) // only a draft is submitted

	again := w.changeOrder(p, "Big again")
	line = w.coLines("project-services", again.ID)[0]
	_, err = w.update(w.admin, "project-services", line.ID, attrs("quantity", `3`), nil)
	require.NoError(t, err)
	_, err = w.coAction(w.admin, again.ID, "submit")
	require.NoError(t, err)
	steps = w.list("approval-steps", map[string]string{"change-order": again.ID, "status": "pending"})
	require.Len(t, steps, 1)
	_, err = w.act(w.admin, steps[0].ID, "approve", "")
	wfCode(t, scopekit.EFORBIDDEN, err) // not its approver
	_, err = w.act(approver, steps[0].ID, "approve", "ok")
	require.NoError(t, err)
	again = w.get("change-orders", again.ID)
	require.Equal(t, scoping.ChangeOrderApproved, again.Str("status"))
	require.NotEmpty(t, again.Str("approved-at"))
}

// Ensure an approver's rescope takes a version of the scope sent back
// (here changed while it was pending), reason rescoped.
func TestRescopeTakesVersion(t *testing.T) {
	w := newWfWorld(t)
	approverID, approver := w.member("boss@acme.test", "Account Admin")
	w.level("All", "business", 1, `[]`, "", 1, approverID)
	_, err := w.svc.Submit(w.ctx, w.admin, w.project)
	require.NoError(t, err)
	line := w.list("project-services", map[string]string{"project": w.project})[0]
	_, err = w.update(w.admin, "project-services", line.ID, attrs("quantity", `4`), nil)
	require.NoError(t, err)
	_, err = w.act(approver, w.pendingStep(w.project).ID, "rescope", "too big")
	require.NoError(t, err)
	vs := w.list("project-versions", map[string]string{"project": w.project})
	require.Equal(t, scoping.VersionRescoped, vs[len(vs)-1].Str("reason"))
	require.Equal(t, scoping.VersionSubmitted, vs[len(vs)-2].Str("reason"))
}
