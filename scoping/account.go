package scoping

import (
	"context"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"golang.org/x/text/language"
)

// Accounts, users, roles and account settings (docs/resources.md, "Accounts,
// users, roles").

// reservedSlugs are the first path segments of the API's own routes
// (/v1, /v2, /oauth, /docs) and of the workspace (/app, and static and
// accept and invitations, segments after /app of its files, its share
// links' pages and its invitation pages): an account slug is the first
// segment of every other route, and the second of the workspace's, so no
// account may take one of these.
var reservedSlugs = map[string]bool{"v1": true, "v2": true, "oauth": true, "docs": true, "app": true, "static": true,
	"accept": true, "invitations": true}

// IsReservedSlug reports whether slug cannot name an account because a
// route of the API begins with it.
func IsReservedSlug(slug string) bool { return reservedSlugs[slug] }

func declareAccounts(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "accounts", Guard: "settings", Global: true, Versioned: true,
		Attrs: cat([]engine.AttrDef{unique(str("slug")), required(str("name")), required(str("default-currency")),
			// every user signing in to the account gives a second factor (auth.MFAPolicy)
			flag("mfa-required", false),
			// documents of projects not approved yet are marked DRAFT (docs/lifecycle.md)
			flag("watermark-drafts", false),
			{Name: "locale", Kind: engine.KindString, Default: DefaultLocale}},
			computed(engine.AttrDef{Name: "psa?", Kind: engine.KindBool})),
		Hooks: engine.Hooks{Validate: validateLocale, Compute: func(_ context.Context, c *engine.Call, recs []*engine.Record) error {
			for _, r := range recs {
				psa, _, err := c.Tx.List(&engine.Query{Type: "integrated-products", AccountID: r.ID,
					Where: []engine.Cond{engine.Eq("kind", "psa"), engine.Eq("connected", "true"), engine.Eq("enabled", "true")}, Limit: 1})
				if err != nil {
					return err
				}
				r.Attrs["psa?"] = len(psa) > 0
				if _, set := r.Attrs[views.NameMfaRequired]; !set { // accounts older than the setting
					r.Attrs[views.NameMfaRequired] = false
				}
				if l, _ := r.Attrs[views.NameLocale].(string); l == "" { // the locale documents print in
					r.Attrs[views.NameLocale] = DefaultLocale
				}
			}
			return nil
		}}})

	register(s, &engine.TypeDef{Name: "roles", Guard: "users", Versioned: true,
		Attrs: []engine.AttrDef{unique(str("name")), {Name: "permissions", Kind: engine.KindObject, NotNull: true},
			enum("project-visibility", "all", "all", "assigned")},
		Rels:    []engine.RelDef{inverse("users", "users", "roles")},
		Filters: named(),
		Hooks:   engine.Hooks{Delete: deleteRole, Validate: validateAll(validateRole, roleCeiling)}})

	register(s, &engine.TypeDef{Name: "users", Guard: "users", Archives: true, Versioned: true,
		Attrs: cat([]engine.AttrDef{withMaxLen(required(str("name")), MaxNameChars), withMaxLen(unique(str("email")), MaxEmailBytes), str("title"), str("phone"),
			enum("user-type", "standard", "standard", "service")},
			computed(enum("status", "", "invited", "active", "deactivated"))),
		Rels:    []engine.RelDef{toN("roles", "roles")},
		Filters: with(eq("email", "user-type", "status"), "name", engine.FilterDef{Op: engine.OpContains}),
		Hooks: engine.Hooks{Defaults: userDefaults, Validate: validateUser, AfterWrite: afterWriteUser,
			// DELETE deactivates the membership: a user's identity and its
			// history (projects, approvals) stay.
			Delete: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
				if err := memberCeiling(c.Tx, c.Actor, rec); err != nil {
					return err
				}
				revokeSignIns(c, rec, rec)
				wasActive := rec.Active()
				rec.Attrs["active"], rec.Attrs["status"] = false, "deactivated"
				if err := c.Tx.Replace(rec); err != nil || !wasActive {
					return err
				}
				return userLeftApprovals(c, rec)
			}},
	})

	register(s, &engine.TypeDef{Name: "payment-terms", Guard: "settings", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")),
			enum("pricing-model", "fixed_fee", "fixed_fee", "time_and_materials"),
			flag("include-expenses", true), flag("include-hardware", false), flag("default", false)},
		Filters: named(),
		Hooks:   engine.Hooks{AfterWrite: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) error { return keepOneDefault(c, rec) }}})

	// The account's general terms: clauses every statement of work prints
	// (active ones, by position), so a services team words them once.
	register(s, &engine.TypeDef{Name: "general-terms", Guard: "settings", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")), required(text("body")), num("position")}, Filters: named()})

	register(s, &engine.TypeDef{Name: "integrated-products", Guard: "settings",
		Attrs: []engine.AttrDef{required(str("name")), enum("kind", "other", "psa", "crm", "other"), str("vendor"),
			{Name: "connected", Kind: engine.KindBool, Default: false, Index: true},
			{Name: "enabled", Kind: engine.KindBool, Default: false, Index: true}}})

	register(s, &engine.TypeDef{Name: "clients", Guard: "clients", Archives: true, V2: true,
		Attrs:   []engine.AttrDef{unique(str("name")), str("domain"), date("msa-date"), obj("user-defined-fields")},
		Filters: map[string]engine.FilterDef{"name": {Op: engine.OpContains}},
		Hooks: engine.Hooks{Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
			return validateUDFs(c, "clients", rec)
		}}})

	register(s, &engine.TypeDef{Name: "approval-levels", Guard: "settings", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")), num("position"),
			enum("kind", "technical", "technical", "sales", "business"),
			{Name: "conditions", Kind: engine.KindAny}, withDefault(num("required-approvals"), int64(0)),
			flag("submitter-approves", false)},
		Rels:    []engine.RelDef{inverse("line-of-business-approvals", "line-of-business-approvals", "approval-level")},
		Filters: named(),
		Hooks: engine.Hooks{Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
			var errs []error
			if _, err := approval.ParseConditions(rec.Attrs["conditions"]); err != nil {
				e := scopekit.List(err)[0]
				errs = append(errs, scopekit.FieldErrorf(scopekit.EINVALID, "/data/attributes/"+e.Field, "%s", e.Message))
			}
			// the walk goes by position: two active levels may not share one
			if rec.Active() {
				others, err := c.Find("approval-levels", engine.Eq("active", "true"))
				if err != nil {
					return []error{err}
				}
				for _, o := range others {
					if o.ID != rec.ID && o.Int("position") == rec.Int("position") {
						errs = append(errs, engine.Invalid(engine.AttrPointer("position"), "another active approval level (%s) has position %d", o.Str("name"), rec.Int("position")))
					}
				}
			}
			return errs
		}},
	})
	register(s, &engine.TypeDef{Name: "line-of-business-approvals", Guard: "settings",
		Attrs: []engine.AttrDef{num("required-approvals")},
		Rels: []engine.RelDef{owner("approval-level", "approval-levels"), to1("line-of-business", "lines-of-business"),
			toN("approvers", "users")},
		Filters: eq("approval-level", "line-of-business"),
		Hooks:   engine.Hooks{AfterWrite: afterLevelApproversWrite},
	})
}

