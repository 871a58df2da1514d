package provision_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	"golang.org/x/crypto/bcrypt"
)

// mustOpenDB opens a bbolt store of the test's own, with the services
// over it.
func mustOpenDB(t *testing.T) (*boltstore.DB, *scoping.Service, *auth.Service) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	return db, scoping.NewService(db), &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
}

// exampleSpec is the bootstrap file of docs/operations.md as a Spec.
func exampleSpec() *provision.Spec {
	return &provision.Spec{
		Accounts: []provision.Account{{
			Slug: "acme", Name: "Acme IT Services", DefaultCurrency: "USD",
			Currencies: []provision.Currency{{Code: "EUR", Name: "Euro", ConversionRate: "0.92"}},
			Roles:      []provision.Role{{Name: "Auditor", Permissions: map[string]string{"projects": "view"}, ProjectVisibility: "all"}},
			OAuthApplications: []provision.Application{{Name: "Portal", ClientID: "acme-portal",
				ClientSecret: "portal-secret", RedirectURIs: []string{"http://127.0.0.1:9999/callback"}}},
		}},
		Users: []provision.User{
			{Email: "ada@acme.test", Name: "Ada Admin", Password: "correct horse battery", Status: "active",
				Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}},
			{Email: "bot@acme.test", Name: "Integration Bot", UserType: "service", ClientID: "acme-bot", ClientSecret: "bot-secret",
				Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}},
		},
	}
}

// mustProvision provisions spec and returns what it wrote.
func mustProvision(t *testing.T, db engine.Store, svc *scoping.Service, as *auth.Service, spec *provision.Spec) []string {
	t.Helper()
	rep, err := provision.Provision(context.Background(), db, svc, as, spec)
	require.NoError(t, err)
	return rep.Written
}

// dump returns every key and value of every bucket of the file, bucket
// sequences included: if two dumps are equal, nothing was written.
func dump(t *testing.T, db *boltstore.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(prefix string, b *bolt.Bucket)
	walk = func(prefix string, b *bolt.Bucket) {
		out[prefix+"#seq"] = strconv.FormatUint(b.Sequence(), 10)
		require.NoError(t, b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(prefix+"/"+hex.EncodeToString(k), b.Bucket(k))
				return nil
			}
			out[prefix+"/"+hex.EncodeToString(k)] = string(v)
			return nil
		}))
	}
	require.NoError(t, db.Bolt().View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(string(name), b)
			return nil
		})
	}))
	return out
}

// records lists the records of typ in acme as Ada (an Account Admin),
// keyed by the attribute key.
func records(t *testing.T, db engine.Store, svc *scoping.Service, typ, key string) map[string]*engine.Record {
	t.Helper()
	ctx := context.Background()
	var adaID, acmeID string
	require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
		accts, _, err := tx.List(&engine.Query{Type: "accounts", Where: []engine.Cond{engine.Eq("slug", "acme")}, Limit: 1})
		require.NotEmpty(t, accts)
		acmeID = accts[0].ID
		recs, _, err := tx.List(&engine.Query{Type: "users", AccountID: acmeID, Where: []engine.Cond{engine.Eq("email", "ada@acme.test")}, Limit: 1})
		require.NotEmpty(t, recs)
		adaID = recs[0].ID
		return err
	}))
	a, err := svc.ActorForAccount(ctx, adaID, acmeID)
	require.NoError(t, err)
	res, err := svc.List(ctx, a, typ, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	m := map[string]*engine.Record{}
	for _, r := range res.Records {
		m[r.Str(key)] = r
	}
	return m
}

// requireRate checks a currency's conversion rate.
func requireRate(t *testing.T, want string, currency *engine.Record) {
	t.Helper()
	require.True(t, currency.Dec("conversion-rate").Equal(decimal.RequireFromString(want)),
		"%s: conversion-rate %s, want %s", currency.Str("code"), currency.Dec("conversion-rate"), want)
}

