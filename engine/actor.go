package engine

import "github.com/scopekit/scopekit"

// Access levels of a guard. Read access never grants write access.
const (
	AccessNone   = "none"
	AccessView   = "view"
	AccessManage = "manage"
)

// Actor is who a use case runs as: a user with the role of its membership
// in the account addressed. Its Account, User and Role records may be
// shared with other requests (SharedReader): they are read, never
// modified. The role's "permissions" attribute maps each guard to an
// access level.
type Actor struct {
	UserID  string
	Account *Record // the account addressed
	// User is the user's record in the account as read when the actor was
	// resolved (nil for system actors).
	User *Record
	Role *Record // nil: no role, no access
	// AllScopes is false for an actor that sees only some scopes
	// (Config.Scopes lists them).
	AllScopes bool

	scopes map[string]bool // the scopes seen, loaded on first use
}

// AccountID returns the id of the account addressed.
func (a *Actor) AccountID() string { return a.Account.ID }

// Level returns the actor's access level for guard p.
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

// RequireWrite returns an EFORBIDDEN error unless the actor may write
// records of def: its Guard and every one of its WriteGuards at manage
// level.
func (a *Actor) RequireWrite(def *TypeDef) error {
	if err := a.Require(def.Guard, true); err != nil {
		return err
	}
	for _, g := range def.WriteGuards {
		if err := a.Require(g, true); err != nil {
			return err
		}
	}
	return nil
}
