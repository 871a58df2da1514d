package auth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Ensure every row of docs/auth.md's error table, for every grant, answers the
// right OAuth error, and that the checks run in the documented order.
func TestToken_Errors(t *testing.T) {
	f := NewFixture(t)
	with := func(r *auth.TokenRequest, edit func(*auth.TokenRequest)) *auth.TokenRequest {
		edit(r)
		return r
	}
	app := func(grant string) *auth.TokenRequest {
		return &auth.TokenRequest{GrantType: grant, ClientID: "acme-portal", ClientSecret: PortalSecret}
	}
	svcCreds := func(grant string) *auth.TokenRequest {
		return &auth.TokenRequest{GrantType: grant, ClientID: "acme-bot", ClientSecret: BotSecret}
	}
	for _, tt := range []struct {
		name string
		req  *auth.TokenRequest
		code string
	}{
		// grant_type
		{"grant_type missing", &auth.TokenRequest{ClientID: "acme-bot", ClientSecret: BotSecret}, auth.InvalidRequest},
		{"grant_type unknown", svcCreds("implicit"), auth.UnsupportedGrantType},
		{"grant_type unknown with unknown client", with(ClientCredentials("nobody", "x"), func(r *auth.TokenRequest) { r.GrantType = "device_code" }), auth.UnsupportedGrantType},

		// client_credentials
		{"cc: client_id missing", ClientCredentials("", BotSecret), auth.InvalidRequest},
		{"cc: client_secret missing", ClientCredentials("acme-bot", ""), auth.InvalidRequest},
		{"cc: client_secret sent empty", with(ClientCredentials("acme-bot", ""), func(r *auth.TokenRequest) {
			r.Present = map[string]bool{"grant_type": true, "client_id": true, "client_secret": true}
		}), auth.InvalidRequest},
		{"cc: missing parameter beats unknown client", ClientCredentials("nobody", ""), auth.InvalidRequest},
		{"cc: unknown client_id", ClientCredentials("nobody", BotSecret), auth.InvalidClient},
		{"cc: wrong secret", ClientCredentials("acme-bot", "wrong"), auth.InvalidClient},
		{"cc: secret of another client", ClientCredentials("acme-bot", PortalSecret), auth.InvalidClient},
		{"cc: account-level application", ClientCredentials("acme-portal", PortalSecret), auth.UnauthorizedClient},
		{"cc: application with wrong secret", ClientCredentials("acme-portal", BotSecret), auth.InvalidClient},
		{"cc: deactivated service account", ClientCredentials("acme-sleepy", BotSecret), auth.InvalidGrant},
		{"cc: invited service account", ClientCredentials("acme-newbot", BotSecret), auth.InvalidGrant},
		{"cc: service account not a member", ClientCredentials("acme-ghost", BotSecret), auth.InvalidGrant},

		// password
		{"pw: client_id missing", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) { r.ClientID = "" }), auth.InvalidRequest},
		{"pw: client_secret missing", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) { r.ClientSecret = "" }), auth.InvalidRequest},
		{"pw: username missing", PasswordGrant("", Password), auth.InvalidRequest},
		{"pw: password missing", PasswordGrant("ada@acme.test", ""), auth.InvalidRequest},
		{"pw: redirect_uri sent", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) {
			r.RedirectURI = "http://127.0.0.1:9999/callback"
		}), auth.InvalidRequest},
		{"pw: redirect_uri sent empty", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) {
			r.Present = map[string]bool{"redirect_uri": true}
		}), auth.InvalidRequest},
		{"pw: redirect_uri beats unknown client", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) {
			r.ClientID, r.RedirectURI = "nobody", "http://x.test/cb"
		}), auth.InvalidRequest},
		{"pw: unknown client_id", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) { r.ClientID = "nobody" }), auth.InvalidClient},
		{"pw: wrong client secret", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) { r.ClientSecret = "wrong" }), auth.InvalidClient},
		{"pw: unknown client beats unknown user", with(PasswordGrant("who@nowhere.test", Password), func(r *auth.TokenRequest) { r.ClientID = "nobody" }), auth.InvalidClient},
		{"pw: service-account credentials", with(PasswordGrant("ada@acme.test", Password), func(r *auth.TokenRequest) {
			r.ClientID, r.ClientSecret = "acme-bot", BotSecret
		}), auth.UnauthorizedClient},
		{"pw: service-account credentials beat unknown user", with(PasswordGrant("who@nowhere.test", Password), func(r *auth.TokenRequest) {
			r.ClientID, r.ClientSecret = "acme-bot", BotSecret
		}), auth.UnauthorizedClient},
		{"pw: username is no user's email", PasswordGrant("who@nowhere.test", Password), auth.InvalidResourceOwner},
		{"pw: wrong password", PasswordGrant("ada@acme.test", "wrong password!"), auth.InvalidGrant},
		{"pw: password with a right 72-byte prefix", PasswordGrant("ada@acme.test", Password+strings.Repeat("x", 72)), auth.InvalidGrant},
		{"pw: no password set", PasswordGrant("nopw@acme.test", Password), auth.InvalidGrant},
		{"pw: not a member of the application's account", PasswordGrant("ola@other.test", Password), auth.InvalidGrant},
		{"pw: deactivated", PasswordGrant("dan@acme.test", Password), auth.InvalidGrant},
		{"pw: invitation not accepted", PasswordGrant("ivy@acme.test", Password), auth.InvalidGrant},
		{"pw: service account", PasswordGrant("bot@acme.test", Password), auth.InvalidGrant},

		// refresh_token
		{"rt: refresh_token missing", app(auth.GrantRefreshToken), auth.InvalidRequest},
		{"rt: unknown client", with(app(auth.GrantRefreshToken), func(r *auth.TokenRequest) { r.ClientID, r.RefreshToken = "nobody", "x" }), auth.InvalidClient},
		{"rt: service-account credentials", with(svcCreds(auth.GrantRefreshToken), func(r *auth.TokenRequest) { r.RefreshToken = "x" }), auth.UnauthorizedClient},
		{"rt: unknown refresh token", with(app(auth.GrantRefreshToken), func(r *auth.TokenRequest) { r.RefreshToken = "not-a-token" }), auth.InvalidGrant},

		// authorization_code (authorize_test.go covers issued codes)
		{"ac: code missing", with(app(auth.GrantAuthorizationCode), func(r *auth.TokenRequest) { r.RedirectURI = "http://127.0.0.1:9999/callback" }), auth.InvalidRequest},
		{"ac: redirect_uri missing", with(app(auth.GrantAuthorizationCode), func(r *auth.TokenRequest) { r.Code = "abc" }), auth.InvalidRequest},
		{"ac: unknown client", with(app(auth.GrantAuthorizationCode), func(r *auth.TokenRequest) {
			r.ClientID, r.Code, r.RedirectURI = "nobody", "abc", "http://127.0.0.1:9999/callback"
		}), auth.InvalidClient},
		{"ac: service-account credentials", with(svcCreds(auth.GrantAuthorizationCode), func(r *auth.TokenRequest) {
			r.Code, r.RedirectURI = "abc", "http://127.0.0.1:9999/callback"
		}), auth.UnauthorizedClient},
		{"ac: unknown code", with(app(auth.GrantAuthorizationCode), func(r *auth.TokenRequest) {
			r.Code, r.RedirectURI = "abc", "http://127.0.0.1:9999/callback"
		}), auth.InvalidGrant},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := f.Svc.Token(context.Background(), tt.req)
			require.Nil(t, resp)
			RequireOAuthError(t, err, tt.code)
		})
	}
}

