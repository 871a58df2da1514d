package scoping

import (
	"context"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Admin creates and updates what the API itself cannot: accounts, roles by
// name and memberships. Composition roots (the bootstrap file, demo data,
// tests) use it through Service.Setup; it checks no permissions.
type Admin struct{ c *engine.Call }

// Setup runs fn with an Admin inside one write transaction: everything fn
// does commits together or not at all.
func (s *Service) Setup(ctx context.Context, fn func(a *Admin) error) error {
	_, err := s.write(ctx, &engine.Actor{Account: &engine.Record{}, AllScopes: true}, func(c *engine.Call) error {
		return fn(&Admin{c: c})
	})
	return err
}

// AccountBySlug returns the account with the slug (ENOTFOUND when none).
func (a *Admin) AccountBySlug(slug string) (*engine.Record, error) {
	return accountBySlug(a.c.Tx, slug)
}

// EnsureAccount creates the account with its built-in roles and
// templates, or updates
// the name and default currency of the existing one.
func (a *Admin) EnsureAccount(slug, name, currency string) (*engine.Record, error) {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if _, ok := ISOCurrency(currency); slug == "" || name == "" || !ok {
		return nil, scopekit.Errorf(scopekit.EINVALID, "account %q needs a slug, a name and an ISO 4217 default-currency", slug)
	}
	if err := a.c.Engine.Schema().CheckAttrs(views.TypeAccounts, map[string]any{views.NameSlug: slug, views.NameName: name}); err != nil {
		return nil, err
	}
	acct, err := accountBySlug(a.c.Tx, slug)
	switch {
	case err == nil:
		acct.Attrs[views.NameName], acct.Attrs[views.NameDefaultCurrency] = name, currency
		return acct, a.c.Tx.Replace(acct)
	case scopekit.ErrorCode(err) != scopekit.ENOTFOUND:
		return nil, err
	}
	acct = engine.NewRecord(views.TypeAccounts, "")
	acct.Attrs[views.NameSlug], acct.Attrs[views.NameName], acct.Attrs[views.NameDefaultCurrency] = slug, name, currency
	if err := a.c.Tx.Insert(acct); err != nil {
		return nil, err
	}
	for _, br := range BuiltinRoles {
		if _, err := a.EnsureRole(acct.ID, br.Name, br.Permissions, br.Visibility); err != nil {
			return nil, err
		}
	}
	if _, err = a.EnsureCurrency(acct.ID, currency, currency, "1"); err != nil {
		return nil, err
	}
	return acct, a.ensureBuiltinTemplates(acct.ID)
}

// SetAccountLocale sets the locale of the account (ParseLocale), the one
// its documents format money, numbers and percentages in.
func (a *Admin) SetAccountLocale(accountID, locale string) (*engine.Record, error) {
	l, err := ParseLocale(locale)
	if err != nil {
		return nil, err
	}
	acct, err := a.c.Tx.Get(views.TypeAccounts, "", accountID)
	if err != nil {
		return nil, err
	}
	acct.Attrs[views.NameLocale] = l
	return acct, a.c.Tx.Replace(acct)
}

// EnsureRole creates or updates the role with that name in the account.
func (a *Admin) EnsureRole(accountID, name string, perms map[string]string, visibility string) (*engine.Record, error) {
	if visibility == "" {
		visibility = "all"
	}
	if visibility != "all" && visibility != "assigned" {
		return nil, scopekit.Errorf(scopekit.EINVALID, "role %q: project-visibility must be all or assigned", name)
	}
	pm := map[string]any{}
	for _, p := range Permissions {
		pm[p] = engine.AccessNone
	}
	for k, v := range perms {
		if !slices.Contains(Permissions, k) || (v != engine.AccessNone && v != engine.AccessView && v != engine.AccessManage) {
			return nil, scopekit.Errorf(scopekit.EINVALID, "role %q: %s: %s is not a permission level", name, k, v)
		}
		pm[k] = v
	}
	return a.upsert(views.TypeRoles, accountID, views.NameName, name, map[string]any{views.NameName: name, views.NamePermissions: pm, views.NameProjectVisibility: visibility})
}

// EnsureCurrency creates or updates a currency of the account, with the
// minor units of ISO 4217.
func (a *Admin) EnsureCurrency(accountID, code, name, rate string) (*engine.Record, error) {
	return a.SetCurrency(accountID, Currency{Code: code, Name: name, ConversionRate: rate})
}

// Currency describes a currency for SetCurrency.
type Currency struct {
	Code, Name, ConversionRate string
	MinorUnits                 *int // nil: from ISO 4217
}

// SetCurrency creates or updates a currency of the account: an ISO 4217
// code, a positive rate (1 for the account's default currency).
func (a *Admin) SetCurrency(accountID string, c Currency) (*engine.Record, error) {
	standard, ok := ISOCurrency(c.Code)
	if !ok {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, engine.AttrPointer(views.NameCode), "currency %q is not an ISO 4217 code", c.Code)
	}
	d, err := engine.ParseDecimal(c.ConversionRate)
	if err != nil || !d.IsPositive() {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, engine.AttrPointer(views.NameConversionRate), "currency %s: conversion-rate must be a positive number", c.Code)
	}
	acct, err := a.c.Tx.Get(views.TypeAccounts, "", accountID)
	if err != nil {
		return nil, err
	}
	if c.Code == (views.Account{Record: acct}).DefaultCurrency() && !d.Equal(decimal.NewFromInt(1)) {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, engine.AttrPointer(views.NameConversionRate), "currency %s is the account's default: its conversion-rate is always 1", c.Code)
	}
	minor := int64(standard)
	if c.MinorUnits != nil {
		if *c.MinorUnits < 0 || *c.MinorUnits > maxMinorUnits {
			return nil, scopekit.FieldErrorf(scopekit.EINVALID, engine.AttrPointer(views.NameMinorUnits), "currency %s: minor-units must be between 0 and %d", c.Code, maxMinorUnits)
		}
		minor = int64(*c.MinorUnits)
	}
	return a.upsert(views.TypeCurrencies, accountID, views.NameCode, c.Code, map[string]any{views.NameCode: c.Code, views.NameName: c.Name,
		views.NameConversionRate: d.String(), views.NameMinorUnits: minor})
}

