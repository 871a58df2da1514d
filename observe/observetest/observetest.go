// Package observetest reads metrics in tests as Prometheus does: it
// parses the text format with Prometheus' own parser and looks samples up
// by name and labels.
package observetest

import (
	"bytes"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"
)

// Families are parsed metric families, by name.
type Families map[string]*dto.MetricFamily

// Parse parses a scrape in the text format, failing the test on a
// malformed one.
func Parse(tb testing.TB, text []byte) Families {
	tb.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(text))
	require.NoError(tb, err, "%s", text)
	return fams
}

// Sample returns the first sample of family name whose labels include
// labels (name, value pairs), or nil.
func (f Families) Sample(name string, labels ...string) *dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
next:
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if v, ok := have[labels[i]]; !ok || v != labels[i+1] {
				continue next
			}
		}
		return m
	}
	return nil
}

// Value is the sample's value: a counter's or a gauge's, or a histogram's
// count; 0 when there is no such sample.
func (f Families) Value(name string, labels ...string) float64 {
	m := f.Sample(name, labels...)
	switch {
	case m == nil:
		return 0
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}
