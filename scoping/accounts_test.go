package scoping_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Helpers shared by the module tests of this package (accounts, catalog,
// documents, webhooks): a real bbolt store whose file is checked at the
// end, accounts and their members.

// acctService opens a bbolt store in a temp dir, checks the file's
// consistency when the test ends, and returns a service over it. Configure
// the service (Documents, Webhooks, Now) before creating accounts.
func acctService(t *testing.T) (*scoping.Service, *boltstore.DB) {
	t.Helper()
	db := bolttest.Open(t, scoping.DefaultSchema())
	return scoping.NewService(db), db
}

// acctAccount creates the account slug (default currency USD) and returns
// it with its system actor.
func acctAccount(t *testing.T, svc *scoping.Service, slug string) (*engine.Record, *engine.Actor) {
	t.Helper()
	ctx := context.Background()
	var acct *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		acct, err = a.EnsureAccount(slug, strings.ToUpper(slug[:1])+slug[1:], "USD")
		return err
	}))
	sys, err := svc.SystemActor(ctx, acct.ID)
	require.NoError(t, err)
	return acct, sys
}

// acctMember makes email an active member of the account with the role
// named role and returns the actor it resolves to.
func acctMember(t *testing.T, svc *scoping.Service, acctID, email, role string) *engine.Actor {
	t.Helper()
	ctx := context.Background()
	var u *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		u, err = a.EnsureMember(acctID, scoping.Member{Email: email, Name: strings.Split(email, "@")[0], Role: role})
		return err
	}))
	actor, err := svc.ActorForAccount(ctx, u.ID, acctID)
	require.NoError(t, err)
	return actor
}

// acctCreate creates a record and returns it; acctMust fails the test on
// an error.
func acctCreate(t *testing.T, svc *scoping.Service, a *engine.Actor, typ string, at map[string]json.RawMessage, rels map[string]engine.RelInput) *engine.Record {
	t.Helper()
	res, err := svc.Create(context.Background(), a, typ, &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
	require.NoError(t, err, "create %s", typ)
	return res.Records[0]
}

// acctRequireErr checks err's code and that one of its entries names
// field (when not empty) with a message containing text.
func acctRequireErr(t *testing.T, err error, code, field, text string) {
	t.Helper()
	require.Equal(t, code, scopekit.ErrorCode(err), "%v", err)
	for _, e := range scopekit.List(err) {
		if (field == "" || e.Field == field) && strings.Contains(e.Message, text) {
			return
		}
	}
	require.Failf(t, "no such error", "want %s %q containing %q, got %v", code, field, text, err)
}

// acctRoles returns the account's roles by name.
func acctRoles(t *testing.T, svc *scoping.Service, a *engine.Actor) map[string]*engine.Record {
	t.Helper()
	res, err := svc.List(context.Background(), a, "roles", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	m := map[string]*engine.Record{}
	for _, r := range res.Records {
		m[r.Str("name")] = r
	}
	return m
}

// Ensure EnsureAccount refuses an account without slug, name or ISO
// currency, creates the built-in roles (permissions as in resources.md)
// and the default currency at rate 1, and updates the name and currency
// of an existing account.
func TestAccountsEnsureAccount(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	for _, c := range []struct{ slug, name, currency string }{
		{"", "Acme", "USD"}, {"acme", "", "USD"}, {"acme", "Acme", "ZZZ"}, {"acme", "Acme", "XXX"}, {"acme", "Acme", ""},
	} {
		err := svc.Setup(ctx, func(a *scoping.Admin) error {
			_, err := a.EnsureAccount(c.slug, c.name, c.currency)
			return err
		})
		acctRequireErr(t, err, scopekit.EINVALID, "", "ISO 4217")
	}
	err := svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureAccount("acme", strings.Repeat("x", engine.MaxStringChars+1), "USD")
		return err
	})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)

	acct, sys := acctAccount(t, svc, "acme")
	require.Equal(t, "USD", acct.Str("default-currency"))
	roles := acctRoles(t, svc, sys)
	require.Len(t, roles, len(scoping.BuiltinRoles))
	for _, br := range scoping.BuiltinRoles {
		r := roles[br.Name]
		require.NotNil(t, r, br.Name)
		require.Equal(t, br.Visibility, r.Str("project-visibility"))
		perms := r.Attrs["permissions"].(map[string]any)
		for _, p := range scoping.Permissions {
			require.Equal(t, br.Permissions[p], perms[p], "%s %s", br.Name, p)
		}
	}
	require.Equal(t, "none", roles["Engineer"].Attrs["permissions"].(map[string]any)["users"])
	curs, err := svc.List(ctx, sys, "currencies", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, curs.Records, 1)
	require.Equal(t, "USD", curs.Records[0].Str("code"))
	require.Equal(t, "1", curs.Records[0].Str("conversion-rate"))
	require.EqualValues(t, 2, curs.Records[0].Int("minor-units"))

	var again *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		again, err = a.EnsureAccount("acme", "Acme Corp", " eur ")
		return err
	}))
	require.Equal(t, acct.ID, again.ID, "the same account, updated")
	require.Equal(t, "EUR", again.Str("default-currency"))
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		got, err := a.AccountBySlug("acme")
		require.NoError(t, err)
		require.Equal(t, "Acme Corp", got.Str("name"))
		_, err = a.AccountBySlug("nobody")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		return nil
	}))
	require.Len(t, acctRoles(t, svc, sys), len(scoping.BuiltinRoles), "roles are not created twice")
}

