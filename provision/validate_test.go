package provision_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// problem is one expected entry of the scopekit.Errors of a refusal.
type problem struct{ field, message string }

// requireProblems checks that err is scopekit.Errors holding exactly want,
// in order, each EINVALID.
func requireProblems(t *testing.T, err error, want ...problem) {
	t.Helper()
	es, ok := err.(scopekit.Errors)
	require.True(t, ok, "got %T %v, want scopekit.Errors", err, err)
	var got []problem
	for _, e := range es {
		require.Equal(t, scopekit.EINVALID, e.Code, e.Message)
		got = append(got, problem{e.Field, e.Message})
	}
	require.Equal(t, want, got)
}

// Ensure every kind of bad spec is refused with a problem naming the member
// and the entry, and nothing of it is applied.
func TestProvisionRefusesBadSpecs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(s *provision.Spec)
		want []problem
	}{
		{"reserved slug v1", func(s *provision.Spec) { s.Accounts[0].Slug = "v1" },
			[]problem{{"/accounts/0/slug", `accounts[0] (v1): slug "v1" is reserved (it begins a route)`}}},
		{"reserved slug v2", func(s *provision.Spec) { s.Accounts[0].Slug = "v2" },
			[]problem{{"/accounts/0/slug", `accounts[0] (v2): slug "v2" is reserved (it begins a route)`}}},
		{"reserved slug oauth", func(s *provision.Spec) { s.Accounts[0].Slug = "oauth" },
			[]problem{{"/accounts/0/slug", `accounts[0] (oauth): slug "oauth" is reserved (it begins a route)`}}},
		{"reserved slug docs", func(s *provision.Spec) { s.Accounts[0].Slug = "docs" },
			[]problem{{"/accounts/0/slug", `accounts[0] (docs): slug "docs" is reserved (it begins a route)`}}},
		{"reserved slug app", func(s *provision.Spec) { s.Accounts[0].Slug = "app" },
			[]problem{{"/accounts/0/slug", `accounts[0] (app): slug "app" is reserved (it begins a route)`}}},
		{"reserved slug static", func(s *provision.Spec) { s.Accounts[0].Slug = "static" },
			[]problem{{"/accounts/0/slug", `accounts[0] (static): slug "static" is reserved (it begins a route)`}}},
		{"reserved slug accept", func(s *provision.Spec) { s.Accounts[0].Slug = "accept" },
			[]problem{{"/accounts/0/slug", `accounts[0] (accept): slug "accept" is reserved (it begins a route)`}}},
		{"reserved slug invitations", func(s *provision.Spec) { s.Accounts[0].Slug = "invitations" },
			[]problem{{"/accounts/0/slug", `accounts[0] (invitations): slug "invitations" is reserved (it begins a route)`}}},
		{"empty slug", func(s *provision.Spec) { s.Accounts[0].Slug = "" },
			[]problem{{"/accounts/0/slug", `accounts[0]: slug must not be empty`}}},
		{"slug with a slash", func(s *provision.Spec) { s.Accounts[0].Slug = "ac/me" },
			[]problem{{"/accounts/0/slug", `accounts[0] (ac/me): slug "ac/me" must be lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)`}}},
		{"duplicate slug", func(s *provision.Spec) {
			s.Accounts = append(s.Accounts, provision.Account{Slug: "acme", Name: "Again", DefaultCurrency: "USD"})
		}, []problem{{"/accounts/1/slug", `accounts[1] (acme): slug "acme" appears twice in the file`}}},
		{"empty account name", func(s *provision.Spec) { s.Accounts[0].Name = " " },
			[]problem{{"/accounts/0/name", `accounts[0] (acme): name must not be empty`}}},
		{"bad default currency", func(s *provision.Spec) { s.Accounts[0].DefaultCurrency = "US$" },
			[]problem{{"/accounts/0/default-currency", `accounts[0] (acme): default-currency "US$" must be a three-letter ISO 4217 code such as USD`}}},
		{"default currency not in ISO 4217", func(s *provision.Spec) { s.Accounts[0].DefaultCurrency = "abc" },
			[]problem{{"/accounts/0/default-currency", `accounts[0] (acme): default-currency "ABC" must be a three-letter ISO 4217 code such as USD`}}},
		{"locale not a language tag", func(s *provision.Spec) { s.Accounts[0].Locale = "german" },
			[]problem{{"/accounts/0/locale", `accounts[0] (acme): locale "german" must be a BCP 47 language tag such as en-US or de-DE`}}},
		{"locale of an unknown language", func(s *provision.Spec) { s.Accounts[0].Locale = "xx-YY" },
			[]problem{{"/accounts/0/locale", `accounts[0] (acme): locale "xx-YY" must be a BCP 47 language tag such as en-US or de-DE`}}},
		{"bad currency code", func(s *provision.Spec) { s.Accounts[0].Currencies[0].Code = "EURO" },
			[]problem{{"/accounts/0/currencies/0/code", `accounts[0] (acme) currencies[0] (EURO): code "EURO" must be a three-letter ISO 4217 code such as EUR`}}},
		{"currency code not in ISO 4217", func(s *provision.Spec) { s.Accounts[0].Currencies[0].Code = "ZZZ" },
			[]problem{{"/accounts/0/currencies/0/code", `accounts[0] (acme) currencies[0] (ZZZ): code "ZZZ" must be a three-letter ISO 4217 code such as EUR`}}},
		{"currency twice", func(s *provision.Spec) {
			s.Accounts[0].Currencies = append(s.Accounts[0].Currencies, provision.Currency{Code: " eur", ConversionRate: "1"})
		}, []problem{{"/accounts/0/currencies/1/code", `accounts[0] (acme) currencies[1] (EUR): currency EUR appears twice in the account`}}},
		{"padded conversion rate", func(s *provision.Spec) { s.Accounts[0].Currencies[0].ConversionRate = " 0.92 " },
			[]problem{{"/accounts/0/currencies/0/conversion-rate", `accounts[0] (acme) currencies[0] (EUR): conversion-rate " 0.92 " must be a positive number`}}},
		{"negative conversion rate", func(s *provision.Spec) { s.Accounts[0].Currencies[0].ConversionRate = "-1" },
			[]problem{{"/accounts/0/currencies/0/conversion-rate", `accounts[0] (acme) currencies[0] (EUR): conversion-rate "-1" must be a positive number`}}},
		{"minor units out of range", func(s *provision.Spec) { nine := 9; s.Accounts[0].Currencies[0].MinorUnits = &nine },
			[]problem{{"/accounts/0/currencies/0/minor-units", `accounts[0] (acme) currencies[0] (EUR): minor-units 9 must be between 0 and 8`}}},
		{"default currency at another rate", func(s *provision.Spec) { s.Accounts[0].Currencies[0].Code = "USD" },
			[]problem{{"/accounts/0/currencies/0/conversion-rate", `accounts[0] (acme) currencies[0] (USD): the default currency's conversion-rate must be 1`}}},
		{"empty role name", func(s *provision.Spec) { s.Accounts[0].Roles[0].Name = "" },
			[]problem{{"/accounts/0/roles/0/name", `accounts[0] (acme) roles[0]: name must not be empty`}}},
		{"role twice", func(s *provision.Spec) {
			s.Accounts[0].Roles = append(s.Accounts[0].Roles, provision.Role{Name: "AUDITOR"})
		}, []problem{{"/accounts/0/roles/1/name", `accounts[0] (acme) roles[1] (AUDITOR): role "AUDITOR" appears twice in the account`}}},
		{"unknown permission level", func(s *provision.Spec) { s.Accounts[0].Roles[0].Permissions["projects"] = "read" },
			[]problem{{"/accounts/0/roles/0/permissions/projects", `accounts[0] (acme) roles[0] (Auditor): permission projects must be none, view or manage, not "read"`}}},
		{"unknown permission", func(s *provision.Spec) { s.Accounts[0].Roles[0].Permissions["a/b"] = "view" },
			[]problem{{"/accounts/0/roles/0/permissions/a~1b", `accounts[0] (acme) roles[0] (Auditor): "a/b" is not a permission (known: ` +
				strings.Join(scoping.Permissions, ", ") + `)`}}},
		{"bad project visibility", func(s *provision.Spec) { s.Accounts[0].Roles[0].ProjectVisibility = "mine" },
			[]problem{{"/accounts/0/roles/0/project-visibility", `accounts[0] (acme) roles[0] (Auditor): project-visibility must be all or assigned, not "mine"`}}},
		{"application without name and secret", func(s *provision.Spec) {
			s.Accounts[0].OAuthApplications[0].Name, s.Accounts[0].OAuthApplications[0].ClientSecret = "", " "
		}, []problem{
			{"/accounts/0/oauth-applications/0/name", `accounts[0] (acme) oauth-applications[0] (acme-portal): name must not be empty`},
			{"/accounts/0/oauth-applications/0/client-secret", `accounts[0] (acme) oauth-applications[0] (acme-portal): client-secret must not be empty`}}},
		{"empty client id", func(s *provision.Spec) { s.Accounts[0].OAuthApplications[0].ClientID = "" },
			[]problem{{"/accounts/0/oauth-applications/0/client-id", `accounts[0] (acme) oauth-applications[0]: client-id must not be empty`}}},
		{"long client id", func(s *provision.Spec) { s.Users[1].ClientID = strings.Repeat("c", 256) },
			[]problem{{"/users/1/client-id", `users[1] (bot@acme.test): client-id must be at most 255 bytes`}}},
		{"client id with a space", func(s *provision.Spec) { s.Users[1].ClientID = "acme bot" },
			[]problem{{"/users/1/client-id", `users[1] (bot@acme.test): client-id "acme bot" must not contain spaces or control characters`}}},
		{"relative redirect URI", func(s *provision.Spec) { s.Accounts[0].OAuthApplications[0].RedirectURIs = []string{"/callback#x"} },
			[]problem{{"/accounts/0/oauth-applications/0/redirect-uris", `accounts[0] (acme) oauth-applications[0] (acme-portal): redirect URI "/callback#x" must be an absolute URI without a fragment`}}},
		{"client id twice (application and user)", func(s *provision.Spec) { s.Users[1].ClientID = "acme-portal" },
			[]problem{{"/users/1/client-id", `users[1] (bot@acme.test): client-id "acme-portal" is already used by accounts[0] (acme) oauth-applications[0] (acme-portal)`}}},
		{"client id twice across accounts", func(s *provision.Spec) {
			s.Accounts = append(s.Accounts, provision.Account{Slug: "beta", Name: "Beta", DefaultCurrency: "EUR",
				OAuthApplications: []provision.Application{{Name: "P", ClientID: "acme-portal", ClientSecret: "s"}}})
		}, []problem{{"/accounts/1/oauth-applications/0/client-id", `accounts[1] (beta) oauth-applications[0] (acme-portal): client-id "acme-portal" is already used by accounts[0] (acme) oauth-applications[0] (acme-portal)`}}},
		{"bad email", func(s *provision.Spec) { s.Users[1].Email = "bot" },
			[]problem{{"/users/1/email", `users[1] (bot): email "bot" must be an email address`}}},
		{"duplicate email", func(s *provision.Spec) { s.Users[1].Email = "ADA@acme.test" },
			[]problem{{"/users/1/email", `users[1] (ada@acme.test): email ada@acme.test appears twice in the file`}}},
		{"empty user name", func(s *provision.Spec) { s.Users[0].Name = "" },
			[]problem{{"/users/0/name", `users[0] (ada@acme.test): name must not be empty`}}},
		{"bad status", func(s *provision.Spec) { s.Users[0].Status = "enabled" },
			[]problem{{"/users/0/status", `users[0] (ada@acme.test): status must be active, invited or deactivated, not "enabled"`}}},
		{"bad user type", func(s *provision.Spec) { s.Users[1].UserType = "robot" },
			[]problem{{"/users/1/user-type", `users[1] (bot@acme.test): user-type must be standard or service, not "robot"`}}},
		{"service account without client id", func(s *provision.Spec) { s.Users[1].ClientID = "" },
			[]problem{{"/users/1/client-id", `users[1] (bot@acme.test): a service account needs client-id and client-secret`}}},
		{"service account without secret", func(s *provision.Spec) { s.Users[1].ClientSecret = "" },
			[]problem{{"/users/1/client-secret", `users[1] (bot@acme.test): a service account needs client-id and client-secret`}}},
		{"service account with a password", func(s *provision.Spec) { s.Users[1].Password = "correct horse battery" },
			[]problem{{"/users/1/password", `users[1] (bot@acme.test): a service account cannot sign in: give it client-id and client-secret, not a password`}}},
		{"service account in two accounts", func(s *provision.Spec) {
			s.Users[1].Memberships = append(s.Users[1].Memberships, provision.Membership{Account: "other", Role: "Sales"})
		}, []problem{{"/users/1/memberships", `users[1] (bot@acme.test): a service account with credentials needs exactly one membership (its client id is scoped to one account)`}}},
		{"standard user with credentials", func(s *provision.Spec) { s.Users[0].ClientID, s.Users[0].ClientSecret = "ada", "ada-secret" },
			[]problem{{"/users/0/user-type", `users[0] (ada@acme.test): client-id and client-secret are for service accounts (user-type service)`}}},
		{"short password", func(s *provision.Spec) { s.Users[0].Password = "short-pw" },
			[]problem{{"/users/0/password", `users[0] (ada@acme.test): password must be at least 12 characters (it has 8)`}}},
		{"long password", func(s *provision.Spec) { s.Users[0].Password = strings.Repeat("é", 40) },
			[]problem{{"/users/0/password", `users[0] (ada@acme.test): password must be at most 72 bytes`}}},
		{"no membership", func(s *provision.Spec) { s.Users[0].Memberships = nil },
			[]problem{{"/users/0/memberships", `users[0] (ada@acme.test): needs at least one membership`}}},
		{"bad memberships", func(s *provision.Spec) {
			s.Users[0].Memberships = []provision.Membership{{Role: "Sales"}, {Account: "acme"}, {Account: "acme", Role: "Sales"}}
		}, []problem{
			{"/users/0/memberships/0/account", `users[0] (ada@acme.test): a membership needs an account`},
			{"/users/0/memberships/1/role", `users[0] (ada@acme.test): membership in "acme" needs a role`},
			{"/users/0/memberships/2/account", `users[0] (ada@acme.test): two memberships in account "acme"`}}},
		{"every problem, in the order of the spec", func(s *provision.Spec) {
			s.Accounts[0].Slug, s.Accounts[0].Name, s.Users[0].Status = "", "", "x"
		}, []problem{
			{"/accounts/0/slug", `accounts[0]: slug must not be empty`},
			{"/accounts/0/name", `accounts[0]: name must not be empty`},
			{"/users/0/status", `users[0] (ada@acme.test): status must be active, invited or deactivated, not "x"`}}},

		// Checks against the database (here: an empty one).
		{"unknown membership account", func(s *provision.Spec) { s.Users[1].Memberships[0].Account = "nope" },
			[]problem{{"/users/1/memberships/0/account", `users[1] (bot@acme.test): membership account "nope" is not in the file or the database`}}},
		{"unknown role", func(s *provision.Spec) { s.Users[0].Memberships[0].Role = "Boss" },
			[]problem{{"/users/0/memberships/0/role", `users[0] (ada@acme.test): membership in "acme": no role "Boss" in that account (built-in roles: Account Admin, Sales, Engineer, Read Only)`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, svc, as := mustOpenDB(t)
			spec := exampleSpec()
			tc.edit(spec)
			rep, err := provision.Provision(context.Background(), db, svc, as, spec)
			requireProblems(t, err, tc.want...)
			require.Empty(t, rep.Written)
			requireNothingApplied(t, db, svc)
		})
	}
}

