package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flow is a workflow fixture: an admin, lines of business, a client and a
// priced draft project on the Network line (one 10 h service at 100/h).
type flow struct {
	e        *testEnv
	admin    string
	network  string
	security string
	client   string
	project  string
}

func newFlow(t *testing.T) *flow {
	e := mustEnv(t)
	f := &flow{e: e, admin: e.admin()}
	f.network = e.create("/v2/lines-of-business", f.admin, "lines-of-business", `{"name":"Network"}`)
	f.security = e.create("/v2/lines-of-business", f.admin, "lines-of-business", `{"name":"Security"}`)
	f.client = e.create("/v2/clients", f.admin, "clients", `{"name":"Globex"}`)
	f.project = f.newProject("Firewall", "")
	return f
}

// newProject creates a Network project with one priced line; rateTable
// "" uses the account default.
func (f *flow) newProject(name, rateTable string) string {
	rels := []string{"client", "clients", f.client, "line-of-business", "lines-of-business", f.network}
	if rateTable != "" {
		rels = append(rels, "rate-table", "rate-tables", rateTable)
	}
	p := f.e.create("/v2/projects", f.admin, "projects", `{"project-name":"`+name+`"}`, rels...)
	pr := f.e.create("/acme/v1/project-resources", f.admin, "project-resources", `{"name":"Engineer","hourly-rate":"100","hourly-cost":"60"}`, "project", "projects", p)
	f.e.create("/v2/project-services", f.admin, "project-services", `{"name":"Work","quantity":1,"unit-hours":10}`,
		"project", "projects", p, "project-resource", "project-resources", pr)
	return p
}

// level creates an approval level and its line-of-business approval.
func (f *flow) level(name, kind string, position int, conditions, lob string, required int, approvers ...string) (levelID, lobaID string) {
	f.e.t.Helper()
	attrs := fmt.Sprintf(`{"name":%q,"kind":%q,"position":%d,"conditions":%s,"required-approvals":%d}`, name, kind, position, conditions, required)
	levelID = f.e.create("/acme/v1/approval-levels", f.admin, "approval-levels", attrs)
	return levelID, f.coverage(levelID, lob, approvers...)
}

