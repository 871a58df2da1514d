package office_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/office/officetest"
)

// The benchmarks of BENCHMARKS.md: the PDF conversion of the demo
// project's Standard SOW, cold and warm.

func BenchmarkPDFDemoSOW(b *testing.B) {
	lo, err := office.NewLibreOffice("")
	if err != nil {
		b.Skipf("LibreOffice not installed: %v", err)
	}
	docx := demoSOW(b)
	for b.Loop() {
		if _, err := lo.ToPDF(b.Context(), docx); err != nil {
			b.Fatal(err)
		}
	}
}

// demoSOW is the demo project's Standard SOW (4 pages as PDF).
func demoSOW(b *testing.B) []byte {
	e := snapshottest.New(b)
	snap := e.Snapshot(e.SeedDemo().ProjectID)
	docx, err := documents.Render(context.Background(), documents.StandardSOW(), mergedata.BuildV2(snap, snapshottest.Now))
	if err != nil {
		b.Fatal(err)
	}
	return docx
}

// BenchmarkPDFWarmVsPlain converts the demo project's SOW b.N times with
// the warm converter (one listener) and b.N times with a plain
// "soffice --headless --convert-to pdf" of the same DOCX (a profile of its
// own made once and reused, as on a desktop), alternating so both see the
// same machine, and reports the median of each and their ratio.
func BenchmarkPDFWarmVsPlain(b *testing.B) {
	pool := officetest.Warm(b, 1)
	docx := demoSOW(b)
	dir := b.TempDir()
	in := filepath.Join(dir, "sow.docx")
	if err := os.WriteFile(in, docx, 0o600); err != nil {
		b.Fatal(err)
	}
	plain := func() time.Duration {
		start := time.Now()
		out, err := exec.Command(pool.Cold.Path, "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
			"--headless", "--convert-to", "pdf", "--outdir", filepath.Join(dir, "out"), in).CombinedOutput()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	warm := func() time.Duration {
		start := time.Now()
		if _, err := pool.ToPDF(b.Context(), docx); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	plain() // makes the profile
	warm()
	var plains, warms []time.Duration
	b.ResetTimer()
	for range b.N {
		plains, warms = append(plains, plain()), append(warms, warm())
	}
	b.StopTimer()
	p, w := median(plains), median(warms)
	b.ReportMetric(float64(p.Milliseconds()), "plain-p50-ms")
	b.ReportMetric(float64(w.Milliseconds()), "warm-p50-ms")
	b.ReportMetric(float64(w)/float64(p), "warm/plain")
	if w, c := pool.Counts(); c != 0 {
		b.Fatalf("%d of %d conversions were cold", c, w+c)
	}
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// BenchmarkPDFThroughput16 converts the demo project's SOW from 16
// goroutines at once, b.N in all, with today's defaults: "cold" one soffice
// per conversion, at most 2 at once (LibreOffice), "warm" 2 listeners
// (Pool). pdfs/s is the throughput.
func BenchmarkPDFThroughput16(b *testing.B) {
	docx := demoSOW(b)
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			var conv office.Converter
			if mode == "warm" {
				conv = officetest.Warm(b, office.DefaultPDFConcurrent)
			} else {
				lo, err := office.NewLibreOffice("")
				if err != nil {
					b.Skipf("LibreOffice not installed: %v", err)
				}
				lo.TempDir = b.TempDir()
				conv = lo
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for range 16 {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						if _, err := conv.ToPDF(b.Context(), docx); err != nil {
							b.Error(err)
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "pdfs/s")
			if pool, ok := conv.(*office.Pool); ok {
				if w, c := pool.Counts(); c != 0 {
					b.Fatalf("%d of %d conversions were cold", c, w+c)
				}
			}
		})
	}
}
