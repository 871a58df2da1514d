package mergedata

import (
	"testing"

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
