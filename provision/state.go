package provision

import (
	"context"
	"fmt"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// dbState is what the database already holds of the spec's accounts and
// users; it serves both the checks against the database and the skipping
// of entries that are already as the spec says (so that a second run
// writes nothing, not even an updated-at).
type dbState struct {
	accounts   map[string]*engine.Record            // slug -> account
	roles      map[string]map[string]*engine.Record // account id -> lower-case name -> role
	currencies map[string]map[string]*engine.Record // account id -> code -> currency
	users      map[string]*engine.Record            // email -> a users record of that identity
}

// readState loads the part of the database the spec touches.
func (s *Spec) readState(ctx context.Context, store engine.Store) (*dbState, error) {
	st := &dbState{accounts: map[string]*engine.Record{}, roles: map[string]map[string]*engine.Record{},
		currencies: map[string]map[string]*engine.Record{}, users: map[string]*engine.Record{}}
	slugs := map[string]bool{}
	for _, a := range s.Accounts {
		slugs[a.Slug] = true
	}
	for _, u := range s.Users {
		for _, m := range u.Memberships {
			slugs[m.Account] = true
		}
	}
	err := store.View(ctx, func(tx engine.Tx) error {
		for slug := range slugs {
			recs, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, slug)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				continue
			}
			acct := recs[0]
			st.accounts[slug] = acct
			st.roles[acct.ID], st.currencies[acct.ID] = map[string]*engine.Record{}, map[string]*engine.Record{}
			roles, _, err := tx.List(&engine.Query{Type: views.TypeRoles, AccountID: acct.ID})
			if err != nil {
				return err
			}
			for _, r := range roles {
				st.roles[acct.ID][strings.ToLower(r.Str(views.NameName))] = r
			}
			curs, _, err := tx.List(&engine.Query{Type: views.TypeCurrencies, AccountID: acct.ID})
			if err != nil {
				return err
			}
			for _, c := range curs {
				st.currencies[acct.ID][c.Str(views.NameCode)] = c
			}
		}
		for _, u := range s.Users {
			recs, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, u.Email)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) > 0 {
				st.users[u.Email] = recs[0]
			}
		}
		return nil
	})
	return st, err
}

// members returns the memberships of the spec already in the database,
// keyed by account id and email (nil for those not there yet). They are
// read before the write transaction: bbolt readers must not nest inside
// the writer.
func (s *Spec) members(ctx context.Context, store engine.Store, st *dbState) (map[[2]string]*engine.Record, error) {
	members := map[[2]string]*engine.Record{}
	err := store.View(ctx, func(tx engine.Tx) error {
		for _, u := range s.Users {
			ident := st.users[u.Email]
			for _, m := range u.Memberships {
				acct := st.accounts[m.Account]
				if acct == nil {
					continue
				}
				key := [2]string{acct.ID, u.Email}
				members[key] = nil
				if ident == nil {
					continue
				}
				rec, err := tx.Get("users", acct.ID, ident.ID)
				if isNotFound(err) {
					continue
				}
				if err != nil {
					return err
				}
				members[key] = rec
			}
		}
		return nil
	})
	return members, err
}

// roleKnown reports whether the account (by slug) will have the role once
// the spec is applied: a role of the spec, a built-in role of a new
// account, or a role already in the database.
func (s *Spec) roleKnown(st *dbState, slug, role string) bool {
	key := strings.ToLower(role)
	acct := st.accounts[slug]
	if acct != nil && st.roles[acct.ID][key] != nil {
		return true
	}
	for _, a := range s.Accounts {
		if a.Slug != slug {
			continue
		}
		for _, r := range a.Roles {
			if strings.ToLower(r.Name) == key {
				return true
			}
		}
		if acct == nil {
			for _, br := range scoping.BuiltinRoles {
				if strings.ToLower(br.Name) == key {
					return true
				}
			}
		}
	}
	return false
}

// checkAgainst checks the spec against the database: memberships name
// accounts and roles that exist (in the spec or the database), and client
// ids are not taken by another account's application or another user's
// credentials. It returns the problems as scopekit.Errors, or the failure
// to read the auth store.
func (s *Spec) checkAgainst(ctx context.Context, st *dbState, as auth.Store) error {
	var p problems
	inSpec := map[string]bool{}
	for _, a := range s.Accounts {
		inSpec[a.Slug] = true
	}
	for i, a := range s.Accounts {
		e := EntryName("accounts", i, a.Slug)
		acct := st.accounts[a.Slug]
		for j, app := range a.OAuthApplications {
			ae, field := e+" "+EntryName("oauth-applications", j, app.ClientID), pointer("accounts", i, "oauth-applications", j, "client-id")
			if old, err := as.ApplicationByClientID(ctx, app.ClientID); err == nil {
				if acct == nil || old.AccountID != acct.ID {
					p.add(field, ae, "client-id %q belongs to an application of another account", app.ClientID)
				}
			} else if !isNotFound(err) {
				return readError(err)
			}
			if _, err := as.ServiceCredentialByClientID(ctx, app.ClientID); err == nil {
				p.add(field, ae, "client-id %q is already used by a service account", app.ClientID)
			} else if !isNotFound(err) {
				return readError(err)
			}
		}
	}
	for i, u := range s.Users {
		e := EntryName("users", i, u.Email)
		for j, m := range u.Memberships {
			if !inSpec[m.Account] && st.accounts[m.Account] == nil {
				p.add(pointer("users", i, "memberships", j, "account"), e, "membership account %q is not in the file or the database", m.Account)
				continue
			}
			if !s.roleKnown(st, m.Account, m.Role) {
				p.add(pointer("users", i, "memberships", j, "role"), e,
					"membership in %q: no role %q in that account (built-in roles: Account Admin, Sales, Engineer, Read Only)", m.Account, m.Role)
			}
		}
		if u.UserType != "service" || len(u.Memberships) != 1 {
			continue
		}
		field := pointer("users", i, "client-id")
		if _, err := as.ApplicationByClientID(ctx, u.ClientID); err == nil {
			p.add(field, e, "client-id %q is already used by an OAuth application", u.ClientID)
		} else if !isNotFound(err) {
			return readError(err)
		}
		old, err := as.ServiceCredentialByClientID(ctx, u.ClientID)
		if err != nil {
			if !isNotFound(err) {
				return readError(err)
			}
			continue
		}
		acct, ident := st.accounts[u.Memberships[0].Account], st.users[u.Email]
		if acct == nil || ident == nil || old.AccountID != acct.ID || old.UserID != ident.ID {
			p.add(field, e, "client-id %q is already used by another service account", u.ClientID)
		}
	}
	return p.err()
}

func readError(err error) error { return fmt.Errorf("read database: %w", err) }

func isNotFound(err error) bool { return scopekit.ErrorCode(err) == scopekit.ENOTFOUND }
