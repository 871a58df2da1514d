package scoping

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Identity providers: an account's OpenID Connect providers for single
// sign-on (docs/resources.md "identity-providers", docs/auth.md "Single
// sign-on"). The client secret is written, never served: the Validate
// hook seals it (with the server's Sealer, WebhookConfig.Sealer) into an
// attribute that is not declared, and drops the clear value before the
// record is stored. Package auth sees the providers through
// IdentityProviders; package sso talks to them.

const (
	// sealedClientSecretAttr is the hidden attribute holding the sealed
	// client secret (base64).
	sealedClientSecretAttr = "client-secret-sealed"
	// defaultJITRole is the role of a member provisioned just in time by
	// a provider that names none (the built-in role invitations get too).
	defaultJITRole = "Read Only"
)

func declareSingleSignOn(s *engine.Schema) {
	// who may sign people in to the account may give them roles: writes
	// need users manage too, and the default role obeys the grant ceiling;
	// and who may sign in any member holds what no member can exceed
	// (providerWriter, on writes and deletes)
	register(s, &engine.TypeDef{Name: "identity-providers", Guard: "settings", WriteGuards: []string{"users"},
		Attrs: []engine.AttrDef{required(str("name")), required(str("issuer-url")), required(str("client-id")),
			{Name: "client-secret", Kind: engine.KindString, NotNull: true},
			{Name: "email-domains", Kind: engine.KindList, Required: true, NotNull: true},
			flag("passwords-allowed", true), flag("jit-provisioning", false),
			{Name: "active", Kind: engine.KindBool, Default: true, Index: true}},
		Rels:    []engine.RelDef{to1("default-role", "roles")},
		Filters: named(),
		Hooks: engine.Hooks{Prepare: discoverIssuer, Validate: validateAll(providerWriter, validateIdentityProvider, providerRoleCeiling),
			AfterWrite: revokeOnPasswordsOff,
			Delete: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
				if err := atTop(c, whyProviders); err != nil {
					return err
				}
				return c.Remove(mustLookup(c.Engine.Schema(), views.TypeIdentityProviders), rec)
			}}})
}

// validateIdentityProvider checks the issuer URL (in its one form) and
// the email domains (normalized to lower case; no domain of two active
// providers of the account, none newly listed that another account has
// verified) and seals a client secret given by the write (required on
// create).
func validateIdentityProvider(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	var errs []error
	if iss, err := auth.NormalizeIssuer(rec.Str(views.NameIssuerURL)); err != nil {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameIssuerURL), "issuer-url %s", err))
	} else {
		rec.Attrs[views.NameIssuerURL] = iss
	}
	domains, derrs := normalizeDomains(rec.Strings(views.NameEmailDomains))
	errs = append(errs, derrs...)
	stored := make([]any, len(domains))
	for i, d := range domains {
		stored[i] = d
	}
	rec.Attrs[views.NameEmailDomains] = stored
	if err := newDomainsFree(c.Tx, domains, old, rec.AccountID); err != nil {
		return []error{err}
	}
	if rec.Active() && len(derrs) == 0 {
		others, err := c.Find(views.TypeIdentityProviders, engine.Eq(views.NameActive, "true"))
		if err != nil {
			return []error{err}
		}
		for _, o := range others {
			for _, d := range (views.IdentityProvider{Record: o}).EmailDomains() {
				if o.ID != rec.ID && slices.Contains(domains, d) {
					errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameEmailDomains),
						"email domain %s is already covered by the identity provider %q", d, views.IdentityProvider{Record: o}.Name()))
				}
			}
		}
	}
	secret, given := rec.Attrs[views.NameClientSecret].(string)
	delete(rec.Attrs, views.NameClientSecret) // never stored in clear
	switch {
	case given && strings.TrimSpace(secret) != "":
		sealer := svcOf(c).Webhooks.Sealer
		if sealer == nil {
			return []error{scopekit.Errorf(scopekit.EINTERNAL, "identity providers need a secret sealer (none configured)")}
		}
		sealed, err := sealer.Seal([]byte(secret))
		if err != nil {
			return []error{err}
		}
		rec.Attrs[sealedClientSecretAttr] = base64.StdEncoding.EncodeToString(sealed)
	case given || old == nil:
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameClientSecret), "client-secret can't be blank"))
	}
	return errs
}