// Ensure the client_credentials grant answers an access token of 86400 s
// without a refresh token, scoped to the service account's account.
func TestToken_ClientCredentials(t *testing.T) {
	f := NewFixture(t)
	resp := f.MustToken(t, ClientCredentials("acme-bot", BotSecret))
	require.Equal(t, "Bearer", resp.TokenType)
	require.Equal(t, 86400, resp.ExpiresIn)
	require.Empty(t, resp.RefreshToken)
	require.Equal(t, f.Clock.Now().Unix(), resp.CreatedAt)
	require.GreaterOrEqual(t, len(resp.AccessToken), 43, "at least 32 random bytes")
	require.NotContains(t, resp.AccessToken, "=")

	p, err := f.Svc.Authenticate(context.Background(), resp.AccessToken)
	require.NoError(t, err)
	require.Equal(t, &auth.Principal{UserID: "bot", AccountID: "1", ClientID: "acme-bot",
		Grant: auth.GrantClientCredentials, ExpiresAt: f.Clock.Now().Add(86400 * time.Second)}, p)
}

// Ensure the password grant answers an access and a refresh token, that
// the email is matched without regard to case, and that the token is
// scoped to the application's account even for a user of several accounts.
func TestToken_Password(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	resp := f.MustToken(t, PasswordGrant("ADA@Acme.Test", Password))
	require.Equal(t, "Bearer", resp.TokenType)
	require.Equal(t, 86400, resp.ExpiresIn)
	require.NotEmpty(t, resp.RefreshToken)
	require.NotEqual(t, resp.AccessToken, resp.RefreshToken)

	p, err := f.Svc.Authenticate(ctx, resp.AccessToken)
	require.NoError(t, err)
	require.Equal(t, "ada", p.UserID)
	require.Equal(t, "1", p.AccountID)
	require.Equal(t, auth.GrantPassword, p.Grant)

	other := f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal",
		ClientSecret: OtherSecret, Username: "ada@acme.test", Password: Password})
	p, err = f.Svc.Authenticate(ctx, other.AccessToken)
	require.NoError(t, err)
	require.Equal(t, "2", p.AccountID)

	// The same grant twice gives different tokens.
	again := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	require.NotEqual(t, resp.AccessToken, again.AccessToken)
	require.NotEqual(t, resp.RefreshToken, again.RefreshToken)
}

