package auth_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

const callback = "http://127.0.0.1:9999/callback"

// A PKCE pair of RFC 7636 appendix B.
const (
	pkceVerifier  = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	pkceChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
)

func authorizeReq(edit ...func(*auth.AuthorizeRequest)) *auth.AuthorizeRequest {
	r := &auth.AuthorizeRequest{ResponseType: "code", ClientID: "acme-portal", RedirectURI: callback, State: "xyz"}
	for _, e := range edit {
		e(r)
	}
	return r
}

func withPKCE(r *auth.AuthorizeRequest) {
	r.CodeChallenge, r.CodeChallengeMethod = pkceChallenge, auth.CodeChallengeS256
}

// codeGrant is the exchange of code through acme-portal.
func codeGrant(code, redirectURI, verifier string) *auth.TokenRequest {
	return &auth.TokenRequest{GrantType: auth.GrantAuthorizationCode, ClientID: "acme-portal", ClientSecret: PortalSecret,
		Code: code, RedirectURI: redirectURI, CodeVerifier: verifier}
}

// mustCode signs ada in and returns a code.
func (f *Fixture) mustCode(tb testing.TB, r *auth.AuthorizeRequest) string {
	tb.Helper()
	code, err := f.Svc.Authorize(context.Background(), r, "ada@acme.test", Password)
	require.NoError(tb, err)
	require.GreaterOrEqual(tb, len(code), 43)
	return code
}

// Ensure the test vector of RFC 7636 appendix B is what S256 means here.
func TestPKCEVector(t *testing.T) {
	sum := sha256.Sum256([]byte(pkceVerifier))
	require.Equal(t, pkceChallenge, base64.RawURLEncoding.EncodeToString(sum[:]))
}

// Ensure CheckAuthorize refuses untrusted clients and redirect URIs
// without a redirect, and the other errors with one.
func TestCheckAuthorize(t *testing.T) {
	f := NewFixture(t)
	for _, tt := range []struct {
		name     string
		req      *auth.AuthorizeRequest
		code     string
		redirect bool
	}{
		{"client_id missing", authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID = "" }), auth.InvalidRequest, false},
		{"unknown client", authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID = "nobody" }), auth.InvalidClient, false},
		{"service-account credentials", authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID = "acme-bot" }), auth.InvalidClient, false},
		{"redirect_uri missing", authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = "" }), auth.InvalidRequest, false},
		{"redirect_uri not registered", authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = "https://evil.test/cb" }), auth.InvalidRequest, false},
		{"redirect_uri with a trailing slash", authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = callback + "/" }), auth.InvalidRequest, false},
		{"redirect_uri with a query", authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = callback + "?x=1" }), auth.InvalidRequest, false},
		{"redirect_uri in another case", authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = strings.ToUpper(callback) }), auth.InvalidRequest, false},
		{"redirect_uri of another application", authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID = "other-portal" }), auth.InvalidRequest, false},
		{"bad client beats bad response_type", authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID, r.ResponseType = "nobody", "token" }), auth.InvalidClient, false},
		{"response_type token", authorizeReq(func(r *auth.AuthorizeRequest) { r.ResponseType = "token" }), auth.UnsupportedResponseType, true},
		{"response_type missing", authorizeReq(func(r *auth.AuthorizeRequest) { r.ResponseType = "" }), auth.UnsupportedResponseType, true},
		{"challenge without method", authorizeReq(func(r *auth.AuthorizeRequest) { r.CodeChallenge = pkceChallenge }), auth.InvalidRequest, true},
		{"method without challenge", authorizeReq(func(r *auth.AuthorizeRequest) { r.CodeChallengeMethod = "S256" }), auth.InvalidRequest, true},
		{"plain method", authorizeReq(withPKCE, func(r *auth.AuthorizeRequest) { r.CodeChallengeMethod = "plain" }), auth.InvalidRequest, true},
		{"lower-case s256", authorizeReq(withPKCE, func(r *auth.AuthorizeRequest) { r.CodeChallengeMethod = "s256" }), auth.InvalidRequest, true},
		{"short challenge", authorizeReq(withPKCE, func(r *auth.AuthorizeRequest) { r.CodeChallenge = pkceChallenge[:42] }), auth.InvalidRequest, true},
		{"challenge not base64url", authorizeReq(withPKCE, func(r *auth.AuthorizeRequest) { r.CodeChallenge = pkceChallenge[:42] + "=" }), auth.InvalidRequest, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app, err := f.Svc.CheckAuthorize(context.Background(), tt.req)
			var ae *auth.AuthorizeError
			require.True(t, errors.As(err, &ae), "%v", err)
			require.Equal(t, tt.code, ae.Code, ae.Description)
			require.Equal(t, tt.redirect, ae.Redirect)
			require.NotEmpty(t, ae.Description)
			require.Equal(t, tt.redirect, app != nil)
		})
	}
	for _, r := range []*auth.AuthorizeRequest{authorizeReq(), authorizeReq(withPKCE), authorizeReq(func(r *auth.AuthorizeRequest) { r.State = "" })} {
		app, err := f.Svc.CheckAuthorize(context.Background(), r)
		require.NoError(t, err)
		require.Equal(t, "1", app.AccountID)
		require.Equal(t, "Portal", app.Name)
	}
}