// Member describes a membership for EnsureMember.
type Member struct {
	Email, Name, UserType string
	Status                string // invited, active (default) or deactivated
	Role                  string // role name in the account
}

// EnsureMember creates or updates the user with that email (one identity
// across accounts) and its membership in the account.
func (a *Admin) EnsureMember(accountID string, m Member) (*engine.Record, error) {
	if m.UserType == "" {
		m.UserType = "standard"
	}
	if m.Status == "" {
		m.Status = "active"
	}
	if CheckEmail(m.Email) != nil || m.Name == "" {
		return nil, scopekit.Errorf(scopekit.EINVALID, "user %q needs one email address and a name", m.Email)
	}
	roles, _, err := a.c.Tx.List(&engine.Query{Type: views.TypeRoles, AccountID: accountID, Where: []engine.Cond{engine.Eq(views.NameName, m.Role)}})
	if err != nil {
		return nil, err
	}
	if len(roles) == 0 {
		return nil, scopekit.Errorf(scopekit.EINVALID, "user %s: no role %q in the account", m.Email, m.Role)
	}
	attrs := map[string]any{views.NameEmail: strings.ToLower(m.Email), views.NameName: m.Name, views.NameUserType: m.UserType,
		views.NameStatus: m.Status, views.NameActive: m.Status != "deactivated", acceptedAttr: m.Status != "invited"}
	if err := a.c.Engine.Schema().CheckAttrs(views.TypeUsers, attrs); err != nil {
		return nil, err
	}
	others, _, err := a.c.Tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, m.Email)}, Limit: 1})
	if err != nil {
		return nil, err
	}
	id := ""
	if len(others) > 0 {
		id = others[0].ID
	}
	u, err := a.c.Tx.Get(views.TypeUsers, accountID, id)
	if err != nil {
		u = engine.NewRecord(views.TypeUsers, accountID)
		u.ID = id
	}
	for k, v := range attrs {
		u.Attrs[k] = v
	}
	u.SetRel(views.NameRoles, roles[0].ID)
	if u.CreatedAt == "" {
		err = a.c.Tx.Insert(u)
	} else {
		err = a.c.Tx.Replace(u)
	}
	if err != nil {
		return nil, err
	}
	return u, syncIdentity(context.Background(), a.c, u, &engine.Record{Attrs: map[string]any{}})
}