// Ensure a token works until just before 86400 s and not after.
func TestAuthenticate_Lifetime(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after time.Duration
		ok    bool
	}{
		{"fresh", 0, true},
		{"+86399s", 86399 * time.Second, true},
		{"+86400s", 86400 * time.Second, false},
		{"+86401s", 86401 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFixture(t)
			for _, req := range []*auth.TokenRequest{ClientCredentials("acme-bot", BotSecret), PasswordGrant("ada@acme.test", Password)} {
				f.Clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
				tok := f.MustToken(t, req).AccessToken
				f.Clock.Add(tt.after)
				_, err := f.Svc.Authenticate(context.Background(), tok)
				if tt.ok {
					require.NoError(t, err, req.GrantType)
				} else {
					RequireCode(t, err, scopekit.EUNAUTHORIZED)
				}
			}
		})
	}
}

// Ensure TokenTTL changes the lifetime and expires_in.
func TestAuthenticate_CustomTTL(t *testing.T) {
	f := NewFixture(t)
	f.Svc.TokenTTL = time.Hour
	resp := f.MustToken(t, ClientCredentials("acme-bot", BotSecret))
	require.Equal(t, 3600, resp.ExpiresIn)
	f.Clock.Add(time.Hour + time.Second)
	_, err := f.Svc.Authenticate(context.Background(), resp.AccessToken)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
}

// Ensure malformed, unknown and refresh tokens are not valid bearers.
func TestAuthenticate_BadTokens(t *testing.T) {
	f := NewFixture(t)
	resp := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	for name, bearer := range map[string]string{
		"empty":              "",
		"short":              "abc",
		"not base64url":      strings.Repeat("a", 40) + "+/=",
		"with space":         resp.AccessToken + " ",
		"very long":          strings.Repeat("a", 10000),
		"unknown":            strings.Repeat("A", 43),
		"refresh token":      resp.RefreshToken,
		"Bearer prefix kept": "Bearer " + resp.AccessToken,
	} {
		t.Run(name, func(t *testing.T) {
			p, err := f.Svc.Authenticate(context.Background(), bearer)
			require.Nil(t, p)
			RequireCode(t, err, scopekit.EUNAUTHORIZED)
		})
	}
}

// Ensure a token stops working when the membership in its account is
// deactivated (or removed), and works again if it is reactivated.
func TestAuthenticate_DeactivatedMembership(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	user := f.MustToken(t, PasswordGrant("ada@acme.test", Password)).AccessToken
	bot := f.MustToken(t, ClientCredentials("acme-bot", BotSecret)).AccessToken

	f.Dir.SetStatus("ada", "1", auth.StatusDeactivated)
	f.Dir.SetStatus("bot", "1", auth.StatusDeactivated)
	for _, tok := range []string{user, bot} {
		_, err := f.Svc.Authenticate(ctx, tok)
		RequireCode(t, err, scopekit.EUNAUTHORIZED)
	}
	// ada's membership of account 2 is still active, but the token is
	// scoped to account 1.
	f.Dir.SetStatus("ada", "1", auth.StatusActive)
	_, err := f.Svc.Authenticate(ctx, user)
	require.NoError(t, err)

	f.Dir.mu.Lock()
	delete(f.Dir.memberships, [2]string{"ada", "1"})
	f.Dir.version++
	f.Dir.mu.Unlock()
	_, err = f.Svc.Authenticate(ctx, user)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
}

