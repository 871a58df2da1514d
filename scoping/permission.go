package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
)

// Access levels of a permission. Read access never grants write access.
const (
	AccessNone   = "none"
	AccessView   = "view"
	AccessManage = "manage"
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

// Actor is who a request runs as: a user with the role of its membership in
// the account addressed. Its Account, User and Role records may be shared
// with other requests (SharedReader): they are read, never modified.
type Actor struct {
	UserID  string
	Account *Record // the account addressed
	// User is the user's record in the account as read when the actor was
	// resolved (nil for system actors).
	User *Record
	Role *Record // nil: no role, no permissions
	// AllProjects is false for roles with project-visibility "assigned".
	AllProjects bool

	visible map[string]bool // assigned projects, loaded on first use
}

// AccountID returns the id of the account addressed.
func (a *Actor) AccountID() string { return a.Account.ID }

// Level returns the actor's access level for permission p.
func (a *Actor) Level(p string) string {
	if a.Role == nil {
		return AccessNone
	}
	m, _ := a.Role.Attrs["permissions"].(map[string]any)
	if lvl, ok := m[p].(string); ok {
		return lvl
	}
	return AccessNone
}

// Can reports whether the actor may read (write false) or write under p.
func (a *Actor) Can(p string, write bool) bool {
	switch a.Level(p) {
	case AccessManage:
		return true
	case AccessView:
		return !write
	}
	return false
}

// Require returns an EFORBIDDEN error unless the actor may act under p.
func (a *Actor) Require(p string, write bool) error {
	if a.Can(p, write) {
		return nil
	}
	lvl := AccessView
	if write {
		lvl = AccessManage
	}
	return scopekit.Errorf(scopekit.EFORBIDDEN, "this action needs the %s permission at %s level", p, lvl)
}

// ActorFor resolves the actor of user userID in the account with slug.
// An unknown slug is ENOTFOUND; an account the user is not an active member
// of is EFORBIDDEN.
func (s *Service) ActorFor(ctx context.Context, userID, slug string) (*Actor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.cachedActor(actorKey{userID: userID, acct: slug, bySlug: true}, func() (*Actor, error) {
		var a *Actor
		err := s.store.View(ctx, func(tx Tx) error {
			acct, err := accountBySlug(tx, slug)
			if err != nil {
				return err
			}
			a, err = actorIn(tx, userID, acct)
			return err
		})
		return a, err
	})
}

// ActorForAccount resolves the actor of user userID in the account with id
// accountID (the account a token is scoped to).
func (s *Service) ActorForAccount(ctx context.Context, userID, accountID string) (*Actor, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.cachedActor(actorKey{userID: userID, acct: accountID}, func() (*Actor, error) {
		var a *Actor
		err := s.store.View(ctx, func(tx Tx) error {
			acct, err := getShared(tx, typeAccounts, "", accountID)
			if err != nil {
				return err
			}
			a, err = actorIn(tx, userID, acct)
			return err
		})
		return a, err
	})
}

func accountBySlug(tx Tx, slug string) (*Record, error) {
	recs, _, err := tx.List(&Query{Type: "accounts", Where: []Cond{{Field: "slug", Op: OpIn, Values: []string{slug}}}, Limit: 1})
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no account %q", slug)
	}
	return recs[0], nil
}

func actorIn(tx Tx, userID string, acct *Record) (*Actor, error) {
	u, err := getShared(tx, typeUsers, acct.ID, userID)
	if err != nil || u.Str("status") != "active" {
		return nil, scopekit.Errorf(scopekit.EFORBIDDEN, "you are not a member of account %q", acct.Str("slug"))
	}
	a := &Actor{UserID: userID, Account: acct, User: u, AllProjects: true}
	if rid := u.Rel("roles"); rid != "" {
		if role, err := getShared(tx, typeRoles, acct.ID, rid); err == nil {
			a.Role = role
			// fail closed: only an explicit "all" shows every project
			a.AllProjects = role.Str("project-visibility") == "all"
		}
	}
	return a, nil
}
