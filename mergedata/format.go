package mergedata

import (
	"strconv"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
)

// A large project has thousands of lines with a handful of figures each;
// formatting them through decimal's big.Int conversion and re-parsing the
// entered quantities dominated the builders' profile. figure and quantity
// take the common cases directly and give every other one to decimal, with
// the same result (format_test.go holds them to it).

// figure returns f.String(): the figure with its places.
func figure(f pricing.Fixed) string {
	e := f.Exponent()
	if e > 0 || e < -18 || f.NumDigits() > 18 {
		return f.String()
	}
	c := f.CoefficientInt64()
	var buf [48]byte
	b := buf[:0]
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	var digits [20]byte
	ds := strconv.AppendUint(digits[:0], uint64(c), 10)
	places := int(-e)
	if len(ds) <= places { // 0.0x: leading zeros
		b = append(b, '0', '.')
		for range places - len(ds) {
			b = append(b, '0')
		}
		return string(append(b, ds...))
	}
	b = append(b, ds[:len(ds)-places]...)
	if places > 0 {
		b = append(b, '.')
		b = append(b, ds[len(ds)-places:]...)
	}
	return string(b)
}

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