// Ensure a failing step of Setup rolls back everything done before it.
func TestAccountsSetupIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	err := svc.Setup(ctx, func(a *scoping.Admin) error {
		if _, err := a.EnsureAccount("acme", "Acme", "USD"); err != nil {
			return err
		}
		_, err := a.EnsureRole("1", "Bad", map[string]string{"projects": "admin"}, "all")
		return err
	})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.AccountBySlug("acme")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "rolled back")
		return nil
	}))
}

// Ensure EnsureRole checks visibility, permission names and levels, names
// every permission (unnamed ones none) and updates a role by name.
func TestAccountsEnsureRole(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	for _, c := range []struct {
		perms      map[string]string
		visibility string
		want       string
	}{
		{nil, "some", "project-visibility must be all or assigned"},
		{map[string]string{"payroll": "view"}, "all", "payroll"},
		{map[string]string{"projects": "admin"}, "all", "admin is not a permission level"},
	} {
		err := svc.Setup(ctx, func(a *scoping.Admin) error {
			_, err := a.EnsureRole(acct.ID, "Auditor", c.perms, c.visibility)
			return err
		})
		acctRequireErr(t, err, scopekit.EINVALID, "", c.want)
	}
	var role *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		role, err = a.EnsureRole(acct.ID, "Auditor", map[string]string{"projects": "view"}, "")
		return err
	}))
	require.Equal(t, "all", role.Str("project-visibility"))
	perms := role.Attrs["permissions"].(map[string]any)
	require.Len(t, perms, len(scoping.Permissions))
	require.Equal(t, "view", perms["projects"])
	require.Equal(t, "none", perms["documents"])
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		_, err = a.EnsureRole(acct.ID, "Auditor", map[string]string{"documents": "manage"}, "assigned")
		return err
	}))
	got := acctRoles(t, svc, sys)["Auditor"]
	require.Equal(t, role.ID, got.ID)
	require.Equal(t, "assigned", got.Str("project-visibility"))
	require.Equal(t, "manage", got.Attrs["permissions"].(map[string]any)["documents"])
	require.Equal(t, "none", got.Attrs["permissions"].(map[string]any)["projects"])
}

