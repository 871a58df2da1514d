package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// The fixture of the approval workflow and projects modules' tests
// (workflow, steps, serviceapproval, project, snapshot, catalogcopy): an
// account on a real bbolt store with members, lines of business, a client
// and a priced project, and helpers over the Service's exported API.

// wfOpen opens a real bbolt store in a temp dir, checked for consistency
// when the test ends, with the account "acme" (USD); it returns the
// service (its clock fixed at wfNow) and a system actor of the account.
func wfOpen(t *testing.T) (*scoping.Service, *engine.Actor) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	svc.Now = func() time.Time { return wfNow }
	sys := wfAccount(t, svc, "acme", "USD")
	return svc, sys
}

// wfNow is the fixed clock of wfOpen's service.
var wfNow = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// wfAccount creates an account and returns its system actor.
func wfAccount(t *testing.T, svc *scoping.Service, slug, currency string) *engine.Actor {
	t.Helper()
	ctx := context.Background()
	var id string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount(slug, slug, currency)
		if acct != nil {
			id = acct.ID
		}
		return err
	}))
	sys, err := svc.SystemActor(ctx, id)
	require.NoError(t, err)
	return sys
}

// wfWorld is an account with two lines of business, a client, an Account
// Admin member and a draft project on the Network line priced at
// 10 h × 100/h (revenue 1000, cost 600).
type wfWorld struct {
	t       *testing.T
	ctx     context.Context
	svc     *scoping.Service
	sys     *engine.Actor
	acct    string
	admin   *engine.Actor
	adminID string

	network, security, client, project string
}

func newWfWorld(t *testing.T) *wfWorld {
	t.Helper()
	svc, sys := wfOpen(t)
	w := &wfWorld{t: t, ctx: context.Background(), svc: svc, sys: sys, acct: sys.AccountID()}
	w.adminID, w.admin = w.member("admin@acme.test", "Account Admin")
	w.network = w.create(w.sys, "lines-of-business", attrs("name", `"Network"`), nil).ID
	w.security = w.create(w.sys, "lines-of-business", attrs("name", `"Security"`), nil).ID
	w.client = w.create(w.sys, "clients", attrs("name", `"Globex"`), nil).ID
	w.project = w.newProject("Firewall", w.network)
	return w
}

// otherProject creates the account "other" with a project (and its
// client) and returns the account's system actor and the project's id.
func (w *wfWorld) otherProject() (*engine.Actor, string) {
	w.t.Helper()
	other := wfAccount(w.t, w.svc, "other", "USD")
	client := w.create(other, "clients", attrs("name", `"Initech"`), nil).ID
	return other, w.create(other, "projects", attrs("project-name", `"Theirs"`), map[string]engine.RelInput{"client": rel("clients", client)}).ID
}

// approvedProject creates a project and sets it approved directly.
func (w *wfWorld) approvedProject(name string) string {
	w.t.Helper()
	p := w.newProject(name, w.network)
	_, err := w.update(w.admin, "projects", p, attrs("status", `"approved"`), nil)
	require.NoError(w.t, err)
	return p
}

// member creates an active member with a role of the account and returns
// its id and actor.
func (w *wfWorld) member(email, role string) (string, *engine.Actor) {
	w.t.Helper()
	var id string
	require.NoError(w.t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		u, err := ad.EnsureMember(w.acct, scoping.Member{Email: email, Name: email, Role: role})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	a, err := w.svc.ActorForAccount(w.ctx, id, w.acct)
	require.NoError(w.t, err)
	return id, a
}

// actor resolves the actor of a member afresh, as a new request would.
func (w *wfWorld) actor(userID string) *engine.Actor {
	w.t.Helper()
	a, err := w.svc.ActorForAccount(w.ctx, userID, w.acct)
	require.NoError(w.t, err)
	return a
}

// role creates a role with perms (the others none).
func (w *wfWorld) role(name string, perms map[string]string, visibility string) {
	w.t.Helper()
	require.NoError(w.t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		_, err := ad.EnsureRole(w.acct, name, perms, visibility)
		return err
	}))
}

