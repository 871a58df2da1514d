package pricing

import (
	"fmt"

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
	return f.StringFixed(f.Places())
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
func (f Fixed) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// MarshalJSON encodes f as a JSON string with its places: "1440.00".
func (f Fixed) MarshalJSON() ([]byte, error) {
	s := f.String()
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}