// Ensure the roles type validates permission names and levels, and a role
// that nobody holds can be deleted while one a user holds cannot.
func TestAccountsRoles(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	for perms, want := range map[string]string{
		`{"payroll":"view"}`:   `"payroll" is not a permission`,
		`{"projects":"admin"}`: "permission projects must be none, view or manage",
		`{"projects":1}`:       "permission projects must be none, view or manage",
	} {
		_, err := svc.Create(ctx, sys, "roles", &engine.Input{Attrs: attrs("name", `"Odd"`, "permissions", perms)}, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/permissions", want)
	}

	_, err := svc.Create(ctx, sys, "roles", &engine.Input{Attrs: attrs("name", `"Sales"`, "permissions", `{}`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "names are unique: %v", err)

	free := acctCreate(t, svc, sys, "roles", attrs("name", `"Free"`, "permissions", `{"projects":"view"}`), nil)
	require.NoError(t, svc.Delete(ctx, sys, "roles", free.ID, engine.Options{}))
	_, err = svc.Get(ctx, sys, "roles", free.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	acctMember(t, svc, acct.ID, "sam@acme.test", "Sales")
	err = svc.Delete(ctx, sys, "roles", acctRoles(t, svc, sys)["Sales"].ID, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "assigned to 1 user(s)")

	// users manage is needed to write roles; Sales has users view
	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales")
	_, err = svc.Create(ctx, sales, "roles", &engine.Input{Attrs: attrs("name", `"Mine"`, "permissions", `{}`)}, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	eng := acctMember(t, svc, acct.ID, "eve@acme.test", "Engineer")
	_, err = svc.List(ctx, eng, "roles", engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err), "Engineer has users none")
}

// Ensure SetCurrency takes ISO codes and positive rates only, keeps the
// default currency at 1, bounds minor-units, takes them from ISO 4217
// unless given, and updates a currency by code.
func TestAccountsSetCurrency(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	units := func(n int) *int { return &n }
	for _, c := range []struct {
		cur   scoping.Currency
		field string
		want  string
	}{
		{scoping.Currency{Code: "EURO", ConversionRate: "1"}, "code", "not an ISO 4217 code"},
		{scoping.Currency{Code: "eur", ConversionRate: "1"}, "code", "not an ISO 4217 code"},
		{scoping.Currency{Code: "EUR", ConversionRate: "0"}, "conversion-rate", "positive"},
		{scoping.Currency{Code: "EUR", ConversionRate: "-2"}, "conversion-rate", "positive"},
		{scoping.Currency{Code: "EUR", ConversionRate: "x"}, "conversion-rate", "positive"},
		{scoping.Currency{Code: "USD", ConversionRate: "2"}, "conversion-rate", "always 1"},
		{scoping.Currency{Code: "EUR", ConversionRate: "0.9", MinorUnits: units(9)}, "minor-units", "between 0 and 8"},
		{scoping.Currency{Code: "EUR", ConversionRate: "0.9", MinorUnits: units(-1)}, "minor-units", "between 0 and 8"},
	} {
		err := svc.Setup(ctx, func(a *scoping.Admin) error {
			_, err := a.SetCurrency(acct.ID, c.cur)
			return err
		})
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/"+c.field, c.want)
	}
	err := svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.SetCurrency("999", scoping.Currency{Code: "EUR", ConversionRate: "1"})
		return err
	})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		jpy, err := a.EnsureCurrency(acct.ID, "JPY", "Yen", "150.0")
		require.NoError(t, err)
		require.EqualValues(t, 0, jpy.Int("minor-units"), "from ISO 4217")
		require.Equal(t, "150", jpy.Str("conversion-rate"))
		eur, err := a.SetCurrency(acct.ID, scoping.Currency{Code: "EUR", Name: "Euro", ConversionRate: "0.9", MinorUnits: units(4)})
		require.NoError(t, err)
		require.EqualValues(t, 4, eur.Int("minor-units"))
		again, err := a.EnsureCurrency(acct.ID, "EUR", "Euro", "0.95")
		require.NoError(t, err)
		require.Equal(t, eur.ID, again.ID)
		require.EqualValues(t, 2, again.Int("minor-units"), "back to ISO 4217")
		return nil
	}))
	curs, err := svc.List(ctx, sys, "currencies", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, 3, curs.Total)
}

