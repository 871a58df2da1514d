// Package storetest is the conformance suite of auth.Store: lookups,
// replacement rules, the one client-id namespace, single-use tokens and
// codes (also under concurrency) and persistence, run by every store
// implementation alike.
package storetest

import (
	"context"
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
		{"SingleUseUnderConcurrency", testSingleUse},
		{"CanceledContext", testCanceledContext},
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

// Ensure lookups of what was never stored answer ENOTFOUND.
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
}

// Ensure applications round-trip, are replaced by client id within their
// account, and client ids are one namespace across applications and
// service credentials.
func testApplications(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	app := &auth.Application{AccountID: "1", Name: "Portal", ClientID: "portal", SecretDigest: auth.HashSecret("s"),
		RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: at}
	require.NoError(t, s.PutApplication(ctx, app))
	got, err := s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at))
	got.CreatedAt = at
	require.Equal(t, app, got)

	app.Name, app.SecretDigest = "Portal 2", auth.HashSecret("s2")
	require.NoError(t, s.PutApplication(ctx, app))
	got, err = s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.Equal(t, "Portal 2", got.Name)
	require.Equal(t, auth.HashSecret("s2"), got.SecretDigest)

	requireCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "2", ClientID: "portal"}), scopekit.EINVALID)
	requireCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "1"}), scopekit.EINVALID)
	requireCode(t, s.PutApplication(ctx, &auth.Application{ClientID: "x"}), scopekit.EINVALID)

	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "bot-id"}))
	requireCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "1", ClientID: "bot-id"}), scopekit.EINVALID)
	requireCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "portal"}), scopekit.EINVALID)
}

// Ensure a user has one service credential per account: a new one
// replaces (and unregisters) the previous client id.
func testServiceCredentials(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	c1 := &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "id-1", SecretDigest: auth.HashSecret("a"), CreatedAt: at}
	require.NoError(t, s.PutServiceCredential(ctx, c1))
	got, err := s.ServiceCredentialByClientID(ctx, "id-1")
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at))
	got.CreatedAt = at
	require.Equal(t, c1, got)

	// The same client id again (a new secret) is a replacement too.
	c1.SecretDigest = auth.HashSecret("b")
	require.NoError(t, s.PutServiceCredential(ctx, c1))
	got, err = s.ServiceCredentialByClientID(ctx, "id-1")
	require.NoError(t, err)
	require.Equal(t, auth.HashSecret("b"), got.SecretDigest)

	// The same user in another account keeps both.
	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "2", UserID: "bot", ClientID: "id-other"}))

	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "id-2"}))
	_, err = s.ServiceCredentialByClientID(ctx, "id-1")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ServiceCredentialByClientID(ctx, "id-2")
	require.NoError(t, err)
	_, err = s.ServiceCredentialByClientID(ctx, "id-other")
	require.NoError(t, err)

	// Another user cannot take a client id in use.
	requireCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-2"}), scopekit.EINVALID)
	requireCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-other"}), scopekit.EINVALID)
	requireCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", ClientID: "x"}), scopekit.EINVALID)
	// The old id is free again.
	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-1"}))
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
	require.Error(t, s.PutToken(ctx, &auth.Token{}))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$hash")))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$newer")))
	requireCode(t, s.SetPasswordHash(ctx, "", []byte("x")), scopekit.EINVALID)

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

// Ensure codes are taken once, and storing a code purges the codes that
// expired before it was created (and only those).
func testAuthCodes(t *testing.T, open Opener) {
	s := open(t)()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	code := func(name string, created time.Time) *auth.AuthCode {
		return &auth.AuthCode{Digest: auth.HashSecret(name), ClientID: "portal", AccountID: "1", UserID: "ada",
			RedirectURI: "http://127.0.0.1/cb", CodeChallenge: "abc", CreatedAt: created, ExpiresAt: created.Add(time.Minute)}
	}
	old, live := code("old", at), code("live", at.Add(50*time.Second))
	require.NoError(t, s.PutAuthCode(ctx, old))
	require.NoError(t, s.PutAuthCode(ctx, live))
	require.Error(t, s.PutAuthCode(ctx, &auth.AuthCode{}))
	// created after old expired, before live did
	require.NoError(t, s.PutAuthCode(ctx, code("new", at.Add(90*time.Second))))
	_, err := s.TakeAuthCode(ctx, old.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	got, err := s.TakeAuthCode(ctx, live.Digest)
	require.NoError(t, err)
	require.True(t, got.ExpiresAt.Equal(live.ExpiresAt))
	got.CreatedAt, got.ExpiresAt = live.CreatedAt, live.ExpiresAt
	require.Equal(t, live, got)
	_, err = s.TakeAuthCode(ctx, live.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TakeAuthCode(ctx, auth.HashSecret("new"))
	require.NoError(t, err)
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
		require.NoError(t, s.PutAuthCode(ctx, &auth.AuthCode{Digest: c, CreatedAt: at, ExpiresAt: at.Add(time.Minute)}))
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
