package mergedata_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// now is the fixed clock of the tests: records' timestamps and printed_on.
var now = snapshottest.Now

// env is a scoping service over a real bbolt file in a temp dir, with one
// account (acme, USD) and its system actor.
type env struct{ *snapshottest.Env }

func mustEnv(tb testing.TB) *env { return &env{snapshottest.New(tb)} }

// seedDemo creates the demo project (internal/demodata) with an admin as
// teammate, and a second teammate who is then removed.
func (e *env) seedDemo() *demodata.Seeded {
	e.TB.Helper()
	s := e.SeedDemo()
	former := e.Member("fred@acme.test", "Fred Former")
	tm := e.Create("project-teammates", nil, "project", "projects", s.ProjectID, "user", "users", former)
	require.NoError(e.TB, e.Svc.Delete(context.Background(), e.Actor, "project-teammates", tm, engine.Options{}))
	return s
}

// setComputed writes attributes clients cannot set (submitted-at, ...)
// straight into the store.
func (e *env) setComputed(typ, id string, attrs map[string]any) {
	e.TB.Helper()
	require.NoError(e.TB, e.DB.Update(context.Background(), func(tx engine.Tx) error {
		r, err := tx.Get(typ, e.Acct, id)
		if err != nil {
			return err
		}
		for k, v := range attrs {
			r.Attrs[k] = v
		}
		return tx.Replace(r)
	}))
}

func (e *env) snapshot(projectID string) *views.Snapshot {
	return e.Snapshot(projectID)
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
