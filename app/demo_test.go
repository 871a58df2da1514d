package app

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// mustOpenDB opens a new database in a temp dir with its services, and
// checks the file's consistency when the test ends.
func mustOpenDB(t *testing.T) (*boltstore.DB, *scoping.Service, *auth.Service) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	return db, scoping.NewService(db), &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
}

// list returns every record of typ in the account (archived ones too).
func list(t *testing.T, svc *scoping.Service, a *engine.Actor, typ string, filters map[string]string) []*engine.Record {
	t.Helper()
	res, err := svc.List(context.Background(), a, typ, engine.ListParams{Filters: filters}, engine.Options{})
	require.NoError(t, err)
	return res.Records
}

func byName(recs []*engine.Record, attr string) map[string]*engine.Record {
	m := map[string]*engine.Record{}
	for _, r := range recs {
		m[r.Str(attr)] = r
	}
	return m
}

func requireDec(t *testing.T, want string, rec *engine.Record, attr string) {
	t.Helper()
	got, ok := rec.DecOK(attr)
	require.True(t, ok, "%s %s: %s is not set", rec.Type, rec.ID, attr)
	require.True(t, decimal.RequireFromString(want).Equal(got), "%s %s: %s = %s, want %s", rec.Type, rec.ID, attr, got, want)
}

// Ensure the demo project carries exactly the lines of docs/pricing.md's worked
// example: quantities, hours, resources and their rates, governance,
// expenses, products and adjustments.
func TestDemoIsTheWorkedExample(t *testing.T) {
	ctx := context.Background()
	db, svc, as := mustOpenDB(t)
	require.NoError(t, createDemo(ctx, svc, db, as, &DemoState{}))
	st, err := findDemo(ctx, db, db.AuthStore())
	require.NoError(t, err)
	require.True(t, st.Exists)
	require.True(t, st.CredsWork)
	require.NotEmpty(t, st.ProjectID)

	var acctID string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.AccountBySlug(demo.Slug)
		if err == nil {
			acctID = acct.ID
			require.Equal(t, demo.Name, acct.Str("name"))
			require.Equal(t, "USD", acct.Str("default-currency"))
		}
		return err
	}))
	a, err := svc.SystemActor(ctx, acctID)
	require.NoError(t, err)
	pid := st.ProjectID
	proj := map[string]string{"project": pid}

	p := list(t, svc, a, "projects", nil)
	require.Len(t, p, 1)
	require.Equal(t, demo.ProjectName, p[0].Str("project-name"))
	requireDec(t, "-250.00", p[0], "revenue-adjustment")
	requireDec(t, "100.00", p[0], "cost-adjustment")
	require.Equal(t, "USD", p[0].Str("currency"))
	client := list(t, svc, a, "clients", nil)
	require.Len(t, client, 1)
	require.Equal(t, "Globex Corporation", client[0].Str("name"))
	require.Equal(t, client[0].ID, p[0].Rel("client"))
	terms := list(t, svc, a, "payment-terms", nil)
	require.Len(t, terms, 1)
	require.Equal(t, terms[0].ID, p[0].Rel("payment-term"))
	require.True(t, terms[0].Bool("include-expenses"))
	require.False(t, terms[0].Bool("include-hardware"))
	tables := list(t, svc, a, "rate-tables", nil)
	require.Len(t, tables, 1)
	require.Equal(t, tables[0].ID, p[0].Rel("rate-table"))

	// Project resources: Engineer 200/90, Architect 250/120, PM 175/80.
	prs := byName(list(t, svc, a, "project-resources", proj), "name")
	require.Len(t, prs, 3)
	for name, rc := range map[string][2]string{"Engineer": {"200", "90"}, "Architect": {"250", "120"}, "Project Manager": {"175", "80"}} {
		require.Contains(t, prs, name)
		requireDec(t, rc[0], prs[name], "hourly-rate")
		requireDec(t, rc[1], prs[name], "hourly-cost")
	}
	phases := map[string]string{}
	for _, ph := range list(t, svc, a, "project-phases", proj) {
		phases[ph.ID] = ph.Str("name")
	}

	services := byName(list(t, svc, a, "project-services", proj), "name")
	require.Len(t, services, 2)
	for _, want := range []struct{ name, qty, hours, phase, resource string }{
		{"Assessment", "2", "8", "Plan", "Engineer"},
		{"Firewall deployment", "1", "16.25", "Implement", "Engineer"},
	} {
		ps := services[want.name]
		require.NotNil(t, ps, want.name)
		requireDec(t, want.qty, ps, "quantity")
		requireDec(t, want.hours, ps, "unit-hours")
		require.Equal(t, want.phase, phases[ps.Rel("project-phase")], want.name)
		require.Equal(t, prs[want.resource].ID, ps.Rel("project-resource"), want.name)
		require.NotEmpty(t, ps.Rel("service"))
	}

	subs := byName(list(t, svc, a, "project-subservices", proj), "name")
	require.Len(t, subs, 2)
	for _, want := range []struct{ name, qty, hours, resource string }{
		{"Site survey", "3", "1.5", ""}, // inherits the parent's Engineer
		{"Report", "1", "4", "Architect"},
	} {
		s := subs[want.name]
		require.NotNil(t, s, want.name)
		requireDec(t, want.qty, s, "quantity")
		requireDec(t, want.hours, s, "unit-hours")
		require.Equal(t, services["Assessment"].ID, s.Rel("project-service"))
		if want.resource == "" {
			require.Empty(t, s.Rel("project-resource"), want.name)
		} else {
			require.Equal(t, prs[want.resource].ID, s.Rel("project-resource"), want.name)
		}
	}

	gov := byName(list(t, svc, a, "project-governances", proj), "name")
	require.Len(t, gov, 2)
	pm := gov["Project management"]
	require.NotNil(t, pm)
	require.Equal(t, "percent_of_total", pm.Str("calculation-type"))
	require.Equal(t, "all_services", pm.Str("filter-type"))
	requireDec(t, "0.15", pm, "rate")
	require.Equal(t, prs["Project Manager"].ID, pm.Rel("project-resource"))
	kick := gov["Kickoff"]
	require.NotNil(t, kick)
	require.Equal(t, "fixed_hours", kick.Str("calculation-type"))
	requireDec(t, "2", kick, "fixed-hours")
	require.Equal(t, prs["Architect"].ID, kick.Rel("project-resource"))

	cats := map[string]string{}
	for _, c := range list(t, svc, a, "expense-categories", nil) {
		cats[c.ID] = c.Str("name")
	}
	exp := byName(list(t, svc, a, "project-expenses", proj), "description")
	require.Len(t, exp, 2)
	for _, want := range []struct{ name, qty, rate, cost string }{{"Airfare", "2", "450", "450"}, {"Per diem", "3", "75", "60"}} {
		e := exp[want.name]
		require.NotNil(t, e, want.name)
		requireDec(t, want.qty, e, "quantity")
		requireDec(t, want.rate, e, "rate")
		requireDec(t, want.cost, e, "unit-cost")
		require.Equal(t, want.name, cats[e.Rel("expense-category")])
	}

	prods := list(t, svc, a, "project-products", proj)
	require.Len(t, prods, 1)
	require.Equal(t, "Firewall appliance", prods[0].Str("name"))
	requireDec(t, "2", prods[0], "quantity")
	requireDec(t, "1999.99", prods[0], "unit-price")
	requireDec(t, "1500", prods[0], "unit-cost")

	team := list(t, svc, a, "project-teammates", proj)
	require.Len(t, team, 1)
	admin := list(t, svc, a, "users", map[string]string{"email": demo.AdminEmail})
	require.Len(t, admin, 1)
	require.Equal(t, admin[0].ID, team[0].Rel("user"))

	// Catalog pieces the brief names.
	require.Len(t, list(t, svc, a, "phases", nil), 3)
	require.Len(t, list(t, svc, a, "lines-of-business", nil), 2)
	require.Len(t, list(t, svc, a, "service-categories", nil), 2)
	require.Len(t, list(t, svc, a, "resource-rates", nil), 3)
	bp := list(t, svc, a, "blueprints", nil)
	require.Len(t, bp, 1)
	items := list(t, svc, a, "blueprint-items", map[string]string{"blueprint": bp[0].ID})
	require.Len(t, items, 2)

	// The demo project prices exactly as docs/pricing.md's worked example.
	requireDec(t, "10794.25", p[0], "contract-revenue")
	requireDec(t, "5696.30", p[0], "contract-cost")
	requireDec(t, "5097.95", p[0], "contract-profit")
	requireDec(t, "0.4723", p[0], "contract-margin")
	requireDec(t, "48.86", p[0], "total-hours")

	// The identities: the admin signs in with its password through the
	// demo application; the bot and the portal have their demo secrets.
	_, err = as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: demo.AppClientID,
		ClientSecret: demo.AppSecret, Username: demo.AdminEmail, Password: demo.AdminPassword})
	require.NoError(t, err)
	_, err = as.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: demo.BotClientID, ClientSecret: demo.BotSecret})
	require.NoError(t, err)
	app, err := db.AuthStore().ApplicationByClientID(ctx, demo.AppClientID)
	require.NoError(t, err)
	require.Equal(t, []string{demo.AppRedirect}, app.RedirectURIs)
}

