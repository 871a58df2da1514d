package scoping_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// largeVersioned seeds docs/pricing.md's large project (1,000 services,
// 3,000 subservices) on a bbolt store and prices it as the API would.
func largeVersioned(b *testing.B) (*scoping.Service, *engine.Actor, string) {
	b.Helper()
	svc, a := mustSetup(b)
	ctx := context.Background()
	res, err := svc.Create(ctx, a, "clients", &engine.Input{Attrs: attrs("name", `"Initech"`)}, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var pid string
	if err := svc.Store().Update(ctx, func(tx engine.Tx) error {
		pid, err = demodata.SeedLarge(tx, a.AccountID(), res.Records[0].ID, nil)
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if err := svc.RefreshAllPrices(ctx); err != nil {
		b.Fatal(err)
	}
	return svc, a, pid
}

// BenchmarkTakeVersionLarge takes a version of the large project whose
// scope changed since the last one: the scope read and priced, frozen as
// canonical JSON, its digest, compressed and stored with its record, in
// one write transaction. It reports the stored size of a version.
func BenchmarkTakeVersionLarge(b *testing.B) {
	svc, a, pid := largeVersioned(b)
	ctx := context.Background()
	q := 1
	var size int64
	var cpu time.Duration // of the takes alone
	for b.Loop() {
		b.StopTimer()
		q++
		if _, err := svc.Update(ctx, a, views.TypeProjects, pid, &engine.Input{Attrs: attrs("revenue-adjustment", fmt.Sprintf(`"-%d"`, q))}, engine.Options{}); err != nil {
			b.Fatal(err)
		}
		start := cpuTime()
		b.StartTimer()
		res, created, err := svc.TakeVersion(ctx, a, pid, "", "")
		if err != nil || !created {
			b.Fatal(err, created)
		}
		b.StopTimer()
		cpu += cpuTime() - start
		b.StartTimer()
		size = res.Records[0].Int("size")
	}
	b.ReportMetric(float64(size), "stored-bytes")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkDiffVersionsLarge diffs two versions of the large project that
// differ in a tenth of their services (the stored versions read back,
// decompressed, checked against their digests and compared).
func BenchmarkDiffVersionsLarge(b *testing.B) {
	svc, a, pid := largeVersioned(b)
	ctx := context.Background()
	if _, _, err := svc.TakeVersion(ctx, a, pid, "", ""); err != nil {
		b.Fatal(err)
	}
	lines, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for i, l := range lines.Records {
		if i%10 == 0 {
			if _, err := svc.Update(ctx, a, "project-services", l.ID, &engine.Input{Attrs: attrs("quantity", `"3"`)}, engine.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, _, err := svc.TakeVersion(ctx, a, pid, "", ""); err != nil {
		b.Fatal(err)
	}
	var changed int
	defer reportCPU(b)()
	for b.Loop() {
		d, err := svc.DiffVersions(ctx, a, pid, "1", "2")
		if err != nil {
			b.Fatal(err)
		}
		changed = len(d.Changed)
	}
	b.ReportMetric(float64(changed), "changed-lines")
}

// reportCPU reports the process's CPU time per operation (user and
// system): on a machine shared with other work, wall time measures the
// neighbours too.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
