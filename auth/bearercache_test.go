package auth_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// countingStore counts token reads and passes Version through when asked
// to.
type countingStore struct {
	auth.Store
	reads     atomic.Int64
	versioned bool
}

func (s *countingStore) TokenByDigest(ctx context.Context, digest []byte) (*auth.Token, error) {
	s.reads.Add(1)
	return s.Store.TokenByDigest(ctx, digest)
}

func (s *countingStore) Version() (uint64, bool) {
	if !s.versioned {
		return 0, false
	}
	return s.Store.(auth.Versioned).Version()
}

// Ensure Authenticate answers a repeated token without reading the store
// while the store and the directory are unchanged, and validates afresh
// after any change of either: an expired token, a replaced service
// credential, a deactivated membership and a revocation are refused at
// once. A store that cannot tell its version is read every time.
func TestAuthenticate_Cache(t *testing.T) {
	ctx := context.Background()
	for _, versioned := range []bool{true, false} {
		f := NewFixture(t)
		cs := &countingStore{Store: f.Svc.Store, versioned: versioned}
		f.Svc.Store = cs
		ok := func(tok string) {
			t.Helper()
			_, err := f.Svc.Authenticate(ctx, tok)
			require.NoError(t, err)
		}
		refused := func(tok, why string) {
			t.Helper()
			_, err := f.Svc.Authenticate(ctx, tok)
			require.Error(t, err, why)
		}
		reads := func() int64 { return cs.reads.Load() }

		bot := f.MustToken(t, ClientCredentials("acme-bot", BotSecret)).AccessToken
		ada := f.MustToken(t, PasswordGrant("ada@acme.test", Password)).AccessToken
		ok(bot)
		ok(ada)
		n := reads()
		for range 3 {
			ok(bot)
			ok(ada)
		}
		if !versioned {
			require.Equal(t, n+6, reads(), "read every time")
			continue
		}
		require.Equal(t, n, reads(), "repeats answered from memory")

		// an auth write (another token issued) is a change: read once more
		f.MustToken(t, ClientCredentials("acme-bot", BotSecret))
		ok(bot)
		require.Equal(t, n+1, reads())
		ok(bot)
		require.Equal(t, n+1, reads())

		// the directory changed: read again
		f.Dir.AddUser("newcomer", "newcomer@acme.test", false, auth.StatusActive, "1")
		ok(ada)
		require.Equal(t, n+2, reads())

		// a deactivated membership: refused at the next request
		f.Dir.SetStatus("ada", "1", auth.StatusDeactivated)
		refused(ada, "deactivated")
		f.Dir.SetStatus("ada", "1", auth.StatusActive)
		ok(ada)
		f.Dir.setRevoked("ada", "1", f.Clock.Now())
		refused(ada, "revoked")

		// a replaced service credential cuts the old token off
		ok(bot)
		require.NoError(t, f.Svc.SetServiceCredential(ctx, "1", "bot", "acme-bot-2", BotSecret))
		refused(bot, "credential replaced")

		// expiry is checked on every request, cached or not
		bot2 := f.MustToken(t, ClientCredentials("acme-bot-2", BotSecret))
		ok(bot2.AccessToken)
		ok(bot2.AccessToken)
		f.Clock.Add(time.Duration(bot2.ExpiresIn)*time.Second + time.Second)
		refused(bot2.AccessToken, "expired")
	}
}