func (f *flow) coverage(levelID, lob string, approvers ...string) string {
	f.e.t.Helper()
	rels := fmt.Sprintf(`{"approval-level":{"data":{"type":"approval-levels","id":%q}},"approvers":{"data":[`, levelID)
	for i, a := range approvers {
		if i > 0 {
			rels += ","
		}
		rels += fmt.Sprintf(`{"type":"users","id":%q}`, a)
	}
	rels += "]}"
	if lob != "" {
		rels += fmt.Sprintf(`,"line-of-business":{"data":{"type":"lines-of-business","id":%q}}`, lob)
	}
	rels += "}"
	r := f.e.req(http.MethodPost, "/acme/v1/line-of-business-approvals", f.admin,
		`{"data":{"type":"line-of-business-approvals","attributes":{},"relationships":`+rels+`}}`)
	require.Equal(f.e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.data()["id"].(string)
}

func (f *flow) submit(project, token string) *resp {
	return f.e.req(http.MethodPost, "/acme/v1/projects/"+project+"/submit", token, "")
}

// pendingStep returns the project's pending step.
func (f *flow) pendingStep(project string) map[string]any {
	f.e.t.Helper()
	r := f.e.get("/acme/v1/approval-steps?filter[project]="+project+"&filter[status]=pending", f.admin)
	require.Equal(f.e.t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(f.e.t, r.list(), 1, "%s", r.Body)
	return r.list()[0]
}

func (f *flow) act(step, action, token, body string) *resp {
	return f.e.req(http.MethodPost, "/acme/v1/approval-steps/"+step+"/"+action, token, body)
}

func (f *flow) project1(id string) *resp { return f.e.get("/v2/projects/"+id, f.admin) }

func (f *flow) events(t *testing.T) []*engine.Record {
	evs, err := f.e.svc.Events(context.Background(), "", 0)
	require.NoError(t, err)
	return evs
}

// Ensure rule 1: a level with no approver covering the project's line of
// business is skipped for the next applicable level, and a project no
// level applies to is approved at once.
func TestRule1LevelWithoutCoverageIsSkipped(t *testing.T) {
	f := newFlow(t)
	a, _ := f.e.user("acme", "a@acme.test", "Sales")
	b, _ := f.e.user("acme", "b@acme.test", "Sales")
	f.level("Security review", "technical", 1, `[]`, f.security, 0, a)
	business, _ := f.level("Business", "business", 2, `[]`, "", 0, b)

	r := f.submit(f.project, f.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "pending_approval", r.attr("status"))
	assert.Equal(t, "business", r.attr("approval-stage"))
	assert.NotNil(t, r.attr("submitted-at"))
	step := f.pendingStep(f.project)
	assert.Equal(t, business, step["relationships"].(map[string]any)["approval-level"].(map[string]any)["data"].(map[string]any)["id"])

	// a project whose line no level covers is approved at once
	other := f.newProject("Other", "")
	require.Equal(t, http.StatusOK, f.e.patch("/v2/projects/"+other, f.admin, "projects", other, `{}`).Status)
	f.e.req(http.MethodPatch, "/v2/projects/"+other, f.admin, `{"data":{"type":"projects","id":"`+other+`","relationships":{"line-of-business":{"data":{"type":"lines-of-business","id":"`+f.security+`"}}}}}`)
	// Security is covered by the first level: use a third line nobody covers
	storage := f.e.create("/v2/lines-of-business", f.admin, "lines-of-business", `{"name":"Storage"}`)
	r = f.e.req(http.MethodPatch, "/v2/projects/"+other, f.admin, `{"data":{"type":"projects","id":"`+other+`","relationships":{"line-of-business":{"data":{"type":"lines-of-business","id":"`+storage+`"}}}}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	// the Business level covers every line, so archive it to leave none
	require.Equal(t, http.StatusOK, f.e.patch("/acme/v1/approval-levels/"+business, f.admin, "approval-levels", business, `{"active":false}`).Status)
	r = f.submit(other, f.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("status"))
	assert.NotNil(t, r.attr("approved-at"), "the workflow completed")
}

// Ensure rule 2: a step imported from a previous system (legacy) can be
// approved, and its completion approves the project.
func TestRule2LegacyStepApproves(t *testing.T) {
	f := newFlow(t)
	aID, a := f.e.user("acme", "a@acme.test", "Sales")
	sales := f.e.token("acme", "s@acme.test", "Sales")
	body := fmt.Sprintf(`{"data":{"type":"approval-steps","attributes":{"legacy":true},"relationships":{"project":{"data":{"type":"projects","id":%q}},"required-approvers":{"data":[{"type":"users","id":%q}]}}}}`, f.project, aID)

	assert.Equal(t, http.StatusForbidden, f.e.req(http.MethodPost, "/acme/v1/approval-steps", sales, body).Status, "needs settings manage")
	r := f.e.req(http.MethodPost, "/acme/v1/approval-steps", f.admin, body)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, true, r.attr("legacy"))
	step := r.data()["id"].(string)
	assert.Equal(t, "pending_approval", f.project1(f.project).attr("status"))
	// not legacy: refused
	assert.Equal(t, http.StatusUnprocessableEntity, f.e.req(http.MethodPost, "/acme/v1/approval-steps", f.admin,
		fmt.Sprintf(`{"data":{"type":"approval-steps","attributes":{"legacy":false},"relationships":{"project":{"data":{"type":"projects","id":%q}}}}}`, f.project)).Status)

	r = f.act(step, "approve", a, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("status"))
	p := f.project1(f.project)
	assert.Equal(t, "approved", p.attr("status"))
	assert.NotNil(t, p.attr("approved-at"))
}

// Ensure rule 3: money conditions compare amounts converted to the default
// currency; non-money facts are not converted.
func TestRule3MoneyConditionsConverted(t *testing.T) {
	f := newFlow(t)
	require.NoError(t, f.e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.EnsureCurrency(f.e.accts["acme"], "EUR", "Euro", "0.5") // 1 USD buys 0.5 EUR
		return err
	}))
	eur := f.e.create("/v2/rate-tables", f.admin, "rate-tables", `{"name":"Euro","currency":"EUR"}`)
	project := f.newProject("Euro project", eur) // 10 h × 100 EUR = 1000 EUR = 2000 USD
	assert.Equal(t, "EUR", f.project1(project).attr("currency"))
	a, _ := f.e.user("acme", "a@acme.test", "Sales")
	// 1000 EUR is 2000 USD: above 1500 only when converted; 10 hours stay 10
	f.level("Big deals", "business", 1, `[{"field":"contract_revenue","operator":"gt","value":"1500"},{"field":"total_hours","operator":"eq","value":"10"}]`, "", 0, a)

	r := f.submit(project, f.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "pending_approval", r.attr("status"), "the converted revenue crosses the threshold")
	f.pendingStep(project)

	// a project in the default currency with the same figures does not
	usd := f.newProject("Dollar project", "")
	f.level("Huge deals", "sales", 2, `[{"field":"contract_revenue","operator":"gt","value":"1500"}]`, "", 0, a)
	r = f.submit(usd, f.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("status"), "1000 USD is below both thresholds")
}

// Ensure rule 4: archiving a user removes its service-approver and
// level-approver assignments.
func TestRule4ArchivedUserLosesAssignments(t *testing.T) {
	f := newFlow(t)
	u, _ := f.e.user("acme", "u@acme.test", "Sales")
	v, _ := f.e.user("acme", "v@acme.test", "Sales")
	f.e.create("/acme/v1/service-approvers", f.admin, "service-approvers", "{}", "user", "users", u, "line-of-business", "lines-of-business", f.network)
	_, loba := f.level("Technical", "technical", 1, `[]`, "", 0, u, v)

	r := f.e.patch("/acme/v1/users/"+u, f.admin, "users", u, `{"active":false}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "deactivated", r.attr("status"))
	assert.Empty(t, f.e.get("/acme/v1/service-approvers?filter[user]="+u, f.admin).list())
	approvers := f.e.get("/acme/v1/line-of-business-approvals/"+loba, f.admin).data()["relationships"].(map[string]any)["approvers"].(map[string]any)["data"].([]any)
	require.Len(t, approvers, 1)
	assert.Equal(t, v, approvers[0].(map[string]any)["id"])
}

// Ensure rule 5: a removed user's pending requirement is downgraded so the
// other approvers complete the step; with nobody left, a project_approvals
// manager may complete it.
func TestRule5RemovedApproverDowngraded(t *testing.T) {
	f := newFlow(t)
	aID, a := f.e.user("acme", "a@acme.test", "Sales")
	bID, _ := f.e.user("acme", "b@acme.test", "Sales")
	f.level("Technical", "technical", 1, `[]`, "", 0, aID, bID) // every approver
	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step := f.pendingStep(f.project)["id"].(string)

	r := f.act(step, "approve", a, `{"meta":{"comment":"fine by me"}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "pending", r.attr("status"), "b must sign too")
	require.Equal(t, http.StatusOK, f.e.patch("/acme/v1/users/"+bID, f.admin, "users", bID, `{"active":false}`).Status)
	reqs := f.e.get("/acme/v1/approval-requirements?filter[approval-step]="+step+"&filter[user]="+bID, f.admin)
	require.Len(t, reqs.list(), 1)
	assert.Equal(t, "downgraded", reqs.list()[0]["attributes"].(map[string]any)["status"])
	assert.Equal(t, "approved", f.project1(f.project).attr("status"), "a's signature now completes the only level")

}

// Ensure rule 5 when no approver remains: a project_approvals manager may
// complete the step; a view-only user may not.
func TestRule5ManagerCompletesWhenNoApproverRemains(t *testing.T) {
	f := newFlow(t)
	cID, _ := f.e.user("acme", "c@acme.test", "Sales")
	f.level("Business", "business", 1, `[]`, "", 0, cID)
	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step := f.pendingStep(f.project)["id"].(string)
	require.Equal(t, http.StatusOK, f.e.patch("/acme/v1/users/"+cID, f.admin, "users", cID, `{"active":false}`).Status)
	assert.Equal(t, "pending_approval", f.project1(f.project).attr("status"), "nobody signed: the step waits")

	sales := f.e.token("acme", "s@acme.test", "Sales")
	assert.Equal(t, http.StatusForbidden, f.act(step, "approve", sales, "").Status, "view-only on project_approvals")
	assert.Equal(t, http.StatusForbidden, f.act(step, "approve", f.admin, "").Status, "the submitter does not approve its own project")
	boss := f.e.token("acme", "boss@acme.test", "Account Admin")
	r := f.act(step, "approve", boss, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("status"))
	assert.Equal(t, "approved", f.project1(f.project).attr("status"))
	reqs := f.e.get("/acme/v1/approval-requirements?filter[approval-step]="+step+"&filter[status]=signed", f.admin)
	require.Len(t, reqs.list(), 1, "the manager's signature is recorded")
}

// Ensure rule 6: an approver added to a level after its step exists is not
// required to sign that step.
func TestRule6LaterApproverNotRequired(t *testing.T) {
	f := newFlow(t)
	aID, a := f.e.user("acme", "a@acme.test", "Sales")
	bID, b := f.e.user("acme", "b@acme.test", "Sales")
	_, loba := f.level("Technical", "technical", 1, `[]`, "", 0, aID)
	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step := f.pendingStep(f.project)["id"].(string)

	r := f.e.req(http.MethodPatch, "/acme/v1/line-of-business-approvals/"+loba, f.admin,
		fmt.Sprintf(`{"data":{"type":"line-of-business-approvals","id":%q,"relationships":{"approvers":{"data":[{"type":"users","id":%q},{"type":"users","id":%q}]}}}}`, loba, aID, bID))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, http.StatusForbidden, f.act(step, "approve", b, "").Status, "b is not a required approver of this step")
	r = f.act(step, "approve", a, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("status"))
	assert.Equal(t, "approved", f.project1(f.project).attr("status"))
}

// Ensure the direct status changes of docs/approval.md: allowed ones by a
// project_approvals manager (never setting approved-at), 403 without the
// permission, 409 for a change the table forbids, 422 for an unknown value;
// and that every change left exactly one event while refused ones left
// none.
func TestProjectStatusChangesAndEvents(t *testing.T) {
	f := newFlow(t)
	sales := f.e.token("acme", "s@acme.test", "Sales")
	p := f.project
	patch := func(tok, status string) *resp {
		return f.e.req(http.MethodPatch, "/v2/projects/"+p, tok, doc("projects", p, `{"status":"`+status+`"}`))
	}
	assert.Equal(t, http.StatusForbidden, patch(sales, "approved").Status)
	assert.Equal(t, http.StatusConflict, patch(f.admin, "won").Status)
	assert.Equal(t, http.StatusUnprocessableEntity, patch(f.admin, "finished").Status)
	assert.Empty(t, f.events(t), "refused changes record nothing")

	r := patch(f.admin, "approved")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Nil(t, r.attr("approved-at"), "a status set directly never sets approved-at")
	for _, st := range []string{"won", "canceled", "draft"} {
		require.Equal(t, http.StatusOK, patch(f.admin, st).Status, st)
	}
	assert.Equal(t, http.StatusConflict, patch(f.admin, "lost").Status)
	assert.Equal(t, http.StatusForbidden, f.submit(p, f.e.token("acme", "ro@acme.test", "Read Only")).Status)
	require.Equal(t, http.StatusOK, f.submit(p, f.admin).Status) // no levels: approved at once
	assert.Equal(t, http.StatusConflict, f.submit(p, f.admin).Status, "only drafts are submitted")

	var got [][2]string
	for _, ev := range f.events(t) {
		assert.Equal(t, views.EventProjectStatusChanged, ev.Str("event-type"))
		assert.Equal(t, p, ev.Str("subject-id"))
		got = append(got, [2]string{ev.Str("old-status"), ev.Str("new-status")})
	}
	assert.Equal(t, [][2]string{{"draft", "approved"}, {"approved", "won"}, {"won", "canceled"}, {"canceled", "draft"},
		{"draft", "pending_approval"}, {"pending_approval", "approved"}}, got)

	// a project service's delivery status change records its own event
	ps := f.e.get("/v2/project-services?filter[project]="+p, f.admin).list()[0]["id"].(string)
	require.Equal(t, http.StatusOK, f.e.patch("/v2/project-services/"+ps, f.admin, "project-services", ps, `{"status":"in_progress"}`).Status)
	evs := f.events(t)
	last := evs[len(evs)-1]
	assert.Equal(t, views.EventServiceStatusChanged, last.Str("event-type"))
	assert.Equal(t, ps, last.Str("subject-id"))
	assert.Equal(t, p, last.Rel("project"))
	assert.Equal(t, [2]string{"not_started", "in_progress"}, [2]string{last.Str("old-status"), last.Str("new-status")})
}

// Ensure decline and rescope need a comment and return the project to
// draft, and actions check the approver and the step's state.
func TestStepDeclineRescopeAndChecks(t *testing.T) {
	f := newFlow(t)
	aID, a := f.e.user("acme", "a@acme.test", "Sales")
	_, other := f.e.user("acme", "o@acme.test", "Sales")
	f.level("Technical", "technical", 1, `[]`, "", 0, aID)
	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step := f.pendingStep(f.project)["id"].(string)

	assert.Equal(t, http.StatusForbidden, f.act(step, "approve", other, "").Status)
	assert.Equal(t, http.StatusUnprocessableEntity, f.act(step, "decline", a, "").Status)
	assert.Equal(t, http.StatusUnprocessableEntity, f.act(step, "decline", a, `{"meta":{"comment":"  "}}`).Status)
	assert.Equal(t, http.StatusBadRequest, f.act(step, "decline", a, `{"meta":{"comment":7}}`).Status)
	r := f.act(step, "decline", a, `{"meta":{"comment":"too expensive"}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "declined", r.attr("status"))
	assert.Equal(t, "too expensive", r.attr("comment"))
	assert.Equal(t, "draft", f.project1(f.project).attr("status"))
	assert.Equal(t, http.StatusConflict, f.act(step, "approve", a, "").Status, "the step is no longer pending")

	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step = f.pendingStep(f.project)["id"].(string)
	r = f.act(step, "rescope", a, `{"meta":{"comment":"split it in two"}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "rescoped", r.attr("status"))
	assert.Equal(t, "draft", f.project1(f.project).attr("status"))

	// reopening a pending project cancels its step
	require.Equal(t, http.StatusOK, f.submit(f.project, f.admin).Status)
	step = f.pendingStep(f.project)["id"].(string)
	require.Equal(t, http.StatusOK, f.e.patch("/v2/projects/"+f.project, f.admin, "projects", f.project, `{"status":"draft"}`).Status)
	assert.Equal(t, "canceled", f.e.get("/acme/v1/approval-steps/"+step, f.admin).attr("status"))
	assert.Equal(t, http.StatusMethodNotAllowed, f.e.req(http.MethodPatch, "/acme/v1/approval-steps/"+step, f.admin,
		`{"data":{"type":"approval-steps","id":"`+step+`","attributes":{}}}`).Status)
}

// Ensure two approvers giving the last two signatures at once complete the
// step exactly once and record exactly one approval event.
func TestConcurrentFinalSignatures(t *testing.T) {
	f := newFlow(t)
	aID, a := f.e.user("acme", "a@acme.test", "Sales")
	bID, b := f.e.user("acme", "b@acme.test", "Sales")
	f.level("Technical", "technical", 1, `[]`, "", 2, aID, bID)
	for i := 0; i < 10; i++ {
		p := f.newProject(fmt.Sprintf("P%d", i), "")
		require.Equal(t, http.StatusOK, f.submit(p, f.admin).Status)
		step := f.pendingStep(p)["id"].(string)
		var wg sync.WaitGroup
		for _, tok := range []string{a, b} {
			wg.Add(1)
			go func(tok string) {
				defer wg.Done()
				r := f.act(step, "approve", tok, "")
				assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			}(tok)
		}
		wg.Wait()
		assert.Equal(t, "approved", f.project1(p).attr("status"))
		n := 0
		for _, ev := range f.events(t) {
			if ev.Str("subject-id") == p && ev.Str("new-status") == "approved" {
				n++
			}
		}
		assert.Equal(t, 1, n, "project %s", p)
	}
}
