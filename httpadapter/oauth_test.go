package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Secrets of the OAuth fixture; some hold characters that must be
// URL-encoded in HTTP Basic (RFC 6749 2.3.1).
const (
	oauthPassword     = "correct horse battery"
	oauthPortalID     = "acme portal:1"
	oauthPortalSecret = "portal+secret/with:odd&chars=%"
	oauthBotID        = "acme-bot"
	oauthBotSecret    = "bot secret:+/%"
)

// oauthDirectory is an in-memory auth.Directory.
type oauthDirectory struct {
	mu          sync.Mutex
	subjects    map[string]auth.Subject
	memberships map[[2]string]auth.Membership
}

func (d *oauthDirectory) add(userID, email string, service bool, status string, accounts ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.subjects[strings.ToLower(email)] = auth.Subject{UserID: userID, Email: email, Service: service}
	for _, a := range accounts {
		d.memberships[[2]string{userID, a}] = auth.Membership{UserID: userID, AccountID: a, Status: status, Service: service}
	}
}

func (d *oauthDirectory) UserByEmail(_ context.Context, email string) (*auth.Subject, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.subjects[strings.ToLower(email)]
	if !ok {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such user")
	}
	return &s, nil
}

func (d *oauthDirectory) Membership(_ context.Context, userID, accountID string) (*auth.Membership, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.memberships[[2]string{userID, accountID}]
	if !ok {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such membership")
	}
	return &m, nil
}

// oauthSyncBuffer collects log output from concurrent handlers.
type oauthSyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *oauthSyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *oauthSyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// oauthEnv is OAuthTokenHandler on a real bbolt file, served by httptest,
// with every log line (Debug included) kept.
type oauthEnv struct {
	svc *auth.Service
	srv *httptest.Server
	log *oauthSyncBuffer
	ctx context.Context // carries the test server's client for x/oauth2
}

// newOAuthEnv: account 1 has the application oauthPortalID and users ada
// (active), ivy (invited), dan (deactivated) and bot (a service account
// with credentials oauthBotID); ola is active in account 2 only.
func newOAuthEnv(t *testing.T) *oauthEnv {
	t.Helper()
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	dir := &oauthDirectory{subjects: map[string]auth.Subject{}, memberships: map[[2]string]auth.Membership{}}
	dir.add("ada", "ada@acme.test", false, auth.StatusActive, "1")
	dir.add("ivy", "ivy@acme.test", false, auth.StatusInvited, "1")
	dir.add("dan", "dan@acme.test", false, auth.StatusDeactivated, "1")
	dir.add("bot", "bot@acme.test", true, auth.StatusActive, "1")
	dir.add("ola", "ola@other.test", false, auth.StatusActive, "2")
	e := &oauthEnv{
		svc: &auth.Service{Store: db.AuthStore(), Directory: dir, BcryptCost: bcrypt.MinCost},
		log: &oauthSyncBuffer{},
	}
	for _, u := range []string{"ada", "ivy", "dan", "ola"} {
		require.NoError(t, e.svc.SetPassword(ctx, u, oauthPassword))
	}
	require.NoError(t, e.svc.RegisterApplication(ctx, "1", "Portal", oauthPortalID, oauthPortalSecret, []string{"http://127.0.0.1:9999/callback"}))
	require.NoError(t, e.svc.SetServiceCredential(ctx, "1", "bot", oauthBotID, oauthBotSecret))
	logger := slog.New(slog.NewJSONHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e.srv = httptest.NewServer(httpadapter.OAuthTokenHandler(e.svc, logger))
	t.Cleanup(e.srv.Close)
	e.ctx = context.WithValue(ctx, oauth2.HTTPClient, e.srv.Client())
	return e
}

func (e *oauthEnv) clientCredentials(id, secret string, style oauth2.AuthStyle) *clientcredentials.Config {
	return &clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: e.srv.URL, AuthStyle: style}
}

func (e *oauthEnv) passwordConfig(id, secret string, style oauth2.AuthStyle) *oauth2.Config {
	return &oauth2.Config{ClientID: id, ClientSecret: secret, Endpoint: oauth2.Endpoint{TokenURL: e.srv.URL, AuthStyle: style}}
}

// requireNoSecretsLogged asserts that no secret or token value reached the
// log.
func (e *oauthEnv) requireNoSecretsLogged(t *testing.T, extra ...string) {
	t.Helper()
	logs := e.log.String()
	for _, s := range append([]string{oauthPassword, oauthPortalSecret, oauthBotSecret, "wrong-secret", "wrong password!"}, extra...) {
		require.NotContains(t, logs, s)
	}
}

