package auth

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
)

// Principal is who a valid access token speaks for.
type Principal struct {
	UserID    string
	AccountID string // the account the token is scoped to
	ClientID  string
	Grant     string // the grant that authenticated the user
	ExpiresAt time.Time
}

// Bearer tokens are base64url; ours are tokenBytes long, and nothing sane
// is longer than maxBearerLen, so anything else is refused without a store
// read.
const (
	minBearerLen = (tokenBytes*8 + 5) / 6
	maxBearerLen = 512
)

// BearerToken returns the token of an Authorization header value of the
// Bearer scheme. The scheme name is case-insensitive (RFC 9110 11.1) and
// may be followed by more than one space; ok is false for any other scheme
// or an empty token.
func BearerToken(authorization string) (token string, ok bool) {
	scheme, rest, found := strings.Cut(strings.TrimLeft(authorization, " "), " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.Trim(rest, " ")
	return token, token != ""
}

// Authenticate validates the value of an "Authorization: Bearer" header.
// It returns EUNAUTHORIZED for a malformed, unknown or expired token, a
// refresh token, a token whose user's membership in the token's account is
// missing or not active or was deactivated after the token was issued, a client_credentials token whose service
// credential has since been replaced, and a token of a person's sign-in
// (password or authorization code) whose user has since become a service
// account. Other errors are internal.
func (s *Service) Authenticate(ctx context.Context, bearer string) (*Principal, error) {
	if !wellFormedBearer(bearer) {
		return nil, errUnauthorized()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	digest := sha256.Sum256([]byte(bearer)) // HashSecret
	// versions first: what is read below is at least as new (Versioned)
	sv, dv, cacheable := s.versions(ctx)
	if cacheable {
		if e, ok := s.bearers.Get(digest); ok && e.store == sv && e.dir == dv {
			if !s.now().Before(e.p.ExpiresAt) {
				return nil, errUnauthorized()
			}
			p := e.p
			return &p, nil
		}
	}
	p, err := s.authenticate(ctx, digest[:])
	if err == nil && cacheable {
		s.bearers.Put(digest, bearerEntry{store: sv, dir: dv, p: *p})
	}
	return p, err
}

// authenticate is Authenticate from the stores.
func (s *Service) authenticate(ctx context.Context, digest []byte) (*Principal, error) {
	t, cred, err := s.tokenAndCredential(ctx, digest)
	if isNotFound(err) {
		return nil, errUnauthorized()
	}
	if err != nil {
		return nil, err
	}
	if t.Kind != KindAccess || !s.now().Before(t.ExpiresAt) {
		return nil, errUnauthorized()
	}
	if t.Grant == GrantClientCredentials {
		// Issuing new credentials cuts off tokens minted with the old ones.
		if cred == nil || cred.UserID != t.UserID || cred.AccountID != t.AccountID {
			return nil, errUnauthorized()
		}
	}
	m, err := s.Directory.Membership(ctx, t.UserID, t.AccountID)
	if isNotFound(err) {
		return nil, errUnauthorized()
	}
	if err != nil {
		return nil, fmt.Errorf("auth: membership: %w", err)
	}
	if m.Status != StatusActive || m.revokes(t.CreatedAt) {
		return nil, errUnauthorized()
	}
	if m.Service && t.Grant != GrantClientCredentials {
		// A user converted to a service account since it signed in.
		return nil, errUnauthorized()
	}
	return &Principal{
		UserID:    t.UserID,
		AccountID: t.AccountID,
		ClientID:  t.ClientID,
		Grant:     t.Grant,
		ExpiresAt: t.ExpiresAt,
	}, nil
}

// TokenReader is implemented by a Store that reads a token and the
// service credential of its client id in one step (a store that pays a
// round trip per statement): cred is nil when there is none; ENOTFOUND
// when there is no token. Without it, the two are read one after the
// other: the same answer, a round trip more where round trips cost.
type TokenReader interface {
	TokenWithCredential(ctx context.Context, digest []byte) (t *Token, cred *ServiceCredential, err error)
}

// tokenAndCredential returns the token of digest and, for a
// client_credentials token, its client's service credential (nil when
// there is none).
func (s *Service) tokenAndCredential(ctx context.Context, digest []byte) (*Token, *ServiceCredential, error) {
	if r, ok := s.Store.(TokenReader); ok {
		t, cred, err := r.TokenWithCredential(ctx, digest)
		if err != nil && !isNotFound(err) {
			err = fmt.Errorf("auth: look up token: %w", err)
		}
		return t, cred, err
	}
	t, err := s.Store.TokenByDigest(ctx, digest)
	if err != nil {
		if !isNotFound(err) {
			err = fmt.Errorf("auth: look up token: %w", err)
		}
		return nil, nil, err
	}
	if t.Grant != GrantClientCredentials {
		return t, nil, nil
	}
	cred, err := s.Store.ServiceCredentialByClientID(ctx, t.ClientID)
	if isNotFound(err) {
		return t, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("auth: look up service credential: %w", err)
	}
	return t, cred, nil
}

// errUnauthorized is the one answer to every bad token: its message tells
// nothing about why (a 401 body has no detail anyway).
func errUnauthorized() error {
	return scopekit.Errorf(scopekit.EUNAUTHORIZED, "invalid or expired token")
}

func wellFormedBearer(v string) bool {
	if len(v) < minBearerLen || len(v) > maxBearerLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