// Ensure the example of docs/operations.md applies and works (a token for
// the bot, a password grant for Ada through the portal), and provisioning
// it again writes nothing at all.
func TestProvisionExampleIdempotent(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	require.Equal(t, []string{"/accounts/0", "/accounts/0/currencies/0", "/accounts/0/roles/0",
		"/users/0/memberships/0", "/users/1/memberships/0", "/accounts/0/oauth-applications/0",
		"/users/0/password", "/users/1/client-id"}, mustProvision(t, db, svc, as, exampleSpec()))

	before := dump(t, db)
	require.Empty(t, mustProvision(t, db, svc, as, exampleSpec()))
	require.Equal(t, before, dump(t, db), "provisioning the same spec again changed the database")

	tok, err := as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "acme-portal",
		ClientSecret: "portal-secret", Username: "ada@acme.test", Password: "correct horse battery"})
	require.NoError(t, err)
	_, err = as.Authenticate(ctx, tok.AccessToken)
	require.NoError(t, err)

	roles := records(t, db, svc, "roles", "name")
	require.Len(t, roles, 5, "four built-in roles and Auditor")
	perms := roles["Auditor"].Attrs["permissions"].(map[string]any)
	require.Equal(t, "view", perms["projects"])
	require.Equal(t, "none", perms["catalog"])
	curs := records(t, db, svc, "currencies", "code")
	require.Len(t, curs, 2)
	requireRate(t, "0.92", curs["EUR"])
	requireRate(t, "1", curs["USD"])
	users := records(t, db, svc, "users", "email")
	require.Equal(t, "service", users["bot@acme.test"].Str("user-type"))
	require.Equal(t, "active", users["ada@acme.test"].Str("status"))
}

// Ensure changed entries are updated, keyed by slug, code, role name,
// email and client id, and only they are written.
func TestProvisionUpdates(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	mustProvision(t, db, svc, as, exampleSpec())

	spec := exampleSpec()
	spec.Accounts[0].Currencies[0].ConversionRate = "0.95"
	spec.Accounts[0].Roles[0].Permissions["catalog"] = "manage"
	spec.Accounts[0].OAuthApplications[0].RedirectURIs = []string{"https://portal.acme.test/callback"}
	spec.Users[0].Name = "Ada Lovelace"
	spec.Users[0].Password = "a new passphrase"
	spec.Users[1].ClientSecret = "new-bot-secret"
	require.Equal(t, []string{"/accounts/0/currencies/0", "/accounts/0/roles/0", "/users/0/memberships/0",
		"/accounts/0/oauth-applications/0", "/users/0/password", "/users/1/client-id"}, mustProvision(t, db, svc, as, spec))

	requireRate(t, "0.95", records(t, db, svc, "currencies", "code")["EUR"])
	require.Equal(t, "manage", records(t, db, svc, "roles", "name")["Auditor"].Attrs["permissions"].(map[string]any)["catalog"])
	users := records(t, db, svc, "users", "email")
	require.Equal(t, "Ada Lovelace", users["ada@acme.test"].Str("name"))
	require.Len(t, users, 2)
	app, err := as.Store.ApplicationByClientID(ctx, "acme-portal")
	require.NoError(t, err)
	require.Equal(t, []string{"https://portal.acme.test/callback"}, app.RedirectURIs)
	_, err = as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "acme-portal",
		ClientSecret: "portal-secret", Username: "ada@acme.test", Password: "a new passphrase"})
	require.NoError(t, err)
	_, err = as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: "acme-bot", ClientSecret: "bot-secret"})
	require.Error(t, err, "the old secret still works")

	// A new default currency that the spec does not list is created at
	// rate 1; the old one stays.
	spec.Accounts[0].DefaultCurrency = "GBP"
	require.Equal(t, []string{"/accounts/0", "/accounts/0/default-currency"}, mustProvision(t, db, svc, as, spec))
	curs := records(t, db, svc, "currencies", "code")
	requireRate(t, "1", curs["GBP"])
	require.Contains(t, curs, "USD")
}