// validateRole checks a role's permissions: known names, known levels.
func validateRole(_ context.Context, _ *engine.Call, rec, _ *engine.Record) []error {
	m, _ := rec.Attrs[views.NamePermissions].(map[string]any)
	var errs []error
	for _, k := range sortedKeys(m) {
		if !slices.Contains(Permissions, k) {
			errs = append(errs, engine.Invalid(engine.AttrPointer(views.NamePermissions), "%q is not a permission (known: %s)", k, strings.Join(Permissions, ", ")))
			continue
		}
		if v, _ := m[k].(string); v != engine.AccessNone && v != engine.AccessView && v != engine.AccessManage {
			errs = append(errs, engine.Invalid(engine.AttrPointer(views.NamePermissions), "permission %s must be none, view or manage", k))
		}
	}
	return errs
}

// deleteRole removes a role that no user holds and no identity provider
// gives new members; otherwise it is a conflict, so that nobody loses
// permissions (or gets another role) as a side effect.
func deleteRole(_ context.Context, c *engine.Call, rec *engine.Record) error {
	if err := ceilingError(c.Actor, rec, "role", ruleManage); err != nil {
		return err
	}
	holders, err := c.Find(views.TypeUsers, engine.Eq(views.NameRoles, rec.ID))
	if err != nil {
		return err
	}
	if len(holders) > 0 {
		return scopekit.Errorf(scopekit.ECONFLICT, "role %q is assigned to %d user(s); give them another role first", views.Role{Record: rec}.Name(), len(holders))
	}
	idps, err := c.Find(views.TypeIdentityProviders, engine.Eq(views.NameDefaultRole, rec.ID))
	if err != nil {
		return err
	}
	if len(idps) > 0 {
		return scopekit.Errorf(scopekit.ECONFLICT, "role %q is the default-role of the identity provider %q; choose another first", views.Role{Record: rec}.Name(), views.IdentityProvider{Record: idps[0]}.Name())
	}
	return c.Tx.Delete(views.TypeRoles, rec.AccountID, rec.ID)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A user is one identity across accounts (one email, one id) with a
// membership per account; the users record of an account is that
// membership, carrying a copy of the identity's attributes.
var identityAttrs = []string{views.NameName, views.NameEmail, views.NameTitle, views.NamePhone, views.NameUserType}

// userDefaults makes a new user an invitation: status invited, the
// built-in Read Only role when none is given, and, when the email already
// belongs to a user of another account, that same identity.
func userDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	rec.Attrs[views.NameStatus] = "invited"
	if email := (views.User{Record: rec}).Email(); email != "" {
		others, _, err := c.Tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(others) > 0 && others[0].AccountID != c.AccountID() {
			if (views.User{Record: rec}).UserType() == "service" && (views.User{Record: others[0]}).UserType() != "service" {
				return scopekit.Errorf(scopekit.ECONFLICT, "this email is a person's who is a member of another account: a service account is a user of one account, with an email of its own")
			}
			if (views.User{Record: others[0]}).UserType() == "service" {
				// deactivated there too: a service account stays one
				// account's, and a write never changes the type asked for
				return scopekit.Errorf(scopekit.ECONFLICT, "this email is a service account's in another account: a service account is a user of one account; use another email address")
			}
			rec.ID = others[0].ID
			for _, a := range identityAttrs {
				if _, given := rec.Attrs[a]; !given || a == views.NameUserType {
					rec.Attrs[a] = others[0].Attrs[a]
				}
			}
		}
	}
	if len(views.User{Record: rec}.Roles()) == 0 {
		roles, err := c.Find(views.TypeRoles, engine.Eq(views.NameName, "Read Only"))
		if err != nil {
			return err
		}
		if len(roles) > 0 {
			rec.SetRel(views.NameRoles, roles[0].ID)
		}
	}
	return nil
}

