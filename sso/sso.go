// Package sso is the relying party of single sign-on through OpenID
// Connect (docs/auth.md "Single sign-on"): it sends a person to the
// account's identity provider with the authorization code flow (PKCE,
// state and nonce) and, on the way back, exchanges the code and verifies
// the ID token with the provider's published keys (coreos/go-oidc),
// returning the email the provider verified. Which user that email signs
// in as is package auth's rule; the HTTP side (cookie, pages) is
// httpadapter's.
package sso

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/safehttp"
	"golang.org/x/oauth2"
)

// Timeout bounds each request to a provider made by the default client.
const Timeout = 10 * time.Second

// discoveryTTL is how long a provider's discovery document is reused.
const discoveryTTL = time.Hour

// ErrBusy is Begin's error when too many sign-ins are in progress.
var ErrBusy = errors.New("sso: too many sign-ins in progress; try again later")

// RelyingParty signs people in through identity providers. The zero
// value is ready to use; it must not be copied after first use.
type RelyingParty struct {
	// Client makes the requests to the providers (discovery, token, keys,
	// user info). nil: a client with Timeout that follows no redirect and
	// reaches only public addresses (safehttp.NewClient).
	Client *http.Client
	// Now is the clock of flows and ID tokens; default time.Now.
	Now func() time.Time
	// Flows keeps the sign-ins in progress between Begin and Take. A
	// deployment of several instances sets it to its auth.Service, whose
	// store they share; nil keeps them in this process's memory, so that
	// the provider must send the browser back to the instance that began.
	Flows FlowStore

	once   sync.Once
	client *http.Client
	memory *memoryFlows

	mu         sync.Mutex
	discovered map[string]discovered // by normalized issuer URL
}

type discovered struct {
	provider *oidc.Provider
	at       time.Time
}

// Identity is who the provider says signed in.
type Identity struct {
	Subject string // the provider's id of the person
	Email   string // verified by the provider
	Name    string // "" when the provider does not say
}

// Error is a sign-in that the provider's answer did not complete. Reason
// is a short word for logs; neither it nor Err carries a secret.
type Error struct {
	Reason string
	Err    error
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err == nil {
		return "sso: " + e.Reason
	}
	return "sso: " + e.Reason + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Reasons of an *Error.
const (
	ReasonUnreachable     = "provider_unreachable" // discovery failed: no answer
	ReasonNotOpenID       = "not_openid"           // discovery failed: no OpenID Connect discovery document
	ReasonIssuer          = "issuer_mismatch"      // discovery failed: the document names another issuer
	ReasonExchange        = "code_exchange"        // the token endpoint refused the code or failed
	ReasonIDToken         = "id_token"             // missing, or not valid: signature, issuer, audience, expiry
	ReasonNonce           = "nonce"                // the ID token is not of this sign-in
	ReasonUserInfo        = "userinfo"             // the user info endpoint failed or named someone else
	ReasonEmailUnverified = "email_unverified"     // no email, or the provider has not verified it
)

func (rp *RelyingParty) now() time.Time {
	if rp.Now != nil {
		return rp.Now()
	}
	return time.Now()
}

func (rp *RelyingParty) init() {
	rp.once.Do(func() {
		rp.client = rp.Client
		if rp.client == nil {
			rp.client = safehttp.NewClient(Timeout, false)
		}
		rp.memory = &memoryFlows{now: rp.now}
	})
}

func (rp *RelyingParty) httpClient() *http.Client {
	rp.init()
	return rp.client
}

// flows returns where the sign-ins in progress are kept.
func (rp *RelyingParty) flows() FlowStore {
	if rp.Flows != nil {
		return rp.Flows
	}
	rp.init()
	return rp.memory
}

// provider returns the discovered provider of p, from the cache while it
// is fresh.
func (rp *RelyingParty) provider(ctx context.Context, p *auth.IdentityProvider) (*oidc.Provider, error) {
	now := rp.now()
	rp.mu.Lock()
	d, ok := rp.discovered[cacheKey(p.Issuer)]
	rp.mu.Unlock()
	if ok && now.Sub(d.at) < discoveryTTL {
		return d.provider, nil
	}
	prov, err := rp.discover(ctx, p.Issuer)
	if err != nil {
		return nil, err
	}
	rp.remember(p.Issuer, prov)
	return prov, nil
}

// remember keeps the discovered provider of issuer for discoveryTTL.
func (rp *RelyingParty) remember(issuer string, prov *oidc.Provider) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.discovered == nil {
		rp.discovered = map[string]discovered{}
	}
	rp.discovered[cacheKey(issuer)] = discovered{prov, rp.now()}
}

// cacheKey is the normalized issuer (issuers stored before they were
// normalized included).
func cacheKey(issuer string) string {
	if n, err := auth.NormalizeIssuer(issuer); err == nil {
		return n
	}
	return issuer
}