// Ensure a later spec may name accounts and roles that are only in the
// database, in any case, and give a user a membership in a second account.
func TestProvisionNamesWhatTheDatabaseHolds(t *testing.T) {
	db, svc, as := mustOpenDB(t)
	mustProvision(t, db, svc, as, exampleSpec())
	require.Equal(t, []string{"/users/0/memberships/0"}, mustProvision(t, db, svc, as, &provision.Spec{Users: []provision.User{{
		Email: "Eve@Acme.test ", Name: "Eve", Status: "invited", Memberships: []provision.Membership{{Account: "acme", Role: "auditor"}}}}}))
	users := records(t, db, svc, "users", "email")
	require.Equal(t, "invited", users["eve@acme.test"].Str("status"))
	require.False(t, users["eve@acme.test"].Bool("accepted"))
	require.Equal(t, records(t, db, svc, "roles", "name")["Auditor"].ID, users["eve@acme.test"].Rel("roles"))

	// Ada joins a second account under the same identity, deactivated there.
	spec := &provision.Spec{
		Accounts: []provision.Account{{Slug: "beta", Name: "Beta", DefaultCurrency: "eur"}},
		Users: []provision.User{{Email: "ada@acme.test", Name: "Ada Admin", Status: "deactivated",
			Memberships: []provision.Membership{{Account: "beta", Role: "Sales"}}}},
	}
	require.Equal(t, []string{"/accounts/0", "/users/0/memberships/0"}, mustProvision(t, db, svc, as, spec))
	require.Equal(t, "EUR", spec.Accounts[0].DefaultCurrency, "normalized in place")
	require.Empty(t, mustProvision(t, db, svc, as, spec))
}

// Ensure an account's locale (the one its documents print in) is set from
// the spec, left alone when the spec gives none, and written only when it
// differs.
func TestProvisionAccountLocale(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	locale := func() string {
		t.Helper()
		var l string
		require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
			acct, err := a.AccountBySlug("acme")
			if err == nil {
				l = acct.Str("locale")
			}
			return err
		}))
		return l
	}
	spec := exampleSpec()
	spec.Accounts[0].Locale = "de-DE"
	require.Contains(t, mustProvision(t, db, svc, as, spec), "/accounts/0/locale")
	require.Equal(t, "de-DE", locale())
	require.Empty(t, mustProvision(t, db, svc, as, spec))

	spec.Accounts[0].Locale = "fr-ch"
	require.Equal(t, []string{"/accounts/0/locale"}, mustProvision(t, db, svc, as, spec))
	require.Equal(t, "fr-CH", locale(), "stored in its canonical form")

	spec = exampleSpec() // no locale: the one set stays
	require.Empty(t, mustProvision(t, db, svc, as, spec))
	require.Equal(t, "fr-CH", locale())
}

// Ensure a currency takes every attribute of the currencies resource
// (minor-units included) and its minor units from ISO 4217 when absent.
func TestProvisionCurrencyMinorUnits(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	three := 3
	mustProvision(t, db, svc, as, &provision.Spec{Accounts: []provision.Account{{Slug: "units", Name: "Units", DefaultCurrency: "USD",
		Currencies: []provision.Currency{{Code: "EUR", Name: "Euro", ConversionRate: "0.92", MinorUnits: &three},
			{Code: "BHD", Name: "Dinar", ConversionRate: "0.38"}, {Code: "jpy", ConversionRate: "150"}}}}})
	got, names := map[string]int64{}, map[string]string{}
	require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
		accts, _, err := tx.List(&engine.Query{Type: "accounts", Where: []engine.Cond{engine.Eq("slug", "units")}})
		require.NoError(t, err)
		require.Len(t, accts, 1)
		recs, _, err := tx.List(&engine.Query{Type: "currencies", AccountID: accts[0].ID})
		for _, r := range recs {
			got[r.Str("code")], names[r.Str("code")] = r.Int("minor-units"), r.Str("name")
		}
		return err
	}))
	require.Equal(t, map[string]int64{"USD": 2, "EUR": 3, "BHD": 3, "JPY": 0}, got)
	require.Equal(t, "JPY", names["JPY"], "a currency without a name is named by its code")
}

