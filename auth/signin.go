package auth

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
)

// Sign-ins in progress: what a sign-in that leaves the server and comes
// back (single sign-on at an identity provider) needs to be finished, kept
// in the store, so that any instance of a deployment finishes a sign-in
// another one began: no sticky sessions.

// PendingSignIn is a sign-in in progress as the store keeps it: under the
// digest of the key its browser brings back, its data sealed (it holds
// secrets such as a PKCE verifier), until it expires.
type PendingSignIn struct {
	Digest    []byte    `json:"-"`
	ExpiresAt time.Time `json:"expires_at"`
	Data      []byte    `json:"data"` // sealed
}

// signInContext keeps a sealed sign-in from passing for any other value
// sealed with the same key (a ticket, a seed).
const signInContext = "scopekit sign-in in progress\x00"

// SaveSignIn keeps data, the state of a sign-in in progress, for ttl
// under key: a secret the caller's client brings back (for single
// sign-on, the state and the browser's binding). The key is stored as a
// digest and data sealed (Sealer); the expired sign-ins go at the same
// time. TakeSignIn finds it, once, from any instance on the same store.
func (s *Service) SaveSignIn(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	if key == "" || ttl <= 0 {
		return scopekit.Errorf(scopekit.EINTERNAL, "auth: a sign-in in progress needs a key and a lifetime")
	}
	sealer, err := s.sealer()
	if err != nil {
		return err
	}
	sealed, err := sealer.Seal(append([]byte(signInContext), data...))
	if err != nil {
		return fmt.Errorf("auth: seal sign-in: %w", err)
	}
	now := s.now()
	p := &PendingSignIn{Digest: HashSecret(key), ExpiresAt: now.Add(ttl), Data: sealed}
	return s.Store.Update(ctx, func(tx Tx) error {
		if err := tx.DeleteSignInsExpiredBefore(now); err != nil {
			return err
		}
		return tx.PutSignIn(p)
	})
}

// TakeSignIn returns the data SaveSignIn kept under key and forgets it:
// a sign-in in progress is finished once. ENOTFOUND when there is none,
// it expired, or it does not open with the sealer's key.
func (s *Service) TakeSignIn(ctx context.Context, key string) ([]byte, error) {
	if key == "" {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such sign-in in progress")
	}
	sealer, err := s.sealer()
	if err != nil {
		return nil, err
	}
	p, err := s.Store.TakeSignIn(ctx, HashSecret(key))
	if err != nil {
		return nil, err
	}
	plain, err := sealer.Open(p.Data)
	if err != nil || !strings.HasPrefix(string(plain), signInContext) || !s.now().Before(p.ExpiresAt) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such sign-in in progress")
	}
	return plain[len(signInContext):], nil
}

// SignInKey joins the parts of a sign-in's key (a state and a browser's
// binding), so that a part alone finds nothing.
func SignInKey(parts ...string) string {
	enc := make([]string, len(parts))
	for i, p := range parts {
		enc[i] = base64.RawURLEncoding.EncodeToString([]byte(p))
	}
	return strings.Join(enc, ".")
}
