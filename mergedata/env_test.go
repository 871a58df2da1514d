package mergedata_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// now is the fixed clock of the tests: records' timestamps and printed_on.
var now = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// env is a scoping service over a real bbolt file in a temp dir, with one
// account (acme, USD) and its system actor.
type env struct {
	tb    testing.TB
	db    *boltstore.DB
	svc   *scoping.Service
	acct  string
	actor *scoping.Actor
}

func mustEnv(tb testing.TB) *env {
	tb.Helper()
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "scopekit.db"))
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	e := &env{tb: tb, db: db, svc: scoping.NewService(db)}
	e.svc.Now = func() time.Time { return now }
	ctx := context.Background()
	require.NoError(tb, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme Consulting", "USD")
		if err != nil {
			return err
		}
		e.acct = acct.ID
		return nil
	}))
	e.actor, err = e.svc.SystemActor(ctx, e.acct)
	require.NoError(tb, err)
	return e
}

// member creates a user of the account and returns its id.
func (e *env) member(email, name string) string {
	e.tb.Helper()
	var id string
	require.NoError(e.tb, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(e.acct, scoping.Member{Email: email, Name: name, Role: "Account Admin"})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	return id
}

// seedDemo creates the demo project (internal/demodata) with an admin as
// teammate, and a second teammate who is then removed.
func (e *env) seedDemo() *demodata.Seeded {
	e.tb.Helper()
	ctx := context.Background()
	admin := e.member("ada@acme.test", "Ada Admin")
	s, err := demodata.Seed(ctx, e.svc, e.actor, admin)
	require.NoError(e.tb, err)
	former := e.member("fred@acme.test", "Fred Former")
	tm := e.create("project-teammates", nil, "project", "projects", s.ProjectID, "user", "users", former)
	require.NoError(e.tb, e.svc.Delete(ctx, e.actor, "project-teammates", tm, false))
	return s
}

// create creates a record through the engine; attrs are marshaled to JSON,
// rels are name, type, id triples.
func (e *env) create(typ string, attrs map[string]any, rels ...string) string {
	e.tb.Helper()
	in := &scoping.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]scoping.RelInput{}}
	for k, v := range attrs {
		b, err := json.Marshal(v)
		require.NoError(e.tb, err)
		in.Attrs[k] = b
	}
	for i := 0; i+2 < len(rels); i += 3 {
		in.Rels[rels[i]] = scoping.RelInput{Refs: []scoping.Ref{{Type: rels[i+1], ID: rels[i+2]}}}
	}
	res, err := e.svc.Create(context.Background(), e.actor, typ, in, false)
	require.NoError(e.tb, err)
	return res.Records[0].ID
}

// updateRec updates attributes of a record through the engine.
func (e *env) updateRec(typ, id string, attrs map[string]any) {
	e.tb.Helper()
	in := &scoping.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]scoping.RelInput{}}
	for k, v := range attrs {
		b, err := json.Marshal(v)
		require.NoError(e.tb, err)
		in.Attrs[k] = b
	}
	_, err := e.svc.Update(context.Background(), e.actor, typ, id, in, false)
	require.NoError(e.tb, err)
}

// setComputed writes attributes clients cannot set (submitted-at, ...)
// straight into the store.
func (e *env) setComputed(typ, id string, attrs map[string]any) {
	e.tb.Helper()
	require.NoError(e.tb, e.db.Update(context.Background(), func(tx scoping.Tx) error {
		r, err := tx.Get(typ, e.acct, id)
		if err != nil {
			return err
		}
		for k, v := range attrs {
			r.Attrs[k] = v
		}
		return tx.Replace(r)
	}))
}

func (e *env) snapshot(projectID string) *scoping.Snapshot {
	e.tb.Helper()
	snap, err := e.svc.Snapshot(context.Background(), e.actor, projectID, "merge_data")
	require.NoError(e.tb, err)
	return snap
}

// tree encodes v and decodes it as generic JSON, as a template engine
// sees it.
func tree(tb testing.TB, v any) map[string]any {
	tb.Helper()
	b, err := json.Marshal(v)
	require.NoError(tb, err)
	var m map[string]any
	require.NoError(tb, json.Unmarshal(b, &m))
	return m
}

// at walks a generic JSON tree along keys (object members) and indexes
// (ints, into arrays); it fails the test on a missing step.
func at(tb testing.TB, v any, path ...any) any {
	tb.Helper()
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			require.True(tb, ok, "%v: not an object at %q", path, s)
			v, ok = m[s]
			require.True(tb, ok, "%v: no member %q", path, s)
		case int:
			a, ok := v.([]any)
			require.True(tb, ok, "%v: not an array at %d", path, s)
			require.Less(tb, s, len(a), "%v", path)
			v = a[s]
		}
	}
	return v
}

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./mergedata -update to create it")
	require.Equal(t, string(want), string(got), "%s differs; if the change is intended, run go test ./mergedata -update", path)
}