func oauthConfig(prov *oidc.Provider, p *auth.IdentityProvider, callback string) *oauth2.Config {
	return &oauth2.Config{ClientID: p.ClientID, ClientSecret: string(p.ClientSecret), RedirectURL: callback,
		Endpoint: prov.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// Begin starts a sign-in with p for the application's authorize request:
// it returns the URL of the provider to send the browser to, and the
// binding, a random value the browser must carry back (a cookie) for
// Take to find the flow. callback is this server's redirect URI
// registered at the provider; email is what the person typed (sent as
// login_hint). The flow is kept in Flows under the state and the binding
// together, for FlowTTL.
func (rp *RelyingParty) Begin(ctx context.Context, p *auth.IdentityProvider, callback string, req *auth.AuthorizeRequest, email string) (redirect, binding string, err error) {
	prov, err := rp.provider(ctx, p)
	if err != nil {
		return "", "", err
	}
	state, nonce, binding := random(), random(), random()
	f := &Flow{ProviderID: p.ID, AccountID: p.AccountID, Request: *req, Email: email,
		callback: callback, nonce: nonce, verifier: oauth2.GenerateVerifier()}
	data, err := f.encode()
	if err != nil {
		return "", "", err
	}
	if err := rp.flows().SaveSignIn(ctx, auth.SignInKey(state, binding), data, FlowTTL); err != nil {
		return "", "", err
	}
	opts := []oauth2.AuthCodeOption{oidc.Nonce(nonce), oauth2.S256ChallengeOption(f.verifier)}
	if email != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", email))
	}
	return oauthConfig(prov, p, callback).AuthCodeURL(state, opts...), binding, nil
}

// Take returns the flow that state names, removing it, when binding is
// the one Begin returned for it and it has not expired; ok is false
// otherwise. A wrong binding finds nothing and removes nothing, so that a
// forged callback cannot cancel a sign-in. err is the store failing.
func (rp *RelyingParty) Take(ctx context.Context, state, binding string) (f *Flow, ok bool, err error) {
	if state == "" || binding == "" {
		return nil, false, nil
	}
	data, err := rp.flows().TakeSignIn(ctx, auth.SignInKey(state, binding))
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if f, err = decodeFlow(data); err != nil {
		return nil, false, err
	}
	return f, true, nil
}

// Finish completes flow f with the code the provider sent back: it
// exchanges the code (with the PKCE verifier and p's client secret),
// verifies the ID token (signature by the provider's keys, issuer,
// audience p.ClientID, expiry) and its nonce, and returns the identity
// whose email the provider verified, from the ID token or else from the
// user info endpoint (for the same subject). Failures are *Error.
func (rp *RelyingParty) Finish(ctx context.Context, p *auth.IdentityProvider, f *Flow, code string) (*Identity, error) {
	prov, err := rp.provider(ctx, p)
	if err != nil {
		return nil, err
	}
	ctx = oidc.ClientContext(ctx, rp.httpClient())
	tok, err := oauthConfig(prov, p, f.callback).Exchange(ctx, code, oauth2.VerifierOption(f.verifier))
	if err != nil {
		return nil, &Error{Reason: ReasonExchange, Err: err}
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return nil, &Error{Reason: ReasonIDToken, Err: errors.New("the token response has no id_token")}
	}
	idt, err := prov.Verifier(&oidc.Config{ClientID: p.ClientID, Now: rp.now}).Verify(ctx, raw)
	if err != nil {
		return nil, &Error{Reason: ReasonIDToken, Err: err}
	}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified any    `json:"email_verified"`
		Name          string `json:"name"`
		AZP           string `json:"azp"`
	}
	if err := idt.Claims(&claims); err != nil {
		return nil, &Error{Reason: ReasonIDToken, Err: err}
	}
	switch {
	case len(idt.Audience) > 1 && claims.AZP != p.ClientID: // OpenID Connect Core 3.1.3.7, 4 and 5
		return nil, &Error{Reason: ReasonIDToken, Err: fmt.Errorf("several audiences and the authorized party is %q", claims.AZP)}
	case subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.nonce)) != 1:
		return nil, &Error{Reason: ReasonNonce, Err: errors.New("the ID token's nonce is not this sign-in's")}
	}
	if idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			return nil, &Error{Reason: ReasonIDToken, Err: err}
		}
	}
	id := &Identity{Subject: idt.Subject, Email: claims.Email, Name: claims.Name}
	verified := claims.EmailVerified == true || claims.EmailVerified == "true"
	if claims.Email == "" { // many providers put the email in user info only
		ui, err := prov.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return nil, &Error{Reason: ReasonUserInfo, Err: err}
		}
		if ui.Subject != idt.Subject {
			return nil, &Error{Reason: ReasonUserInfo, Err: errors.New("user info is about another subject than the ID token")}
		}
		var extra struct {
			Name string `json:"name"`
		}
		_ = ui.Claims(&extra)
		id.Email, id.Name, verified = ui.Email, extra.Name, ui.EmailVerified
	}
	if id.Email == "" || !verified {
		return nil, &Error{Reason: ReasonEmailUnverified, Err: errors.New("the provider did not assert a verified email (email_verified)")}
	}
	return id, nil
}

// random returns 32 bytes from crypto/rand, base64url.
func random() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