func validateUser(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	u := views.User{Record: rec}
	var errs []error
	if e := u.Email(); e != "" {
		if err := CheckEmail(e); err != nil {
			errs = append(errs, err)
		}
	}
	if old != nil {
		if err := memberCeiling(c.Tx, c.Actor, old); err != nil {
			return []error{err}
		}
	}
	if len(u.Roles()) > 1 {
		errs = append(errs, engine.Invalid(engine.RelPointer(views.NameRoles), "a user has one role per account"))
	} else if err := userRoleCeiling(c, rec, old); err != nil {
		return []error{err}
	}
	if err := personRule(c, rec, old); err != nil {
		return []error{err}
	}
	if old != nil && (views.User{Record: old}).UserType() != "service" && u.UserType() == "service" {
		if confirm, _ := c.Meta["confirm"].(bool); !confirm {
			return []error{scopekit.Errorf(scopekit.ECONFLICT,
				"converting a user to a service account cannot be undone by signing in; send meta {\"confirm\": true} to confirm")}
		}
	}
	// A service account is never invited: it cannot sign in, so there is
	// nothing to accept; it authenticates with the credentials that
	// POST /users/{id}/credentials issues. Creating one, or converting an
	// invited user, makes the membership accepted and drops the invitation.
	if u.UserType() == "service" {
		rec.Attrs[acceptedAttr] = true
		delete(rec.Attrs, invitationDigestAttr)
		if u.Status() == "invited" {
			rec.Attrs[views.NameStatus] = "active"
		}
	}
	// archiving a membership deactivates it; restoring re-activates it
	switch {
	case !rec.Active():
		revokeSignIns(c, rec, old)
		rec.Attrs[views.NameStatus] = "deactivated"
	case u.Status() == "deactivated":
		rec.Attrs[views.NameStatus] = "active"
		if !rec.Bool(acceptedAttr) {
			rec.Attrs[views.NameStatus] = "invited"
		}
	}
	return errs
}