func oauthRetrieveError(t *testing.T, err error, code string) *oauth2.RetrieveError {
	t.Helper()
	var re *oauth2.RetrieveError
	require.Truef(t, errors.As(err, &re), "want *oauth2.RetrieveError, got %v", err)
	require.Equal(t, code, re.ErrorCode, re.ErrorDescription)
	require.NotEmpty(t, re.ErrorDescription)
	want := http.StatusBadRequest
	if code == auth.InvalidClient {
		want = http.StatusUnauthorized
	}
	require.Equal(t, want, re.Response.StatusCode)
	require.Equal(t, "no-store", re.Response.Header.Get("Cache-Control"))
	require.Equal(t, "no-cache", re.Response.Header.Get("Pragma"))
	require.Equal(t, "application/json", re.Response.Header.Get("Content-Type"))
	return re
}

var oauthStyles = map[string]oauth2.AuthStyle{"in params": oauth2.AuthStyleInParams, "in header": oauth2.AuthStyleInHeader}

// Ensure the client_credentials grant works through x/oauth2 with the
// credentials in the form and in HTTP Basic, and its failures carry the
// OAuth error codes.
func TestOAuthToken_ClientCredentials(t *testing.T) {
	e := newOAuthEnv(t)
	var tokens []string
	for name, style := range oauthStyles {
		t.Run(name, func(t *testing.T) {
			tok, err := e.clientCredentials(oauthBotID, oauthBotSecret, style).Token(e.ctx)
			require.NoError(t, err)
			require.Equal(t, "Bearer", tok.TokenType)
			require.Empty(t, tok.RefreshToken)
			require.WithinDuration(t, time.Now().Add(86400*time.Second), tok.Expiry, time.Minute)
			require.EqualValues(t, 86400, tok.Extra("expires_in"))
			p, err := e.svc.Authenticate(context.Background(), tok.AccessToken)
			require.NoError(t, err)
			require.Equal(t, "bot", p.UserID)
			require.Equal(t, "1", p.AccountID)
			tokens = append(tokens, tok.AccessToken)

			_, err = e.clientCredentials(oauthBotID, "wrong-secret", style).Token(e.ctx)
			re := oauthRetrieveError(t, err, auth.InvalidClient)
			if style == oauth2.AuthStyleInHeader {
				require.Equal(t, `Basic realm="scopekit"`, re.Response.Header.Get("WWW-Authenticate"))
			} else {
				require.Empty(t, re.Response.Header.Get("WWW-Authenticate"))
			}
			_, err = e.clientCredentials("nobody", oauthBotSecret, style).Token(e.ctx)
			oauthRetrieveError(t, err, auth.InvalidClient)
			_, err = e.clientCredentials(oauthPortalID, oauthPortalSecret, style).Token(e.ctx)
			oauthRetrieveError(t, err, auth.UnauthorizedClient)
		})
	}
	e.requireNoSecretsLogged(t, tokens...)
}