// Ensure issuing service credentials replaces the previous ones: the old
// client id stops working, and so do tokens minted with it.
func TestIssueServiceCredential(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	oldTok := f.MustToken(t, ClientCredentials("acme-bot", BotSecret)).AccessToken

	cred1, secret1, err := f.Svc.IssueServiceCredential(ctx, "1", "bot")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(secret1), 43)
	id1 := cred1.ClientID
	require.NotEmpty(t, id1)
	require.Equal(t, f.Clock.Now(), cred1.CreatedAt)
	require.Equal(t, "bot", cred1.UserID)
	require.Equal(t, "1", cred1.AccountID)
	require.Equal(t, auth.HashSecret(secret1), cred1.SecretDigest)
	_, err = f.Svc.Token(ctx, ClientCredentials("acme-bot", BotSecret))
	RequireOAuthError(t, err, auth.InvalidClient)
	_, err = f.Svc.Authenticate(ctx, oldTok)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
	tok1 := f.MustToken(t, ClientCredentials(id1, secret1)).AccessToken
	_, err = f.Svc.Authenticate(ctx, tok1)
	require.NoError(t, err)

	cred2, secret2, err := f.Svc.IssueServiceCredential(ctx, "1", "bot")
	require.NoError(t, err)
	id2 := cred2.ClientID
	require.NotEqual(t, id1, id2)
	require.NotEqual(t, secret1, secret2)
	_, err = f.Svc.Token(ctx, ClientCredentials(id1, secret1))
	RequireOAuthError(t, err, auth.InvalidClient)
	_, err = f.Svc.Token(ctx, ClientCredentials(id2, secret1))
	RequireOAuthError(t, err, auth.InvalidClient)
	_, err = f.Svc.Authenticate(ctx, tok1)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
	p, err := f.Svc.Authenticate(ctx, f.MustToken(t, ClientCredentials(id2, secret2)).AccessToken)
	require.NoError(t, err)
	require.Equal(t, "bot", p.UserID)

	_, _, err = f.Svc.IssueServiceCredential(ctx, "1", "ada")
	RequireCode(t, err, scopekit.ECONFLICT)
	_, _, err = f.Svc.IssueServiceCredential(ctx, "2", "bot")
	RequireCode(t, err, scopekit.ENOTFOUND)
}

// Ensure RegisterApplication validates its input, refuses a client id
// taken elsewhere, and replacing an application replaces its secret.
func TestRegisterApplication(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name                              string
		account, appName, id, secret, uri string
		field                             string
	}{
		{"blank account", "", "P", "p1", "s", "", "account"},
		{"blank name", "1", " ", "p1", "s", "", "name"},
		{"blank client id", "1", "P", "", "s", "", "client-id"},
		{"blank secret", "1", "P", "p1", "", "", "client-secret"},
		{"long client id", "1", "P", strings.Repeat("p", 256), "s", "", "client-id"},
		{"relative redirect", "1", "P", "p1", "s", "/callback", "redirect-uris"},
		{"redirect with fragment", "1", "P", "p1", "s", "http://x.test/cb#frag", "redirect-uris"},
		{"redirect with empty fragment", "1", "P", "p1", "s", "http://x.test/cb#", "redirect-uris"},
		{"client id of a service credential", "1", "P", "acme-bot", "s", "", "client-id"},
		{"client id of another account's application", "1", "P", "other-portal", "s", "", "client-id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var uris []string
			if tt.uri != "" {
				uris = []string{tt.uri}
			}
			err := f.Svc.RegisterApplication(ctx, tt.account, tt.appName, tt.id, tt.secret, uris)
			RequireCode(t, err, scopekit.EINVALID)
			require.Equal(t, tt.field, err.(*scopekit.Error).Field)
		})
	}

	t.Run("replace", func(t *testing.T) {
		before, err := f.DB.AuthStore().ApplicationByClientID(ctx, "acme-portal")
		require.NoError(t, err)
		f.Clock.Add(time.Hour)
		require.NoError(t, f.Svc.RegisterApplication(ctx, "1", "Portal 2", "acme-portal", "new-portal-secret",
			[]string{"com.example.app:/oauth", "http://localhost:8080/cb"}))
		after, err := f.DB.AuthStore().ApplicationByClientID(ctx, "acme-portal")
		require.NoError(t, err)
		require.True(t, before.CreatedAt.Equal(after.CreatedAt))
		require.Equal(t, "Portal 2", after.Name)
		require.Equal(t, []string{"com.example.app:/oauth", "http://localhost:8080/cb"}, after.RedirectURIs)
		_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
		RequireOAuthError(t, err, auth.InvalidClient)
		req := PasswordGrant("ada@acme.test", Password)
		req.ClientSecret = "new-portal-secret"
		f.MustToken(t, req)
	})

	t.Run("service credential cannot take an application's client id", func(t *testing.T) {
		err := f.Svc.SetServiceCredential(ctx, "1", "bot", "other-portal", "s")
		RequireCode(t, err, scopekit.EINVALID)
		err = f.Svc.SetServiceCredential(ctx, "1", "newbot", "acme-bot", "s")
		RequireCode(t, err, scopekit.EINVALID)
	})
}

