package workbook_test

import (
	"testing"

	"github.com/scopekit/scopekit/workbook"
)

// The workbook benchmarks of BENCHMARKS.md, for pricing.md's large project
// (25 locations, 1,000 services, 3,000 subservices).

func BenchmarkPricingWorkbookLarge(b *testing.B) {
	snap := large(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := workbook.Pricing(snap); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBreakdownWorkbookLarge(b *testing.B) {
	snap := large(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := workbook.Breakdown(snap); err != nil {
			b.Fatal(err)
		}
	}
}