// upsert creates or updates the record of typ whose key attribute equals
// value.
func (a *Admin) upsert(typ, accountID, key, value string, attrs map[string]any) (*engine.Record, error) {
	if err := a.c.Engine.Schema().CheckAttrs(typ, attrs); err != nil {
		return nil, err
	}
	found, _, err := a.c.Tx.List(&engine.Query{Type: typ, AccountID: accountID, Where: []engine.Cond{engine.Eq(key, value)}})
	if err != nil {
		return nil, err
	}
	if len(found) > 0 {
		r := found[0]
		for k, v := range attrs {
			r.Attrs[k] = v
		}
		return r, a.c.Tx.Replace(r)
	}
	r := engine.NewRecord(typ, accountID)
	r.Attrs = attrs
	return r, a.c.Tx.Insert(r)
}

// SystemActor returns an actor with every permission in the account, for
// composition roots that seed data through the generic engine (demo data,
// tests). It is never derived from a request.
func (s *Service) SystemActor(ctx context.Context, accountID string) (*engine.Actor, error) {
	var a *engine.Actor
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		acct, err := tx.Get(views.TypeAccounts, "", accountID)
		if err != nil {
			return err
		}
		perms := map[string]any{}
		for _, p := range Permissions {
			perms[p] = engine.AccessManage
		}
		a = &engine.Actor{Account: acct, AllScopes: true, Role: &engine.Record{Attrs: map[string]any{views.NamePermissions: perms}}}
		return nil
	})
	return a, err
}

// Account returns the record of the actor's account, with psa? computed.
// Every member may read it (it holds nothing but the name, slug, default
// currency and psa?); changing it needs settings manage.
func (s *Service) Account(ctx context.Context, a *engine.Actor) (*engine.Result, error) {
	def := mustLookup(s.Schema(), views.TypeAccounts)
	var res *engine.Result
	err := s.read(ctx, a, func(c *engine.Call) error {
		acct, err := c.Tx.Get(views.TypeAccounts, "", a.AccountID())
		if err != nil {
			return err
		}
		res = &engine.Result{Records: []*engine.Record{acct}, Total: 1, Single: true}
		return c.Compute(ctx, def, res.Records)
	})
	return res, err
}

