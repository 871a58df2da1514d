package mergedata_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Ensure the large project builds completely: every service in its phase
// and its location.
func TestLargeProject(t *testing.T) {
	if testing.Short() {
		t.Skip("large fixture")
	}
	e := mustEnv(t)
	snap := e.snapshot(e.SeedLarge())
	require.Len(t, snap.Services, 1000)
	v2 := mergedata.BuildV2(snap, now)
	n := 0
	for _, p := range v2.Phases {
		n += len(p.Services)
		for _, s := range p.Services {
			require.Len(t, s.Subservices, 3)
		}
	}
	require.Equal(t, 1000, n)
	require.Len(t, v2.Locations, 25)
	for _, l := range v2.Locations {
		require.Len(t, l.Services, 40)
	}
	require.Len(t, v2.Project.Teammates, 3)
	v1 := mergedata.BuildV1(snap, now)
	require.Len(t, v1.Phases, 3)
}

func benchBuild(b *testing.B, build func(*views.Snapshot) any, encode bool) {
	e := mustEnv(b)
	snap := e.snapshot(e.SeedLarge())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t := build(snap)
		if encode {
			if _, err := json.Marshal(t); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBuildV1Large builds v1 of the large project (target: < 20 ms).
func BenchmarkBuildV1Large(b *testing.B) {
	benchBuild(b, func(s *views.Snapshot) any { return mergedata.BuildV1(s, now) }, false)
}

// BenchmarkBuildV2Large builds v2 of the large project (target: < 20 ms).
func BenchmarkBuildV2Large(b *testing.B) {
	benchBuild(b, func(s *views.Snapshot) any { return mergedata.BuildV2(s, now) }, false)
}

// BenchmarkBuildV1LargeJSON builds and encodes v1 of the large project.
func BenchmarkBuildV1LargeJSON(b *testing.B) {
	benchBuild(b, func(s *views.Snapshot) any { return mergedata.BuildV1(s, now) }, true)
}

// BenchmarkBuildV2LargeJSON builds and encodes v2 of the large project.
func BenchmarkBuildV2LargeJSON(b *testing.B) {
	benchBuild(b, func(s *views.Snapshot) any { return mergedata.BuildV2(s, now) }, true)
}
