// Package storetest is the conformance suite of auth.Store: lookups,
// replacement, the credentials of a user, the removal of expired codes,
// transactions (rollback, and serialized by client id and by user),
// single-use tokens and codes (also under concurrency), second factors
// (read-modify-write serialized per user) and persistence,
// run by every store implementation alike. The rules kept over these
// (one namespace of client ids, one credential per user) are package
// auth's and tested there.
package storetest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Opener prepares an empty store for one test and returns a function that
// opens it: each call closes the handle the previous call returned (if
// any) and opens the same storage again, so that persistence can be
// checked. Handles are closed when the test ends.
type Opener func(t *testing.T) func() auth.Store

// Run runs the whole suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"NotFound", testNotFound},
		{"Applications", testApplications},
		{"ServiceCredentials", testServiceCredentials},
		{"TokensAndPasswords", testTokensAndPasswords},
		{"AuthCodes", testAuthCodes},
		{"UpdateRollback", testUpdateRollback},
		{"UpdateSerialized", testUpdateSerialized},
		{"SingleUseUnderConcurrency", testSingleUse},
		{"CanceledContext", testCanceledContext},
		{"SecondFactors", testSecondFactors},
		{"RefreshRevocation", testRefreshRevocation},
		{"SignIns", testSignIns},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

func requireCode(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, scopekit.ErrorCode(err), err.Error())
}

// update runs fn in one transaction of s, which must commit.
func update(t *testing.T, s auth.Store, fn func(auth.Tx) error) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), fn))
}

// credentials returns the client ids of the user's credentials in the
// account, as Tx.ServiceCredentials orders them.
func credentials(t *testing.T, s auth.Store, accountID, userID string) []string {
	t.Helper()
	ids := []string{}
	update(t, s, func(tx auth.Tx) error {
		cs, err := tx.ServiceCredentials(accountID, userID)
		for _, c := range cs {
			ids = append(ids, c.ClientID)
		}
		return err
	})
	return ids
}

// Ensure lookups of what was never stored answer ENOTFOUND (or nothing),
// inside transactions too.
func testNotFound(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	_, err := s.ApplicationByClientID(ctx, "nope")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ServiceCredentialByClientID(ctx, "nope")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.PasswordHash(ctx, "nope")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, auth.HashSecret("nope"))
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, nil)
	requireCode(t, err, scopekit.ENOTFOUND)
	requireCode(t, s.DeleteToken(ctx, auth.HashSecret("nope")), scopekit.ENOTFOUND)
	requireCode(t, s.DeleteToken(ctx, nil), scopekit.ENOTFOUND)
	_, err = s.ApplicationByClientID(ctx, "")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TakeAuthCode(ctx, auth.HashSecret("nope"))
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TakeAuthCode(ctx, nil)
	requireCode(t, err, scopekit.ENOTFOUND)
	update(t, s, func(tx auth.Tx) error {
		_, err := tx.ApplicationByClientID("nope")
		requireCode(t, err, scopekit.ENOTFOUND)
		_, err = tx.ServiceCredentialByClientID("nope")
		requireCode(t, err, scopekit.ENOTFOUND)
		cs, err := tx.ServiceCredentials("1", "nope")
		require.NoError(t, err)
		require.Empty(t, cs)
		require.NoError(t, tx.DeleteServiceCredential("nope"), "deleting nothing is no error")
		return tx.DeleteAuthCodesExpiredBefore(time.Now())
	})
}