// UpdateAccount changes the settings of the actor's account that its
// administrators own: mfa-required (a boolean) and locale (ParseLocale);
// the slug, name and currency are the operator's (bootstrap file). Needs
// settings manage. EBADREQUEST naming another attribute or a
// relationship, EINVALID for a value that is not a boolean or a locale.
func (s *Service) UpdateAccount(ctx context.Context, a *engine.Actor, in *engine.Input) (*engine.Result, error) {
	def := mustLookup(s.Schema(), views.TypeAccounts)
	if err := a.Require(def.Guard, true); err != nil {
		return nil, err
	}
	for name := range in.Attrs {
		if name != views.NameMfaRequired && name != views.NameLocale && name != views.NameWatermarkDrafts {
			return nil, engine.BadAttr(name, "%s cannot be changed here; only %s, %s and %s can", name, views.NameMfaRequired, views.NameLocale, views.NameWatermarkDrafts)
		}
	}
	if len(in.Rels) > 0 {
		return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, "/data/relationships", "the account has no writable relationships")
	}
	mfa, _ := def.Attr(views.NameMfaRequired)
	locale, _ := def.Attr(views.NameLocale)
	return s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		acct, err := c.Tx.Get(views.TypeAccounts, "", a.AccountID())
		if err != nil {
			return nil, err
		}
		var errs scopekit.Errors
		if raw, ok := in.Attrs[mfa.Name]; ok {
			switch v, err := engine.DecodeAttr(mfa, raw); {
			case err != nil:
				return nil, err
			case v == nil:
				errs = append(errs, engine.Invalid(engine.AttrPointer(mfa.Name), "%s must be true or false", mfa.Name))
			default:
				if v == true && !(views.Account{Record: acct}).MfaRequired() {
					revokeAfterCommit(c, acct.ID, nil, false)
				}
				acct.Attrs[mfa.Name] = v
			}
		}
		if raw, ok := in.Attrs[locale.Name]; ok {
			v, derr := engine.DecodeAttr(locale, raw)
			if derr != nil {
				return nil, derr
			}
			given, _ := v.(string)
			l, err := ParseLocale(given)
			errs = append(errs, scopekit.List(err)...)
			acct.Attrs[locale.Name] = l
		}
		if raw, ok := in.Attrs[views.NameWatermarkDrafts]; ok {
			wm, _ := def.Attr(views.NameWatermarkDrafts)
			switch v, err := engine.DecodeAttr(wm, raw); {
			case err != nil:
				return nil, err
			case v == nil:
				errs = append(errs, engine.Invalid(engine.AttrPointer(wm.Name), "%s must be true or false", wm.Name))
			default:
				acct.Attrs[wm.Name] = v
			}
		}
		if err := errs.Err(); err != nil {
			return nil, err
		}
		return acct, c.Tx.Replace(acct)
	})
}

// Me returns the actor's own users record in the account: the one read
// when the actor was resolved (one request), else the stored one.
func (s *Service) Me(ctx context.Context, a *engine.Actor) (*engine.Record, error) {
	if a.User != nil && a.User.ID == a.UserID {
		return a.User, nil
	}
	var u *engine.Record
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		var err error
		u, err = tx.Get(views.TypeUsers, a.AccountID(), a.UserID)
		return err
	})
	return u, err
}

// The user preferences (`PATCH /v1/me`): the settings design a user
// picks, classic until it picks modern.
const (
	PreferenceSettingsDesign = "settings-design"
	DesignClassic            = "classic"
	DesignModern             = "modern"
)

// SettingsDesign returns the settings design of a user record (Me's):
// the one it picked, else the default, classic.
func SettingsDesign(user *engine.Record) string {
	if d := user.Str(PreferenceSettingsDesign); d != "" {
		return d
	}
	return DesignClassic
}

// UpdatePreferences sets the actor's own preferences: only
// `settings-design` (classic or modern), with user_preferences manage.
func (s *Service) UpdatePreferences(ctx context.Context, a *engine.Actor, in *engine.Input) (*engine.Record, error) {
	if err := a.Require("user_preferences", true); err != nil {
		return nil, err
	}
	design := engine.AttrDef{Name: PreferenceSettingsDesign, Kind: engine.KindEnum, Enum: []string{DesignClassic, DesignModern}}
	for name := range in.Attrs {
		if name != design.Name {
			return nil, engine.BadAttr(name, "%s cannot be changed here; only settings-design can", name)
		}
	}
	if len(in.Rels) > 0 {
		return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, "/data/relationships", "me has no writable relationships")
	}
	var u *engine.Record
	err := s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		var err error
		if u, err = tx.Get(views.TypeUsers, a.AccountID(), a.UserID); err != nil {
			return err
		}
		if raw, ok := in.Attrs[design.Name]; ok {
			v, e := engine.DecodeAttr(&design, raw)
			if e != nil {
				return e
			}
			if v == nil || v == "" {
				return engine.Invalid(engine.AttrPointer(design.Name), "settings-design must be classic or modern")
			}
			u.Attrs[design.Name] = v
		}
		return tx.Replace(u)
	})
	return u, err
}
