package mergedata

import "github.com/shopspring/decimal"

// A large project has thousands of lines with a handful of figures and
// quantities each. Figures format themselves without decimal's big.Int
// conversion (pricing.Fixed.String); quantity re-parses the entered text
// only in the uncommon cases, which it gives to decimal, with the same
// result (format_test.go holds it to it).

// quantity shows an entered decimal (a record's canonical decimal text)
// with at least 2 decimals, never rounding what was entered, as pricing
// echoes its inputs; unset is "0.00", as for pricing.
func quantity(s string) string {
	if s == "" {
		return "0.00"
	}
	if places, ok := plainDecimal(s); ok {
		switch places {
		case -1:
			return s + ".00"
		case 1:
			return s + "0"
		default:
			return s
		}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return "0.00" // as Record.Dec reads it
	}
	if e := d.Exponent(); e < -2 {
		return d.StringFixed(-e)
	}
	return d.StringFixed(2)
}

// plainDecimal reports whether s is a non-negative decimal written as
// decimal writes one (digits without a leading zero, then optionally "."
// and digits), and its number of decimals (-1 without a point).
func plainDecimal(s string) (places int, ok bool) {
	dot := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
		case c == '.' && dot < 0 && i > 0:
			dot = i
		default:
			return 0, false
		}
	}
	intLen := len(s)
	if dot >= 0 {
		intLen = dot
		if dot == len(s)-1 {
			return 0, false // "1."
		}
	}
	if intLen > 1 && s[0] == '0' {
		return 0, false // leading zero
	}
	if dot < 0 {
		return -1, true
	}
	return len(s) - dot - 1, true
}
