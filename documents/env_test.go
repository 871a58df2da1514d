package documents_test

import (
	"testing"

	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping/views"
)

// now is the fixed clock of the tests: records' timestamps and printed_on.
var now = snapshottest.Now

// env is a scoping service over a real bbolt file in a temp dir, with one
// account (acme, USD) and its system actor.
type env struct{ *snapshottest.Env }

func mustEnv(tb testing.TB) *env { return &env{snapshottest.New(tb)} }

// demo is the snapshot of the worked example project of docs/pricing.md.
func (e *env) demo() *views.Snapshot { return e.snapshot(e.SeedDemo().ProjectID) }

// large is the snapshot of docs/pricing.md's large project: 25 locations,
// 1,000 services, 3,000 subservices.
func (e *env) large() *views.Snapshot { return e.snapshot(e.SeedLarge()) }

func (e *env) snapshot(projectID string) *views.Snapshot { return e.Snapshot(projectID) }
