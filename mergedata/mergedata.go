// Package mergedata builds the merge data of a project: the tree of values
// that SOW templates are filled from (docs/mergedata.md). BuildV1 returns the
// legacy flat shape, BuildV2 the current one with costs, profits and the
// full project_pricing section.
//
// The builders are pure: they read a views.Snapshot (the project, the
// records around it and its pricing run, read in one transaction) and the
// time "now" for printed_on, and never touch a store. Every figure is taken
// from the snapshot's pricing.Result; nothing is recomputed here, so merge
// data always shows what the pricing endpoint and the computed attributes
// show. The records are visited once, and lookups by id go through maps
// built once: never a query per line.
//
// Value formats: money is a string with the currency's minor units, hours
// and quantities strings with 2 decimals (or more when the entered value has
// more), v2 dates are Date wrappers or null, and optional text is "" rather
// than absent, so that templates never meet a missing path. The trees are
// structs whose JSON encoding (encoding/json) is the wire form, with keys in
// a fixed order.
package mergedata

import (
	"strings"
	"time"

	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Versions of merge data.
const (
	Version1 = 1
	Version2 = 2
)

// Date is a date as v2 templates use it: the ISO date and two renderings.
type Date struct {
	Value       string `json:"value"`         // 2026-11-22
	ToShortDate string `json:"to_short_date"` // 11/22/2026
	ToLongDate  string `json:"to_long_date"`  // November 22, 2026
}

const (
	isoDate   = "2006-01-02"
	shortDate = "01/02/2006"
	longDate  = "January 2, 2006"
)

// dateOf returns the wrapper of t's calendar date in t's location.
func dateOf(t time.Time) *Date {
	return &Date{Value: t.Format(isoDate), ToShortDate: t.Format(shortDate), ToLongDate: t.Format(longDate)}
}

// parseDate reads a stored date ("2006-01-02") or time (engine.TimeFormat,
// or any RFC 3339 time, taken in UTC); ok is false when s is empty or
// neither.
func parseDate(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(isoDate, s); err == nil {
		return t, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	return time.Time{}, false
}

// dateAttr is the v2 wrapper of a date or time attribute; nil when unset.
func dateAttr(s string) *Date {
	t, ok := parseDate(s)
	if !ok {
		return nil
	}
	return dateOf(t)
}

// shortDateAttr is v1's rendering of a date or time attribute: MM/DD/YYYY,
// "" when unset.
func shortDateAttr(s string) string {
	t, ok := parseDate(s)
	if !ok {
		return ""
	}
	return t.Format(shortDate)
}

// Person is a user as templates show it.
type Person struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

func personOf(u views.User) Person {
	return Person{Name: u.Name(), Email: u.Email()}
}

// optPerson is the person of an optional user: empty when u is nil.
func optPerson(u *views.User) Person {
	if u == nil {
		return Person{}
	}
	return personOf(*u)
}

// opt returns a text attribute of an optional related record (get, a
// method expression such as views.Client.Name): "" when v is nil.
func opt[V any](v *V, get func(V) string) string {
	if v == nil {
		return ""
	}
	return get(*v)
}

// msaDate is the project's MSA date, else its client's ("" when neither).
func msaDate(snap *views.Snapshot) string {
	if d := snap.Project.MsaDate(); d != "" {
		return d
	}
	return opt(snap.Client, views.Client.MsaDate)
}

// statusLabels are the labels of the project statuses of docs/resources.md.
var statusLabels = map[string]string{
	"draft": "Draft", "pending_approval": "Pending Approval", "approved": "Approved",
	"won": "Won", "lost": "Lost", "canceled": "Canceled",
}

// StatusLabel returns the label of a project status value: "Pending
// Approval" for pending_approval; a value it does not know is title-cased
// word by word.
func StatusLabel(status string) string {
	if l, ok := statusLabels[status]; ok {
		return l
	}
	words := strings.FieldsFunc(status, func(r rune) bool { return r == '_' || r == ' ' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// symbols are the symbols of common currencies (the narrow forms, as
// invoices in the currency's own market print them).
var symbols = map[string]string{
	"USD": "$", "CAD": "$", "AUD": "$", "NZD": "$", "SGD": "$", "HKD": "$", "MXN": "$",
	"EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹", "KRW": "₩",
	"BRL": "R$", "ZAR": "R", "SEK": "kr", "NOK": "kr", "DKK": "kr", "PLN": "zł",
	"CZK": "Kč", "HUF": "Ft", "ILS": "₪", "TRY": "₺", "RUB": "₽", "UAH": "₴",
	"PHP": "₱", "THB": "฿", "VND": "₫", "NGN": "₦", "CHF": "CHF",
}

// CurrencySymbol returns the symbol of an ISO 4217 code; the code itself
// for a currency without a common symbol.
func CurrencySymbol(code string) string {
	if s, ok := symbols[code]; ok {
		return s
	}
	return code
}

// Currency is the currency figures are in.
type Currency struct {
	Code       string `json:"code"`
	Unit       string `json:"unit"` // the symbol ("$"), or the code when it has none
	MinorUnits int    `json:"minor_units"`
}

func currencyOf(res *pricing.Result) Currency {
	c := res.Currency
	return Currency{Code: c.Code, Unit: CurrencySymbol(c.Code), MinorUnits: c.MinorUnits}
}
