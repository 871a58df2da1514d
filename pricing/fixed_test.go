package pricing_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

var fixedCases = []struct {
	coef string
	exp  int32
}{
	{"0", -2}, {"0", 0}, {"0", -4}, {"144000", -2}, {"5", -2}, {"-25000", -2}, {"-5", -2}, {"4723", -4},
	{"30000", 0}, {"123", 2}, {"1", -18}, {"1", -19}, {"999999999999999999", -2}, {"9223372036854775807", -2},
	{"-9223372036854775808", -2}, {"123456789012345678901234567890", -2},
}

// checkFixed holds String, MarshalText and MarshalJSON of f to decimal's
// formatting with f's places.
func checkFixed(t *testing.T, f pricing.Fixed) {
	t.Helper()
	want := f.StringFixed(f.Places())
	if got := f.String(); got != want {
		t.Errorf("String(%s e%d) = %q, want %q", f.Coefficient(), f.Exponent(), got, want)
	}
	if got, _ := f.MarshalText(); string(got) != want {
		t.Errorf("MarshalText(%s e%d) = %q, want %q", f.Coefficient(), f.Exponent(), got, want)
	}
	if got, _ := json.Marshal(f); string(got) != `"`+want+`"` {
		t.Errorf("json.Marshal(%s e%d) = %s, want %q", f.Coefficient(), f.Exponent(), got, want)
	}
}

func TestFixedStringIsDecimals(t *testing.T) {
	checkFixed(t, pricing.Fixed{})
	for _, c := range fixedCases {
		n, _ := decimal.NewFromString(c.coef)
		checkFixed(t, pricing.Fixed{Decimal: decimal.NewFromBigInt(n.BigInt(), c.exp)})
	}
}

func FuzzFixedString(f *testing.F) {
	for _, c := range fixedCases {
		f.Add(c.coef, c.exp)
	}
	f.Fuzz(func(t *testing.T, coef string, exp int32) {
		n, err := decimal.NewFromString(coef)
		if err != nil || exp < -40 || exp > 40 || len(coef) > 60 {
			return
		}
		checkFixed(t, pricing.Fixed{Decimal: decimal.NewFromBigInt(n.BigInt(), exp)})
	})
}
