package documents

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/go-playground/locales"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:generate go run ./internal/genlocales -o locales_gen.go

// Locales and dates. The date filter writes CLDR's month and day names of
// the locale's language (go-playground/locales, CLDR 36.1: one calendar
// per language and per language and script, locales_gen.go; a region's
// calendar is its language's, so en-GB's long date is en's), in a Go
// layout or, without one, in the language's long date pattern; its digits
// are the locale's, as numbers'.

// localeData is what the filters of one rendering read of its locale,
// found the first time one asks.
type localeData struct {
	// tag is the locale with its digits named (-u-nu-): the tag's own,
	// else those CLDR gives the locale (bojanz/currency's CLDR, newer than
	// x/text's: ar-EG writes Arabic-Indic digits, ar Latin ones), so that
	// money, numbers and dates of a document write the same digits.
	tag    language.Tag
	digits [10]string // the locale's digits 0 to 9
	money  *moneyFormat
	cal    locales.Translator
}

// locale is merge data's locale (the account's), en-US when it has none
// or one x/text does not read, with its digits named.
func locale(v *env) language.Tag { return v.locale().tag }

// locale returns what the filters read of merge data's locale.
func (v *env) locale() *localeData {
	if v.loc != nil {
		return v.loc
	}
	tag := language.AmericanEnglish
	if m, ok := v.scopes[0].(map[string]any); ok {
		if s, ok := m["locale"].(string); ok && s != "" {
			if t, err := language.Parse(s); err == nil {
				tag = t
			}
		}
	}
	v.loc = &localeData{tag: tag, money: newMoneyFormat(tag, v.scopes[0]), cal: calendarOf(tag)}
	if tag.TypeForKey("nu") == "" {
		if t, err := tag.SetTypeForKey("nu", cldrDigits(tag)); err == nil {
			v.loc.tag = t
		}
	}
	_, v.loc.digits = localDigits(message.NewPrinter(v.loc.tag))
	return v.loc
}

// calendarOf returns the CLDR calendar of the tag's language in its
// script (zh-TW is written in Hant), else of its language, else English's
// (also for the few locales whose calendar lacks names).
func calendarOf(tag language.Tag) locales.Translator {
	base, _ := tag.Base()
	script, _ := tag.Script()
	for _, key := range []string{base.String() + "-" + script.String(), base.String()} {
		if f, ok := calendars[key]; ok {
			if cal := f(); complete(cal) {
				return cal
			}
			break
		}
	}
	return calendars["en"]()
}

// complete reports whether a calendar has every month and day name and a
// long date (some locales' tables are empty, and their methods panic).
func complete(cal locales.Translator) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return len(cal.MonthsWide()) == 12 && len(cal.MonthsAbbreviated()) == 12 && len(cal.WeekdaysWide()) == 7 &&
		len(cal.WeekdaysAbbreviated()) == 7 && cal.FmtDateLong(time.Date(2006, 1, 2, 0, 0, 0, 0, time.UTC)) != ""
}

// formatDate writes t in a Go layout ("" is the locale's long date), with
// the locale's month and day names and digits.
func formatDate(v *env, t time.Time, layout string) string {
	loc := v.locale()
	var s string
	if layout == "" {
		s = loc.cal.FmtDateLong(t)
	} else {
		s = layoutDate(t, layout, loc.cal)
	}
	if loc.digits[0] == "0" {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if '0' <= r && r <= '9' {
			b.WriteString(loc.digits[r-'0'])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// layoutDate formats t in a Go layout, writing the calendar's names where
// Go would write January, Jan, Monday or Mon (Go reads Jan and Mon only
// when no small letter follows, and PM, pm and MST as their own).
func layoutDate(t time.Time, layout string, cal locales.Translator) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(layout); i++ {
		rest := layout[i:]
		var name string
		n := 0
		switch {
		case strings.HasPrefix(rest, "PM"), strings.HasPrefix(rest, "pm"):
			i++
			continue
		case strings.HasPrefix(rest, "MST"):
			i += 2
			continue
		case strings.HasPrefix(rest, "January"):
			name, n = cal.MonthWide(t.Month()), 7
		case strings.HasPrefix(rest, "Jan") && !lowerNext(rest[3:]):
			name, n = cal.MonthAbbreviated(t.Month()), 3
		case strings.HasPrefix(rest, "Monday"):
			name, n = cal.WeekdayWide(t.Weekday()), 6
		case strings.HasPrefix(rest, "Mon") && !lowerNext(rest[3:]):
			name, n = cal.WeekdayAbbreviated(t.Weekday()), 3
		default:
			continue
		}
		b.WriteString(t.Format(layout[last:i]))
		b.WriteString(name)
		last, i = i+n, i+n-1
	}
	b.WriteString(t.Format(layout[last:]))
	return b.String()
}

// lowerNext reports whether s starts with a small ASCII letter.
func lowerNext(s string) bool { return s != "" && 'a' <= s[0] && s[0] <= 'z' }

// dateOf reads a date: merge data's date object ({"value": "2026-11-22",
// ...}) or a text holding an ISO date or an RFC 3339 time.
func dateOf(v any) (time.Time, bool) {
	if m, ok := v.(map[string]any); ok {
		v = m["value"]
	}
	s, ok := v.(string)
	if !ok {
		if n, ok := v.(json.Number); ok {
			s = string(n)
		}
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	return time.Time{}, false
}
