package workbook_test

import (
	"testing"

	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping/views"
)

// demo is the snapshot of the worked example project of docs/pricing.md,
// read from a scoping service over a real bbolt file in a temp dir.
func demo(tb testing.TB) *views.Snapshot {
	e := snapshottest.New(tb)
	return e.Snapshot(e.SeedDemo().ProjectID)
}

// large is the snapshot of docs/pricing.md's large project: 25 locations,
// 1,000 services, 3,000 subservices.
func large(tb testing.TB) *views.Snapshot {
	e := snapshottest.New(tb)
	return e.Snapshot(e.SeedLarge())
}
