package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// The permission audit (docs/auth.md "Permissions"): every route the engine
// serves, derived from scoping.DefaultSchema().Types() (list, show, create, update,
// delete, related) and the server's actions and reads, is walked with
//
//   - a role that has every permission at manage except the guard of the
//     route's type (none): 403 on every route, reads and writes;
//   - a role with every permission at view: reads 200, writes 403;
//   - the admin of another account: 403 for every route under this
//     account's slug, 404 for this account's records by id under its own
//     slug and on v2, and nothing of them in its lists.
//
// Writes are sent with well-formed bodies, so that a refusal can only be
// the permission's. Routes that answer otherwise are listed together at
// the end.

// auditGuards names the permission guarding a route whose guard is not
// its type's (docs/auth.md: merge_data view opens merge data). The audit checks
// such a route with a role lacking that permission, and only logs what a
// role lacking the type's guard gets.
var auditGuards = map[string]string{"projects/merge-data": "merge_data"}

// auditReadActions are the POST actions that write nothing (a calculation):
// a view-only role may call them.
var auditReadActions = map[string]bool{"surveys/calculate": true}

// auditRoute is one route of the audit.
type auditRoute struct {
	typ    *engine.TypeDef
	method string
	path   string // under the prefix: "/projects/7/pricing"
	body   string
	write  bool
	byID   bool     // addresses a record by id
	guard  string   // the permission guarding it when not the type's (auditGuards)
	guards []string // the permissions it needs besides the guard (related routes: the target's)
}

func (r auditRoute) String() string { return r.method + " " + r.path }

// auditValue is a valid value of a required attribute of a fixture.
func auditValue(def *engine.TypeDef, a *engine.AttrDef, n int) any {
	switch {
	case def.Name == "currencies" && a.Name == "code":
		return "EUR"
	case a.Name == "email":
		return fmt.Sprintf("audit-%d@acme.test", n)
	case def.Name == "user-defined-fields" && a.Name == "name":
		return fmt.Sprintf("audit_field_%d", n)
	}
	switch a.Kind {
	case engine.KindEnum:
		return a.Enum[0]
	case engine.KindDecimal:
		return "1"
	case engine.KindInt:
		return 1
	case engine.KindBool:
		return true
	case engine.KindDate:
		return "2026-01-01"
	case engine.KindObject:
		return map[string]any{}
	case engine.KindList:
		return []any{}
	}
	return fmt.Sprintf("Audit %s %d", def.Name, n)
}

// auditFixtures creates one record of every served type in the account,
// with its required attributes and relationships, and returns the ids by
// type. Records that the engine does not create from a plain document
// (read-only types, types made by a workflow) are stored directly.
func auditFixtures(t *testing.T, e *testEnv, slug string) map[string]string {
	t.Helper()
	ctx := context.Background()
	actor, err := e.svc.SystemActor(ctx, e.accts[slug])
	require.NoError(t, err)
	ids := map[string]string{}
	n := 0
	var ensure func(name string) string
	ensure = func(name string) string {
		if id, ok := ids[name]; ok {
			return id
		}
		def, ok := scoping.DefaultSchema().Lookup(name)
		require.True(t, ok, name)
		n++
		in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
		for i := range def.Attrs {
			a := &def.Attrs[i]
			if a.Required && !a.Computed {
				b, _ := json.Marshal(auditValue(def, a, n))
				in.Attrs[a.Name] = b
			}
		}
		for _, rd := range def.Rels {
			if rd.Required && rd.Stored() && !rd.ReadOnly {
				in.Rels[rd.Name] = engine.RelInput{Refs: []engine.Ref{{Type: rd.Type, ID: ensure(rd.Type)}}}
			}
		}
		if name == "change-orders" { // of a won project of its own
			won, err := e.svc.Create(ctx, actor, "projects", &engine.Input{Attrs: map[string]json.RawMessage{"project-name": json.RawMessage(`"Won"`)},
				Rels: map[string]engine.RelInput{"client": {Refs: []engine.Ref{{Type: "clients", ID: ensure("clients")}}}}}, engine.Options{})
			require.NoError(t, err)
			for _, st := range []string{"approved", "won"} {
				_, err := e.svc.Update(ctx, actor, "projects", won.Records[0].ID, &engine.Input{Attrs: map[string]json.RawMessage{"status": json.RawMessage(`"` + st + `"`)}}, engine.Options{})
				require.NoError(t, err)
			}
			in.Rels["project"] = engine.RelInput{Refs: []engine.Ref{{Type: "projects", ID: won.Records[0].ID}}}
		}
		if !def.ReadOnly || def.Hooks.Create != nil {
			res, err := e.svc.Create(ctx, actor, name, in, engine.Options{})
			if err == nil {
				ids[name] = res.Records[0].ID
				return ids[name]
			}
			// types made by a workflow (approval steps) may refuse a
			// plain create: such a fixture is stored as below
			t.Logf("fixture %s stored directly: %v", name, err)
		}
		{
			rec := engine.NewRecord(name, e.accts[slug])
			for _, a := range def.Attrs {
				if a.Default != nil {
					rec.Attrs[a.Name] = a.Default
				}
			}
			for k, v := range in.Attrs {
				var x any
				require.NoError(t, json.Unmarshal(v, &x))
				rec.Attrs[k] = x
			}
			for k, ri := range in.Rels {
				rec.SetRel(k, ri.Refs[0].ID)
			}
			if _, ok := def.Rel("project"); ok && rec.Rel("project") == "" {
				rec.SetRel("project", ensure("projects"))
			}
			require.NoError(t, e.db.Update(ctx, func(tx engine.Tx) error { return tx.Insert(rec) }))
			ids[name] = rec.ID
			return rec.ID
		}
	}
	for _, def := range scoping.DefaultSchema().Types() {
		if def.Served() {
			ensure(def.Name)
		}
	}
	// the fixtures that keep files (templates, generated documents) get
	// them, so that their file routes have something to serve
	require.NoError(t, e.db.Update(ctx, func(tx engine.Tx) error {
		for _, def := range scoping.DefaultSchema().Types() {
			if len(def.Blobs) == 0 {
				continue
			}
			rec, err := tx.Get(def.Name, e.accts[slug], ids[def.Name])
			if err != nil {
				return err
			}
			for _, kind := range def.Blobs {
				if err := tx.PutBlob(rec.AccountID, kind, rec.ID, []byte("fixture")); err != nil {
					return err
				}
			}
			rec.Attrs["size"], rec.Attrs["filename"] = int64(len("fixture")), "fixture.docx"
			if def.Name == "project-documents" {
				rec.Attrs["status"], rec.Attrs["content-type"] = scoping.DocumentFinished, scoping.ContentTypeDOCX
			}
			if err := tx.Replace(rec); err != nil {
				return err
			}
		}
		return nil
	}))
	return ids
}

