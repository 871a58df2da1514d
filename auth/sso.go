package auth

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
)

// Single sign-on through an account's OpenID Connect identity provider
// (docs/auth.md "Single sign-on"). auth keeps its rules: which users an
// identity provider takes over from passwords, and who an email the
// provider verified signs in as. Talking to the provider is package sso's;
// the providers are records of package scoping, which implements
// IdentityProviders.

// IdentityProvider is an account's OpenID Connect provider, as a sign-in
// needs it.
type IdentityProvider struct {
	ID        string
	AccountID string
	Name      string
	Issuer    string // the issuer URL; discovery is at Issuer/.well-known/openid-configuration
	ClientID  string
	// ClientSecret is opened from its sealed copy for the sign-in; it
	// prints as a placeholder.
	ClientSecret Secret
	Domains      []string // the lower-case email domains it covers
	// Verified are those of Domains that its account has verified
	// (docs/auth.md "Single sign-on"): only they send people to it from
	// the login page, take passwords away and provision just in time.
	Verified []string
	// PasswordsAllowed lets the users of Domains sign in with a password
	// too; when false the login page sends them to the provider and the
	// password grant refuses them.
	PasswordsAllowed bool
	// JIT (just-in-time provisioning) makes a verified email of Verified
	// that is no member of the account a new active member, with the
	// provider's default role.
	JIT bool
}

// Covers reports whether the provider covers the domain of email, its
// account's verification aside: such an email of an existing member of
// the account signs in through it.
func (p *IdentityProvider) Covers(email string) bool {
	d := EmailDomain(email)
	return d != "" && slices.Contains(p.Domains, d)
}

// Routes reports whether the provider covers the domain of email and its
// account has verified that domain: the login page sends the person to
// it, and its PasswordsAllowed applies.
func (p *IdentityProvider) Routes(email string) bool {
	return p.Covers(email) && slices.Contains(p.Verified, EmailDomain(email))
}

// Provisions reports whether the provider makes a newcomer with email a
// member of its account: it provisions just in time and routes email.
func (p *IdentityProvider) Provisions(email string) bool { return p.JIT && p.Routes(email) }

// Secret is a string that never prints: fmt, log/slog and encoders show a
// placeholder. string(s) is the value.
type Secret string

const secretPlaceholder = "[secret]"

// String implements fmt.Stringer.
func (Secret) String() string { return secretPlaceholder }

// GoString implements fmt.GoStringer.
func (Secret) GoString() string { return secretPlaceholder }

// LogValue implements slog.LogValuer.
func (Secret) LogValue() slog.Value { return slog.StringValue(secretPlaceholder) }

// MarshalText implements encoding.TextMarshaler (JSON included).
func (Secret) MarshalText() ([]byte, error) { return []byte(secretPlaceholder), nil }

// EmailDomain returns the lower-case domain of an email address, "" when
// it has none.
func EmailDomain(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(email[at+1:]))
}

// IdentityProviders is how auth sees the accounts' identity providers;
// only active providers are seen. Methods return ENOTFOUND as listed; any
// other error is internal.
type IdentityProviders interface {
	// Covering returns the provider of the account that routes email
	// (IdentityProvider.Routes: it covers the email's domain and the
	// account has verified that domain). ENOTFOUND when there is none.
	Covering(ctx context.Context, accountID, email string) (*IdentityProvider, error)
	// Get returns the provider id of the account. ENOTFOUND when there is
	// none.
	Get(ctx context.Context, accountID, id string) (*IdentityProvider, error)
	// Any reports whether the account has a provider.
	Any(ctx context.Context, accountID string) (bool, error)
	// Provision makes the person whose email p verified a member of p's
	// account, active, with p's default role, when p (as stored now)
	// provisions email (IdentityProvider.Provisions, with the account's
	// verified domains as stored now) and the email is not yet a member
	// there, nor a service account; otherwise it changes nothing. name is
	// what the provider calls the person (CleanName's; "" when it does not
	// say).
	Provision(ctx context.Context, p *IdentityProvider, email, name string) error
}