// discoverIssuer checks a new or changed issuer URL by OpenID discovery
// (SSOConfig.CheckIssuer), before the write's transaction opens: a
// provider that cannot be reached, publishes no discovery document or
// names another issuer there is refused (422 naming issuer-url). A URL
// of the wrong form is left to validateIdentityProvider.
func discoverIssuer(ctx context.Context, c *engine.Call, old *engine.Record, in *engine.Input) error {
	check := svcOf(c).SSO.CheckIssuer
	raw, given := in.Attrs[views.NameIssuerURL]
	var s string
	if check == nil || !given || json.Unmarshal(raw, &s) != nil {
		return nil
	}
	iss, err := auth.NormalizeIssuer(s)
	if err != nil || (old != nil && old.Str(views.NameIssuerURL) == iss) {
		return nil
	}
	if err := check(ctx, iss); err != nil {
		return engine.Invalid(engine.AttrPointer(views.NameIssuerURL), "issuer-url %s", err.Error())
	}
	return nil
}

// normalizeDomains lower-cases and checks the email domains of a
// provider, without repeats: at least one, each a host name of two or
// more labels.
func normalizeDomains(in []string) ([]string, []error) {
	p := engine.AttrPointer(views.NameEmailDomains)
	var out []string
	var errs []error
	for _, d := range in {
		d = strings.ToLower(strings.TrimSpace(d))
		if !validDomain(d) {
			errs = append(errs, engine.Invalid(p, "%q is not an email domain such as example.com", d))
			continue
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if len(in) == 0 {
		errs = append(errs, engine.Invalid(p, "email-domains must name at least one domain"))
	}
	return out, errs
}

func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// IdentityProviders returns the auth.IdentityProviders over the
// identity-providers records of s (the active ones), whose client
// secrets s.Webhooks.Sealer opens.
func IdentityProviders(s *Service) auth.IdentityProviders { return identityProviders{s} }

type identityProviders struct{ s *Service }

// active returns the account's active providers and its verified
// domains, as one read sees them.
func (p identityProviders) active(ctx context.Context, accountID string) ([]*engine.Record, []string, error) {
	var recs []*engine.Record
	var verified []string
	err := engine.ViewRerun(ctx, p.s.eng.Store(), func(tx engine.Tx) error {
		var err error
		recs, _, err = tx.List(&engine.Query{Type: views.TypeIdentityProviders, AccountID: accountID,
			Where: []engine.Cond{engine.Eq(views.NameActive, "true")}})
		if err != nil {
			return err
		}
		verified, err = verifiedDomains(tx, accountID)
		return err
	})
	return recs, verified, err
}

func (p identityProviders) Covering(ctx context.Context, accountID, email string) (*auth.IdentityProvider, error) {
	recs, verified, err := p.active(ctx, accountID)
	if err != nil {
		return nil, err
	}
	d := auth.EmailDomain(email)
	if slices.Contains(verified, d) {
		for _, r := range recs {
			if slices.Contains((views.IdentityProvider{Record: r}).EmailDomains(), d) {
				return p.open(r, verified)
			}
		}
	}
	return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no identity provider routes %s", d)
}

func (p identityProviders) Get(ctx context.Context, accountID, id string) (*auth.IdentityProvider, error) {
	var rec *engine.Record
	var verified []string
	err := engine.ViewRerun(ctx, p.s.eng.Store(), func(tx engine.Tx) error {
		var err error
		if rec, err = tx.Get(views.TypeIdentityProviders, accountID, id); err != nil {
			return err
		}
		verified, err = verifiedDomains(tx, accountID)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !rec.Active() {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "identity provider %s is not active", id)
	}
	return p.open(rec, verified)
}

// Any reports whether one of the account's providers routes a domain (it
// covers a domain the account has verified): the login page offers single
// sign-on only then.
func (p identityProviders) Any(ctx context.Context, accountID string) (bool, error) {
	recs, verified, err := p.active(ctx, accountID)
	for _, r := range recs {
		for _, d := range (views.IdentityProvider{Record: r}).EmailDomains() {
			if slices.Contains(verified, d) {
				return true, err
			}
		}
	}
	return false, err
}

// open returns the provider of a record, its client secret opened, given
// its account's verified domains.
func (p identityProviders) open(rec *engine.Record, verified []string) (*auth.IdentityProvider, error) {
	sealer := p.s.Webhooks.Sealer
	if sealer == nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "identity providers need a secret sealer (none configured)")
	}
	sealed, err := base64.StdEncoding.DecodeString(rec.Str(sealedClientSecretAttr))
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "identity provider %s: malformed sealed secret", rec.ID)
	}
	secret, err := sealer.Open(sealed)
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "identity provider %s: %v", rec.ID, err)
	}
	v := views.IdentityProvider{Record: rec}
	var routed []string
	for _, d := range v.EmailDomains() {
		if slices.Contains(verified, d) {
			routed = append(routed, d)
		}
	}
	return &auth.IdentityProvider{ID: rec.ID, AccountID: rec.AccountID, Name: v.Name(), Issuer: v.IssuerURL(),
		ClientID: v.ClientID(), ClientSecret: auth.Secret(secret), Domains: v.EmailDomains(), Verified: routed,
		PasswordsAllowed: v.PasswordsAllowed(), JIT: v.JitProvisioning()}, nil
}

