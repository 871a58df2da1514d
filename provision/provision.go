package provision

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// Report says what Provision wrote.
type Report struct {
	// Written holds the JSON pointer of each entry of the spec that was
	// created or changed, in the order written: /accounts/0,
	// /accounts/0/default-currency (the account's default currency when
	// the spec does not list it), /accounts/0/currencies/1,
	// /accounts/0/roles/0, /users/0/memberships/0,
	// /accounts/0/oauth-applications/0, /users/0/password and
	// /users/1/client-id (service credentials). Empty when the database
	// already held everything the spec says.
	Written []string
}

// ApplyError is the failure to write one entry of a spec that passed its
// checks: the store failing, or a rule of the service the checks do not
// repeat (an attribute over its length limit).
type ApplyError struct {
	Field string // JSON pointer of the entry: /users/0/memberships/1
	Entry string // the entry and step, as messages name them: users[0] (ada@acme.test): membership in "acme"
	Err   error
}

func (e *ApplyError) Error() string { return e.Entry + ": " + e.Err.Error() }

func (e *ApplyError) Unwrap() error { return e.Err }

// Provision validates spec (normalizing it in place, see Spec.Validate),
// checks it against the database and applies it: accounts, currencies,
// roles and memberships in one transaction of svc, then OAuth applications,
// passwords and service credentials through tokens. Entries already as
// the spec says are left untouched, so provisioning the same spec again
// writes nothing.
//
// It returns scopekit.Errors (EINVALID, one per problem, each naming the
// member at fault) when the spec is invalid or does not fit the database:
// a membership naming an account or role that exists neither in the spec
// nor in the database, a client id of another account or user. Then
// nothing is written. It returns an *ApplyError when writing an entry
// fails; should that happen after the transaction (the store failing,
// since everything was checked), provisioning the spec again completes it.
//
// The spec is checked against db, the store svc serves (provisioning reads
// it directly: it runs before any account or actor exists).
func Provision(ctx context.Context, db engine.Store, svc *scoping.Service, tokens *auth.Service, spec *Spec) (Report, error) {
	var rep Report
	if err := spec.Validate(); err != nil {
		return rep, err
	}
	st, err := spec.readState(ctx, db)
	if err != nil {
		return rep, readError(err)
	}
	if err := spec.checkAgainst(ctx, st, tokens.Store); err != nil {
		return rep, err
	}
	members, err := spec.members(ctx, db, st)
	if err != nil {
		return rep, readError(err)
	}
	w := &writer{spec: spec, st: st, members: members, rep: &rep,
		accountIDs: map[string]string{}, userIDs: map[string]string{}}
	err = svc.Setup(ctx, func(a *scoping.Admin) error {
		if err := w.accounts(a); err != nil {
			return err
		}
		return w.memberships(a)
	})
	if err != nil {
		rep.Written = nil // the transaction wrote none of it
		return rep, err
	}
	if err := w.applications(ctx, tokens); err != nil {
		return rep, err
	}
	return rep, w.credentials(ctx, tokens)
}

// writer applies a checked spec, skipping what the database already holds.
type writer struct {
	spec       *Spec
	st         *dbState
	members    map[[2]string]*engine.Record // account id, email -> membership (nil: none yet)
	accountIDs map[string]string            // slug -> id
	userIDs    map[string]string            // email -> id
	rep        *Report
}

func (w *writer) wrote(field string) { w.rep.Written = append(w.rep.Written, field) }

