package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// exampleFile is the bootstrap file of docs/operations.md, verbatim.
func exampleFile(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "bootstrap.json"))
	require.NoError(t, err)
	return string(b)
}

// writeFile writes content to a new file in a temp dir.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bootstrap.json")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

// bootstrap loads and applies the file content.
func bootstrap(t *testing.T, db *boltstore.DB, svc *scoping.Service, as *auth.Service, content string) error {
	t.Helper()
	f, err := loadBootstrap(writeFile(t, content))
	if err != nil {
		return err
	}
	return applyBootstrap(context.Background(), f, svc, db, as)
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

// Ensure the example file of docs/operations.md applies, works (a token for
// the bot, a password grant for Ada through the portal), and applying it
// again writes nothing at all.
func TestBootstrapExampleIdempotent(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	require.NoError(t, bootstrap(t, db, svc, as, exampleFile(t)))

	before := dump(t, db)
	require.NoError(t, bootstrap(t, db, svc, as, exampleFile(t)))
	require.Equal(t, before, dump(t, db), "applying the same file again changed the database")

	_, err := as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: "acme-bot", ClientSecret: "bot-secret"})
	require.NoError(t, err)
	tok, err := as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "acme-portal",
		ClientSecret: "portal-secret", Username: "ada@acme.test", Password: "correct horse battery"})
	require.NoError(t, err)
	p, err := as.Authenticate(ctx, tok.AccessToken)
	require.NoError(t, err)

	a, err := svc.ActorFor(ctx, p.UserID, "acme")
	require.NoError(t, err)
	roles := byName(list(t, svc, a, "roles", nil), "name")
	require.Len(t, roles, 5, "four built-in roles and Auditor")
	perms := roles["Auditor"].Attrs["permissions"].(map[string]any)
	require.Equal(t, "view", perms["projects"])
	require.Equal(t, "none", perms["catalog"])
	curs := byName(list(t, svc, a, "currencies", nil), "code")
	require.Len(t, curs, 2)
	requireDec(t, "0.92", curs["EUR"], "conversion-rate")
	requireDec(t, "1", curs["USD"], "conversion-rate")
	users := byName(list(t, svc, a, "users", nil), "email")
	require.Equal(t, "service", users["bot@acme.test"].Str("user-type"))
	require.Equal(t, "active", users["ada@acme.test"].Str("status"))

	// Changed entries are updated, keyed by slug, code, email, client id.
	changed := strings.NewReplacer(`"0.92"`, `0.95`, `"Ada Admin"`, `"Ada Lovelace"`, `"bot-secret"`, `"new-bot-secret"`).Replace(exampleFile(t))
	require.NoError(t, bootstrap(t, db, svc, as, changed))
	curs = byName(list(t, svc, a, "currencies", nil), "code")
	requireDec(t, "0.95", curs["EUR"], "conversion-rate")
	users = byName(list(t, svc, a, "users", nil), "email")
	require.Equal(t, "Ada Lovelace", users["ada@acme.test"].Str("name"))
	require.Len(t, users, 2)
	_, err = as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: "acme-bot", ClientSecret: "new-bot-secret"})
	require.NoError(t, err)

	// A later file may name accounts and roles that are only in the
	// database.
	require.NoError(t, bootstrap(t, db, svc, as, `{"users": [{"email": "eve@acme.test", "name": "Eve",
		"status": "invited", "memberships": [{"account": "acme", "role": "auditor"}]}]}`))
	users = byName(list(t, svc, a, "users", nil), "email")
	require.Equal(t, "invited", users["eve@acme.test"].Str("status"))
	require.Equal(t, roles["Auditor"].ID, users["eve@acme.test"].Rel("roles"))
}

