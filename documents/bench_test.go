package documents_test

import (
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
)

// The benchmarks of BENCHMARKS.md: the Standard SOW and the workbooks for
// pricing.md's large project (25 locations, 1,000 services, 3,000
// subservices), and the PDF conversion of the demo project's SOW.

func BenchmarkRenderStandardSOWLarge(b *testing.B) {
	e := mustEnv(b)
	v2 := mergedata.BuildV2(e.large(), now)
	tpl := documents.StandardSOW()
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := documents.Render(tpl, v2)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "docx-bytes")
}

func BenchmarkPricingWorkbookLarge(b *testing.B) {
	snap := mustEnv(b).large()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := documents.PricingWorkbook(snap); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBreakdownWorkbookLarge(b *testing.B) {
	snap := mustEnv(b).large()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := documents.BreakdownWorkbook(snap); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPDFDemoSOW(b *testing.B) {
	lo, err := documents.NewLibreOffice("")
	if err != nil {
		b.Skipf("LibreOffice not installed: %v", err)
	}
	e := mustEnv(b)
	docx, err := documents.Render(documents.StandardSOW(), mergedata.BuildV2(e.demo(), now))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := lo.ToPDF(b.Context(), docx); err != nil {
			b.Fatal(err)
		}
	}
}