// accounts writes the accounts with their currencies and roles.
func (w *writer) accounts(a *scoping.Admin) error {
	for i, fa := range w.spec.Accounts {
		e, field := EntryName("accounts", i, fa.Slug), pointer("accounts", i)
		acct := w.st.accounts[fa.Slug]
		if acct == nil || acct.Str(views.NameName) != fa.Name || acct.Str(views.NameDefaultCurrency) != fa.DefaultCurrency {
			rec, err := a.EnsureAccount(fa.Slug, fa.Name, fa.DefaultCurrency)
			if err != nil {
				return &ApplyError{field, e, err}
			}
			if acct == nil { // its built-in roles and default currency were just created
				w.st.roles[rec.ID], w.st.currencies[rec.ID] = builtinRoleSet(), map[string]*engine.Record{
					fa.DefaultCurrency: {Attrs: map[string]any{"code": fa.DefaultCurrency, "name": fa.DefaultCurrency, "conversion-rate": "1"}}}
			}
			acct = rec
			w.wrote(field)
		}
		w.accountIDs[fa.Slug] = acct.ID
		if fa.Locale != "" && acct.Str(views.NameLocale) != fa.Locale {
			if _, err := a.SetAccountLocale(acct.ID, fa.Locale); err != nil {
				return &ApplyError{pointer("accounts", i, "locale"), e, err}
			}
			w.wrote(pointer("accounts", i, "locale"))
		}
		if w.st.currencies[acct.ID][fa.DefaultCurrency] == nil && !slices.ContainsFunc(fa.Currencies, func(c Currency) bool { return c.Code == fa.DefaultCurrency }) {
			if _, err := a.EnsureCurrency(acct.ID, fa.DefaultCurrency, fa.DefaultCurrency, "1"); err != nil {
				return &ApplyError{field, e, err}
			}
			w.wrote(pointer("accounts", i, "default-currency"))
		}
		for j, c := range fa.Currencies {
			if sameCurrency(w.st.currencies[acct.ID][c.Code], c) {
				continue
			}
			if _, err := a.SetCurrency(acct.ID, scoping.Currency{Code: c.Code, Name: c.Name,
				ConversionRate: string(c.ConversionRate), MinorUnits: c.MinorUnits}); err != nil {
				return &ApplyError{pointer("accounts", i, "currencies", j), e + " currency " + c.Code, err}
			}
			w.wrote(pointer("accounts", i, "currencies", j))
		}
		for j, r := range fa.Roles {
			if sameRole(w.st.roles[acct.ID][strings.ToLower(r.Name)], r) {
				continue
			}
			if _, err := a.EnsureRole(acct.ID, r.Name, r.Permissions, r.ProjectVisibility); err != nil {
				return &ApplyError{pointer("accounts", i, "roles", j), e + " role " + strconv.Quote(r.Name), err}
			}
			w.wrote(pointer("accounts", i, "roles", j))
		}
	}
	return nil
}

// memberships writes the users and their memberships.
func (w *writer) memberships(a *scoping.Admin) error {
	for i, u := range w.spec.Users {
		e := EntryName("users", i, u.Email)
		if ident := w.st.users[u.Email]; ident != nil {
			w.userIDs[u.Email] = ident.ID
		}
		for j, m := range u.Memberships {
			acctID := w.accountIDs[m.Account]
			if acctID == "" {
				acctID = w.st.accounts[m.Account].ID
				w.accountIDs[m.Account] = acctID
			}
			if sameMember(w.members[[2]string{acctID, u.Email}], u, roleID(w.st, acctID, m.Role)) {
				continue
			}
			rec, err := a.EnsureMember(acctID, scoping.Member{Email: u.Email, Name: u.Name, UserType: u.UserType, Status: u.Status, Role: m.Role})
			if err != nil {
				return &ApplyError{pointer("users", i, "memberships", j), e + ": membership in " + strconv.Quote(m.Account), err}
			}
			w.userIDs[u.Email] = rec.ID
			w.wrote(pointer("users", i, "memberships", j))
		}
	}
	return nil
}

// applications registers the OAuth applications that are new or changed.
func (w *writer) applications(ctx context.Context, tokens *auth.Service) error {
	for i, fa := range w.spec.Accounts {
		for j, app := range fa.OAuthApplications {
			old, err := tokens.Store.ApplicationByClientID(ctx, app.ClientID)
			if err == nil && old.AccountID == w.accountIDs[fa.Slug] && old.Name == app.Name &&
				auth.SecretMatches(old.SecretDigest, app.ClientSecret) && slices.Equal(old.RedirectURIs, app.RedirectURIs) {
				continue
			}
			field := pointer("accounts", i, "oauth-applications", j)
			if err := tokens.RegisterApplication(ctx, w.accountIDs[fa.Slug], app.Name, app.ClientID, app.ClientSecret, app.RedirectURIs); err != nil {
				return &ApplyError{field, EntryName("accounts", i, fa.Slug) + " " + EntryName("oauth-applications", j, app.ClientID), err}
			}
			w.wrote(field)
		}
	}
	return nil
}