// Ensure only active, non-service members of the application's account
// with the right password get a code, and each refusal has its reason.
func TestAuthorize_Login(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	f.Dir.AddUser("ivan", "ivan@acme.test", false, auth.StatusInvited, "1") // invited, no password yet
	for _, tt := range []struct {
		name, email, password, reason string
	}{
		{"unknown email", "who@nowhere.test", Password, auth.LoginBadCredentials},
		{"wrong password", "ada@acme.test", "wrong password!", auth.LoginBadCredentials},
		{"empty password", "ada@acme.test", "", auth.LoginBadCredentials},
		{"no password set", "nopw@acme.test", Password, auth.LoginBadCredentials},
		{"service account with a password", "bot@acme.test", Password, auth.LoginServiceAccount},
		{"invited, password from elsewhere", "ivy@acme.test", Password, auth.LoginInvited},
		{"invited, no password", "ivan@acme.test", "anything at all", auth.LoginInvited},
		{"invited, password wrong", "ivy@acme.test", "wrong password!", auth.LoginBadCredentials},
		{"deactivated", "dan@acme.test", Password, auth.LoginDeactivated},
		{"deactivated, password wrong", "dan@acme.test", "wrong password!", auth.LoginBadCredentials},
		{"member of another account only", "ola@other.test", Password, auth.LoginNotMember},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, err := f.Svc.Authorize(ctx, authorizeReq(), tt.email, tt.password)
			require.Empty(t, code)
			var le *auth.LoginError
			require.True(t, errors.As(err, &le), "%v", err)
			require.Equal(t, tt.reason, le.Reason)
		})
	}
	t.Run("a bad request is refused before the password is looked at", func(t *testing.T) {
		_, err := f.Svc.Authorize(ctx, authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = "https://evil.test/cb" }), "ada@acme.test", Password)
		var ae *auth.AuthorizeError
		require.True(t, errors.As(err, &ae), "%v", err)
		require.False(t, ae.Redirect)
	})
	t.Run("email compared without regard to case", func(t *testing.T) {
		_, err := f.Svc.Authorize(ctx, authorizeReq(), "ADA@acme.test", Password)
		require.NoError(t, err)
	})
}

// Ensure a code is exchanged once for an access token without a refresh
// token, scoped to the application's account, that authenticates as the
// user with the authorization_code grant.
func TestAuthorizationCode_Exchange(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	for name, req := range map[string]*auth.AuthorizeRequest{"without PKCE": authorizeReq(), "with PKCE": authorizeReq(withPKCE)} {
		t.Run(name, func(t *testing.T) {
			code := f.mustCode(t, req)
			verifier := ""
			if req.CodeChallenge != "" {
				verifier = pkceVerifier
			}
			resp := f.MustToken(t, codeGrant(code, callback, verifier))
			require.Equal(t, "Bearer", resp.TokenType)
			require.Equal(t, 86400, resp.ExpiresIn)
			require.Empty(t, resp.RefreshToken)
			require.Equal(t, f.Clock.Now().Unix(), resp.CreatedAt)
			p, err := f.Svc.Authenticate(ctx, resp.AccessToken)
			require.NoError(t, err)
			require.Equal(t, "ada", p.UserID)
			require.Equal(t, "1", p.AccountID)
			require.Equal(t, auth.GrantAuthorizationCode, p.Grant)
			require.Equal(t, "acme-portal", p.ClientID)

			_, err = f.Svc.Token(ctx, codeGrant(code, callback, verifier))
			RequireOAuthError(t, err, auth.InvalidGrant)
		})
	}
}