// Ensure EnsureMember checks email, name and role, keeps one identity per
// email across accounts (its attributes follow), and maps the status to
// the membership.
func TestAccountsEnsureMember(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acme, acmeSys := acctAccount(t, svc, "acme")
	globex, globexSys := acctAccount(t, svc, "globex")
	for _, c := range []struct {
		m    scoping.Member
		want string
	}{
		{scoping.Member{Email: "ann", Name: "Ann", Role: "Sales"}, "needs one email address and a name"},
		{scoping.Member{Email: "ann@acme.test", Role: "Sales"}, "needs one email address and a name"},
		{scoping.Member{Email: "ann@acme.test", Name: "Ann", Role: "Boss"}, `no role "Boss"`},
	} {
		err := svc.Setup(ctx, func(a *scoping.Admin) error {
			_, err := a.EnsureMember(acme.ID, c.m)
			return err
		})
		require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
		require.Contains(t, err.Error(), c.want)
	}
	var inAcme, inGlobex *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		if inAcme, err = a.EnsureMember(acme.ID, scoping.Member{Email: "Ann@Acme.test", Name: "Ann", Role: "Sales"}); err != nil {
			return err
		}
		inGlobex, err = a.EnsureMember(globex.ID, scoping.Member{Email: "ann@acme.test", Name: "Ann B", Role: "Read Only", Status: "invited"})
		return err
	}))
	require.Equal(t, inAcme.ID, inGlobex.ID, "one identity across accounts")
	require.Equal(t, "ann@acme.test", inAcme.Str("email"))

	get := func(a *engine.Actor, id string) *engine.Record {
		res, err := svc.Get(ctx, a, "users", id, engine.ListParams{Filters: map[string]string{"active": "true,false"}}, engine.Options{})
		require.NoError(t, err)
		return res.Records[0]
	}
	require.Equal(t, "Ann", get(acmeSys, inAcme.ID).Str("name"), "a membership's name is its own")
	require.Equal(t, "active", get(acmeSys, inAcme.ID).Str("status"))
	require.Equal(t, "invited", get(globexSys, inAcme.ID).Str("status"))
	_, err := svc.ActorForAccount(ctx, inAcme.ID, globex.ID)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err), "an invited member is no actor yet")

	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureMember(acme.ID, scoping.Member{Email: "ann@acme.test", Name: "Ann", Role: "Sales", Status: "deactivated"})
		return err
	}))
	gone := get(acmeSys, inAcme.ID)
	require.Equal(t, "deactivated", gone.Str("status"))
	require.False(t, gone.Active())
	_, err = svc.ActorForAccount(ctx, inAcme.ID, acme.ID)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure SystemActor manages everything in an existing account only.
