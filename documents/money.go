package documents

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bojanz/currency"
	"github.com/shopspring/decimal"
	"golang.org/x/text/language"
)

// Money by CLDR: bojanz/currency formats an amount with the locale's
// currency pattern (where the symbol goes, the spaces, the sign), the
// currency's symbol in the locale, its grouping and its digits. The
// locale's digits can be chosen in its tag (mr-u-nu-latn, en-US-u-nu-arab),
// which bojanz/currency does not read: then the number it wrote is
// written again in those digits, with their decimal mark and grouping
// separator as x/text gives them, its grouping and the pattern kept.

// moneyFormat is the money formatting of one rendering: its formatter
// (nil: the currency is none bojanz/currency knows), the minor units and
// whether the tag chooses the digits.
type moneyFormat struct {
	f     *currency.Formatter
	code  string
	minor int
	// nu: the tag chooses the digits, written with to's symbols rather
	// than from's, the locale's own
	nu       bool
	from, to numberSymbols
}

// newMoneyFormat reads merge data's currency (its code and minor units)
// for the locale tag.
func newMoneyFormat(tag language.Tag, data any) *moneyFormat {
	m := &moneyFormat{minor: -1}
	if d, ok := data.(map[string]any); ok {
		if c, ok := d["currency"].(map[string]any); ok {
			m.code = text(c["code"])
			if n, ok := number(c["minor_units"]); ok && n.IsInteger() && !n.IsNegative() && n.LessThan(decimal.NewFromInt(maxPlaces)) {
				m.minor = int(n.IntPart())
			}
		}
	}
	if !currency.IsValid(m.code) {
		return m
	}
	if m.minor < 0 {
		digits, _ := currency.GetDigits(m.code)
		m.minor = int(digits)
	}
	m.f = currency.NewFormatter(currency.NewLocale(baseTag(tag)))
	m.f.MinDigits, m.f.MaxDigits, m.f.RoundingMode = uint8(m.minor), uint8(m.minor), currency.RoundHalfUp
	if m.nu = tag.TypeForKey("nu") != ""; m.nu {
		probe := currency.NewFormatter(currency.NewLocale(baseTag(tag)))
		probe.CurrencyDisplay, probe.MinDigits = currency.DisplayNone, 1
		n, _ := currency.NewAmount("1234567.5", "USD")
		m.from = symbolsOf(probe.Format(n))
		m.to = symbolsOf(formatNumber(tag, decimal.RequireFromString("1234567.5"), 1))
	}
	return m
}

// baseTag is a tag's language, script and region ("sr-Latn-RS"), which
// bojanz/currency reads (it would take -u-nu-latn's "nu" for a region).
func baseTag(tag language.Tag) string {
	base, script, region := tag.Raw()
	s := base.String()
	if script.String() != "Zzzz" {
		s += "-" + script.String()
	}
	if region.String() != "ZZ" {
		s += "-" + region.String()
	}
	return s
}

// format writes d: by CLDR in the currency, or as a number with the minor
// units (2 without) when the currency is unknown.
func (m *moneyFormat) format(tag language.Tag, d decimal.Decimal) string {
	if m.f == nil {
		return formatNumber(tag, d, max(m.minor, 2))
	}
	amount, err := currency.NewAmount(d.String(), m.code)
	if err != nil {
		return formatNumber(tag, d, m.minor)
	}
	s := m.f.Format(amount)
	if m.nu {
		s = respell(s, m.from, m.to)
	}
	return s
}

// numberingSystems are the digits bojanz/currency writes, by their zero.
var numberingSystems = map[rune]string{'0': "latn", '٠': "arab", '۰': "arabext", '०': "deva", '০': "beng", '၀': "mymr"}

// cldrDigits names the digits CLDR gives the tag's locale (latn, arab,
// deva...), as bojanz/currency writes them.
func cldrDigits(tag language.Tag) string {
	f := currency.NewFormatter(currency.NewLocale(baseTag(tag)))
	f.CurrencyDisplay, f.MinDigits = currency.DisplayNone, 0
	zero, _ := currency.NewAmount("0", "USD")
	for _, r := range f.Format(zero) {
		if sys, ok := numberingSystems[r]; ok {
			return sys
		}
	}
	return "latn"
}

// numberSymbols is how a locale writes a number in one numbering system:
// its digits (contiguous in Unicode from zero, in every system
// bojanz/currency writes), decimal mark and grouping separator.
type numberSymbols struct {
	zero        rune
	mark, group string
}

// symbolsOf reads the symbols from 1234567.5 as a locale wrote it.
func symbolsOf(s string) numberSymbols {
	var n numberSymbols
	var seps []string
	sep := ""
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			if n.zero == 0 {
				n.zero = r - 1
			}
			if sep != "" {
				seps, sep = append(seps, sep), ""
			}
		case n.zero != 0:
			sep += string(r)
		}
	}
	if len(seps) > 0 {
		n.group, n.mark = seps[0], seps[len(seps)-1]
	}
	return n
}

// respell writes the number in a formatted amount (from its first digit
// to its last: symbols hold none) with other digits and marks, its
// grouping kept.
func respell(s string, from, to numberSymbols) string {
	first, last := strings.IndexFunc(s, unicode.IsDigit), strings.LastIndexFunc(s, unicode.IsDigit)
	if first < 0 {
		return s
	}
	_, size := utf8.DecodeRuneInString(s[last:])
	var b strings.Builder
	b.WriteString(s[:first])
	num := s[first : last+size]
	for i := 0; i < len(num); {
		r, n := utf8.DecodeRuneInString(num[i:])
		switch {
		case r >= from.zero && r <= from.zero+9:
			b.WriteRune(to.zero + (r - from.zero))
		case from.group != "" && strings.HasPrefix(num[i:], from.group):
			b.WriteString(to.group)
			n = len(from.group)
		case from.mark != "" && strings.HasPrefix(num[i:], from.mark):
			b.WriteString(to.mark)
			n = len(from.mark)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	b.WriteString(s[last+size:])
	return b.String()
}