// Ensure every failed exchange is invalid_grant and consumes the code:
// the same code is refused afterwards even with the right parameters.
func TestAuthorizationCode_Refusals(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	long := strings.Repeat("a", 129)
	for _, tt := range []struct {
		name     string
		req      *auth.AuthorizeRequest
		exchange func(code string) *auth.TokenRequest
		before   func()
		after    func()
	}{
		{name: "other redirect_uri", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback+"/other", "") }},
		{name: "redirect_uri with a trailing slash", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback+"/", "") }},
		{name: "verifier missing", req: authorizeReq(withPKCE),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, "") }},
		{name: "verifier wrong", req: authorizeReq(withPKCE),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, strings.Repeat("x", 43)) }},
		{name: "verifier is the challenge", req: authorizeReq(withPKCE),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, pkceChallenge) }},
		{name: "verifier too long", req: authorizeReq(withPKCE),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, long) }},
		{name: "verifier with a forbidden character", req: authorizeReq(withPKCE),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, pkceVerifier[:42]+"+") }},
		{name: "verifier without a challenge", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, pkceVerifier) }},
		{name: "another client", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest {
				r := codeGrant(c, callback, "")
				r.ClientID, r.ClientSecret = "other-portal", OtherSecret
				return r
			}},
		{name: "expired", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, "") },
			before:   func() { f.Clock.Add(auth.CodeTTL) }},
		{name: "user deactivated since", req: authorizeReq(),
			exchange: func(c string) *auth.TokenRequest { return codeGrant(c, callback, "") },
			before:   func() { f.Dir.SetStatus("ada", "1", auth.StatusDeactivated) },
			after:    func() { f.Dir.SetStatus("ada", "1", auth.StatusActive) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code := f.mustCode(t, tt.req)
			if tt.before != nil {
				tt.before()
			}
			_, err := f.Svc.Token(ctx, tt.exchange(code))
			RequireOAuthError(t, err, auth.InvalidGrant)
			if tt.after != nil {
				tt.after()
			}
			verifier := ""
			if tt.req.CodeChallenge != "" {
				verifier = pkceVerifier
			}
			_, err = f.Svc.Token(ctx, codeGrant(code, callback, verifier))
			RequireOAuthError(t, err, auth.InvalidGrant)
		})
	}

	t.Run("just before expiry", func(t *testing.T) {
		code := f.mustCode(t, authorizeReq())
		f.Clock.Add(auth.CodeTTL - time.Second)
		f.MustToken(t, codeGrant(code, callback, ""))
	})
	t.Run("a failed client authentication does not consume the code", func(t *testing.T) {
		code := f.mustCode(t, authorizeReq())
		r := codeGrant(code, callback, "")
		r.ClientSecret = "wrong"
		_, err := f.Svc.Token(ctx, r)
		RequireOAuthError(t, err, auth.InvalidClient)
		f.MustToken(t, codeGrant(code, callback, ""))
	})
	t.Run("a code is not a refresh token and not a bearer token", func(t *testing.T) {
		code := f.mustCode(t, authorizeReq())
		_, err := f.Svc.Authenticate(ctx, code)
		RequireCode(t, err, scopekit.EUNAUTHORIZED)
		_, err = f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
			ClientSecret: PortalSecret, RefreshToken: code})
		RequireOAuthError(t, err, auth.InvalidGrant)
	})
	t.Run("an access token of the code grant cannot be refreshed", func(t *testing.T) {
		resp := f.MustToken(t, codeGrant(f.mustCode(t, authorizeReq()), callback, ""))
		_, err := f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
			ClientSecret: PortalSecret, RefreshToken: resp.AccessToken})
		RequireOAuthError(t, err, auth.InvalidGrant)
	})
}

// Ensure that of concurrent exchanges of one code exactly one succeeds.
func TestAuthorizationCode_ConcurrentExchange(t *testing.T) {
	f := NewFixture(t)
	code := f.mustCode(t, authorizeReq())
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.Svc.Token(context.Background(), codeGrant(code, callback, ""))
			if err == nil {
				mu.Lock()
				wins++
				mu.Unlock()
				return
			}
			var oe *auth.OAuthError
			if !errors.As(err, &oe) || oe.Code != auth.InvalidGrant {
				t.Errorf("unexpected error %v", err)
			}
		}()
	}
	wg.Wait()
	require.Equal(t, 1, wins)
}

