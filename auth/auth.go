// Package auth is ScopeKit's OAuth 2.0 token service: the clients (account
// OAuth applications and service-account credentials), the sign-in of the
// authorization code flow and its second factor (TOTP, mfa.go), the grants
// of POST /oauth/token, and the validation of bearer tokens. It knows nothing of
// HTTP: httpadapter parses the form and maps *OAuthError to a response.
//
// Secrets are never stored in clear. Client secrets and tokens are kept as
// SHA-256 digests, as docs/auth.md asks: tokens and generated secrets are 32
// random bytes, so a plain digest resists guessing and lets a token be found
// by its digest. Passwords, chosen by people, are hashed with bcrypt. A
// second factor's TOTP seed, which must be read back, is sealed (Sealer);
// its recovery codes (80 random bits) are kept as SHA-256 digests.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"time"
)

// Grant types accepted by POST /oauth/token.
const (
	GrantClientCredentials = "client_credentials"
	GrantPassword          = "password"
	GrantRefreshToken      = "refresh_token"
	GrantAuthorizationCode = "authorization_code"
)

// Token kinds.
const (
	KindAccess  = "access"
	KindRefresh = "refresh"
)

// Membership statuses, as in docs/resources.md.
const (
	StatusInvited     = "invited"
	StatusActive      = "active"
	StatusDeactivated = "deactivated"
)

// Directory is how auth sees users; the composition root implements it over
// the scoping records.
type Directory interface {
	// UserByEmail returns the user whose email matches, compared without
	// regard to case, whatever its accounts. ENOTFOUND when there is none.
	UserByEmail(ctx context.Context, email string) (*Subject, error)
	// Membership returns the user's membership in the account. ENOTFOUND
	// when the user is not a member of it.
	Membership(ctx context.Context, userID, accountID string) (*Membership, error)
}

// Subject is a user identity, one across all accounts.
type Subject struct {
	UserID  string
	Email   string
	Service bool // a service account: no password grant
}

// Membership is a user's place in one account.
type Membership struct {
	UserID    string
	AccountID string
	Status    string // StatusInvited, StatusActive or StatusDeactivated
	Service   bool
	// RevokedAt is when the membership was last deactivated (zero if
	// never): access and refresh tokens and codes issued until then stay
	// void once it is active again.
	RevokedAt time.Time
	// Email is the person's email, what the account's identity providers
	// cover.
	Email string
	// SSOOnly says an identity provider of the account made the
	// membership (just-in-time provisioning): it signs in to the account
	// by single sign-on only, whatever password the person has from
	// another account, since that password was not chosen by this
	// account's sign-in (docs/auth.md "Single sign-on").
	SSOOnly bool
}

// revokes reports whether the membership's last deactivation voids what
// was issued at the given time. Times are compared to the microsecond,
// the precision of RevokedAt in the users records.
func (m *Membership) revokes(issued time.Time) bool {
	return !m.RevokedAt.IsZero() && !issued.Truncate(time.Microsecond).After(m.RevokedAt)
}

// Application is an account-level OAuth client (password, authorization
// code and refresh token grants).
type Application struct {
	AccountID    string
	Name         string
	ClientID     string
	SecretDigest []byte // HashSecret of the client secret
	RedirectURIs []string
	CreatedAt    time.Time
}

// ServiceCredential is the client id and secret of one service-account user
// in one account (client credentials grant). A user has at most one per
// account.
type ServiceCredential struct {
	AccountID    string
	UserID       string
	ClientID     string
	SecretDigest []byte // HashSecret of the client secret
	CreatedAt    time.Time
}