// Ensure Validate normalizes in place (codes upper case, emails lower case,
// locales canonical, defaults filled in) and validating again changes nothing.
func TestValidateNormalizes(t *testing.T) {
	spec := &provision.Spec{
		Accounts: []provision.Account{{Slug: "acme", Name: "Acme", DefaultCurrency: " usd ", Locale: "de-de",
			Currencies: []provision.Currency{{Code: "eur", ConversionRate: "0.9"}},
			Roles:      []provision.Role{{Name: "Auditor"}}}},
		Users: []provision.User{{Email: " Ada@Acme.TEST", Name: "Ada", Memberships: []provision.Membership{{Account: "acme", Role: "Auditor"}}}},
	}
	require.NoError(t, spec.Validate())
	want := &provision.Spec{
		Accounts: []provision.Account{{Slug: "acme", Name: "Acme", DefaultCurrency: "USD", Locale: "de-DE",
			Currencies: []provision.Currency{{Code: "EUR", Name: "EUR", ConversionRate: "0.9"}},
			Roles:      []provision.Role{{Name: "Auditor", ProjectVisibility: "all"}}}},
		Users: []provision.User{{Email: "ada@acme.test", Name: "Ada", UserType: "standard", Status: "active",
			Memberships: []provision.Membership{{Account: "acme", Role: "Auditor"}}}},
	}
	require.Equal(t, want, spec)
	require.NoError(t, spec.Validate())
	require.Equal(t, want, spec)
	require.NoError(t, (&provision.Spec{}).Validate(), "an empty spec is valid")
}