// auditRoutes lists every route of the served types under one prefix
// ("/acme/v1" or "/v2"), addressing the fixtures.
func auditRoutes(srv *httpadapter.Server, ids map[string]string, v2 bool) []auditRoute {
	actions, reads := srv.ExtraRoutes()
	var out []auditRoute
	for _, def := range scoping.DefaultSchema().Types() {
		if !def.Served() || (v2 && !def.V2) {
			continue
		}
		coll, one := "/"+def.Name, "/"+def.Name+"/"+ids[def.Name]
		empty := doc(def.Name, "", "")
		out = append(out,
			auditRoute{typ: def, method: "GET", path: coll},
			auditRoute{typ: def, method: "GET", path: one, byID: true})
		if !def.ReadOnly || def.Hooks.Create != nil {
			out = append(out, auditRoute{typ: def, method: "POST", path: coll, body: empty, write: true})
		}
		if !def.ReadOnly {
			out = append(out,
				auditRoute{typ: def, method: "PATCH", path: one, body: doc(def.Name, ids[def.Name], ""), write: true, byID: true},
				auditRoute{typ: def, method: "DELETE", path: one, write: true, byID: true})
		}
		for _, rd := range def.Rels {
			target, ok := scoping.DefaultSchema().Lookup(rd.Type)
			if !ok || !target.Served() || (v2 && !target.V2) {
				continue
			}
			r := auditRoute{typ: def, method: "GET", path: one + "/" + rd.Name, byID: true}
			if target.Guard != def.Guard {
				r.guards = []string{target.Guard}
			}
			out = append(out, r)
		}
		for _, a := range actions {
			typ, name, _ := strings.Cut(a, "/")
			if typ != def.Name {
				continue
			}
			if v2 && httpadapter.V1OnlyAction(a) {
				continue
			}
			body := ""
			switch a {
			case "projects/apply-blueprint":
				body = `{"data":{"type":"blueprints","id":"` + ids["blueprints"] + `"}}`
			case "projects/revert":
				body = `{"data":{"type":"project-versions","id":"` + ids["project-versions"] + `"}}`
			}
			out = append(out, auditRoute{typ: def, method: "POST", path: one + "/" + name, body: body, write: !auditReadActions[a], byID: true})
		}
		for _, rd := range reads {
			typ, name, _ := strings.Cut(rd, "/")
			if typ == def.Name && !v2 { // reads are v1 routes
				out = append(out, auditRoute{typ: def, method: "GET", path: one + "/" + name, byID: true, guard: auditGuards[rd]})
			}
		}
	}
	return out
}

// auditRole creates a role of the account with every permission at level,
// except those of none (at "none").
func auditRole(t *testing.T, e *testEnv, slug, name, level string, none ...string) {
	t.Helper()
	perms := map[string]string{}
	for _, p := range scoping.Permissions {
		perms[p] = level
		if slices.Contains(none, p) {
			perms[p] = engine.AccessNone
		}
	}
	require.NoError(t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.EnsureRole(e.accts[slug], name, perms, "all")
		return err
	}))
}

