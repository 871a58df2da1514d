package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// No one grants more than they hold (docs/auth.md "Accounts are walls",
// rule 5): a role written, the role given to a user and an identity
// provider's default role are refused (EFORBIDDEN) when their permissions
// exceed the acting user's own in the account: a higher level of any
// permission, or project-visibility all for an actor that sees only its
// assigned projects. Without the rule a role with users manage (or
// settings manage, through a provider's default role) could make itself
// Account Admin.
//
// Its other side: no one manages what holds more than they do. A change
// to a user whose role exceeds the actor's own (their email, name, role
// or status, archiving them, resetting their second factor, issuing their
// service credentials) is refused the same way, and so is any change to a
// role that exceeds the actor's own, lowering it included (it would
// lower every member who holds it); without it a role with users manage
// could take an Account Admin's sign-in by changing their email, or demote
// every Account Admin at once by emptying their role. An identity provider
// signs in any member of its email domains, the most privileged included,
// so writing one needs as much as every role of the account (atTop; it
// makes providerRoleCeiling hold by itself, which stays as the design's
// rule 5 names it). The design is silent on this side; docs/auth.md
// says it.

// levelRank orders the access levels: none < view < manage.
func levelRank(level string) int {
	switch level {
	case engine.AccessManage:
		return 2
	case engine.AccessView:
		return 1
	}
	return 0
}

// beyondActor returns the first permission of role in which it exceeds
// what actor a holds ("project-visibility" for its visibility), "" when it
// exceeds nothing.
func beyondActor(a *engine.Actor, role *engine.Record) string {
	perms, _ := role.Attrs[views.NamePermissions].(map[string]any)
	for _, p := range Permissions {
		lvl, _ := perms[p].(string)
		if levelRank(lvl) > levelRank(a.Level(p)) {
			return p
		}
	}
	if (views.Role{Record: role}).ProjectVisibility() == "all" && !a.AllScopes {
		return views.NameProjectVisibility
	}
	return ""
}

// checkGrant refuses role when it exceeds the actor's own permissions;
// what names the grant for the message ("role", "the user's role", ...).
func checkGrant(c *engine.Call, role *engine.Record, what string) error {
	return ceilingError(c.Actor, role, what, "no one grants more than they hold")
}

// ceilingError is EFORBIDDEN when role exceeds actor a's own permissions,
// naming the first it exceeds, what holds the role and the rule.
func ceilingError(a *engine.Actor, role *engine.Record, what, rule string) error {
	p := beyondActor(a, role)
	if p == "" {
		return nil
	}
	name := (views.Role{Record: role}).Name()
	if p == views.NameProjectVisibility {
		return scopekit.Errorf(scopekit.EFORBIDDEN, "%s %q sees every project, and you see only your assigned ones: %s", what, name, rule)
	}
	perms, _ := role.Attrs[views.NamePermissions].(map[string]any)
	lvl, _ := perms[p].(string)
	return scopekit.Errorf(scopekit.EFORBIDDEN, "%s %q has %s %s, more than your own (%s): %s",
		what, name, p, lvl, a.Level(p), rule)
}

// ruleManage is the rule of that side, as the refusals say it.
const ruleManage = "no one manages what holds more than they do"

// memberCeiling refuses actor a a change to user, a member of its
// account, whose current role exceeds a's own permissions.
func memberCeiling(tx engine.Tx, a *engine.Actor, user *engine.Record) error {
	rid := user.Rel(views.NameRoles)
	if rid == "" {
		return nil
	}
	role, err := tx.Get(views.TypeRoles, user.AccountID, rid)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	return ceilingError(a, role, "this user's role", ruleManage)
}

// atTop refuses the call's actor unless it holds as much as every role
// of the account: no member can hold more. Identity providers and
// verified domains need it (why says what they do, for the refusal).
func atTop(c *engine.Call, why string) error {
	roles, err := c.Find(views.TypeRoles)
	if err != nil {
		return err
	}
	for _, r := range roles {
		if err := ceilingError(c.Actor, r, "role", why+", so writing one needs as much as every role of the account: "+ruleManage); err != nil {
			return err
		}
	}
	return nil
}

// What identity providers and verified domains do, as atTop says it.
const (
	whyProviders = "an identity provider signs in any member of its email domains"
	whyDomains   = "a verified domain decides how the account's people of that domain sign in (its providers route, provision and may take passwords away)"
)

// providerWriter is the identity providers' part of that side (atTop).
func providerWriter(_ context.Context, c *engine.Call, _, _ *engine.Record) []error {
	return []error{atTop(c, whyProviders)}
}

// roleByID returns the role of the call's account with id, nil when there
// is none (the engine reports a dangling reference itself).
func roleByID(c *engine.Call, id string) (*engine.Record, error) {
	if id == "" {
		return nil, nil
	}
	role, err := c.Tx.Get(views.TypeRoles, c.AccountID(), id)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, nil
	}
	return role, err
}

// roleCeiling is the roles' part of the rule: a role created or edited
// may not exceed its writer, and a role that exceeds its writer is not
// theirs to edit at all.
func roleCeiling(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	if old != nil {
		if err := ceilingError(c.Actor, old, "role", ruleManage); err != nil {
			return []error{err}
		}
	}
	return []error{checkGrant(c, rec, "role")}
}

// userRoleCeiling is the users' part: the role given to a new user (the
// Read Only role when none is named) or a changed role may not exceed the
// writer's own.
func userRoleCeiling(c *engine.Call, rec, old *engine.Record) error {
	rid := rec.Rel(views.NameRoles)
	if old != nil && old.Rel(views.NameRoles) == rid {
		return nil
	}
	role, err := roleByID(c, rid)
	if err != nil || role == nil {
		return err
	}
	return checkGrant(c, role, "role")
}

// providerRoleCeiling is the identity providers' part: the role a
// provider gives the people it provisions (its default-role, else the
// built-in one new members get) may not exceed its writer's own.
func providerRoleCeiling(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
	role, err := roleByID(c, rec.Rel(views.NameDefaultRole))
	if err == nil && role == nil && rec.Rel(views.NameDefaultRole) == "" {
		var found []*engine.Record
		found, err = c.Find(views.TypeRoles, engine.Eq(views.NameName, defaultJITRole))
		if len(found) > 0 {
			role = found[0]
		}
	}
	if err != nil {
		return []error{err}
	}
	if role == nil {
		return nil
	}
	return []error{checkGrant(c, role, "default-role")}
}

// validateAll runs the Validate hooks one after the other and returns
// their errors together (the engine answers a refusal that is not
// EINVALID alone).
func validateAll(hooks ...func(context.Context, *engine.Call, *engine.Record, *engine.Record) []error) func(context.Context, *engine.Call, *engine.Record, *engine.Record) []error {
	return func(ctx context.Context, c *engine.Call, rec, old *engine.Record) []error {
		var errs []error
		for _, h := range hooks {
			errs = append(errs, h(ctx, c, rec, old)...)
		}
		return errs
	}
}
