package documents_test

import (
	"archive/zip"
	"bytes"
	"context"
	"math/rand"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
)

// The benchmarks of BENCHMARKS.md: the Standard SOW for pricing.md's large
// project (25 locations, 1,000 services, 3,000 subservices) and a 20 MiB
// template. The workbooks' benchmarks are package workbook's, the PDF
// conversion's package office's.

func BenchmarkRenderStandardSOWLarge(b *testing.B) {
	e := mustEnv(b)
	v2 := mergedata.BuildV2(e.large(), now)
	tpl := documents.StandardSOW()
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := documents.Render(context.Background(), tpl, v2)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "docx-bytes")
}

// BenchmarkRender20MiBTemplate renders the Standard SOW with 19 MiB of
// incompressible media added (a template at the upload limit) for the
// large project.
func BenchmarkRender20MiBTemplate(b *testing.B) {
	e := mustEnv(b)
	v2 := mergedata.BuildV2(e.large(), now)
	tpl := withMedia(b, documents.StandardSOW(), 19<<20)
	if len(tpl) > documents.MaxTemplateSize {
		b.Fatalf("template of %d bytes", len(tpl))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := documents.Render(context.Background(), tpl, v2); err != nil {
			b.Fatal(err)
		}
	}
}

// withMedia returns tpl with an entry of n random bytes, stored.
func withMedia(tb testing.TB, tpl []byte, n int) []byte {
	zr, err := zip.NewReader(bytes.NewReader(tpl), int64(len(tpl)))
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if err := zw.Copy(f); err != nil {
			tb.Fatal(err)
		}
	}
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "word/media/image1.bin", Method: zip.Store})
	if err != nil {
		tb.Fatal(err)
	}
	media := make([]byte, n)
	rand.New(rand.NewSource(1)).Read(media)
	if _, err := w.Write(media); err != nil {
		tb.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
