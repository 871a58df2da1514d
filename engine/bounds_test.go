package engine_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a number's bound applies as declared, or the kind's bound when
// none is: past it (or past its places) a write is 422 naming the
// attribute; at it the value is kept.
func TestNumberBounds(t *testing.T) {
	count := engine.AttrDef{Name: "count", Kind: engine.KindDecimal, Max: "1000", Places: 2}
	delta := engine.AttrDef{Name: "delta", Kind: engine.KindDecimal, Signed: true}
	plain := engine.AttrDef{Name: "plain", Kind: engine.KindDecimal}
	whole := engine.AttrDef{Name: "whole", Kind: engine.KindInt}
	months := engine.AttrDef{Name: "months", Kind: engine.KindInt, Max: "24"}
	for _, tc := range []struct {
		attr       engine.AttrDef
		raw, want  string
		wantDetail string
	}{
		{count, `1000`, "1000", ""},
		{count, `"999.99"`, "999.99", ""},
		{count, `"12.500000"`, "12.5", ""}, // trailing zeros are not digits of the value
		{count, `1000.01`, "", "count must be at most 1000"},
		{count, `"99999999999999999999"`, "", "count must be at most 1000"},
		{count, `"0.001"`, "", "count has more than 2 digits after the decimal point"},
		{delta, `"-1000000000000"`, "-1000000000000", ""},
		{delta, `"-1000000000000.5"`, "", "delta must be between -1000000000000 and 1000000000000"},
		{plain, `"1000000000000"`, "1000000000000", ""},
		{plain, `"1000000000001"`, "", "plain must be at most 1000000000000"},
		{plain, `"0.12345678"`, "0.12345678", ""},
		{plain, `"0.123456789"`, "", "plain has more than 8 digits after the decimal point"},
		{whole, `1000000000`, "1000000000", ""},
		{whole, `1000000001`, "", "whole must be at most 1000000000"},
		{months, `24`, "24", ""},
		{months, `25`, "", "months must be at most 24"},
	} {
		v, e := engine.DecodeAttr(&tc.attr, json.RawMessage(tc.raw))
		if tc.wantDetail != "" {
			require.NotNil(t, e, "%s %s", tc.attr.Name, tc.raw)
			assert.Equal(t, scopekit.EINVALID, e.Code)
			assert.Equal(t, "/data/attributes/"+tc.attr.Name, e.Field)
			assert.Equal(t, tc.wantDetail, e.Message)
			continue
		}
		require.Nil(t, e, "%s %s", tc.attr.Name, tc.raw)
		assert.Equal(t, tc.want, jsonString(v), "%s %s", tc.attr.Name, tc.raw)
		limit, _, ok := tc.attr.Bound()
		assert.True(t, ok)
		assert.True(t, limit.IsPositive())
	}
}

func jsonString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

// Ensure a bound that is no bound is refused when the schema is checked:
// a declaration error, not a request's.
func TestNumberBoundDeclarations(t *testing.T) {
	for _, a := range []engine.AttrDef{
		{Name: "n", Kind: engine.KindDecimal, Max: "-5"},
		{Name: "n", Kind: engine.KindDecimal, Max: "lots"},
		{Name: "n", Kind: engine.KindInt, Max: "2.5"},
		{Name: "n", Kind: engine.KindInt, Places: 2},
		{Name: "n", Kind: engine.KindString, Max: "5"},
	} {
		s := engine.NewSchema(guard)
		s.Register(&engine.TypeDef{Name: "gauges", Guard: guard, Attrs: []engine.AttrDef{a}})
		assert.ErrorContains(t, s.Check(), "gauges: attribute n", "%+v", a)
	}
	s := engine.NewSchema(guard)
	s.Register(&engine.TypeDef{Name: "gauges", Guard: guard, Attrs: []engine.AttrDef{{Name: "n", Kind: engine.KindInt, Max: "7"}}})
	assert.NoError(t, s.Check())
}
