package pricing

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"
)

// Fixed is one figure of a Result: a decimal.Decimal whose exponent is the
// number of places of its kind (money and rates: the currency's minor
// units; hours, quantities and periods: 2; margins: 4; echoed inputs: at
// least those, more when the input has more). String, fmt's %v and %s, and
// MarshalJSON keep those places ("1440.00" where decimal.Decimal says
// "1440"), so the wire and the documents show what was charged. Fixed has
// every method of decimal.Decimal; f.Decimal is the plain value. Decoding
// (decimal's UnmarshalJSON) keeps the places of the text.
type Fixed struct {
	decimal.Decimal
}

func fixed(d decimal.Decimal, places int32) Fixed {
	return Fixed{d.Round(places)}
}

// atLeast shows d with at least places decimals, never rounding it.
func atLeast(d decimal.Decimal, places int32) Fixed {
	if -d.Exponent() < places {
		d = d.Round(places) // exact: it only adds zeros
	}
	return Fixed{d}
}

// Places returns the number of decimals f is shown with.
func (f Fixed) Places() int32 {
	if e := f.Exponent(); e < 0 {
		return -e
	}
	return 0
}

// String returns f with its places, never in scientific notation.
func (f Fixed) String() string {
	var buf [48]byte
	return string(f.appendTo(buf[:0]))
}

// appendTo appends String to b. decimal formats through a big.Int, several
// allocations per figure, which dominated the encoding of merge data with
// thousands of figures; the figures that fit an int64 with up to 18 places
// (all but the huge) are formatted here, with the same result
// (fixed_test.go holds them to it).
func (f Fixed) appendTo(b []byte) []byte {
	e := f.Exponent()
	if e > 0 || e < -18 || f.NumDigits() > 18 {
		return append(b, f.StringFixed(f.Places())...)
	}
	c := f.CoefficientInt64()
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
		return append(b, ds...)
	}
	b = append(b, ds[:len(ds)-places]...)
	if places > 0 {
		b = append(b, '.')
		b = append(b, ds[len(ds)-places:]...)
	}
	return b
}

// Format formats %v and %s as String does; other verbs as decimal.Decimal.
func (f Fixed) Format(s fmt.State, verb rune) {
	if verb == 's' || verb == 'v' && !s.Flag('#') {
		fmt.Fprintf(s, fmt.FormatString(s, verb), f.String())
		return
	}
	f.Decimal.Format(s, verb)
}

// MarshalText returns String, for encoders other than JSON.
func (f Fixed) MarshalText() ([]byte, error) {
	var buf [48]byte
	return bytes.Clone(f.appendTo(buf[:0])), nil
}

// MarshalJSON encodes f as a JSON string with its places: "1440.00".
func (f Fixed) MarshalJSON() ([]byte, error) {
	var buf [48]byte
	return bytes.Clone(append(f.appendTo(append(buf[:0], '"')), '"')), nil
}