// Ensure client ids already in the database are refused when another
// account or user holds them, and accepted when the spec's own entry does.
func TestProvisionRefusesTakenClientIDs(t *testing.T) {
	other := func(app, bot string) *provision.Spec {
		s := &provision.Spec{Accounts: []provision.Account{{Slug: "other", Name: "Other", DefaultCurrency: "USD"}}}
		if app != "" {
			s.Accounts[0].OAuthApplications = []provision.Application{{Name: "Theirs", ClientID: app, ClientSecret: "theirs"}}
		}
		if bot != "" {
			s.Users = []provision.User{{Email: "o@other.test", Name: "O", UserType: "service", ClientID: bot, ClientSecret: "s",
				Memberships: []provision.Membership{{Account: "other", Role: "Sales"}}}}
		}
		return s
	}
	for _, tc := range []struct {
		name     string
		existing *provision.Spec
		want     problem
	}{
		{"application of another account", other("acme-portal", ""),
			problem{"/accounts/0/oauth-applications/0/client-id", `accounts[0] (acme) oauth-applications[0] (acme-portal): client-id "acme-portal" belongs to an application of another account`}},
		{"application id of a service account", other("", "acme-portal"),
			problem{"/accounts/0/oauth-applications/0/client-id", `accounts[0] (acme) oauth-applications[0] (acme-portal): client-id "acme-portal" is already used by a service account`}},
		{"service account id of an application", other("acme-bot", ""),
			problem{"/users/1/client-id", `users[1] (bot@acme.test): client-id "acme-bot" is already used by an OAuth application`}},
		{"service account id of another service account", other("", "acme-bot"),
			problem{"/users/1/client-id", `users[1] (bot@acme.test): client-id "acme-bot" is already used by another service account`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db, svc, as := mustOpenDB(t)
			mustProvision(t, db, svc, as, tc.existing)
			_, err := provision.Provision(ctx, db, svc, as, exampleSpec())
			requireProblems(t, err, tc.want)
			requireNothingApplied(t, db, svc)
		})
	}
}