// Ensure the demo never takes over identities of another account: when its
// emails or client ids are taken, nothing of it is created.
func TestDemoRefusesTakenIdentities(t *testing.T) {
	ctx := context.Background()
	acme := provision.Account{Slug: "acme", Name: "Acme", DefaultCurrency: "USD"}
	for _, tc := range []struct {
		name string
		spec *provision.Spec
		want string
	}{
		{"email", &provision.Spec{Accounts: []provision.Account{acme},
			Users: []provision.User{{Email: "admin@demo.test", Name: "Not the demo", Memberships: []provision.Membership{{Account: "acme", Role: "Sales"}}}}},
			"the user admin@demo.test already exists in another account; not creating the demo account"},
		{"client id", &provision.Spec{Accounts: []provision.Account{{Slug: "acme", Name: "Acme", DefaultCurrency: "USD",
			OAuthApplications: []provision.Application{{Name: "Mine", ClientID: "demo-portal", ClientSecret: "mine"}}}}},
			"the client id demo-portal is already in use; not creating the demo account"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, svc, as := mustOpenDB(t)
			_, err := provision.Provision(ctx, db, svc, as, tc.spec)
			require.NoError(t, err)
			require.EqualError(t, createDemo(ctx, svc, db, as, &DemoState{}), tc.want)
			st, err := findDemo(ctx, db, db.AuthStore())
			require.NoError(t, err)
			require.False(t, st.Exists)
		})
	}
}