// Ensure every kind of bad file is rejected with a message naming the
// entry, and nothing of it is applied.
func TestBootstrapRejectsBadFiles(t *testing.T) {
	base := exampleFile(t)
	edit := func(pairs ...string) string {
		out := base
		for i := 0; i < len(pairs); i += 2 {
			require.Contains(t, out, pairs[i])
			out = strings.Replace(out, pairs[i], pairs[i+1], 1)
		}
		return out
	}
	botMembership := `"client-secret": "bot-secret",
     "memberships": [{"account": "acme"`
	secondAccount := `}],
  "users"`
	for _, tc := range []struct {
		name, file, want string
	}{
		{"unknown membership account", edit(botMembership, `"client-secret": "bot-secret",
     "memberships": [{"account": "nope"`),
			`bootstrap users[1] (bot@acme.test): membership account "nope" is not in the file or the database`},
		{"unknown role", edit(`"role": "Account Admin"`, `"role": "Boss"`),
			`bootstrap users[0] (ada@acme.test): membership in "acme": no role "Boss" in that account`},
		{"client id twice (application and user)", edit(`"client-id": "acme-bot"`, `"client-id": "acme-portal"`),
			`bootstrap users[1] (bot@acme.test): client-id "acme-portal" is already used by accounts[0] (acme) oauth-applications[0] (acme-portal)`},
		{"client id twice across accounts", edit(secondAccount, `}, {"slug": "beta", "name": "Beta", "default-currency": "EUR",
      "oauth-applications": [{"name": "P", "client-id": "acme-portal", "client-secret": "s"}]}],
  "users"`),
			`bootstrap accounts[1] (beta) oauth-applications[0] (acme-portal): client-id "acme-portal" is already used by accounts[0] (acme) oauth-applications[0] (acme-portal)`},
		{"reserved slug v1", edit(`"slug": "acme"`, `"slug": "v1"`), `bootstrap accounts[0] (v1): slug "v1" is reserved`},
		{"reserved slug v2", edit(`"slug": "acme"`, `"slug": "v2"`), `bootstrap accounts[0] (v2): slug "v2" is reserved`},
		{"reserved slug oauth", edit(`"slug": "acme"`, `"slug": "oauth"`), `bootstrap accounts[0] (oauth): slug "oauth" is reserved`},
		{"reserved slug docs", edit(`"slug": "acme"`, `"slug": "docs"`), `bootstrap accounts[0] (docs): slug "docs" is reserved`},
		{"empty slug", edit(`"slug": "acme"`, `"slug": ""`), `bootstrap accounts[0]: slug must not be empty`},
		{"slug with a slash", edit(`"slug": "acme"`, `"slug": "ac/me"`), `bootstrap accounts[0] (ac/me): slug "ac/me" must be lower-case letters`},
		{"duplicate slug", edit(secondAccount, `}, {"slug": "acme", "name": "Again", "default-currency": "USD"}],
  "users"`), `bootstrap accounts[1] (acme): slug "acme" appears twice in the file`},
		{"bad status", edit(`"status": "active"`, `"status": "enabled"`),
			`bootstrap users[0] (ada@acme.test): status must be active, invited or deactivated, not "enabled"`},
		{"bad currency code", edit(`"code": "EUR"`, `"code": "EURO"`),
			`bootstrap accounts[0] (acme) currencies[0] (EURO): code "EURO" must be a three-letter ISO 4217 code`},
		{"bad default currency", edit(`"default-currency": "USD"`, `"default-currency": "US$"`),
			`bootstrap accounts[0] (acme): default-currency "US$" must be a three-letter ISO 4217 code`},
		{"currency code not in ISO 4217", edit(`"code": "EUR"`, `"code": "ZZZ"`),
			`bootstrap accounts[0] (acme) currencies[0] (ZZZ): code "ZZZ" must be a three-letter ISO 4217 code`},
		{"default currency not in ISO 4217", edit(`"default-currency": "USD"`, `"default-currency": "ABC"`),
			`bootstrap accounts[0] (acme): default-currency "ABC" must be a three-letter ISO 4217 code`},
		{"padded conversion rate", edit(`"0.92"`, `" 0.92 "`),
			`bootstrap accounts[0] (acme) currencies[0] (EUR): conversion-rate " 0.92 " must be a positive number`},
		{"minor units out of range", edit(`"0.92"`, `"0.92", "minor-units": 9`),
			`bootstrap accounts[0] (acme) currencies[0] (EUR): minor-units 9 must be between 0 and 8`},
		{"NUL in a name", edit(`"name": "Ada Admin"`, `"name": "Ada\u0000Admin"`), `bootstrap `},
		{"invalid UTF-8", edit(`"name": "Ada Admin"`, "\"name\": \"Ada \xff\""), `bootstrap `},
		{"name over the limit", edit(`"name": "Ada Admin"`, `"name": "`+strings.Repeat("a", 256)+`"`), `bootstrap `},
		{"bad conversion rate", edit(`"0.92"`, `"-1"`),
			`bootstrap accounts[0] (acme) currencies[0] (EUR): conversion-rate "-1" must be a positive number`},
		{"service account without client id", edit(`"client-id": "acme-bot", `, ``),
			`bootstrap users[1] (bot@acme.test): a service account needs client-id and client-secret`},
		{"service account without secret", edit(`"client-secret": "bot-secret",`, ``),
			`bootstrap users[1] (bot@acme.test): a service account needs client-id and client-secret`},
		{"standard user with credentials", edit(`"name": "Ada Admin",`, `"name": "Ada Admin", "client-id": "ada", "client-secret": "ada-secret",`),
			`bootstrap users[0] (ada@acme.test): client-id and client-secret are for service accounts (user-type service)`},
		{"short password", edit(`"correct horse battery"`, `"short-pw"`),
			`bootstrap users[0] (ada@acme.test): password must be at least 12 characters (it has 8)`},
		{"duplicate email", edit(`"bot@acme.test"`, `"ADA@acme.test"`),
			`bootstrap users[1] (ada@acme.test): email ada@acme.test appears twice in the file`},
		{"unknown permission", edit(`{"projects": "view"}`, `{"projects": "read"}`),
			`bootstrap accounts[0] (acme) roles[0] (Auditor): permission projects must be none, view or manage, not "read"`},
		{"unknown member", edit(`"name": "Ada Admin"`, `"nmae": "Ada Admin"`),
			`bootstrap users[0] (ada@acme.test): unknown field "nmae"`},
		{"unknown top-level member", edit(`"users": [`, `"user": [`), `bootstrap /`},
		{"malformed JSON", edit(`}],
  "users"`, `}
  "users"`), `bootstrap /`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, svc, as := mustOpenDB(t)
			err := bootstrap(t, db, svc, as, tc.file)
			require.Error(t, err)
			require.True(t, strings.HasPrefix(err.Error(), tc.want), "got  %s\nwant %s...", err, tc.want)
			require.NotContains(t, err.Error(), "\n")
			requireNothingApplied(t, ctx, db, svc)
		})
	}

	t.Run("client id of another account in the database", func(t *testing.T) {
		ctx := context.Background()
		db, svc, as := mustOpenDB(t)
		require.NoError(t, bootstrap(t, db, svc, as, `{"accounts": [{"slug": "other", "name": "Other", "default-currency": "USD",
			"oauth-applications": [{"name": "Theirs", "client-id": "acme-portal", "client-secret": "theirs"}]}]}`))
		err := bootstrap(t, db, svc, as, base)
		require.EqualError(t, err, `bootstrap accounts[0] (acme) oauth-applications[0] (acme-portal): client-id "acme-portal" belongs to an application of another account`)
		app, err := db.AuthStore().ApplicationByClientID(ctx, "acme-portal")
		require.NoError(t, err)
		require.Equal(t, "Theirs", app.Name)
		requireNothingApplied(t, ctx, db, svc)
	})
}