// Ensure a write the checks do not foresee (a name over the length limit)
// fails as an *ApplyError naming the entry, and the transaction leaves
// nothing behind.
func TestProvisionApplyError(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	spec := exampleSpec()
	spec.Users[0].Name = strings.Repeat("a", 256)
	rep, err := provision.Provision(ctx, db, svc, as, spec)
	require.Empty(t, rep.Written)
	var ae *provision.ApplyError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, "/users/0/memberships/0", ae.Field)
	require.Equal(t, `users[0] (ada@acme.test): membership in "acme"`, ae.Entry)
	require.True(t, strings.HasPrefix(err.Error(), ae.Entry+": "+ae.Err.Error()), err.Error())
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	requireNothingApplied(t, db, svc)
}

// requireNothingApplied checks that the example spec left no trace.
func requireNothingApplied(t *testing.T, db *boltstore.DB, svc *scoping.Service) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
		accts, _, err := tx.List(&engine.Query{Type: "accounts", Where: []engine.Cond{engine.Eq("slug", "acme")}})
		require.NoError(t, err)
		require.Empty(t, accts, "an account was created")
		for _, email := range []string{"ada@acme.test", "bot@acme.test"} {
			users, _, err := tx.List(&engine.Query{Type: "users", AllAccounts: true, Where: []engine.Cond{engine.Eq("email", email)}})
			require.NoError(t, err)
			require.Empty(t, users, "a user was created")
		}
		return nil
	}))
	if cred, err := db.AuthStore().ServiceCredentialByClientID(ctx, "acme-bot"); err == nil {
		require.False(t, auth.SecretMatches(cred.SecretDigest, "bot-secret"), "the service credential was stored")
	}
	if app, err := db.AuthStore().ApplicationByClientID(ctx, "acme-portal"); err == nil {
		require.NotEqual(t, "Portal", app.Name, "the application was stored")
	}
}

// Ensure the spec's conversion rates decode from JSON strings and numbers.
func TestDecimalTextJSON(t *testing.T) {
	for in, want := range map[string]provision.DecimalText{`"0.92"`: "0.92", `150`: "150", ` 1e2 `: "1e2", `" 1 "`: " 1 "} {
		var d provision.DecimalText
		require.NoError(t, d.UnmarshalJSON([]byte(in)), in)
		require.Equal(t, want, d, in)
	}
	for _, in := range []string{`true`, `{}`, `"\x"`} {
		var d provision.DecimalText
		require.Error(t, d.UnmarshalJSON([]byte(in)), in)
	}
	var c provision.Currency
	require.EqualError(t, json.Unmarshal([]byte(`{"conversion-rate": true}`), &c), "must be a number or a decimal string")
}

// Ensure an ApplyError reads as its entry and cause, and unwraps to the
// cause.
func TestApplyErrorUnwraps(t *testing.T) {
	cause := errors.New("disk full")
	err := error(&provision.ApplyError{Field: "/users/0/password", Entry: "users[0] (ada@acme.test): password", Err: cause})
	require.ErrorIs(t, err, cause)
	require.EqualError(t, err, "users[0] (ada@acme.test): password: disk full")
}

// Ensure a database that cannot be read fails the provisioning before
// anything is written, and says so.
func TestProvisionReadFailure(t *testing.T) {
	db, svc, as := mustOpenDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := provision.Provision(ctx, db, svc, as, exampleSpec())
	require.ErrorIs(t, err, context.Canceled)
	require.EqualError(t, err, "read database: context canceled")
	require.Empty(t, rep.Written)
	requireNothingApplied(t, db, svc)
}