// Ensure the password grant works through x/oauth2 (both auth styles),
// returns a refresh token that x/oauth2 can use, and answers each failure
// with its OAuth error code.
func TestOAuthToken_Password(t *testing.T) {
	e := newOAuthEnv(t)
	var tokens []string
	for name, style := range oauthStyles {
		t.Run(name, func(t *testing.T) {
			conf := e.passwordConfig(oauthPortalID, oauthPortalSecret, style)
			tok, err := conf.PasswordCredentialsToken(e.ctx, "ada@acme.test", oauthPassword)
			require.NoError(t, err)
			require.Equal(t, "Bearer", tok.TokenType)
			require.NotEmpty(t, tok.RefreshToken)
			require.EqualValues(t, 86400, tok.Extra("expires_in"))
			p, err := e.svc.Authenticate(context.Background(), tok.AccessToken)
			require.NoError(t, err)
			require.Equal(t, "ada", p.UserID)

			// Refresh through x/oauth2: rotation makes the old refresh
			// token useless.
			refreshed, err := conf.TokenSource(e.ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			require.NoError(t, err)
			require.NotEqual(t, tok.RefreshToken, refreshed.RefreshToken)
			_, err = conf.TokenSource(e.ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			oauthRetrieveError(t, err, auth.InvalidGrant)
			tokens = append(tokens, tok.AccessToken, tok.RefreshToken, refreshed.AccessToken, refreshed.RefreshToken)

			for _, tt := range []struct {
				name, id, secret, user, password, code string
			}{
				{"unknown email", oauthPortalID, oauthPortalSecret, "who@nowhere.test", oauthPassword, auth.InvalidResourceOwner},
				{"wrong password", oauthPortalID, oauthPortalSecret, "ada@acme.test", "wrong password!", auth.InvalidGrant},
				{"invited", oauthPortalID, oauthPortalSecret, "ivy@acme.test", oauthPassword, auth.InvalidGrant},
				{"deactivated", oauthPortalID, oauthPortalSecret, "dan@acme.test", oauthPassword, auth.InvalidGrant},
				{"service account", oauthPortalID, oauthPortalSecret, "bot@acme.test", oauthPassword, auth.InvalidGrant},
				{"not a member of the app's account", oauthPortalID, oauthPortalSecret, "ola@other.test", oauthPassword, auth.InvalidGrant},
				{"wrong client secret", oauthPortalID, "wrong-secret", "ada@acme.test", oauthPassword, auth.InvalidClient},
				{"unknown client", "nobody", oauthPortalSecret, "ada@acme.test", oauthPassword, auth.InvalidClient},
				{"service-account credentials", oauthBotID, oauthBotSecret, "ada@acme.test", oauthPassword, auth.UnauthorizedClient},
			} {
				t.Run(tt.name, func(t *testing.T) {
					_, err := e.passwordConfig(tt.id, tt.secret, style).PasswordCredentialsToken(e.ctx, tt.user, tt.password)
					oauthRetrieveError(t, err, tt.code)
				})
			}
		})
	}
	e.requireNoSecretsLogged(t, tokens...)
}

// oauthAnswer is a raw response of the token endpoint.
type oauthAnswer struct {
	status int
	header http.Header
	body   map[string]any
}

func (e *oauthEnv) post(t *testing.T, method, contentType, body string, headers ...string) *oauthAnswer {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL, strings.NewReader(body))
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	a := &oauthAnswer{status: res.StatusCode, header: res.Header}
	require.NoErrorf(t, json.Unmarshal(raw, &a.body), "body %q is not JSON", raw)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	require.Equal(t, "no-store", res.Header.Get("Cache-Control"))
	require.Equal(t, "no-cache", res.Header.Get("Pragma"))
	return a
}

func oauthBasic(id, secret string) string {
	req := &http.Request{Header: http.Header{}}
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	return req.Header.Get("Authorization")
}

// Ensure malformed requests answer a 4xx OAuth error object, never a 500,
// and that the form and Basic rules hold.
func TestOAuthToken_RawRequests(t *testing.T) {
	e := newOAuthEnv(t)
	const form = "application/x-www-form-urlencoded"
	cc := url.Values{"grant_type": {"client_credentials"}, "client_id": {oauthBotID}, "client_secret": {oauthBotSecret}}.Encode()
	pw := url.Values{"grant_type": {"password"}, "client_id": {oauthPortalID}, "client_secret": {oauthPortalSecret},
		"username": {"ada@acme.test"}, "password": {oauthPassword}}.Encode()
	for _, tt := range []struct {
		name        string
		method      string
		contentType string
		body        string
		headers     []string
		status      int
		code        string
		mention     string // a word the description must hold
	}{
		{"wrong content type", "POST", "application/json", `{"grant_type":"client_credentials"}`, nil, 400, auth.InvalidRequest, "Content-Type"},
		{"no content type", "POST", "", cc, nil, 400, auth.InvalidRequest, "Content-Type"},
		{"multipart", "POST", "multipart/form-data; boundary=x", cc, nil, 400, auth.InvalidRequest, "Content-Type"},
		{"bad content type syntax", "POST", "application/x-www-form-urlencoded; ;;", cc, nil, 400, auth.InvalidRequest, "Content-Type"},
		{"charset parameter accepted", "POST", form + "; charset=UTF-8", cc, nil, 200, "", ""},
		{"malformed form", "POST", form, "grant_type=client_credentials&client_id=%zz", nil, 400, auth.InvalidRequest, "malformed"},
		{"semicolon separator", "POST", form, "grant_type=client_credentials;client_id=x", nil, 400, auth.InvalidRequest, "malformed"},
		{"repeated grant_type", "POST", form, cc + "&grant_type=client_credentials", nil, 400, auth.InvalidRequest, "grant_type"},
		{"repeated client_secret", "POST", form, cc + "&client_secret=other", nil, 400, auth.InvalidRequest, "client_secret"},
		{"repeated empty redirect_uri", "POST", form, pw + "&redirect_uri=&redirect_uri=", nil, 400, auth.InvalidRequest, "redirect_uri"},
		{"repeated unknown parameter ignored", "POST", form, cc + "&foo=1&foo=2", nil, 200, "", ""},
		{"oversized body", "POST", form, cc + "&pad=" + strings.Repeat("x", 70<<10), nil, 413, auth.InvalidRequest, "64 KiB"},
		{"GET", "GET", "", "", nil, 405, auth.InvalidRequest, "POST"},
		{"PUT", "PUT", form, cc, nil, 405, auth.InvalidRequest, "POST"},
		{"missing grant_type", "POST", form, "client_id=acme-bot&client_secret=x", nil, 400, auth.InvalidRequest, "grant_type"},
		{"empty body", "POST", form, "", nil, 400, auth.InvalidRequest, "grant_type"},
		{"unsupported grant_type", "POST", form, "grant_type=implicit", nil, 400, auth.UnsupportedGrantType, "grant_type"},
		{"missing client_secret", "POST", form, "grant_type=client_credentials&client_id=acme-bot", nil, 400, auth.InvalidRequest, "client_secret"},
		{"redirect_uri with password", "POST", form, pw + "&redirect_uri=", nil, 400, auth.InvalidRequest, "redirect_uri"},
		{"authorization_code with an unknown code", "POST", form, url.Values{"grant_type": {"authorization_code"}, "code": {"abc"},
			"redirect_uri": {"http://127.0.0.1:9999/callback"}}.Encode(), []string{"Authorization", oauthBasic(oauthPortalID, oauthPortalSecret)},
			400, auth.InvalidGrant, "code"},
		{"basic only", "POST", form, "grant_type=client_credentials",
			[]string{"Authorization", oauthBasic(oauthBotID, oauthBotSecret)}, 200, "", ""},
		{"basic and form agree", "POST", form, cc,
			[]string{"Authorization", oauthBasic(oauthBotID, oauthBotSecret)}, 200, "", ""},
		{"basic and form client_id differ", "POST", form, "grant_type=client_credentials&client_id=other",
			[]string{"Authorization", oauthBasic(oauthBotID, oauthBotSecret)}, 400, auth.InvalidRequest, "client_id"},
		{"basic and form client_secret differ", "POST", form, "grant_type=client_credentials&client_secret=other",
			[]string{"Authorization", oauthBasic(oauthBotID, oauthBotSecret)}, 400, auth.InvalidRequest, "client_secret"},
		{"basic not URL-encoded", "POST", form, "grant_type=client_credentials",
			[]string{"Authorization", "Basic " + "YWNtZS1ib3Q6Ym90IHNlY3JldDorLyU="}, 401, auth.InvalidClient, "Basic"},
		{"bearer instead of basic", "POST", form, "grant_type=client_credentials",
			[]string{"Authorization", "Bearer abc"}, 401, auth.InvalidClient, "Basic"},
		{"basic with a wrong secret", "POST", form, "grant_type=client_credentials",
			[]string{"Authorization", oauthBasic(oauthBotID, "wrong-secret")}, 401, auth.InvalidClient, "client_secret"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := e.post(t, tt.method, tt.contentType, tt.body, tt.headers...)
			require.Equal(t, tt.status, a.status, a.body)
			if tt.status == 200 {
				require.NotEmpty(t, a.body["access_token"])
				require.Equal(t, "Bearer", a.body["token_type"])
				require.EqualValues(t, 86400, a.body["expires_in"])
				require.NotZero(t, a.body["created_at"])
				return
			}
			require.Equal(t, tt.code, a.body["error"])
			require.Contains(t, a.body["error_description"], tt.mention)
			if tt.status == 405 {
				require.Equal(t, "POST", a.header.Get("Allow"))
			}
			if tt.code == auth.InvalidClient && len(tt.headers) > 0 {
				require.Equal(t, `Basic realm="scopekit"`, a.header.Get("WWW-Authenticate"))
			}
		})
	}

	t.Run("credentials in the query string are not read", func(t *testing.T) {
		req, err := http.NewRequest("POST", e.srv.URL+"?"+cc, strings.NewReader("grant_type=client_credentials"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", form)
		res, err := e.srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var body map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
		require.Equal(t, 400, res.StatusCode)
		require.Equal(t, auth.InvalidRequest, body["error"])
	})
	e.requireNoSecretsLogged(t)
}

// oauthBrokenStore fails every read, as a store whose disk is gone would.
type oauthBrokenStore struct{ auth.Store }

func (oauthBrokenStore) ApplicationByClientID(context.Context, string) (*auth.Application, error) {
	return nil, errors.New("disk unavailable")
}

// Ensure an internal failure answers 500 server_error without detail and
// is logged without the request's secrets.
func TestOAuthToken_InternalError(t *testing.T) {
	e := newOAuthEnv(t)
	e.svc.Store = oauthBrokenStore{e.svc.Store}
	body := url.Values{"grant_type": {"client_credentials"}, "client_id": {oauthBotID}, "client_secret": {oauthBotSecret}}.Encode()
	a := e.post(t, "POST", "application/x-www-form-urlencoded", body)
	require.Equal(t, 500, a.status)
	require.Equal(t, "server_error", a.body["error"])
	require.Equal(t, "Internal error", a.body["error_description"])
	require.Contains(t, e.log.String(), "disk unavailable")
	require.NotContains(t, e.log.String(), oauthBotID)
	e.requireNoSecretsLogged(t)
}
