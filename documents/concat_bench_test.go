package documents_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
)

// concatTemplate is a template of one tag joining n operands with +
// (project.name, "Globex": a 6.5 KB DOCX for 100,000).
func concatTemplate(tb testing.TB, n int) []byte {
	return template(tb, p("{"+strings.TrimSuffix(strings.Repeat("project.name+", n), "+")+"}"))
}

// BenchmarkConcat renders a tag of 1,000, 25,000 and 100,000 operands
// joined with +: the time a document worker is kept (past 1,000 the
// template is refused).
func BenchmarkConcat(b *testing.B) {
	for _, n := range []int{1000, 25_000, 100_000} {
		tpl := concatTemplate(b, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, err := documents.Render(context.Background(), tpl, data())
				if (err == nil) != (n <= 1000) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tpl)), "template-bytes")
		})
	}
}
