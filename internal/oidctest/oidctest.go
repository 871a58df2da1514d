// Package oidctest runs a real OpenID Connect provider for tests:
// zitadel/oidc's provider (pkg/op) with its example storage and login
// page, on a loopback address, with the users a test gives and one web
// client. Misbehave makes it issue ID tokens a relying party must refuse
// (another nonce, another audience, already expired); the refusal is the
// relying party's own verification, not something this package fakes.
package oidctest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// The provider's client for the relying party.
const (
	ClientID     = "scopekit-sso"
	ClientSecret = "oidctest client secret 7c1e9a"
)

// AnotherClient is the client an OtherAudience provider issues ID tokens
// to.
const AnotherClient = "another-client"

// Behaviour is what the provider does to the ID tokens it issues.
type Behaviour int32

const (
	// Honest issues ID tokens as OpenID Connect says; the email claims
	// are served by the user info endpoint only (the library's default).
	Honest Behaviour = iota
	// EmailInIDToken is Honest with the email claims in the ID token too.
	EmailInIDToken
	// OtherNonce puts another nonce in the ID token than the sign-in's.
	OtherNonce
	// OtherAudience issues the ID token to another client (audience and
	// authorized party AnotherClient).
	OtherAudience
	// Expired issues ID tokens that expired an hour ago.
	Expired
)

// User is a person the provider signs in with a username and password.
type User struct {
	Username, Password string
	Email              string
	EmailVerified      bool
	FirstName          string
	LastName           string
}

// Provider is a running provider.
type Provider struct {
	// Issuer is its issuer URL (http on 127.0.0.1).
	Issuer    string
	behaviour atomic.Int32
	srv       *httptest.Server
}

// Start runs a provider until the test ends. Its client ClientID (with
// ClientSecret, HTTP Basic) may redirect to redirectURI only.
func Start(t testing.TB, redirectURI string, users ...User) *Provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Provider{Issuer: "http://" + ln.Addr().String()}
	us := userStore{}
	for i, u := range users {
		id := "user-" + strconv.Itoa(i+1)
		us[id] = &storage.User{ID: id, Username: u.Username, Password: u.Password, Email: u.Email,
			EmailVerified: u.EmailVerified, FirstName: u.FirstName, LastName: u.LastName, PreferredLanguage: language.English}
	}
	st := storage.NewStorageWithClients(us, map[string]*storage.Client{
		ClientID: storage.WebClient(ClientID, ClientSecret, redirectURI)})
	srv := httptest.NewUnstartedServer(exampleop.SetupServer(p.Issuer, &behaving{Storage: st, p: p}, nil, false))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	p.srv = srv
	t.Cleanup(srv.Close)
	return p
}

// Close stops the provider before the test ends: it can no longer be
// reached.
func (p *Provider) Close() { p.srv.Close() }

// Misbehave sets what the provider does to the ID tokens it issues from
// now on.
func (p *Provider) Misbehave(b Behaviour) { p.behaviour.Store(int32(b)) }

func (p *Provider) is(b Behaviour) bool { return Behaviour(p.behaviour.Load()) == b }

// SignIn plays the browser at the provider, without JavaScript: it
// follows authURL to the login page, signs in with the username and
// password, follows the provider's redirects and returns where the
// provider sends the browser back to (the relying party's callback, not
// followed).
func (p *Provider) SignIn(t testing.TB, authURL, username, password string) *url.URL {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	var back *url.URL
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(r *http.Request, _ []*http.Request) error {
		if !strings.HasPrefix(r.URL.String(), p.Issuer+"/") {
			back = r.URL
			return http.ErrUseLastResponse
		}
		return nil
	}}
	res, err := c.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	id := res.Request.URL.Query().Get("authRequestID")
	if res.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("the provider did not show its login page: %s at %s", res.Status, res.Request.URL)
	}
	res, err = c.PostForm(p.Issuer+"/login/username", url.Values{"id": {id}, "username": {username}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if back == nil {
		t.Fatalf("the provider did not send the browser back: %s %s", res.Status, body)
	}
	return back
}

// userStore is storage.UserStore over a map by id.
type userStore map[string]*storage.User

func (s userStore) GetUserByID(id string) *storage.User { return s[id] }

func (s userStore) GetUserByUsername(username string) *storage.User {
	for _, u := range s {
		if u.Username == username {
			return u
		}
	}
	return nil
}

func (userStore) ExampleClientID() string { return storage.ServiceUserID }

// behaving is the example storage with the provider's behaviour applied
// to the client and the authorization requests the token endpoint reads.
type behaving struct {
	*storage.Storage
	p *Provider
}

func (s *behaving) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	switch {
	case err != nil:
		return nil, err
	case s.p.is(Expired):
		return expiredClient{c}, nil
	case s.p.is(EmailInIDToken):
		return claimsClient{c}, nil
	case s.p.is(OtherAudience):
		return anotherClient{c}, nil
	}
	return c, nil
}

func (s *behaving) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	ar, err := s.Storage.AuthRequestByCode(ctx, code)
	switch {
	case err != nil:
		return nil, err
	case s.p.is(OtherNonce):
		return otherNonce{ar}, nil
	case s.p.is(OtherAudience):
		return otherAudience{ar}, nil
	}
	return ar, nil
}

type expiredClient struct{ op.Client }

func (expiredClient) IDTokenLifetime() time.Duration { return -time.Hour }

type claimsClient struct{ op.Client }

func (claimsClient) IDTokenUserinfoClaimsAssertion() bool { return true }

type otherNonce struct{ op.AuthRequest }

func (otherNonce) GetNonce() string { return "the nonce of another sign-in" }

// anotherClient and otherAudience make the token endpoint see the sign-in
// as one of AnotherClient (once the client secret has been checked).
type anotherClient struct{ op.Client }

func (anotherClient) GetID() string { return AnotherClient }

type otherAudience struct{ op.AuthRequest }

func (otherAudience) GetClientID() string   { return AnotherClient }
func (otherAudience) GetAudience() []string { return []string{AnotherClient} }