// requireNothingApplied checks that the example file left no trace.
func requireNothingApplied(t *testing.T, ctx context.Context, db *boltstore.DB, svc *scoping.Service) {
	t.Helper()
	f, err := decodeBootstrap("example", []byte(exampleFile(t)))
	require.NoError(t, err)
	require.NoError(t, f.validate())
	st, err := f.readState(ctx, svc.Store())
	require.NoError(t, err)
	require.Empty(t, st.accounts, "an account was created")
	require.Empty(t, st.users, "a user was created")
	_, err = db.AuthStore().ServiceCredentialByClientID(ctx, "acme-bot")
	require.True(t, isNotFound(err), "a service credential was stored")
	if app, err := db.AuthStore().ApplicationByClientID(ctx, "acme-portal"); err == nil {
		require.NotEqual(t, "Portal", app.Name, "the application was stored")
	}
}

// Ensure -bootstrap works through the server: the file's bot gets a
// token, no demo is created on the new database, and a bad file on a new
// database is one line and leaves no database file.
func TestBootstrapFlag(t *testing.T) {
	path := writeFile(t, exampleFile(t))
	s := startServer(t, "", nil, "-bootstrap", path)
	require.Contains(t, s.Stdout.String(), "No demo account in this database")
	tok := token(t, s.URL, "acme-bot", "bot-secret")
	status, doc := getDoc(t, s.URL+"/acme/v1/account", tok)
	require.Equal(t, http.StatusOK, status, "%v", doc)
	s.stop(t)

	// Applying it again on the next start is fine.
	s = startServer(t, s.Data, nil, "-bootstrap", path)
	token(t, s.URL, "acme-bot", "bot-secret")
	s.stop(t)

	bad := writeFile(t, strings.Replace(exampleFile(t), `"role": "Account Admin"`, `"role": "Boss"`, 1))
	data := filepath.Join(t.TempDir(), "new.db")
	r := runMain(t, 20*time.Second, nil, "-data", data, "-addr", "127.0.0.1:0", "-bootstrap", bad)
	require.Equal(t, 1, r.Code)
	require.Equal(t, []string{`scopekit: bootstrap users[0] (ada@acme.test): membership in "acme": no role "Boss" in that account (built-in roles: Account Admin, Sales, Engineer, Read Only)`}, lines(r.Stderr))
	_, err := os.Stat(data)
	require.ErrorIs(t, err, os.ErrNotExist)

	// With -demo=true, both.
	s = startServer(t, "", nil, "-bootstrap", path, "-demo=true")
	require.Contains(t, s.Stdout.String(), "created now")
	token(t, s.URL, "acme-bot", "bot-secret")
	token(t, s.URL, demoBotClientID, demoBotSecret)
}