// Token is an issued access or refresh token as stored: only its digest.
// Grant is the grant that authenticated the user (client_credentials,
// password or authorization_code); tokens minted by a refresh keep the
// grant of the refresh token they replace, so "a refresh token from a
// password grant" stays true along a rotation chain.
type Token struct {
	Digest []byte // HashSecret of the token value
	Kind   string // KindAccess or KindRefresh
	Grant  string
	// Proof is how the person proved who they are at the sign-in the
	// token comes from (ProofPassword, ProofPasswordMFA; "" for a service
	// account, a code exchange, or a token older than the field): a
	// refresh keeps it, and refreshing fails once the account's policy
	// asks for more (policy.go).
	Proof     string
	UserID    string
	AccountID string // the account the token is scoped to: its client's
	ClientID  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Store persists clients, password hashes, tokens and codes, and answers
// lookups by key. It keeps no rules of its own: which client ids are free,
// how many credentials a user has and when unused codes go are the
// Service's, which hands the store only complete records (no blank key).
// Methods return a *scopekit.Error with the codes listed; any other error
// is internal.
type Store interface {
	// ApplicationByClientID returns ENOTFOUND when there is none.
	ApplicationByClientID(ctx context.Context, clientID string) (*Application, error)
	// ServiceCredentialByClientID returns ENOTFOUND when there is none.
	ServiceCredentialByClientID(ctx context.Context, clientID string) (*ServiceCredential, error)
	// SetPasswordHash sets (or replaces) the bcrypt hash of a user's password.
	SetPasswordHash(ctx context.Context, userID string, hash []byte) error
	// PasswordHash returns ENOTFOUND when the user has no password.
	PasswordHash(ctx context.Context, userID string) ([]byte, error)
	// PutToken stores t under t.Digest.
	PutToken(ctx context.Context, t *Token) error
	// TokenByDigest returns ENOTFOUND when there is none.
	TokenByDigest(ctx context.Context, digest []byte) (*Token, error)
	// DeleteToken removes the token. ENOTFOUND when there was none, so that
	// of two requests consuming the same single-use token only one wins.
	DeleteToken(ctx context.Context, digest []byte) error
	// DeleteRefreshTokens removes the refresh tokens f selects
	// (RefreshFilter.Selects) and returns how many there were.
	DeleteRefreshTokens(ctx context.Context, f RefreshFilter) (int, error)
	// TakeAuthCode removes the code and returns it, in one step: of two
	// exchanges naming the same code only one gets it. ENOTFOUND when there
	// is none.
	TakeAuthCode(ctx context.Context, digest []byte) (*AuthCode, error)
	// MFA returns the user's second factor; ENOTFOUND when there is none.
	MFA(ctx context.Context, userID string) (*MFA, error)
	// TakeSignIn removes the sign-in in progress and returns it, in one
	// step: of two requests naming the same one only one gets it.
	// ENOTFOUND when there is none.
	TakeSignIn(ctx context.Context, digest []byte) (*PendingSignIn, error)
	// Update runs fn in one write transaction, committed when fn returns
	// nil and rolled back otherwise. Transactions that read or write the
	// same client id, the credentials of the same user in the same
	// account, or the second factor of the same user, run one after the
	// other, so that what fn checked still
	// holds when it commits. fn may run more than once (a store retries a
	// transaction that conflicted), so it must have no other effects.
	Update(ctx context.Context, fn func(Tx) error) error
}

// Tx is a write transaction of a Store (Store.Update); its reads see its
// own writes. Methods return the codes listed; any other error is
// internal.
type Tx interface {
	// ApplicationByClientID returns ENOTFOUND when there is none.
	ApplicationByClientID(clientID string) (*Application, error)
	// ServiceCredentialByClientID returns ENOTFOUND when there is none.
	ServiceCredentialByClientID(clientID string) (*ServiceCredential, error)
	// ServiceCredentials returns the user's service credentials in the
	// account, by client id.
	ServiceCredentials(accountID, userID string) ([]*ServiceCredential, error)
	// PutApplication stores a under a.ClientID, replacing what was there.
	PutApplication(a *Application) error
	// PutServiceCredential stores c under c.ClientID, replacing what was
	// there.
	PutServiceCredential(c *ServiceCredential) error
	// DeleteServiceCredential removes the credential; none is no error.
	DeleteServiceCredential(clientID string) error
	// PutAuthCode stores c under c.Digest.
	PutAuthCode(c *AuthCode) error
	// DeleteAuthCodesExpiredBefore removes the codes whose ExpiresAt is
	// before t.
	DeleteAuthCodesExpiredBefore(t time.Time) error
	// MFA returns the user's second factor; ENOTFOUND when there is none.
	MFA(userID string) (*MFA, error)
	// PutMFA stores m under m.UserID, replacing what was there.
	PutMFA(m *MFA) error
	// DeleteMFA removes the user's second factor; none is no error.
	DeleteMFA(userID string) error
	// PutSignIn stores p under p.Digest, replacing what was there.
	PutSignIn(p *PendingSignIn) error
	// DeleteSignInsExpiredBefore removes the sign-ins in progress whose
	// ExpiresAt is before t.
	DeleteSignInsExpiredBefore(t time.Time) error
}

// HashSecret returns the SHA-256 digest under which a client secret or a
// token is stored.
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// SecretMatches reports whether secret is the one stored as digest, in
// constant time.
func SecretMatches(digest []byte, secret string) bool {
	return subtle.ConstantTimeCompare(HashSecret(secret), digest) == 1
}
