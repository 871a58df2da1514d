package auth

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/internal/bounded"
	"golang.org/x/crypto/bcrypt"
)

// Defaults of the Service fields left zero.
const (
	DefaultTokenTTL   = 86400 * time.Second
	DefaultRefreshTTL = 30 * 24 * time.Hour
)

// tokenBytes is the entropy of every token, client id and secret we mint.
const tokenBytes = 32

// Service issues and validates tokens. Store and Directory are required;
// the other fields have defaults when zero.
type Service struct {
	Store     Store
	Directory Directory
	// Providers are the accounts' identity providers (single sign-on,
	// sso.go); nil: none.
	Providers IdentityProviders
	// Now is the clock; default time.Now.
	Now func() time.Time
	// TokenTTL is the lifetime of access tokens; default 86400 s.
	TokenTTL time.Duration
	// RefreshTTL is the lifetime of refresh tokens; default 30 days.
	RefreshTTL time.Duration
	// BcryptCost is the cost of new password hashes; default
	// bcrypt.DefaultCost (tests use bcrypt.MinCost).
	BcryptCost int
	// Sealer seals the TOTP seeds of second factors and the tickets of
	// the login page's second step; without it nobody can set up or use
	// a second factor. The example server uses its webhook Sealer.
	Sealer Sealer
	// MFAIssuer names the service in authenticator apps; default
	// "ScopeKit".
	MFAIssuer string
	// UniformTokenErrors answers a password grant for an unknown email
	// with invalid_grant, as a wrong password, instead of the spec's
	// invalid_resource_owner (and keeps the login page from telling a
	// service account or a pending invitation from a wrong password
	// before the password is right). docs/auth.md says what each
	// setting reveals.
	UniformTokenErrors bool

	dummyOnce sync.Once
	dummyHash []byte // burnBcrypt's digest, of cost BcryptCost

	bearers bounded.Map[[32]byte, bearerEntry] // validated tokens by digest (Versioned)
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) tokenTTL() time.Duration {
	if s.TokenTTL > 0 {
		return s.TokenTTL
	}
	return DefaultTokenTTL
}

func (s *Service) refreshTTL() time.Duration {
	if s.RefreshTTL > 0 {
		return s.RefreshTTL
	}
	return DefaultRefreshTTL
}

func (s *Service) bcryptCost() int {
	if s.BcryptCost != 0 {
		return s.BcryptCost
	}
	return bcrypt.DefaultCost
}

// randomString returns n bytes from crypto/rand, base64url without padding.
func randomString(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: random: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// isNotFound reports whether err is a ScopeKit ENOTFOUND.
func isNotFound(err error) bool {
	return scopekit.ErrorCode(err) == scopekit.ENOTFOUND
}