// Ensure applications round-trip and are replaced by client id, whatever
// they were: which client ids are free is the auth package's rule, not
// the store's.
func testApplications(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	app := &auth.Application{AccountID: "1", Name: "Portal", ClientID: "portal", SecretDigest: auth.HashSecret("s"),
		RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: at}
	update(t, s, func(tx auth.Tx) error {
		if err := tx.PutApplication(app); err != nil {
			return err
		}
		got, err := tx.ApplicationByClientID("portal")
		require.NoError(t, err, "a transaction reads its own writes")
		require.Equal(t, "Portal", got.Name)
		return nil
	})
	s = reopen()
	got, err := s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at))
	got.CreatedAt = at
	require.Equal(t, app, got)

	// replaced, by another account's too
	app2 := &auth.Application{AccountID: "2", Name: "Portal 2", ClientID: "portal", SecretDigest: auth.HashSecret("s2"), CreatedAt: at}
	update(t, s, func(tx auth.Tx) error { return tx.PutApplication(app2) })
	got, err = s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.Equal(t, "2", got.AccountID)
	require.Equal(t, "Portal 2", got.Name)
	require.Equal(t, auth.HashSecret("s2"), got.SecretDigest)

	// a credential under the same id is a record of its own
	update(t, s, func(tx auth.Tx) error {
		return tx.PutServiceCredential(&auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "portal"})
	})
	_, err = s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	_, err = s.ServiceCredentialByClientID(ctx, "portal")
	require.NoError(t, err)
}

// Ensure service credentials round-trip, are listed by user and account
// in client id order, move between users when replaced under their client
// id, and leave the list when deleted; a user may hold several, since
// keeping one is the auth package's rule.
func testServiceCredentials(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c1 := &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "id-1", SecretDigest: auth.HashSecret("a"), CreatedAt: at}
	update(t, s, func(tx auth.Tx) error {
		for _, c := range []*auth.ServiceCredential{c1,
			{AccountID: "1", UserID: "bot", ClientID: "id-0"},
			{AccountID: "1", UserID: "bot", ClientID: "id-2"},
			{AccountID: "2", UserID: "bot", ClientID: "id-other"},
			{AccountID: "1", UserID: "bot2", ClientID: "id-3"}} {
			if err := tx.PutServiceCredential(c); err != nil {
				return err
			}
		}
		cs, err := tx.ServiceCredentials("1", "bot")
		require.NoError(t, err)
		require.Len(t, cs, 3, "a transaction lists its own writes")
		return nil
	})
	s = reopen()
	got, err := s.ServiceCredentialByClientID(ctx, "id-1")
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at))
	got.CreatedAt = at
	require.Equal(t, c1, got)
	require.Equal(t, []string{"id-0", "id-1", "id-2"}, credentials(t, s, "1", "bot"))
	require.Equal(t, []string{"id-other"}, credentials(t, s, "2", "bot"))
	var listed *auth.ServiceCredential
	update(t, s, func(tx auth.Tx) error {
		cs, err := tx.ServiceCredentials("1", "bot")
		listed = cs[1]
		return err
	})
	listed.CreatedAt = at
	require.Equal(t, c1, listed)

	// the same client id again: replaced, with a new secret
	c1.SecretDigest = auth.HashSecret("b")
	update(t, s, func(tx auth.Tx) error { return tx.PutServiceCredential(c1) })
	got, err = s.ServiceCredentialByClientID(ctx, "id-1")
	require.NoError(t, err)
	require.Equal(t, auth.HashSecret("b"), got.SecretDigest)
	require.Equal(t, []string{"id-0", "id-1", "id-2"}, credentials(t, s, "1", "bot"))

	// replaced by another user's credential: it changes lists
	update(t, s, func(tx auth.Tx) error {
		return tx.PutServiceCredential(&auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-2"})
	})
	require.Equal(t, []string{"id-0", "id-1"}, credentials(t, s, "1", "bot"))
	require.Equal(t, []string{"id-2", "id-3"}, credentials(t, s, "1", "bot2"))

	update(t, s, func(tx auth.Tx) error {
		if err := tx.DeleteServiceCredential("id-0"); err != nil {
			return err
		}
		_, err := tx.ServiceCredentialByClientID("id-0")
		requireCode(t, err, scopekit.ENOTFOUND)
		return nil
	})
	s = reopen()
	_, err = s.ServiceCredentialByClientID(ctx, "id-0")
	requireCode(t, err, scopekit.ENOTFOUND)
	require.Equal(t, []string{"id-1"}, credentials(t, s, "1", "bot"))
	require.Equal(t, []string{"id-other"}, credentials(t, s, "2", "bot"))
}

