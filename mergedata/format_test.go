package mergedata

import (
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// slowQuantity is what quantity must equal: the decimal as Record.Dec
// reads it, with at least 2 places.
func slowQuantity(s string) string {
	d, err := decimal.NewFromString(s)
	if err != nil || s == "" {
		d = decimal.Zero
	}
	if e := d.Exponent(); e < -2 {
		return d.StringFixed(-e)
	}
	return d.StringFixed(2)
}

var quantityCases = []string{"", "0", "1", "2", "7.25", "1.5", "1.125", "0.5", "0.05", "10", "1000000", "12.345678",
	"007.5", "-0", "-1.5", "1.", ".5", "1e3", "abc", "0.10", "2.50", "99999999999999999999999.99", "+1"}

func TestQuantityIsDecimals(t *testing.T) {
	for _, s := range quantityCases {
		if got, want := quantity(s), slowQuantity(s); got != want {
			t.Errorf("quantity(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzQuantity(f *testing.F) {
	for _, s := range quantityCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := quantity(s), slowQuantity(s); got != want {
			t.Errorf("quantity(%q) = %q, want %q", s, got, want)
		}
	})
}

var figureCases = []struct {
	coef string
	exp  int32
}{
	{"0", -2}, {"0", 0}, {"0", -4}, {"144000", -2}, {"5", -2}, {"-25000", -2}, {"-5", -2}, {"4723", -4},
	{"30000", 0}, {"123", 2}, {"1", -18}, {"1", -19}, {"999999999999999999", -2}, {"9223372036854775807", -2},
	{"-9223372036854775808", -2}, {"123456789012345678901234567890", -2},
}

func TestFigureIsString(t *testing.T) {
	for _, c := range figureCases {
		n, _ := decimal.NewFromString(c.coef)
		f := pricing.Fixed{Decimal: decimal.NewFromBigInt(n.BigInt(), c.exp)}
		if got, want := figure(f), f.String(); got != want {
			t.Errorf("figure(%s e%d) = %q, want %q", c.coef, c.exp, got, want)
		}
	}
}

func FuzzFigure(f *testing.F) {
	for _, c := range figureCases {
		f.Add(c.coef, c.exp)
	}
	f.Fuzz(func(t *testing.T, coef string, exp int32) {
		n, err := decimal.NewFromString(coef)
		if err != nil || exp < -40 || exp > 40 || len(coef) > 60 {
			return
		}
		x := pricing.Fixed{Decimal: decimal.NewFromBigInt(n.BigInt(), exp)}
		if got, want := figure(x), x.String(); got != want {
			t.Errorf("figure(%s e%d) = %q, want %q", coef, exp, got, want)
		}
	})
}
