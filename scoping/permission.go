package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Permission names (docs/resources.md).
var Permissions = []string{
	"projects", "project_approvals", "catalog", "clients", "rate_tables",
	"governance", "documents", "merge_data", "users", "settings",
	"settings.webhooks", "user_preferences",
}

// BuiltinRole is a role every new account gets.
type BuiltinRole struct {
	Name        string
	Permissions map[string]string
	Visibility  string
}

// BuiltinRoles are created with each account (and are editable like any role).
var BuiltinRoles = []BuiltinRole{
	{"Account Admin", perms("manage", "manage", "manage", "manage", "manage", "manage", "manage", "view", "manage", "manage", "manage", "manage"), "all"},
	{"Sales", perms("manage", "view", "view", "manage", "view", "view", "manage", "view", "view", "view", "none", "manage"), "all"},
	{"Engineer", perms("manage", "view", "view", "view", "view", "view", "manage", "none", "none", "none", "none", "manage"), "assigned"},
	{"Read Only", perms("view", "view", "view", "view", "view", "view", "view", "view", "none", "view", "none", "view"), "all"},
}

func perms(levels ...string) map[string]string {
	m := make(map[string]string, len(Permissions))
	for i, p := range Permissions {
		m[p] = levels[i]
	}
	return m
}

// ActorFor resolves the actor of user userID, whose token acts in the
// account with id accountID, for a route naming the account with slug
// (docs/auth.md "Accounts are walls": a token acts in one account only).
// An unknown slug is ENOTFOUND; another account's slug is EFORBIDDEN
// whatever memberships the user holds there; EUNAUTHORIZED when the user
// is no longer an active member of the token's account.
func (s *Service) ActorFor(ctx context.Context, userID, accountID, slug string) (*engine.Actor, error) {
	a, err := s.ActorForAccount(ctx, userID, accountID)
	if scopekit.ErrorCode(err) == scopekit.EFORBIDDEN {
		return nil, scopekit.Errorf(scopekit.EUNAUTHORIZED, "token user is no longer an active member")
	}
	if err != nil {
		return nil, err
	}
	if (views.Account{Record: a.Account}).Slug() == slug {
		return a, nil
	}
	err = engine.ViewRerun(ctx, s.eng.Store(), func(tx engine.Tx) error {
		_, err := accountBySlug(tx, slug)
		return err
	})
	if err != nil {
		return nil, err
	}
	return nil, scopekit.Errorf(scopekit.EFORBIDDEN, "this token acts in account %q only; sign in to account %q to act there",
		views.Account{Record: a.Account}.Slug(), slug)
}

// ActorForAccount resolves the actor of user userID in the account with id
// accountID (the account a token is scoped to). EFORBIDDEN when the user is
// not an active member there.
func (s *Service) ActorForAccount(ctx context.Context, userID, accountID string) (*engine.Actor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.cachedActor(ctx, actorKey{userID: userID, acct: accountID}, func() (*engine.Actor, error) {
		var a *engine.Actor
		err := engine.ViewRerun(ctx, s.eng.Store(), func(tx engine.Tx) error {
			user := engine.Key{Type: typeUsers, AccountID: accountID, ID: userID}
			engine.Prefetch(tx, engine.Key{Type: typeAccounts, ID: accountID}, user)
			engine.PrefetchVia(tx, engine.Via{From: user, Rel: views.NameRoles, Type: typeRoles})
			acct, err := engine.GetShared(tx, typeAccounts, "", accountID)
			if err != nil {
				return err
			}
			a, err = actorIn(tx, userID, acct)
			return err
		})
		return a, err
	})
}

func accountBySlug(tx engine.Tx, slug string) (*engine.Record, error) {
	recs, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, slug)}, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no account %q", slug)
	}
	return recs[0], nil
}

func actorIn(tx engine.Tx, userID string, acct *engine.Record) (*engine.Actor, error) {
	user := engine.Key{Type: typeUsers, AccountID: acct.ID, ID: userID}
	engine.Prefetch(tx, user)
	engine.PrefetchVia(tx, engine.Via{From: user, Rel: views.NameRoles, Type: typeRoles})
	u, err := engine.GetShared(tx, typeUsers, acct.ID, userID)
	if err != nil || (views.User{Record: u}).Status() != "active" {
		return nil, scopekit.Errorf(scopekit.EFORBIDDEN, "you are not a member of account %q", views.Account{Record: acct}.Slug())
	}
	a := &engine.Actor{UserID: userID, Account: acct, User: u, AllScopes: true}
	if rid := u.Rel(views.NameRoles); rid != "" {
		if role, err := engine.GetShared(tx, typeRoles, acct.ID, rid); err == nil {
			a.Role = role
			// fail closed: only an explicit "all" shows every project
			a.AllScopes = views.Role{Record: role}.ProjectVisibility() == "all"
		}
	}
	return a, nil
}