// Ensure a transaction whose function fails keeps nothing, and a canceled
// context stops it before it writes.
func testUpdateRollback(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	failed := errors.New("refused")
	err := s.Update(ctx, func(tx auth.Tx) error {
		if err := tx.PutApplication(&auth.Application{AccountID: "1", ClientID: "app"}); err != nil {
			return err
		}
		if err := tx.PutServiceCredential(&auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "cred"}); err != nil {
			return err
		}
		return failed
	})
	require.ErrorIs(t, err, failed)
	_, err = s.ApplicationByClientID(ctx, "app")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ServiceCredentialByClientID(ctx, "cred")
	requireCode(t, err, scopekit.ENOTFOUND)
	require.Empty(t, credentials(t, s, "1", "bot"))

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	err = s.Update(canceled, func(tx auth.Tx) error {
		return tx.PutApplication(&auth.Application{AccountID: "1", ClientID: "app"})
	})
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.ApplicationByClientID(ctx, "app")
	requireCode(t, err, scopekit.ENOTFOUND)
}

// Ensure transactions that read the same client id, or the credentials of
// the same user, run one after the other: of concurrent check-then-write
// transactions exactly one finds the id (or the user) free, whichever
// record it writes.
func testUpdateSerialized(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	run := func(fn func(tx auth.Tx, i int) (bool, error)) int32 {
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var won bool
				err := s.Update(ctx, func(tx auth.Tx) (err error) {
					won, err = fn(tx, i)
					return err
				})
				if err != nil {
					t.Error(err)
				} else if won {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		return wins.Load()
	}
	free := func(tx auth.Tx, id string) (bool, error) {
		_, err := tx.ApplicationByClientID(id)
		if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return false, err
		}
		_, err = tx.ServiceCredentialByClientID(id)
		if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return false, err
		}
		time.Sleep(5 * time.Millisecond) // a window for the others
		return true, nil
	}
	for round := range 3 {
		id := "client-" + strconv.Itoa(round)
		wins := run(func(tx auth.Tx, i int) (bool, error) {
			if ok, err := free(tx, id); !ok {
				return false, err
			}
			if i%2 == 0 {
				return true, tx.PutApplication(&auth.Application{AccountID: strconv.Itoa(i), ClientID: id})
			}
			return true, tx.PutServiceCredential(&auth.ServiceCredential{AccountID: "1", UserID: strconv.Itoa(i), ClientID: id})
		})
		require.EqualValues(t, 1, wins, "client id %s", id)

		user := "user-" + strconv.Itoa(round)
		wins = run(func(tx auth.Tx, i int) (bool, error) {
			cs, err := tx.ServiceCredentials("1", user)
			if err != nil || len(cs) > 0 {
				return false, err
			}
			time.Sleep(5 * time.Millisecond)
			return true, tx.PutServiceCredential(&auth.ServiceCredential{AccountID: "1", UserID: user, ClientID: user + "-" + strconv.Itoa(i)})
		})
		require.EqualValues(t, 1, wins, "user %s", user)
		require.Len(t, credentials(t, s, "1", user), 1)
	}
}

// Ensure tokens and password hashes round-trip, tokens delete once, and
// everything survives reopening the store.
func testTokensAndPasswords(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tok := &auth.Token{Digest: auth.HashSecret("t"), Kind: auth.KindRefresh, Grant: auth.GrantPassword, UserID: "ada",
		AccountID: "1", ClientID: "portal", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	require.NoError(t, s.PutToken(ctx, tok))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$hash")))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$newer")))

	s = reopen()
	got, err := s.TokenByDigest(ctx, auth.HashSecret("t"))
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at) && got.ExpiresAt.Equal(at.Add(time.Hour)))
	got.CreatedAt, got.ExpiresAt = tok.CreatedAt, tok.ExpiresAt
	require.Equal(t, tok, got)
	hash, err := s.PasswordHash(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, []byte("$2a$04$newer"), hash)

	require.NoError(t, s.DeleteToken(ctx, auth.HashSecret("t")))
	requireCode(t, s.DeleteToken(ctx, auth.HashSecret("t")), scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, auth.HashSecret("t"))
	requireCode(t, err, scopekit.ENOTFOUND)
}

