package boltstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// openAuthDB opens a database file in a temp dir; it is checked for
// consistency and closed when the test ends.
func openAuthDB(t *testing.T, path string) *boltstore.DB {
	t.Helper()
	db, err := boltstore.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, db.Bolt().View(func(tx *bolt.Tx) error {
			var first error
			for err := range tx.Check() {
				if first == nil {
					first = err
				}
			}
			return first
		}))
		require.NoError(t, db.Close())
	})
	return db
}

func requireAuthCode(t *testing.T, err error, code string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, scopekit.ErrorCode(err), err.Error())
}

// Ensure lookups of what was never stored answer ENOTFOUND.
func TestAuthStore_NotFound(t *testing.T) {
	s := openAuthDB(t, filepath.Join(t.TempDir(), "t.db")).AuthStore()
	ctx := context.Background()
	_, err := s.ApplicationByClientID(ctx, "nope")
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ServiceCredentialByClientID(ctx, "nope")
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.PasswordHash(ctx, "nope")
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, auth.HashSecret("nope"))
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, nil)
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	requireAuthCode(t, s.DeleteToken(ctx, auth.HashSecret("nope")), scopekit.ENOTFOUND)
	_, err = s.ApplicationByClientID(ctx, "")
	requireAuthCode(t, err, scopekit.ENOTFOUND)
}

// Ensure applications round-trip, are replaced by client id within their
// account, and client ids are one namespace across applications and
// service credentials.
func TestAuthStore_Applications(t *testing.T) {
	s := openAuthDB(t, filepath.Join(t.TempDir(), "t.db")).AuthStore()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	app := &auth.Application{AccountID: "1", Name: "Portal", ClientID: "portal", SecretDigest: auth.HashSecret("s"),
		RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: at}
	require.NoError(t, s.PutApplication(ctx, app))
	got, err := s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.Equal(t, app, got)

	app.Name, app.SecretDigest = "Portal 2", auth.HashSecret("s2")
	require.NoError(t, s.PutApplication(ctx, app))
	got, err = s.ApplicationByClientID(ctx, "portal")
	require.NoError(t, err)
	require.Equal(t, "Portal 2", got.Name)
	require.Equal(t, auth.HashSecret("s2"), got.SecretDigest)

	requireAuthCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "2", ClientID: "portal"}), scopekit.EINVALID)
	requireAuthCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "1"}), scopekit.EINVALID)
	requireAuthCode(t, s.PutApplication(ctx, &auth.Application{ClientID: "x"}), scopekit.EINVALID)

	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "bot-id"}))
	requireAuthCode(t, s.PutApplication(ctx, &auth.Application{AccountID: "1", ClientID: "bot-id"}), scopekit.EINVALID)
	requireAuthCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "portal"}), scopekit.EINVALID)
}

// Ensure a user has one service credential per account: a new one
// replaces (and unregisters) the previous client id.
func TestAuthStore_ServiceCredentials(t *testing.T) {
	s := openAuthDB(t, filepath.Join(t.TempDir(), "t.db")).AuthStore()
	ctx := context.Background()
	c1 := &auth.ServiceCredential{AccountID: "1", UserID: "bot", ClientID: "id-1", SecretDigest: auth.HashSecret("a"),
		CreatedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	require.NoError(t, s.PutServiceCredential(ctx, c1))
	got, err := s.ServiceCredentialByClientID(ctx, "id-1")
	require.NoError(t, err)
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
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ServiceCredentialByClientID(ctx, "id-2")
	require.NoError(t, err)
	_, err = s.ServiceCredentialByClientID(ctx, "id-other")
	require.NoError(t, err)

	// Another user cannot take a client id in use.
	requireAuthCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-2"}), scopekit.EINVALID)
	requireAuthCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-other"}), scopekit.EINVALID)
	requireAuthCode(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", ClientID: "x"}), scopekit.EINVALID)
	// The old id is free again.
	require.NoError(t, s.PutServiceCredential(ctx, &auth.ServiceCredential{AccountID: "1", UserID: "bot2", ClientID: "id-1"}))
}

// Ensure tokens and password hashes round-trip, tokens delete once, and
// everything survives reopening the file.
func TestAuthStore_TokensAndPasswords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := boltstore.Open(path)
	require.NoError(t, err)
	ctx := context.Background()
	s := db.AuthStore()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tok := &auth.Token{Digest: auth.HashSecret("t"), Kind: auth.KindRefresh, Grant: auth.GrantPassword, UserID: "ada",
		AccountID: "1", ClientID: "portal", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
	require.NoError(t, s.PutToken(ctx, tok))
	require.Error(t, s.PutToken(ctx, &auth.Token{}))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$hash")))
	require.NoError(t, s.SetPasswordHash(ctx, "ada", []byte("$2a$04$newer")))
	requireAuthCode(t, s.SetPasswordHash(ctx, "", []byte("x")), scopekit.EINVALID)
	require.NoError(t, db.Close())

	s = openAuthDB(t, path).AuthStore()
	got, err := s.TokenByDigest(ctx, auth.HashSecret("t"))
	require.NoError(t, err)
	require.True(t, got.CreatedAt.Equal(at) && got.ExpiresAt.Equal(at.Add(time.Hour)))
	got.CreatedAt, got.ExpiresAt = tok.CreatedAt, tok.ExpiresAt
	require.Equal(t, tok, got)
	hash, err := s.PasswordHash(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, []byte("$2a$04$newer"), hash)

	require.NoError(t, s.DeleteToken(ctx, auth.HashSecret("t")))
	requireAuthCode(t, s.DeleteToken(ctx, auth.HashSecret("t")), scopekit.ENOTFOUND)
	_, err = s.TokenByDigest(ctx, auth.HashSecret("t"))
	requireAuthCode(t, err, scopekit.ENOTFOUND)
}

// Ensure a canceled context stops a call before it touches the file.
func TestAuthStore_CanceledContext(t *testing.T) {
	s := openAuthDB(t, filepath.Join(t.TempDir(), "t.db")).AuthStore()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.PutToken(ctx, &auth.Token{Digest: auth.HashSecret("t")}), context.Canceled)
	_, err := s.TokenByDigest(context.Background(), auth.HashSecret("t"))
	requireAuthCode(t, err, scopekit.ENOTFOUND)
	_, err = s.ApplicationByClientID(ctx, "x")
	require.ErrorIs(t, err, context.Canceled)
}