func TestPermissionAudit(t *testing.T) {
	e := mustEnv(t)
	srv := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ids := auditFixtures(t, e, "acme")
	// a service pending approval, so that approving it is refused for the
	// permission, not for the state (ApproveService checks the state first)
	admin := e.admin()
	r := e.req(http.MethodPost, "/acme/v1/services/"+ids["services"]+"/submit-for-approval", admin, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	v1 := auditRoutes(srv, ids, false)
	v2 := auditRoutes(srv, ids, true)

	var failures []string
	checks := 0
	check := func(who string, prefix string, r auditRoute, token string, want int) {
		checks++
		path := prefix + r.path
		got := e.req(r.method, path, token, r.body)
		if got.Status != want {
			failures = append(failures, fmt.Sprintf("%-24s %-6s %-60s want %d, got %d %s", who, r.method, path, want, got.Status,
				firstDetail(got)))
		}
	}

	// the fixtures are reachable: the acme admin reads every route
	for _, set := range []struct {
		prefix string
		routes []auditRoute
	}{{"/acme/v1", v1}, {"/v2", v2}} {
		for _, r := range set.routes {
			if !r.write {
				check("acme admin", set.prefix, r, admin, http.StatusOK)
			}
		}
	}

	// a role lacking the guard of the route (its type's, unless auditGuards
	// says otherwise)
	lacking := map[string]string{}
	without := func(p string) string {
		if lacking[p] == "" {
			auditRole(t, e, "acme", "No "+p, engine.AccessManage, p)
			lacking[p] = e.token("acme", "no-"+strings.ReplaceAll(p, ".", "-")+"@acme.test", "No "+p)
		}
		return lacking[p]
	}
	for _, set := range []struct {
		prefix string
		routes []auditRoute
	}{{"/acme/v1", v1}, {"/v2", v2}} {
		for _, r := range set.routes {
			guard := r.typ.Guard
			if r.guard != "" {
				guard = r.guard
				got := e.req(r.method, set.prefix+r.path, without(r.typ.Guard), r.body)
				t.Logf("note: %s %s%s without %s (guarded by %s): %d", r.method, set.prefix, r.path, r.typ.Guard, guard, got.Status)
			}
			check("without "+guard, set.prefix, r, without(guard), http.StatusForbidden)
			for _, g := range r.guards { // related routes need the target's guard too
				check("without "+g, set.prefix, r, without(g), http.StatusForbidden)
			}
		}
	}

	// a view-only role
	auditRole(t, e, "acme", "Viewer", engine.AccessView)
	viewerID, viewer := e.user("acme", "viewer@acme.test", "Viewer")
	for _, set := range []struct {
		prefix string
		routes []auditRoute
	}{{"/acme/v1", v1}, {"/v2", v2}} {
		for _, r := range set.routes {
			want := http.StatusOK
			if r.write {
				want = http.StatusForbidden
			}
			check("view only", set.prefix, r, viewer, want)
		}
	}
	check("view only", "", auditRoute{method: "GET", path: "/acme/v1/account"}, viewer, http.StatusOK)
	check("view only", "", auditRoute{method: "GET", path: "/v1/me"}, viewer, http.StatusOK)
	check("view only", "", auditRoute{method: "PATCH", path: "/v1/me", body: doc("me", viewerID, `{"settings-design":"modern"}`)}, viewer, http.StatusForbidden)

	// another account's admin
	other := e.token("globex", "admin@globex.test", "Account Admin")
	for _, r := range v1 {
		check("globex admin", "/acme/v1", r, other, http.StatusForbidden)
		if r.byID {
			check("globex admin", "/globex/v1", r, other, http.StatusNotFound)
		}
	}
	for _, r := range v2 {
		if r.byID {
			check("globex admin", "/v2", r, other, http.StatusNotFound)
		}
	}
	check("globex admin", "", auditRoute{method: "GET", path: "/acme/v1/account"}, other, http.StatusForbidden)
	for _, def := range scoping.DefaultSchema().Types() {
		if !def.Served() {
			continue
		}
		got := e.get("/globex/v1/"+def.Name+"?filter[ids]="+ids[def.Name], other)
		if got.Status != http.StatusOK || len(got.list()) != 0 {
			failures = append(failures, fmt.Sprintf("globex admin lists %s %s: %d %s", def.Name, ids[def.Name], got.Status, got.Body))
		}
	}

	// nothing was written by the refused writes
	for name, id := range ids {
		def, _ := scoping.DefaultSchema().Lookup(name)
		if got := e.get("/acme/v1/"+name+"/"+id+auditActiveParam(def), admin); got.Status != http.StatusOK {
			failures = append(failures, fmt.Sprintf("fixture %s %s is gone: %d", name, id, got.Status))
		}
	}
	t.Logf("audited %d routes on /acme/v1 and %d on /v2 with %d requests", len(v1), len(v2), checks)
	if len(failures) > 0 {
		t.Errorf("%d routes do not behave:\n%s", len(failures), strings.Join(failures, "\n"))
	}
}

func auditActiveParam(def *engine.TypeDef) string {
	if def.Archives {
		return "?filter[active]=true,false"
	}
	return ""
}

func firstDetail(r *resp) string {
	if e := r.firstError(); e != nil {
		d, _ := e["detail"].(string)
		return d
	}
	return ""
}