func TestAccountsSystemActor(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	require.Equal(t, acct.ID, sys.AccountID())
	require.True(t, sys.AllScopes)
	for _, p := range scoping.Permissions {
		require.Equal(t, engine.AccessManage, sys.Level(p), p)
	}
	_, err := svc.SystemActor(ctx, "999")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure every member may read the account, whose psa? is true only when
// a psa integrated product is both connected and enabled.
func TestAccountsAccount(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	eng := acctMember(t, svc, acct.ID, "eve@acme.test", "Engineer") // settings none
	psa := func(a *engine.Actor) any {
		res, err := svc.Account(ctx, a)
		require.NoError(t, err)
		require.True(t, res.Single)
		require.Equal(t, acct.ID, res.Records[0].ID)
		return res.Records[0].Attrs["psa?"]
	}
	require.Equal(t, false, psa(eng))
	prod := acctCreate(t, svc, sys, "integrated-products", attrs("name", `"Autotask"`, "kind", `"psa"`, "connected", `true`), nil)
	require.Equal(t, false, psa(eng), "connected alone is not enough")
	acctCreate(t, svc, sys, "integrated-products", attrs("name", `"Sales CRM"`, "kind", `"crm"`, "connected", `true`, "enabled", `true`), nil)
	require.Equal(t, false, psa(eng), "a crm is no psa")
	_, err := svc.Update(ctx, sys, "integrated-products", prod.ID, &engine.Input{Attrs: attrs("enabled", `true`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, true, psa(eng))

	_, err = svc.Account(ctx, &engine.Actor{Account: &engine.Record{ID: "999"}})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure Me answers the actor's own membership, from the resolved actor
// or from the store, and UpdatePreferences changes settings-design only,
// with user_preferences manage.
func TestAccountsMeAndPreferences(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, _ := acctAccount(t, svc, "acme")
	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales")
	me, err := svc.Me(ctx, sales)
	require.NoError(t, err)
	require.Same(t, sales.User, me, "the record read when the actor was resolved")
	bare := &engine.Actor{UserID: sales.UserID, Account: sales.Account, Role: sales.Role}
	stored, err := svc.Me(ctx, bare)
	require.NoError(t, err)
	require.Equal(t, "sid@acme.test", stored.Str("email"))
	_, err = svc.Me(ctx, &engine.Actor{UserID: "999", Account: sales.Account})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	for _, c := range []struct {
		in    *engine.Input
		code  string
		field string
	}{
		{&engine.Input{Attrs: attrs("name", `"Sid"`)}, scopekit.EBADREQUEST, "/data/attributes/name"},
		{&engine.Input{Rels: map[string]engine.RelInput{"roles": {ToMany: true}}}, scopekit.EBADREQUEST, "/data/relationships"},
		{&engine.Input{Attrs: attrs("settings-design", `"retro"`)}, scopekit.EINVALID, "/data/attributes/settings-design"},
		{&engine.Input{Attrs: attrs("settings-design", `null`)}, scopekit.EINVALID, "/data/attributes/settings-design"},
		{&engine.Input{Attrs: attrs("settings-design", `3`)}, scopekit.EBADREQUEST, "/data/attributes/settings-design"},
	} {
		_, err := svc.UpdatePreferences(ctx, sales, c.in)
		require.Equal(t, c.code, scopekit.ErrorCode(err), "%v", err)
		require.Equal(t, c.field, scopekit.List(err)[0].Field)
	}
	u, err := svc.UpdatePreferences(ctx, sales, &engine.Input{Attrs: attrs("settings-design", `"modern"`)})
	require.NoError(t, err)
	require.Equal(t, "modern", u.Str("settings-design"))
	stored, err = svc.Me(ctx, bare)
	require.NoError(t, err)
	require.Equal(t, "modern", stored.Str("settings-design"))

	ro := acctMember(t, svc, acct.ID, "rita@acme.test", "Read Only") // user_preferences view
	_, err = svc.UpdatePreferences(ctx, ro, &engine.Input{Attrs: attrs("settings-design", `"classic"`)})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure approval levels refuse malformed conditions and two active
// levels at one position, and that an archived level frees its position.
func TestAccountsApprovalLevels(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	_, err := svc.Create(ctx, sys, "approval-levels", &engine.Input{Attrs: attrs("name", `"Tech"`, "position", `1`,
		"conditions", `[{"field":"contract_revenue","operator":"about","value":"1"}]`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
	require.True(t, strings.HasPrefix(scopekit.List(err)[0].Field, "/data/attributes/conditions/0"), scopekit.List(err)[0].Field)

	tech := acctCreate(t, svc, sys, "approval-levels", attrs("name", `"Tech"`, "position", `1`,
		"conditions", `[{"field":"contract_revenue","operator":"gt","value":"1000"}]`), nil)
	_, err = svc.Create(ctx, sys, "approval-levels", &engine.Input{Attrs: attrs("name", `"Sales"`, "position", `1`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/position", "another active approval level (Tech) has position 1")
	_, err = svc.Update(ctx, sys, "approval-levels", tech.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	acctCreate(t, svc, sys, "approval-levels", attrs("name", `"Sales"`, "position", `1`), nil)
}

// Ensure payment terms keep one default per account.
func TestAccountsPaymentTermsDefault(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	a := acctCreate(t, svc, sys, "payment-terms", attrs("name", `"Net 30"`, "default", `true`), nil)
	b := acctCreate(t, svc, sys, "payment-terms", attrs("name", `"Net 60"`, "default", `true`), nil)
	res, err := svc.List(ctx, sys, "payment-terms", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	defaults := map[string]bool{}
	for _, r := range res.Records {
		defaults[r.ID] = r.Bool("default")
	}
	require.Equal(t, map[string]bool{a.ID: false, b.ID: true}, defaults)
}
