package httpadapter_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// The four grants through golang.org/x/oauth2, as a client application
// would use them, with the client credentials in the form and in HTTP
// Basic, against the real server (store, directory, router, throttle).

var aeStyles = map[string]oauth2.AuthStyle{"in params": oauth2.AuthStyleInParams, "in header": oauth2.AuthStyleInHeader}

// meAs reads GET /v1/me with the token and returns the user id.
func (ae *authEnv) meAs(t *testing.T, token string) string {
	t.Helper()
	r := ae.get("/v1/me", token)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return r.data()["id"].(string)
}

// Ensure client_credentials works through x/oauth2's clientcredentials
// package, and its refusals are RetrieveErrors with docs/auth.md's codes.
func TestGrants_ClientCredentials(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	botID, _ := ae.user("acme", "bot@acme.test", "Account Admin")
	for name, style := range aeStyles {
		t.Run(name, func(t *testing.T) {
			conf := &clientcredentials.Config{ClientID: "cid-acme-bot@acme.test", ClientSecret: "secret-bot@acme.test",
				TokenURL: ae.srv.URL + "/oauth/token", AuthStyle: style}
			tok, err := conf.Token(ae.ctx())
			require.NoError(t, err)
			require.Equal(t, "Bearer", tok.TokenType)
			require.Empty(t, tok.RefreshToken)
			require.EqualValues(t, 86400, tok.Extra("expires_in"))
			require.WithinDuration(t, time.Now().Add(24*time.Hour), tok.Expiry, time.Minute)
			require.Equal(t, botID, ae.meAs(t, tok.AccessToken))

			bad := *conf
			bad.ClientSecret = "wrong"
			_, err = bad.Token(ae.ctx())
			grantErr(t, err, auth.InvalidClient)
			bad = *conf
			bad.ClientID = "nobody"
			_, err = bad.Token(ae.ctx())
			grantErr(t, err, auth.InvalidClient)
			bad = *conf
			bad.ClientID, bad.ClientSecret = aePortalID, aePortalSecret
			_, err = bad.Token(ae.ctx())
			grantErr(t, err, auth.UnauthorizedClient)
		})
	}
}

// Ensure the password grant and refresh rotation work through x/oauth2:
// an expired token is refreshed by the TokenSource (and by Config.Client),
// and the used refresh token stops working.
func TestGrants_PasswordAndRefresh(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ae.user("acme", "bot@acme.test", "Account Admin")
	for name, style := range aeStyles {
		t.Run(name, func(t *testing.T) {
			conf := ae.portal(style)
			tok, err := conf.PasswordCredentialsToken(ae.ctx(), aeAdaEmail, aePassword)
			require.NoError(t, err)
			require.NotEmpty(t, tok.RefreshToken)
			require.EqualValues(t, 86400, tok.Extra("expires_in"))
			require.Equal(t, ae.adaID, ae.meAs(t, tok.AccessToken))

			expired := &oauth2.Token{AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: time.Now().Add(-time.Minute)}
			fresh, err := conf.TokenSource(ae.ctx(), expired).Token()
			require.NoError(t, err)
			require.NotEqual(t, tok.AccessToken, fresh.AccessToken)
			require.NotEqual(t, tok.RefreshToken, fresh.RefreshToken)
			require.Equal(t, ae.adaID, ae.meAs(t, fresh.AccessToken))

			_, err = conf.TokenSource(ae.ctx(), expired).Token()
			grantErr(t, err, auth.InvalidGrant)

			// Config.Client refreshes by itself before calling the API.
			stale := &oauth2.Token{AccessToken: fresh.AccessToken, RefreshToken: fresh.RefreshToken, Expiry: time.Now().Add(-time.Minute)}
			res, err := conf.Client(ae.ctx(), stale).Get(ae.srv.URL + "/v1/me")
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			_, err = conf.TokenSource(ae.ctx(), stale).Token()
			grantErr(t, err, auth.InvalidGrant)

			for _, tt := range []struct {
				name, id, secret, user, password, code string
			}{
				{"wrong password", aePortalID, aePortalSecret, aeAdaEmail, "not the password", auth.InvalidGrant},
				{"unknown email", aePortalID, aePortalSecret, "who@nowhere.test", aePassword, auth.InvalidResourceOwner},
				{"wrong client secret", aePortalID, "wrong", aeAdaEmail, aePassword, auth.InvalidClient},
				{"service-account credentials", "cid-acme-bot@acme.test", "secret-bot@acme.test", aeAdaEmail, aePassword, auth.UnauthorizedClient},
			} {
				c := *conf
				c.ClientID, c.ClientSecret = tt.id, tt.secret
				_, err := c.PasswordCredentialsToken(ae.ctx(), tt.user, tt.password)
				grantErr(t, err, tt.code)
			}
		})
	}
}

// Ensure the authorization code flow works with x/oauth2's AuthCodeURL,
// PKCE (GenerateVerifier, S256ChallengeOption, VerifierOption) and
// Exchange, and that a code is single-use and bound to its verifier and
// redirect URI.
func TestGrants_AuthorizationCode(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	for name, style := range aeStyles {
		t.Run(name, func(t *testing.T) {
			conf := ae.portal(style)
			verifier := oauth2.GenerateVerifier()
			newCode := func(opts ...oauth2.AuthCodeOption) string {
				_, ans := ae.signIn(conf.AuthCodeURL("state "+name, opts...), aeAdaEmail, aePassword)
				code, state := codeFrom(t, ans)
				require.Equal(t, "state "+name, state)
				return code
			}

			code := newCode(oauth2.S256ChallengeOption(verifier))
			tok, err := conf.Exchange(ae.ctx(), code, oauth2.VerifierOption(verifier))
			require.NoError(t, err)
			require.Equal(t, "Bearer", tok.TokenType)
			require.Empty(t, tok.RefreshToken, "no refresh token for the code grant")
			require.EqualValues(t, 86400, tok.Extra("expires_in"))
			require.Equal(t, ae.adaID, ae.meAs(t, tok.AccessToken))
			_, err = conf.Exchange(ae.ctx(), code, oauth2.VerifierOption(verifier))
			grantErr(t, err, auth.InvalidGrant)

			// A wrong verifier consumes the code: the right one then fails too.
			code = newCode(oauth2.S256ChallengeOption(verifier))
			_, err = conf.Exchange(ae.ctx(), code, oauth2.VerifierOption(oauth2.GenerateVerifier()))
			grantErr(t, err, auth.InvalidGrant)
			_, err = conf.Exchange(ae.ctx(), code, oauth2.VerifierOption(verifier))
			grantErr(t, err, auth.InvalidGrant)

			code = newCode(oauth2.S256ChallengeOption(verifier))
			_, err = conf.Exchange(ae.ctx(), code)
			grantErr(t, err, auth.InvalidGrant)

			other := *conf
			other.RedirectURL = aeCallback + "/elsewhere"
			code = newCode()
			_, err = other.Exchange(ae.ctx(), code)
			grantErr(t, err, auth.InvalidGrant)

			// Without PKCE the code alone is enough.
			tok, err = conf.Exchange(ae.ctx(), newCode())
			require.NoError(t, err)
			require.Equal(t, ae.adaID, ae.meAs(t, tok.AccessToken))

			wrong := *conf
			wrong.ClientSecret = "wrong"
			_, err = wrong.Exchange(ae.ctx(), newCode())
			grantErr(t, err, auth.InvalidClient)
		})
	}
}