// afterWriteUser invites a newly created standard user (its token goes
// into the response's meta) and keeps the identity in sync across
// accounts on updates.
func afterWriteUser(ctx context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		if (views.User{Record: rec}).Status() == "invited" {
			return invite(c, rec)
		}
		return nil
	}
	if old.Active() && !rec.Active() { // archived: rules 4 and 5 of docs/approval.md
		if err := userLeftApprovals(c, rec); err != nil {
			return err
		}
	}
	return syncIdentity(ctx, c, rec, old)
}

// syncIdentity copies what belongs to the person (personAttrs) from an
// updated user to its memberships in other accounts, all deactivated by
// then (personRule), so that an email stays one identity.
func syncIdentity(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		return nil
	}
	changed := slices.ContainsFunc(personAttrs, func(a string) bool { return rec.Attrs[a] != old.Attrs[a] })
	if !changed {
		return nil
	}
	all, _, err := c.Tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq("id", rec.ID)}})
	if err != nil {
		return err
	}
	for _, m := range all {
		if m.AccountID == rec.AccountID {
			continue
		}
		for _, a := range personAttrs {
			m.Attrs[a] = rec.Attrs[a]
		}
		if err := c.Tx.Replace(m); err != nil {
			return err
		}
	}
	return nil
}

// validateLocale accepts a locale ParseLocale accepts and stores it in
// its canonical form.
func validateLocale(_ context.Context, _ *engine.Call, rec, _ *engine.Record) []error {
	l, _ := rec.Attrs[views.NameLocale].(string)
	if l == "" {
		return nil
	}
	canon, err := ParseLocale(l)
	if err != nil {
		return []error{err}
	}
	rec.Attrs[views.NameLocale] = canon
	return nil
}

// DefaultLocale is the locale of an account that has none set.
const DefaultLocale = "en-US"

// ParseLocale checks an account's locale, the one documents format money,
// numbers and percentages in: a BCP 47 language tag whose language
// golang.org/x/text knows (the template filters format with its CLDR
// data). It returns the tag's canonical form (de-de -> de-DE); EINVALID
// naming locale otherwise.
func ParseLocale(s string) (string, error) {
	t, err := language.Parse(s)
	if _, conf := t.Base(); err != nil || conf != language.Exact || strings.TrimSpace(s) != s {
		return "", engine.Invalid(engine.AttrPointer(views.NameLocale), "locale %q must be a BCP 47 language tag such as en-US or de-DE", s)
	}
	return t.String(), nil
}
