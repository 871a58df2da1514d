package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
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

// bootstrap loads and applies the file content as -bootstrap does.
func bootstrap(t *testing.T, db engine.Store, svc *scoping.Service, as *auth.Service, content string) error {
	t.Helper()
	f, err := loadBootstrap(writeFile(t, content))
	if err != nil {
		return err
	}
	return applyBootstrap(context.Background(), f, db, svc, as)
}

// applyBootstrap provisions the spec as a start does, with its failures
// worded as the server words them.
func applyBootstrap(ctx context.Context, spec *provision.Spec, db engine.Store, svc *scoping.Service, as *auth.Service) error {
	_, err := provision.Provision(ctx, db, svc, as, spec)
	return bootstrapError(err)
}

// mustOpenDB opens a new database in a temp dir with its services, and
// checks the file's consistency when the test ends.
func mustOpenDB(t *testing.T) (*boltstore.DB, *scoping.Service, *auth.Service) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	return db, scoping.NewService(db), &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcryptCost}
}

// Ensure the file decodes into the library's spec: every member of the
// docs example, and conversion rates given as numbers.
func TestBootstrapFileDecodes(t *testing.T) {
	spec, err := decodeBootstrap("example", []byte(exampleFile(t)))
	require.NoError(t, err)
	require.Len(t, spec.Accounts, 1)
	acme := spec.Accounts[0]
	require.Equal(t, "en-US", acme.Locale)
	require.Equal(t, provision.Currency{Code: "EUR", Name: "Euro", ConversionRate: "0.92"}, acme.Currencies[0])
	require.Equal(t, provision.Role{Name: "Auditor", Permissions: map[string]string{"projects": "view"}, ProjectVisibility: "all"}, acme.Roles[0])
	require.Equal(t, []string{"http://127.0.0.1:9999/callback"}, acme.OAuthApplications[0].RedirectURIs)
	require.Len(t, spec.Users, 2)
	require.Equal(t, "correct horse battery", spec.Users[0].Password)
	require.Equal(t, provision.User{Email: "bot@acme.test", Name: "Integration Bot", UserType: "service", ClientID: "acme-bot",
		ClientSecret: "bot-secret", Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}}, spec.Users[1])

	spec, err = decodeBootstrap("numbers", []byte(`{"accounts": [{"currencies": [{"code": "JPY", "conversion-rate": 150, "minor-units": 0}]}]}`))
	require.NoError(t, err)
	require.Equal(t, provision.DecimalText("150"), spec.Accounts[0].Currencies[0].ConversionRate)
	require.Equal(t, 0, *spec.Accounts[0].Currencies[0].MinorUnits)
}

// Ensure a bad file is refused in one line that names the file or the
// entry, worded as the server always has: what the decoding refuses, and
// the library's problems and failures (the library's tests check that
// nothing of a refused spec is applied).
func TestBootstrapFileErrors(t *testing.T) {
	base := exampleFile(t)
	edit := func(pairs ...string) string {
		out := base
		for i := 0; i < len(pairs); i += 2 {
			require.Contains(t, out, pairs[i])
			out = strings.Replace(out, pairs[i], pairs[i+1], 1)
		}
		return out
	}
	for _, tc := range []struct {
		name, file string
		want       string // the message, or its beginning when it ends with "..."
	}{
		{"NUL in a name", edit(`"name": "Ada Admin"`, `"name": "Ada\u0000Admin"`),
			`bootstrap /...: a string holds a NUL character or an unpaired surrogate escape`},
		{"invalid UTF-8", edit(`"name": "Ada Admin"`, "\"name\": \"Ada \xff\""), `bootstrap /...: the file is not valid UTF-8`},
		{"unknown member", edit(`"name": "Ada Admin"`, `"nmae": "Ada Admin"`), `bootstrap users[0] (ada@acme.test): unknown field "nmae"`},
		{"unknown top-level member", edit(`"users": [`, `"user": [`), `bootstrap /...: unknown field "user"`},
		{"malformed JSON", edit(`}],
  "users"`, `}
  "users"`), `bootstrap /...: malformed JSON at line 9, column 4: invalid character '"' after array element`},
		{"data after the JSON value", base + "{}", `bootstrap /...: unexpected data after the JSON value`},
		{"mistyped member", edit(`"code": "EUR"`, `"code": 978`),
			`bootstrap accounts[0] (acme): cannot unmarshal number into Go struct field bsCurrency.currencies.code of type string`},
		{"mistyped entry", `{"users": [5]}`, `bootstrap users[0]: cannot unmarshal number into Go value of type main.bsUser`},
		{"mistyped list", `{"accounts": [{"slug": "a", "roles": 5}]}`,
			`bootstrap accounts[0] (a): cannot unmarshal number into Go struct field bsAccount.roles of type []main.bsRole`},
		{"bad locale", edit(`"locale": "en-US"`, `"locale": "english"`),
			`bootstrap accounts[0] (acme): locale "english" must be a BCP 47 language tag such as en-US or de-DE`},
		{"bad conversion rate", edit(`"0.92"`, `true`), `bootstrap accounts[0] (acme): must be a number or a decimal string`},
		{"one problem", edit(`"slug": "acme"`, `"slug": "v1"`), `bootstrap accounts[0] (v1): slug "v1" is reserved (it begins a route)`},
		{"several problems", edit(`"slug": "acme", "name": "Acme IT Services"`, `"slug": "", "name": ""`, `"status": "active"`, `"status": "x"`),
			`bootstrap accounts[0]: slug must not be empty (and 2 more problems)`},
		{"problem with the database", edit(`"role": "Account Admin"`, `"role": "Boss"`),
			`bootstrap users[0] (ada@acme.test): membership in "acme": no role "Boss" in that account (built-in roles: Account Admin, Sales, Engineer, Read Only)`},
		{"name over the limit", edit(`"name": "Ada Admin"`, `"name": "`+strings.Repeat("a", 256)+`"`),
			`bootstrap users[0] (ada@acme.test): membership in "acme": scopekit invalid: ...`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, svc, as := mustOpenDB(t)
			err := bootstrap(t, db, svc, as, tc.file)
			require.Error(t, err)
			requireMessage(t, tc.want, err.Error())
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
	})
}