func (w *wfWorld) create(a *engine.Actor, typ string, at map[string]json.RawMessage, rels map[string]engine.RelInput) *engine.Record {
	w.t.Helper()
	res, err := w.svc.Create(w.ctx, a, typ, &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
	require.NoError(w.t, err, "create %s", typ)
	return res.Records[0]
}

func (w *wfWorld) update(a *engine.Actor, typ, id string, at map[string]json.RawMessage, rels map[string]engine.RelInput) (*engine.Record, error) {
	res, err := w.svc.Update(w.ctx, a, typ, id, &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

// get reads a record as the system actor, archived ones too.
func (w *wfWorld) get(typ, id string) *engine.Record {
	w.t.Helper()
	p := engine.ListParams{}
	if def, _ := w.svc.Schema().Lookup(typ); def.Archives {
		p.Filters = map[string]string{"active": "true,false"}
	}
	res, err := w.svc.Get(w.ctx, w.sys, typ, id, p, engine.Options{})
	require.NoError(w.t, err, "get %s %s", typ, id)
	return res.Records[0]
}

// list lists records of typ as the system actor.
func (w *wfWorld) list(typ string, filters map[string]string) []*engine.Record {
	w.t.Helper()
	res, err := w.svc.List(w.ctx, w.sys, typ, engine.ListParams{Filters: filters, PageSize: 500}, engine.Options{})
	require.NoError(w.t, err, "list %s", typ)
	return res.Records
}

// newProject creates a project on line lob ("" none) with one priced line.
func (w *wfWorld) newProject(name, lob string) string {
	w.t.Helper()
	rels := map[string]engine.RelInput{"client": rel("clients", w.client)}
	if lob != "" {
		rels["line-of-business"] = rel("lines-of-business", lob)
	}
	p := w.create(w.sys, "projects", attrs("project-name", fmt.Sprintf("%q", name)), rels).ID
	pr := w.create(w.sys, "project-resources", attrs("name", `"Engineer"`, "hourly-rate", `"100"`, "hourly-cost", `"60"`),
		map[string]engine.RelInput{"project": rel("projects", p)}).ID
	w.create(w.sys, "project-services", attrs("name", `"Work"`, "quantity", `1`, "unit-hours", `10`),
		map[string]engine.RelInput{"project": rel("projects", p), "project-resource": rel("project-resources", pr)})
	return p
}

// level creates an approval level and its coverage for lob ("" = every
// line) by approvers.
func (w *wfWorld) level(name, kind string, position int, conditions, lob string, required int, approvers ...string) (levelID, lobaID string) {
	w.t.Helper()
	levelID = w.create(w.sys, "approval-levels", attrs("name", fmt.Sprintf("%q", name), "kind", fmt.Sprintf("%q", kind),
		"position", fmt.Sprint(position), "conditions", conditions, "required-approvals", fmt.Sprint(required)), nil).ID
	return levelID, w.coverage(levelID, lob, approvers...)
}

// coverage creates a line-of-business approval of a level.
func (w *wfWorld) coverage(levelID, lob string, approvers ...string) string {
	w.t.Helper()
	rels := map[string]engine.RelInput{"approval-level": rel("approval-levels", levelID), "approvers": wfUsers(approvers...)}
	if lob != "" {
		rels["line-of-business"] = rel("lines-of-business", lob)
	}
	return w.create(w.sys, "line-of-business-approvals", nil, rels).ID
}

func wfUsers(ids ...string) engine.RelInput {
	in := engine.RelInput{ToMany: true}
	for _, id := range ids {
		in.Refs = append(in.Refs, engine.Ref{Type: "users", ID: id})
	}
	return in
}

// steps lists the project's approval steps with status ("" any).
func (w *wfWorld) steps(project, status string) []*engine.Record {
	w.t.Helper()
	f := map[string]string{"project": project}
	if status != "" {
		f["status"] = status
	}
	return w.list("approval-steps", f)
}

// pendingStep returns the project's only pending step.
func (w *wfWorld) pendingStep(project string) *engine.Record {
	w.t.Helper()
	steps := w.steps(project, "pending")
	require.Len(w.t, steps, 1)
	return steps[0]
}

// requirements returns the status of each requirement of a step by user.
func (w *wfWorld) requirements(step string) map[string]string {
	w.t.Helper()
	out := map[string]string{}
	for _, r := range w.list("approval-requirements", map[string]string{"approval-step": step}) {
		out[r.Rel("user")] = r.Str("status")
	}
	return out
}

// statusEvents returns the "old>new" of every event of eventType about
// subject, oldest first.
func (w *wfWorld) statusEvents(eventType, subject string) []string {
	w.t.Helper()
	evs, err := w.svc.Events(w.ctx, "", 0)
	require.NoError(w.t, err)
	var out []string
	for _, e := range evs {
		if e.Str("event-type") == eventType && e.Str("subject-id") == subject {
			out = append(out, e.Str("old-status")+">"+e.Str("new-status"))
		}
	}
	return out
}

func (w *wfWorld) act(a *engine.Actor, step, action, comment string) (*engine.Record, error) {
	res, err := w.svc.StepAction(w.ctx, a, step, action, comment)
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

func wfCode(t *testing.T, want string, err error) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, want, scopekit.ErrorCode(err), "%v", err)
}