// Ensure SetPassword validates and replaces the password.
func TestSetPassword(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	RequireCode(t, f.Svc.SetPassword(ctx, "ada", ""), scopekit.EINVALID)
	RequireCode(t, f.Svc.SetPassword(ctx, "", Password), scopekit.EINVALID)
	RequireCode(t, f.Svc.SetPassword(ctx, "ada", strings.Repeat("x", 73)), scopekit.EINVALID)

	require.NoError(t, f.Svc.SetPassword(ctx, "ada", "another long passphrase"))
	_, err := f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.InvalidGrant)
	f.MustToken(t, PasswordGrant("ada@acme.test", "another long passphrase"))

	// A 72-byte password is the longest accepted, and works.
	long := strings.Repeat("p", 72)
	require.NoError(t, f.Svc.SetPassword(ctx, "ada", long))
	f.MustToken(t, PasswordGrant("ada@acme.test", long))
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", long+"p"))
	RequireOAuthError(t, err, auth.InvalidGrant)
}

// Ensure the refresh_token grant rotates: the used refresh token stops
// working, the new pair works, and only the issuing client may refresh.
func TestToken_RefreshToken(t *testing.T) {
	ctx := context.Background()
	refresh := func(clientID, secret, token string) *auth.TokenRequest {
		return &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: clientID, ClientSecret: secret, RefreshToken: token}
	}

	t.Run("rotation", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		f.Clock.Add(time.Hour)
		second := f.MustToken(t, refresh("acme-portal", PortalSecret, first.RefreshToken))
		require.NotEmpty(t, second.RefreshToken)
		require.Equal(t, 86400, second.ExpiresIn)
		require.Equal(t, f.Clock.Now().Unix(), second.CreatedAt)
		p, err := f.Svc.Authenticate(ctx, second.AccessToken)
		require.NoError(t, err)
		require.Equal(t, "ada", p.UserID)
		require.Equal(t, "1", p.AccountID)
		require.Equal(t, auth.GrantPassword, p.Grant)
		// The first access token lives on until it expires.
		_, err = f.Svc.Authenticate(ctx, first.AccessToken)
		require.NoError(t, err)

		_, err = f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
		third := f.MustToken(t, refresh("acme-portal", PortalSecret, second.RefreshToken))
		_, err = f.Svc.Authenticate(ctx, third.AccessToken)
		require.NoError(t, err)
	})

	t.Run("refused", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		_, err := f.Svc.Token(ctx, refresh("other-portal", OtherSecret, first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
		_, err = f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, first.AccessToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
		_, err = f.Svc.Token(ctx, refresh("acme-portal", "wrong", first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidClient)

		// A refresh token not from a password grant (none is minted by
		// the others, so store one directly).
		require.NoError(t, f.DB.AuthStore().PutToken(ctx, &auth.Token{
			Digest: auth.HashSecret("cc-refresh-token"), Kind: auth.KindRefresh, Grant: auth.GrantClientCredentials,
			UserID: "ada", AccountID: "1", ClientID: "acme-portal", CreatedAt: f.Clock.Now(), ExpiresAt: f.Clock.Now().Add(time.Hour),
		}))
		_, err = f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, "cc-refresh-token"))
		RequireOAuthError(t, err, auth.InvalidGrant)

		// Refused attempts did not consume it.
		f.MustToken(t, refresh("acme-portal", PortalSecret, first.RefreshToken))
	})

	t.Run("deactivated user", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		f.Dir.SetStatus("ada", "1", auth.StatusDeactivated)
		_, err := f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
	})

	t.Run("expired", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		f.Clock.Add(auth.DefaultRefreshTTL)
		_, err := f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
	})

	t.Run("concurrent use: one wins", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		RequireOneWins(t, 8, func(int) error {
			_, err := f.Svc.Token(ctx, refresh("acme-portal", PortalSecret, first.RefreshToken))
			return err
		}, func(err error) { RequireOAuthError(t, err, auth.InvalidGrant) })
	})
}