// Provision implements auth.IdentityProviders: one write transaction that
// reads the provider as stored now.
func (p identityProviders) Provision(ctx context.Context, idp *auth.IdentityProvider, email, name string) error {
	return p.s.Setup(ctx, func(a *Admin) error { return a.provision(idp.AccountID, idp.ID, email, name) })
}

// provision makes email an active member of the account with the default
// role of provider providerID, when that provider is active, provisions
// just in time and covers the email, whose domain the account has
// verified, and the email is neither a member
// of the account already nor a service account. An identity that exists
// in other accounts keeps its id and attributes, but the membership's
// name is what the provider calls the person (another account does not
// name this account's people). The membership signs in by single sign-on
// only (ssoOnlyAttr; auth.Membership.SSOOnly): a password the person has
// from another account was not chosen through this account's sign-in,
// and may have been chosen by another account's invitation.
func (a *Admin) provision(accountID, providerID, email, name string) error {
	tx := a.c.Tx
	rec, err := tx.Get(views.TypeIdentityProviders, accountID, providerID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	idp := views.IdentityProvider{Record: rec}
	if !rec.Active() || !idp.JitProvisioning() || !slices.Contains(idp.EmailDomains(), auth.EmailDomain(email)) {
		return nil
	}
	verified, err := verifiedDomains(tx, accountID)
	if err != nil || !slices.Contains(verified, auth.EmailDomain(email)) {
		return err // a domain not verified (now) provisions no one
	}
	email = strings.ToLower(strings.TrimSpace(email))
	u := engine.NewRecord(views.TypeUsers, accountID)
	others, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}, Limit: 1})
	if err != nil {
		return err
	}
	if len(others) > 0 {
		if (views.User{Record: others[0]}).UserType() == "service" {
			return nil
		}
		_, err := tx.Get(views.TypeUsers, accountID, others[0].ID)
		if err == nil || scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return err // already a member (whatever its status), or a failure
		}
		u.ID = others[0].ID
		for _, at := range identityAttrs {
			if v, ok := others[0].Attrs[at]; ok {
				u.Attrs[at] = v
			}
		}
		if name = strings.TrimSpace(name); name != "" {
			u.Attrs[views.NameName] = name
		}
	} else {
		if name = strings.TrimSpace(name); name == "" {
			name = email
		}
		u.Attrs[views.NameEmail], u.Attrs[views.NameName], u.Attrs[views.NameUserType] = email, name, "standard"
	}
	role, err := a.jitRole(accountID, idp)
	if err != nil {
		return err
	}
	u.Attrs[views.NameStatus], u.Attrs[views.NameActive], u.Attrs[acceptedAttr] = "active", true, true
	u.Attrs[ssoOnlyAttr] = true
	u.SetRel(views.NameRoles, role)
	if err := a.c.Engine.Schema().CheckAttrs(views.TypeUsers, u.Attrs); err != nil {
		return err
	}
	return tx.Insert(u)
}

// jitRole returns the id of the role of members the provider provisions:
// its default-role, else the account's Read Only role.
func (a *Admin) jitRole(accountID string, idp views.IdentityProvider) (string, error) {
	if id := idp.DefaultRole(); id != "" {
		return id, nil
	}
	roles, _, err := a.c.Tx.List(&engine.Query{Type: views.TypeRoles, AccountID: accountID,
		Where: []engine.Cond{engine.Eq(views.NameName, defaultJITRole)}, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(roles) == 0 {
		return "", scopekit.Errorf(scopekit.ECONFLICT, "identity provider %s has no default-role and the account has no %q role", idp.ID, defaultJITRole)
	}
	return roles[0].ID, nil
}