// Ensure the bootstrap file accepts every attribute of a currency
// (minor-units included) and takes minor units from ISO 4217 when absent.
func TestBootstrapCurrencyMinorUnits(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	require.NoError(t, bootstrap(t, db, svc, as, `{"accounts": [{"slug": "units", "name": "Units", "default-currency": "USD",
		"currencies": [{"code": "EUR", "name": "Euro", "conversion-rate": "0.92", "minor-units": 3},
			{"code": "BHD", "name": "Dinar", "conversion-rate": "0.38"}, {"code": "JPY", "conversion-rate": 150}]}]}`))
	got := map[string]int64{}
	require.NoError(t, svc.Store().View(ctx, func(tx scoping.Tx) error {
		accts, _, err := tx.List(&scoping.Query{Type: "accounts", Where: []scoping.Cond{scoping.Eq("slug", "units")}})
		if err != nil || len(accts) != 1 {
			return fmt.Errorf("account units: %v", err)
		}
		recs, _, err := tx.List(&scoping.Query{Type: "currencies", AccountID: accts[0].ID})
		for _, r := range recs {
			got[r.Str("code")] = r.Int("minor-units")
		}
		return err
	}))
	require.Equal(t, map[string]int64{"USD": 2, "EUR": 3, "BHD": 3, "JPY": 0}, got)
}