// putCode stores c in a transaction of its own.
func putCode(t *testing.T, s auth.Store, c *auth.AuthCode) {
	t.Helper()
	update(t, s, func(tx auth.Tx) error { return tx.PutAuthCode(c) })
}

// Ensure codes round-trip, are taken once, and
// DeleteAuthCodesExpiredBefore removes exactly the codes that expired
// before the time given.
func testAuthCodes(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	code := func(name string, created time.Time) *auth.AuthCode {
		return &auth.AuthCode{Digest: auth.HashSecret(name), ClientID: "portal", AccountID: "1", UserID: "ada",
			RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "abc", CreatedAt: created, ExpiresAt: created.Add(time.Minute)}
	}
	old, edge, live := code("old", at), code("edge", at.Add(30*time.Second)), code("live", at.Add(50*time.Second))
	for _, c := range []*auth.AuthCode{old, edge, live} {
		putCode(t, s, c)
	}
	// a code stored again with a later expiry is kept by the later one
	again := code("again", at)
	putCode(t, s, again)
	again.ExpiresAt = at.Add(time.Hour)
	putCode(t, s, again)
	s = reopen()
	update(t, s, func(tx auth.Tx) error { return tx.DeleteAuthCodesExpiredBefore(edge.ExpiresAt) })
	_, err := s.TakeAuthCode(ctx, old.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	got, err := s.TakeAuthCode(ctx, live.Digest)
	require.NoError(t, err)
	require.True(t, got.ExpiresAt.Equal(live.ExpiresAt))
	got.CreatedAt, got.ExpiresAt = live.CreatedAt, live.ExpiresAt
	require.Equal(t, live, got)
	_, err = s.TakeAuthCode(ctx, live.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TakeAuthCode(ctx, edge.Digest)
	require.NoError(t, err, "a code expiring at the time given stays")

	update(t, s, func(tx auth.Tx) error { return tx.DeleteAuthCodesExpiredBefore(at.Add(30 * time.Minute)) })
	got, err = s.TakeAuthCode(ctx, again.Digest)
	require.NoError(t, err)
	require.True(t, got.ExpiresAt.Equal(again.ExpiresAt))
}

// Ensure of concurrent consumers of one token or one code exactly one
// wins.
func testSingleUse(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	at := time.Now().UTC()
	for round := range 5 {
		d := auth.HashSecret("tok" + string(rune('a'+round)))
		require.NoError(t, s.PutToken(ctx, &auth.Token{Digest: d, Kind: auth.KindRefresh, CreatedAt: at, ExpiresAt: at.Add(time.Hour)}))
		c := auth.HashSecret("code" + string(rune('a'+round)))
		putCode(t, s, &auth.AuthCode{Digest: c, CreatedAt: at, ExpiresAt: at.Add(time.Minute)})
		var tokWins, codeWins atomic.Int32
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(2)
			go func() {
				defer wg.Done()
				if err := s.DeleteToken(ctx, d); err == nil {
					tokWins.Add(1)
				} else if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
					t.Error(err)
				}
			}()
			go func() {
				defer wg.Done()
				if _, err := s.TakeAuthCode(ctx, c); err == nil {
					codeWins.Add(1)
				} else if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		require.EqualValues(t, 1, tokWins.Load())
		require.EqualValues(t, 1, codeWins.Load())
	}
}

// Ensure a canceled context stops a call before it writes.
func testCanceledContext(t *testing.T, open Opener) {
	s := open(t)()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.PutToken(ctx, &auth.Token{Digest: auth.HashSecret("t")}), context.Canceled)
	_, err := s.TokenByDigest(context.Background(), auth.HashSecret("t"))
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ApplicationByClientID(ctx, "x")
	require.ErrorIs(t, err, context.Canceled)
}