// credentials sets the passwords and service credentials that are new or
// changed.
func (w *writer) credentials(ctx context.Context, tokens *auth.Service) error {
	for i, u := range w.spec.Users {
		e := EntryName("users", i, u.Email)
		uid := w.userIDs[u.Email]
		if u.Password != "" {
			hash, err := tokens.Store.PasswordHash(ctx, uid)
			if err != nil || bcrypt.CompareHashAndPassword(hash, []byte(u.Password)) != nil {
				if err := tokens.SetPassword(ctx, uid, u.Password); err != nil {
					return &ApplyError{pointer("users", i, "password"), e + ": password", err}
				}
				w.wrote(pointer("users", i, "password"))
			}
		}
		if u.UserType == "service" {
			acctID := w.accountIDs[u.Memberships[0].Account]
			old, err := tokens.Store.ServiceCredentialByClientID(ctx, u.ClientID)
			if err == nil && old.AccountID == acctID && old.UserID == uid && auth.SecretMatches(old.SecretDigest, u.ClientSecret) {
				continue
			}
			if err := tokens.SetServiceCredential(ctx, acctID, uid, u.ClientID, u.ClientSecret); err != nil {
				return &ApplyError{pointer("users", i, "client-id"), e + ": credentials", err}
			}
			w.wrote(pointer("users", i, "client-id"))
		}
	}
	return nil
}

// builtinRoleSet is the roles a new account gets, as readState would see
// them.
func builtinRoleSet() map[string]*engine.Record {
	m := map[string]*engine.Record{}
	for _, br := range scoping.BuiltinRoles {
		perms := map[string]any{}
		for k, v := range br.Permissions {
			perms[k] = v
		}
		m[strings.ToLower(br.Name)] = &engine.Record{Attrs: map[string]any{"name": br.Name, "permissions": perms, "project-visibility": br.Visibility}}
	}
	return m
}

func roleID(st *dbState, accountID, name string) string {
	if r := st.roles[accountID][strings.ToLower(name)]; r != nil {
		return r.ID
	}
	return ""
}

func sameCurrency(rec *engine.Record, c Currency) bool {
	if rec == nil || rec.Str(views.NameName) != c.Name {
		return false
	}
	if c.MinorUnits != nil && rec.Int(views.NameMinorUnits) != int64(*c.MinorUnits) {
		return false
	}
	want, err := decimal.NewFromString(string(c.ConversionRate))
	return err == nil && rec.Dec(views.NameConversionRate).Equal(want)
}

func sameRole(rec *engine.Record, r Role) bool {
	if rec == nil || rec.Str(views.NameName) != r.Name || rec.Str(views.NameProjectVisibility) != r.ProjectVisibility {
		return false
	}
	have, _ := rec.Attrs[views.NamePermissions].(map[string]any)
	for _, p := range scoping.Permissions {
		want := r.Permissions[p]
		if want == "" {
			want = engine.AccessNone
		}
		if got, _ := have[p].(string); got != want {
			return false
		}
	}
	return true
}

// sameMember reports whether the membership record already says what the
// spec says (EnsureMember would write these attributes).
func sameMember(rec *engine.Record, u User, roleID string) bool {
	if rec == nil || roleID == "" || rec.Rel(views.NameRoles) != roleID || len(rec.Rels[views.NameRoles]) != 1 {
		return false
	}
	return rec.Str(views.NameEmail) == u.Email && rec.Str(views.NameName) == u.Name && rec.Str(views.NameUserType) == u.UserType &&
		rec.Str(views.NameStatus) == u.Status && rec.Bool(views.NameActive) == (u.Status != auth.StatusDeactivated) &&
		rec.Bool("accepted") == (u.Status != auth.StatusInvited)
}