// Ensure codes that expire unused are purged when later codes are issued,
// and only those: a code still valid stays exchangeable.
func TestAuthorizationCode_ExpiredPurged(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	old := f.mustCode(t, authorizeReq())
	fresh := f.mustCode(t, authorizeReq())
	f.Clock.Add(auth.CodeTTL / 2)
	live := f.mustCode(t, authorizeReq())
	f.Clock.Add(auth.CodeTTL/2 + time.Second)
	later := f.mustCode(t, authorizeReq())
	store := f.DB.AuthStore()
	for _, c := range []string{old, fresh} {
		_, err := store.TakeAuthCode(ctx, auth.HashSecret(c))
		RequireCode(t, err, scopekit.ENOTFOUND)
	}
	got, err := store.TakeAuthCode(ctx, auth.HashSecret(later))
	require.NoError(t, err)
	require.Equal(t, "ada", got.UserID)
	require.Equal(t, callback, got.RedirectURI)
	require.Equal(t, f.Clock.Now().Add(auth.CodeTTL), got.ExpiresAt.In(time.UTC))
	f.MustToken(t, codeGrant(live, callback, ""))
}

// Ensure a token from a person's sign-in stops working once the user
// becomes a service account, while client_credentials tokens do not care.
func TestAuthenticate_ServiceConversion(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	pw := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	code := f.MustToken(t, codeGrant(f.mustCode(t, authorizeReq()), callback, ""))
	for _, tok := range []string{pw.AccessToken, code.AccessToken} {
		_, err := f.Svc.Authenticate(ctx, tok)
		require.NoError(t, err)
	}
	f.Dir.AddUser("ada", "ada@acme.test", true, auth.StatusActive, "1", "2")
	for _, tok := range []string{pw.AccessToken, code.AccessToken} {
		_, err := f.Svc.Authenticate(ctx, tok)
		RequireCode(t, err, scopekit.EUNAUTHORIZED)
	}
	cc := f.MustToken(t, ClientCredentials("acme-bot", BotSecret))
	_, err := f.Svc.Authenticate(ctx, cc.AccessToken)
	require.NoError(t, err)
}

// Ensure the password step of an invitation sets a first password under
// the policy, and never replaces an existing one.
func TestEstablishPassword(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	f.Dir.AddUser("ivan", "ivan@acme.test", false, auth.StatusActive, "1")

	for _, pw := range []string{"", "short", "elevenchars", "ééééééééééé", strings.Repeat("x", 73)} {
		RequireCode(t, f.Svc.EstablishPassword(ctx, "ivan", pw), scopekit.EINVALID)
	}
	const chosen = "twelve chars"
	require.NoError(t, f.Svc.EstablishPassword(ctx, "ivan", chosen))
	f.MustToken(t, PasswordGrant("ivan@acme.test", chosen))

	// ada has a password: another one is refused and hers is kept
	err := f.Svc.EstablishPassword(ctx, "ada", "a brand new password")
	RequireCode(t, err, scopekit.EINVALID)
	require.Contains(t, err.Error(), "already has a password")
	require.NoError(t, f.Svc.EstablishPassword(ctx, "ada", Password))
	f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", "a brand new password"))
	RequireOAuthError(t, err, auth.InvalidGrant)

	require.NoError(t, auth.CheckNewPassword("ééééééééééée"), "characters, not bytes")
	RequireCode(t, f.Svc.EstablishPassword(ctx, "", chosen), scopekit.EINVALID)
}

// setRevoked stamps a membership's last deactivation.
func (d *Directory) setRevoked(userID, accountID string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.version++
	d.memberships[[2]string{userID, accountID}].RevokedAt = at
}

// Ensure a deactivation voids what was issued before it (access and
// refresh tokens, codes) even once the membership is active again, and
// not what is issued after.
func TestRevokedAt(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	pw := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	code := f.mustCode(t, authorizeReq())
	f.Clock.Add(time.Second)
	f.Dir.SetStatus("ada", "1", auth.StatusDeactivated)
	f.Dir.setRevoked("ada", "1", f.Clock.Now())
	_, err := f.Svc.Authenticate(ctx, pw.AccessToken)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.InvalidGrant)

	f.Clock.Add(time.Second)
	f.Dir.SetStatus("ada", "1", auth.StatusActive) // restored
	_, err = f.Svc.Authenticate(ctx, pw.AccessToken)
	RequireCode(t, err, scopekit.EUNAUTHORIZED)
	_, err = f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
		ClientSecret: PortalSecret, RefreshToken: pw.RefreshToken})
	RequireOAuthError(t, err, auth.InvalidGrant)
	_, err = f.Svc.Token(ctx, codeGrant(code, callback, ""))
	RequireOAuthError(t, err, auth.InvalidGrant)

	again := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	_, err = f.Svc.Authenticate(ctx, again.AccessToken)
	require.NoError(t, err)
	f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
		ClientSecret: PortalSecret, RefreshToken: again.RefreshToken})
	f.MustToken(t, codeGrant(f.mustCode(t, authorizeReq()), callback, ""))
}
