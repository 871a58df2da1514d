package scoping_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// catalogRefusal is a create refused for one attribute: the attributes
// (name, JSON value pairs), the attribute and a part of the message.
type catalogRefusal struct {
	at          []string
	field, want string
}

// catalogRefused checks that each create of typ is EINVALID about its
// attribute.
func catalogRefused(t *testing.T, svc *scoping.Service, a *engine.Actor, typ string, cases []catalogRefusal) {
	t.Helper()
	for _, c := range cases {
		_, err := svc.Create(context.Background(), a, typ, &engine.Input{Attrs: attrs(c.at...)}, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/"+c.field, c.want)
	}
}

// Ensure ISOCurrency accepts active ISO 4217 codes in capitals with their
// minor units, and refuses anything else, XXX and XTS included.
func TestCatalogISOCurrency(t *testing.T) {
	for code, units := range map[string]int{"USD": 2, "EUR": 2, "JPY": 0, "KWD": 3, "CHF": 2} {
		got, ok := scoping.ISOCurrency(code)
		require.True(t, ok, code)
		require.Equal(t, units, got, code)
	}
	for _, code := range []string{"", "usd", "Usd", "US", "USDX", "ZZZ", "XXX", "XTS"} {
		_, ok := scoping.ISOCurrency(code)
		require.False(t, ok, code)
	}
}

// Ensure currencies take ISO codes and positive rates, minor units from
// ISO 4217 unless given (at most 8), keep the default currency's code and
// rate 1, cannot delete the default currency, and need rate_tables manage.
func TestCatalogCurrencies(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	catalogRefused(t, svc, sys, "currencies", []catalogRefusal{
		{[]string{"code", `"EURO"`, "conversion-rate", `"1"`}, "code", `code "EURO" is not an ISO 4217 currency code`},
		{[]string{"code", `"eur"`, "conversion-rate", `"1"`}, "code", "not an ISO 4217"},
		{[]string{"code", `"EUR"`, "conversion-rate", `"0"`}, "conversion-rate", "greater than zero"},
		{[]string{"code", `"EUR"`, "conversion-rate", `"1"`, "minor-units", `9`}, "minor-units", "between 0 and 8"},
	})
	_, err := svc.Create(ctx, sys, "currencies", &engine.Input{Attrs: attrs("code", `"EUR"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "conversion-rate is required: %v", err)

	jpy := acctCreate(t, svc, sys, "currencies", attrs("code", `"JPY"`, "name", `"Yen"`, "conversion-rate", `150`), nil)
	require.EqualValues(t, 0, jpy.Int("minor-units"), "from ISO 4217")
	kwd := acctCreate(t, svc, sys, "currencies", attrs("code", `"KWD"`, "conversion-rate", `"0.3"`, "minor-units", `2`), nil)
	require.EqualValues(t, 2, kwd.Int("minor-units"), "given wins")
	_, err = svc.Create(ctx, sys, "currencies", &engine.Input{Attrs: attrs("code", `"JPY"`, "conversion-rate", `"140"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "codes are unique: %v", err)

	res, err := svc.List(ctx, sys, "currencies", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	var usd *engine.Record
	for _, r := range res.Records {
		if r.Str("code") == "USD" {
			usd = r
		}
	}
	require.NotNil(t, usd, "the default currency is a record")
	_, err = svc.Update(ctx, sys, "currencies", usd.ID, &engine.Input{Attrs: attrs("code", `"EUR"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/code", "USD is the account's default currency: its code cannot change")
	_, err = svc.Update(ctx, sys, "currencies", usd.ID, &engine.Input{Attrs: attrs("conversion-rate", `"2"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/conversion-rate", "always 1")
	_, err = svc.Update(ctx, sys, "currencies", usd.ID, &engine.Input{Attrs: attrs("name", `"Dollar"`, "conversion-rate", `"1.000"`)}, engine.Options{})
	require.NoError(t, err)

	err = svc.Delete(ctx, sys, "currencies", usd.ID, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "USD is the account's default currency and cannot be deleted")
	require.NoError(t, svc.Delete(ctx, sys, "currencies", jpy.ID, engine.Options{}))
	_, err = svc.Get(ctx, sys, "currencies", jpy.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	// Sales has rate_tables view: reads, no writes
	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales")
	_, err = svc.List(ctx, sales, "currencies", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Create(ctx, sales, "currencies", &engine.Input{Attrs: attrs("code", `"GBP"`, "conversion-rate", `"0.8"`)}, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	err = svc.Delete(ctx, sales, "currencies", kwd.ID, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))

	// another account's currency is not found
	_, globexSys := acctAccount(t, svc, "globex")
	_, err = svc.Get(ctx, globexSys, "currencies", kwd.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	err = svc.Delete(ctx, globexSys, "currencies", kwd.ID, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure user-defined field definitions have names of letters, digits and
// underscores, unique per resource type, and options for a select.
func TestCatalogUserDefinedFieldDefinitions(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	catalogRefused(t, svc, sys, "user-defined-fields", []catalogRefusal{
		{[]string{"name", `"cost center"`, "resource-type", `"projects"`}, "name", "only letters, digits and underscores"},
		{[]string{"name", `"région"`, "resource-type", `"projects"`}, "name", "only letters, digits and underscores"},
		{[]string{"name", `"tier"`, "resource-type", `"projects"`, "field-type", `"select"`}, "options", "options can't be blank"},
		{[]string{"name", `"tier"`, "resource-type", `"projects"`, "field-type", `"select"`, "options", `[]`}, "options", "options can't be blank"},
	})
	_, err := svc.Create(ctx, sys, "user-defined-fields", &engine.Input{Attrs: attrs("name", `"x"`, "resource-type", `"phases"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)

	cc := acctCreate(t, svc, sys, "user-defined-fields", attrs("name", `"cost_center_2"`, "resource-type", `"projects"`), nil)
	require.Equal(t, "text", cc.Str("field-type"))
	_, err = svc.Create(ctx, sys, "user-defined-fields", &engine.Input{Attrs: attrs("name", `"cost_center_2"`, "resource-type", `"projects"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/name", `name "cost_center_2" has already been taken for projects`)
	acctCreate(t, svc, sys, "user-defined-fields", attrs("name", `"cost_center_2"`, "resource-type", `"clients"`), nil)
	_, err = svc.Update(ctx, sys, "user-defined-fields", cc.ID, &engine.Input{Attrs: attrs("label", `"Cost center"`)}, engine.Options{})
	require.NoError(t, err, "a definition does not clash with itself")

	// settings manage is needed; Sales has settings view
	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales")
	_, err = svc.Create(ctx, sales, "user-defined-fields", &engine.Input{Attrs: attrs("name", `"y"`, "resource-type", `"projects"`)}, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure the user-defined-fields object of clients, projects and services
// takes only names defined (and active) for its resource type, with values
// of the field's type; null clears a value.
func TestCatalogUserDefinedFieldValues(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	def := func(resource, name, fieldType, options string) *engine.Record {
		at := []string{"name", `"` + name + `"`, "resource-type", `"` + resource + `"`, "field-type", `"` + fieldType + `"`}
		if options != "" {
			at = append(at, "options", options)
		}
		return acctCreate(t, svc, sys, "user-defined-fields", attrs(at...), nil)
	}
	def("clients", "region", "text", "")
	def("clients", "seats", "number", "")
	def("clients", "renewal", "date", "")
	def("clients", "tier", "select", `["gold","silver"]`)
	old := def("clients", "legacy", "text", "")
	def("projects", "po", "text", "")
	def("services", "code", "number", "")
	_, err := svc.Update(ctx, sys, "user-defined-fields", old.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)

	n := 0
	client := func(udfs string) error {
		n++
		_, err := svc.Create(ctx, sys, "clients", &engine.Input{Attrs: attrs("name", fmt.Sprintf(`"C%d"`, n), "user-defined-fields", udfs)}, engine.Options{})
		return err
	}
	for _, ok := range []string{
		`{}`, `{"region":"EMEA"}`, `{"seats":12}`, `{"seats":"12.5"}`, `{"seats":-3}`, `{"renewal":"2026-03-31"}`,
		`{"tier":"gold"}`, `{"region":null,"seats":null}`,
		`{"region":"NA","seats":1,"renewal":"2026-01-01","tier":"silver"}`,
	} {
		require.NoError(t, client(ok), ok)
	}
	for udfs, want := range map[string]string{
		`{"colour":"red"}`:           `user-defined field "colour" is not defined for clients`,
		`{"legacy":"x"}`:             `user-defined field "legacy" is not defined for clients`,
		`{"po":"x"}`:                 `user-defined field "po" is not defined for clients`,
		`{"region":5}`:               `user-defined field "region" must be a valid text value`,
		`{"seats":"many"}`:           `user-defined field "seats" must be a valid number value`,
		`{"seats":true}`:             `user-defined field "seats" must be a valid number value`,
		`{"renewal":"31/03/2026"}`:   `user-defined field "renewal" must be a valid date value`,
		`{"renewal":20260331}`:       `user-defined field "renewal" must be a valid date value`,
		`{"tier":"bronze"}`:          `user-defined field "tier" must be a valid select value`,
		`{"tier":["gold"]}`:          `user-defined field "tier" must be a valid select value`,
		`{"region":"NA","zone":"1"}`: `user-defined field "zone" is not defined for clients`,
	} {
		acctRequireErr(t, client(udfs), scopekit.EINVALID, "/data/attributes/user-defined-fields", want)
	}

	// projects and services are checked against their own definitions
	c := acctCreate(t, svc, sys, "clients", attrs("name", `"Globex"`), nil)
	onClient := map[string]engine.RelInput{"client": rel("clients", c.ID)}
	p := acctCreate(t, svc, sys, "projects", attrs("project-name", `"P"`, "user-defined-fields", `{"po":"PO-1"}`), onClient)
	require.Equal(t, map[string]any{"po": "PO-1"}, p.Attrs["user-defined-fields"])
	_, err = svc.Create(ctx, sys, "projects", &engine.Input{Attrs: attrs("project-name", `"P2"`, "user-defined-fields", `{"region":"x"}`), Rels: onClient}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/user-defined-fields", `"region" is not defined for projects`)
	acctCreate(t, svc, sys, "services", attrs("name", `"S"`, "user-defined-fields", `{"code":"7"}`), nil)
	_, err = svc.Create(ctx, sys, "services", &engine.Input{Attrs: attrs("name", `"S2"`, "user-defined-fields", `{"code":"seven"}`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/user-defined-fields", `"code" must be a valid number value`)
}
