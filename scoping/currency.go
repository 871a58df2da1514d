package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"golang.org/x/text/currency"
)

// Currencies: ISO 4217 codes only, minor units from the standard unless
// given, and the account's default currency always at rate 1 (every other
// rate is "units of that currency per one default unit").

// ISOCurrency checks that code is an active ISO 4217 code written in
// capitals and returns its minor units (the number of decimals of its
// standard rounding, from the CLDR tables of golang.org/x/text/currency).
// XXX (no currency) and the test code XTS are refused.
func ISOCurrency(code string) (minorUnits int, ok bool) {
	u, err := currency.ParseISO(code)
	if err != nil || u.String() != code || code == "XXX" || code == "XTS" {
		return 0, false
	}
	scale, _ := currency.Standard.Rounding(u)
	return scale, true
}

// maxMinorUnits bounds minor-units: no currency has more than 4.
const maxMinorUnits = 8

func currencyDefaults(_ context.Context, _ *engine.Call, rec *engine.Record) error {
	if _, set := rec.Attrs[views.NameMinorUnits]; !set {
		if units, ok := ISOCurrency(views.Currency{Record: rec}.Code()); ok {
			rec.Attrs[views.NameMinorUnits] = int64(units)
		}
	}
	return nil
}

func validateCurrency(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	cur, def := views.Currency{Record: rec}, views.Account{Record: c.Actor.Account}.DefaultCurrency()
	var errs []error
	code := cur.Code()
	if old != nil && (views.Currency{Record: old}).Code() == def && code != def {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameCode), "%s is the account's default currency: its code cannot change", def))
	}
	if _, ok := ISOCurrency(code); !ok && code != "" {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameCode), "code %q is not an ISO 4217 currency code (three capital letters, such as USD or EUR)", code))
	}
	rate := cur.ConversionRate()
	switch {
	case !rate.IsPositive():
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameConversionRate), "conversion-rate must be greater than zero"))
	case code != "" && code == def && !rate.Equal(decimal.NewFromInt(1)):
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameConversionRate), "conversion-rate of %s, the account's default currency, is always 1", code))
	}
	if cur.MinorUnits() > maxMinorUnits {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameMinorUnits), "minor-units must be between 0 and %d", maxMinorUnits))
	}
	return errs
}

// deleteCurrency refuses to delete the account's default currency, which
// every price falls back to.
func deleteCurrency(_ context.Context, c *engine.Call, rec *engine.Record) error {
	if code := (views.Currency{Record: rec}).Code(); code == (views.Account{Record: c.Actor.Account}).DefaultCurrency() {
		return scopekit.Errorf(scopekit.ECONFLICT, "%s is the account's default currency and cannot be deleted", code)
	}
	return c.Remove(mustLookup(c.Engine.Schema(), views.TypeCurrencies), rec)
}

// conversion is how a project's lines take catalog amounts, which are in
// the account's default currency: converted into the currency of the
// project's rate table with its from_default rate (pricing.md,
// "Currency").
type conversion struct {
	table string          // the project's rate table ("" none)
	rate  decimal.Decimal // zero: the project is priced in the default currency
	cur   pricing.Currency
}

// catalogConversion returns the conversion of a project's catalog amounts.
// A project or rate table not found converts nothing (the reference
// checks report it), nor does a currency the account has no record of
// (pricing takes its rate as 1 too).
func catalogConversion(c *engine.Call, projectID string) (conversion, error) {
	p, err := c.Get(views.TypeProjects, projectID)
	if err != nil {
		return conversion{}, absent(err)
	}
	conv := conversion{table: views.Project{Record: p}.RateTable()}
	if conv.table == "" {
		return conv, nil
	}
	t, err := c.Get(views.TypeRateTables, conv.table)
	if err != nil {
		return conv, absent(err)
	}
	acct, err := txAccount(c)
	if err != nil {
		return conv, err
	}
	code := views.RateTable{Record: t}.Currency()
	if code == "" || code == (views.Account{Record: acct}).DefaultCurrency() {
		return conv, nil
	}
	found, err := c.Find(views.TypeCurrencies, engine.Eq(views.NameCode, code))
	if err != nil || len(found) == 0 {
		return conv, err
	}
	cur := views.Currency{Record: found[0]}
	conv.rate, conv.cur = cur.ConversionRate(), pricing.Currency{Code: code, MinorUnits: int(cur.MinorUnits())}
	return conv, nil
}

// of returns a catalog amount (a stored decimal, or nil) in the project's
// currency.
func (v conversion) of(amount any) any {
	d, ok := decimalOf(amount)
	if !ok || v.rate.IsZero() {
		return amount
	}
	return pricing.FromDefault(d, v.rate, v.cur).String()
}