// LoginSSORequired is the reason of a refused password sign-in of a user
// whose domain the account's identity provider covers without passwords.
const LoginSSORequired = "sso_required"

// LoginBadIdentity is the reason of a refused single sign-on whose
// provider asserted an email that is not one address (CheckEmail); the
// LoginError's Err says what is wrong.
const LoginBadIdentity = "bad_identity"

// IdentityProviderFor returns the account's identity provider covering
// email; ENOTFOUND when there is none (always, without Providers).
func (s *Service) IdentityProviderFor(ctx context.Context, accountID, email string) (*IdentityProvider, error) {
	if s.Providers == nil {
		return nil, errNoProvider()
	}
	return s.Providers.Covering(ctx, accountID, email)
}

// IdentityProvider returns the account's identity provider id; ENOTFOUND
// when there is none.
func (s *Service) IdentityProvider(ctx context.Context, accountID, id string) (*IdentityProvider, error) {
	if s.Providers == nil {
		return nil, errNoProvider()
	}
	return s.Providers.Get(ctx, accountID, id)
}

// OffersSingleSignOn reports whether the account has an identity provider.
func (s *Service) OffersSingleSignOn(ctx context.Context, accountID string) (bool, error) {
	if s.Providers == nil {
		return false, nil
	}
	return s.Providers.Any(ctx, accountID)
}

func errNoProvider() error { return scopekit.Errorf(scopekit.ENOTFOUND, "no identity provider") }

// passwordRefused reports whether the account's identity provider covering
// email takes its sign-ins away from passwords, or the membership m (nil
// when unknown) signs in by single sign-on only.
func (s *Service) passwordRefused(ctx context.Context, accountID, email string, m *Membership) (bool, error) {
	if m != nil && m.SSOOnly {
		return true, nil
	}
	p, err := s.IdentityProviderFor(ctx, accountID, email)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("auth: identity provider: %w", err)
	}
	return !p.PasswordsAllowed, nil
}

// AuthorizeSSO finishes a sign-in through identity provider p, which has
// verified that the person owns email: it returns a new authorization
// code for the request, as Authorize does after a password. It runs
// CheckAuthorize again and returns its errors, then a *LoginError when
// the email is not one address (LoginBadIdentity, CheckEmail), when p is
// not the application's account's or does not cover the email
// (LoginNotMember), or when the email's user may not sign in there: no
// member of the account (after provisioning it when p provisions email),
// a service account, invited or deactivated. Any other error is internal.
// name is what the provider calls the person; it is kept as CleanName
// leaves it. It asks for no second factor, whatever the user has or the
// account requires: the provider authenticated the person (docs/auth.md
// "Single sign-on").
func (s *Service) AuthorizeSSO(ctx context.Context, r *AuthorizeRequest, p *IdentityProvider, email, name string) (string, error) {
	app, err := s.CheckAuthorize(ctx, r)
	if err != nil {
		return "", err
	}
	if err := CheckEmail(email); err != nil {
		return "", &LoginError{Reason: LoginBadIdentity, Err: err}
	}
	if s.Providers == nil || p.AccountID != app.AccountID || !p.Covers(email) {
		return "", &LoginError{Reason: LoginNotMember}
	}
	if p.Provisions(email) {
		if err := s.Providers.Provision(ctx, p, email, CleanName(name)); err != nil {
			return "", fmt.Errorf("auth: provision: %w", err)
		}
	}
	subj, err := s.Directory.UserByEmail(ctx, email)
	if isNotFound(err) {
		return "", &LoginError{Reason: LoginNotMember}
	}
	if err != nil {
		return "", fmt.Errorf("auth: user by email: %w", err)
	}
	if subj.Service {
		return "", &LoginError{Reason: LoginServiceAccount}
	}
	m, err := s.Directory.Membership(ctx, subj.UserID, app.AccountID)
	if isNotFound(err) {
		m = nil
	} else if err != nil {
		return "", fmt.Errorf("auth: membership: %w", err)
	}
	if err := loginRefusal(m); err != nil {
		return "", err
	}
	return s.issueCode(ctx, app, r, subj.UserID, ProofSSO)
}