// requireMessage checks a one-line message: want is all of it, or its
// beginning and end around "...".
func requireMessage(t *testing.T, want, got string) {
	t.Helper()
	require.NotContains(t, got, "\n")
	head, tail, cut := strings.Cut(want, "...")
	if !cut {
		require.Equal(t, want, got)
		return
	}
	require.True(t, strings.HasPrefix(got, head) && strings.HasSuffix(got, tail), "got  %s\nwant %s", got, want)
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

// Ensure a bootstrap file naming the account "demo" is refused with -demo
// (one line; nothing created), and that without -demo the banner does not
// take that account for the demo and says what the start created, on
// both stores; and that a malformed secret key file on a new database is
// a one-line failure after which the next start creates the demo.
func TestBootstrapNamingTheDemoAccount(t *testing.T) {
	ours := writeFile(t, `{"accounts": [{"slug": "demo", "name": "Ours", "default-currency": "EUR"}]}`)
	for _, store := range []string{"bbolt", "postgres"} {
		t.Run(store, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-data", filepath.Join(dir, "scopekit.db"), "-addr", "127.0.0.1:0"}
			if store == "postgres" {
				args = append(args, "-database", pgtest.URL(t))
			}
			r := runMain(t, 20*time.Second, nil, append(args, "-bootstrap", ours, "-demo")...)
			require.Equal(t, 1, r.Code)
			require.Equal(t, []string{`scopekit: bootstrap: accounts[0] (demo): the account "demo" is the demo's, which is asked for too: ` +
				`give the account another slug, or start without the demo`}, lines(r.Stderr))

			require.NoError(t, os.WriteFile(filepath.Join(dir, "scopekit.db.key"), []byte("short\n"), 0o600))
			r = runMain(t, 20*time.Second, nil, args...)
			require.Equal(t, 1, r.Code)
			require.Len(t, lines(r.Stderr), 1)
			require.Contains(t, r.Stderr, "must hold 32 bytes in base64 on one line")
			require.NoError(t, os.Remove(filepath.Join(dir, "scopekit.db.key")))

			s := startServer(t, filepath.Join(dir, "scopekit.db"), nil, append(args[2:], "-bootstrap", ours)...)
			out := s.Stdout.String()
			require.Contains(t, out, `No demo account in this database: the account "demo" was made by a bootstrap file`)
			created := "Created at this start: a new database, 1 entry of the bootstrap file."
			if store == "postgres" { // pgtest may hand out a schema an earlier test migrated (and emptied)
				created = "1 entry of the bootstrap file."
			}
			require.Contains(t, out, created)
			require.NotContains(t, out, demoBotClientID)
			s.stop(t)

			s = startServer(t, filepath.Join(dir, "scopekit.db"), nil, append(args[2:], "-bootstrap", ours)...)
			require.Contains(t, s.Stdout.String(), "Created at this start: nothing (the database and its accounts were there).")
		})
	}
}
