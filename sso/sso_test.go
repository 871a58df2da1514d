package sso_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

const callback = "http://127.0.0.1:9/oauth/sso/callback"

var (
	ada   = oidctest.User{Username: "ada", Password: "ada at the provider", Email: "ada@acme.test", EmailVerified: true, FirstName: "Ada", LastName: "Lovelace"}
	unver = oidctest.User{Username: "una", Password: "una at the provider", Email: "una@acme.test", FirstName: "Una"}
)

type fixture struct {
	op  *oidctest.Provider
	rp  *sso.RelyingParty
	idp *auth.IdentityProvider
	req auth.AuthorizeRequest
}

func newFixture(t *testing.T) *fixture {
	op := oidctest.Start(t, callback, ada, unver)
	return &fixture{op: op,
		rp: &sso.RelyingParty{Client: &http.Client{Timeout: 10 * time.Second}}, // the provider is on loopback
		idp: &auth.IdentityProvider{ID: "7", AccountID: "1", Issuer: op.Issuer, ClientID: oidctest.ClientID,
			ClientSecret: oidctest.ClientSecret, Domains: []string{"acme.test"}},
		req: auth.AuthorizeRequest{ResponseType: "code", ClientID: "portal", RedirectURI: "http://127.0.0.1:9999/cb", State: "app state"}}
}

// signIn begins a flow, signs the user in at the provider and finishes
// the flow with what the provider sent back.
func (f *fixture) signIn(t *testing.T, u oidctest.User) (*sso.Identity, error) {
	t.Helper()
	ctx := context.Background()
	redirect, binding, err := f.rp.Begin(ctx, f.idp, callback, &f.req, u.Email)
	require.NoError(t, err)
	target, err := url.Parse(redirect)
	require.NoError(t, err)
	q := target.Query()
	require.Equal(t, "S256", q.Get("code_challenge_method"))
	require.NotEmpty(t, q.Get("nonce"))
	require.Equal(t, u.Email, q.Get("login_hint"))
	require.Empty(t, q.Get("client_secret"))

	back := f.op.SignIn(t, redirect, u.Username, u.Password)
	require.Equal(t, callback, back.Scheme+"://"+back.Host+back.Path)
	state := back.Query().Get("state")
	require.Equal(t, q.Get("state"), state)
	_, ok := take(t, f.rp, state, "another browser's binding")
	require.False(t, ok, "the flow belongs to the browser that began it")
	flow, ok := take(t, f.rp, state, binding)
	require.True(t, ok)
	require.Equal(t, f.req, flow.Request)
	require.Equal(t, f.idp.ID, flow.ProviderID)
	_, ok = take(t, f.rp, state, binding)
	require.False(t, ok, "a flow is taken once")
	return f.rp.Finish(ctx, f.idp, flow, back.Query().Get("code"))
}

// take is Take, which must not fail.
func take(t *testing.T, rp *sso.RelyingParty, state, binding string) (*sso.Flow, bool) {
	t.Helper()
	f, ok, err := rp.Take(context.Background(), state, binding)
	require.NoError(t, err)
	return f, ok
}

func requireReason(t *testing.T, err error, reason string) {
	t.Helper()
	var se *sso.Error
	require.True(t, errors.As(err, &se), "want *sso.Error, got %v", err)
	require.Equal(t, reason, se.Reason, se.Error())
}

// Ensure a sign-in at a real provider returns the verified email, whether
// the provider puts it in the user info only or in the ID token too.
func TestSignIn(t *testing.T) {
	f := newFixture(t)
	id, err := f.signIn(t, ada)
	require.NoError(t, err)
	require.Equal(t, &sso.Identity{Subject: "user-1", Email: "ada@acme.test", Name: "Ada Lovelace"}, id)

	f.op.Misbehave(oidctest.EmailInIDToken)
	id, err = f.signIn(t, ada)
	require.NoError(t, err)
	require.Equal(t, "ada@acme.test", id.Email)
	require.Equal(t, "Ada Lovelace", id.Name)
}

// Ensure the ID tokens a relying party must refuse are refused: another
// nonce, another audience, expired; and an email the provider has not
// verified.
func TestSignIn_Refusals(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		behaviour oidctest.Behaviour
		reason    string
		contains  string
	}{
		{oidctest.OtherNonce, sso.ReasonNonce, "nonce"},
		{oidctest.OtherAudience, sso.ReasonIDToken, "audience"},
		{oidctest.Expired, sso.ReasonIDToken, "expired"},
	} {
		f.op.Misbehave(tt.behaviour)
		_, err := f.signIn(t, ada)
		requireReason(t, err, tt.reason)
		require.Contains(t, err.Error(), tt.contains)
	}
	f.op.Misbehave(oidctest.Honest)
	_, err := f.signIn(t, unver)
	requireReason(t, err, sso.ReasonEmailUnverified)

	// the code is the provider's to check: a made-up one is refused
	ctx := context.Background()
	redirect, binding, err := f.rp.Begin(ctx, f.idp, callback, &f.req, "")
	require.NoError(t, err)
	u, _ := url.Parse(redirect)
	flow, ok := take(t, f.rp, u.Query().Get("state"), binding)
	require.True(t, ok)
	_, err = f.rp.Finish(ctx, f.idp, flow, "made-up-code")
	requireReason(t, err, sso.ReasonExchange)
	require.NotContains(t, err.Error(), oidctest.ClientSecret)

	// a wrong client secret is the token endpoint's refusal
	wrong := *f.idp
	wrong.ClientSecret = "not the secret"
	_, err = (&fixture{op: f.op, rp: f.rp, idp: &wrong, req: f.req}).signIn(t, ada)
	requireReason(t, err, sso.ReasonExchange)
}

// Ensure an unreachable provider, an expired flow and an unknown state
// are refused.
func TestBeginAndTake(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	gone := *f.idp
	gone.Issuer = "http://127.0.0.1:1"
	_, _, err := f.rp.Begin(ctx, &gone, callback, &f.req, "")
	requireReason(t, err, sso.ReasonUnreachable)

	now := time.Now()
	f.rp.Now = func() time.Time { return now }
	redirect, binding, err := f.rp.Begin(ctx, f.idp, callback, &f.req, "")
	require.NoError(t, err)
	u, _ := url.Parse(redirect)
	now = now.Add(sso.FlowTTL)
	_, ok := take(t, f.rp, u.Query().Get("state"), binding)
	require.False(t, ok, "expired")
	_, ok = take(t, f.rp, "", "")
	require.False(t, ok)
	_, ok = take(t, f.rp, "unknown", binding)
	require.False(t, ok)

	// the default client reaches only public addresses
	_, _, err = (&sso.RelyingParty{}).Begin(ctx, f.idp, callback, &f.req, "")
	requireReason(t, err, sso.ReasonUnreachable)
}
