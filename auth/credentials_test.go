package auth_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Ensure SetServiceCredential keeps one credential per user and account:
// a new client id replaces the user's previous one (whose id is free
// again), the same id again only changes the secret, and the user's
// credential in another account is left alone.
func TestSetServiceCredential_OnePerUser(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	works := func(id, secret string) bool {
		_, err := f.Svc.Token(ctx, ClientCredentials(id, secret))
		return err == nil
	}
	f.Dir.AddUser("bot2", "bot2@acme.test", true, auth.StatusActive, "1", "2")
	require.NoError(t, f.Svc.SetServiceCredential(ctx, "2", "bot2", "bot2-other", "s-other"))
	require.NoError(t, f.Svc.SetServiceCredential(ctx, "1", "bot2", "bot2-a", "s-a"))
	require.True(t, works("bot2-a", "s-a"))

	require.NoError(t, f.Svc.SetServiceCredential(ctx, "1", "bot2", "bot2-a", "s-a2"))
	require.False(t, works("bot2-a", "s-a"))
	require.True(t, works("bot2-a", "s-a2"))

	require.NoError(t, f.Svc.SetServiceCredential(ctx, "1", "bot2", "bot2-b", "s-b"))
	_, err := f.DB.AuthStore().ServiceCredentialByClientID(ctx, "bot2-a")
	RequireCode(t, err, scopekit.ENOTFOUND)
	require.False(t, works("bot2-a", "s-a2"))
	require.True(t, works("bot2-b", "s-b"))
	require.True(t, works("bot2-other", "s-other"), "the credential in another account stays")

	// the replaced id is free again, for another user too
	require.NoError(t, f.Svc.SetServiceCredential(ctx, "1", "bot", "bot2-a", "s-bot"))
	require.True(t, works("bot2-a", "s-bot"))
	require.NoError(t, f.DB.AuthStore().Update(ctx, func(tx auth.Tx) error {
		for _, u := range []string{"bot", "bot2"} {
			cs, err := tx.ServiceCredentials("1", u)
			require.NoError(t, err)
			require.Len(t, cs, 1, u)
		}
		return nil
	}))
}

// Ensure SetServiceCredential validates its input and refuses a client id
// another client holds (one namespace across applications and service
// credentials), naming the field.
func TestSetServiceCredential_Refused(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name                      string
		account, user, id, secret string
		field                     string
	}{
		{"blank account", "", "bot", "x", "s", "account"},
		{"blank user", "1", " ", "x", "s", "user"},
		{"blank client id", "1", "bot", "", "s", "client-id"},
		{"blank secret", "1", "bot", "x", "", "client-secret"},
		{"an application's client id", "1", "bot", "acme-portal", "s", "client-id"},
		{"another account's application's client id", "1", "bot", "other-portal", "s", "client-id"},
		{"another user's client id", "1", "bot", "acme-sleepy", "s", "client-id"},
		{"the user's client id in another account", "2", "bot", "acme-bot", "s", "client-id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := f.Svc.SetServiceCredential(ctx, tt.account, tt.user, tt.id, tt.secret)
			RequireCode(t, err, scopekit.EINVALID)
			require.Equal(t, tt.field, err.(*scopekit.Error).Field)
		})
	}
	_, err := f.Svc.Token(ctx, ClientCredentials("acme-bot", BotSecret))
	require.NoError(t, err, "a refused credential changes nothing")
	err = f.Svc.SetServiceCredential(ctx, "1", "bot", "acme-portal", "s")
	require.Equal(t, "client id is already in use", err.(*scopekit.Error).Message)
}

// Ensure concurrent claims of one client id by applications and service
// credentials leave exactly one holder: the check and the write are one
// store transaction.
func TestClientIDNamespace_Concurrent(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	for round := range 3 {
		id := "contested-" + strconv.Itoa(round)
		claim := func(i int) error {
			switch i % 3 {
			case 0:
				return f.Svc.RegisterApplication(ctx, strconv.Itoa(i), "App", id, "s", nil)
			case 1:
				return f.Svc.SetServiceCredential(ctx, "1", "bot"+strconv.Itoa(i), id, "s")
			}
			return f.Svc.SetServiceCredential(ctx, "2", "bot"+strconv.Itoa(i), id, "s")
		}
		RequireOneWins(t, 8, claim, func(err error) { RequireCode(t, err, scopekit.EINVALID) })
		_, appErr := f.DB.AuthStore().ApplicationByClientID(ctx, id)
		_, credErr := f.DB.AuthStore().ServiceCredentialByClientID(ctx, id)
		require.True(t, (appErr == nil) != (credErr == nil), "one holder")
	}
}
