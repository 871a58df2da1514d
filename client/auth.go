package client

import (
	"context"
	"errors"
	"net/http"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// NewClientCredentials returns a client that authenticates as a service
// account with the client credentials grant (docs/auth.md). baseURL is the
// API's address, e.g. "http://127.0.0.1:8080".
func NewClientCredentials(baseURL, clientID, clientSecret string, opts ...Option) *Client {
	return newClient(baseURL, opts, func(s *settings) *tokenSource {
		conf := &clientcredentials.Config{ClientID: clientID, ClientSecret: clientSecret, TokenURL: s.tokenURL,
			AuthStyle: oauth2.AuthStyleInHeader}
		return &tokenSource{start: conf.Token}
	})
}

// NewPassword returns a client that signs a person in with the password
// grant of an account's OAuth application (appID, appSecret) and renews
// its token with the refresh token; when a refresh fails it signs in
// again with the password.
func NewPassword(baseURL, appID, appSecret, username, password string, opts ...Option) *Client {
	return newClient(baseURL, opts, func(s *settings) *tokenSource {
		conf := &oauth2.Config{ClientID: appID, ClientSecret: appSecret,
			Endpoint: oauth2.Endpoint{TokenURL: s.tokenURL, AuthStyle: oauth2.AuthStyleInHeader}}
		return &tokenSource{
			start: func(ctx context.Context) (*oauth2.Token, error) {
				return conf.PasswordCredentialsToken(ctx, username, password)
			},
			refresh: func(ctx context.Context, old *oauth2.Token) (*oauth2.Token, error) {
				return conf.TokenSource(ctx, &oauth2.Token{RefreshToken: old.RefreshToken}).Token()
			},
		}
	})
}

// tokenSource caches the token until it expires and renews it: with the
// refresh token when there is one, otherwise (or when the refresh fails)
// by authenticating from the start. A 429 from the token endpoint is
// waited out as any other.
type tokenSource struct {
	start   func(context.Context) (*oauth2.Token, error)
	refresh func(context.Context, *oauth2.Token) (*oauth2.Token, error) // nil: no refresh tokens

	hc    *http.Client
	retry Retry
	lock  chan struct{} // a mutex that a canceled context gives up waiting for

	current *oauth2.Token
}

func (ts *tokenSource) acquire(ctx context.Context) error {
	select {
	case ts.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Token returns the cached token, or a new one when it has expired.
func (ts *tokenSource) Token(ctx context.Context) (*oauth2.Token, error) {
	if err := ts.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-ts.lock }()
	if ts.current.Valid() {
		return ts.current, nil
	}
	return ts.renew(ctx)
}

// Renew replaces stale, a token the server refused, unless another call
// has replaced it already.
func (ts *tokenSource) Renew(ctx context.Context, stale *oauth2.Token) (*oauth2.Token, error) {
	if err := ts.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-ts.lock }()
	if ts.current.Valid() && ts.current.AccessToken != stale.AccessToken {
		return ts.current, nil
	}
	return ts.renew(ctx)
}

func (ts *tokenSource) renew(ctx context.Context) (*oauth2.Token, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, ts.hc)
	if ts.refresh != nil && ts.current != nil && ts.current.RefreshToken != "" {
		old := ts.current
		t, err := ts.fetch(ctx, func(ctx context.Context) (*oauth2.Token, error) { return ts.refresh(ctx, old) })
		if err == nil {
			ts.current = t
			return t, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// the refresh failed (revoked, expired, rotated): from the start
	}
	t, err := ts.fetch(ctx, ts.start)
	if err != nil {
		return nil, err
	}
	ts.current = t
	return t, nil
}

// fetch asks the token endpoint, waiting out 429 answers, and turns its
// errors into *Error.
func (ts *tokenSource) fetch(ctx context.Context, ask func(context.Context) (*oauth2.Token, error)) (*oauth2.Token, error) {
	for n := 0; ; n++ {
		t, err := ask(ctx)
		if err == nil {
			return t, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.Response == nil {
			return nil, err
		}
		e := &Error{Method: http.MethodPost, StatusCode: re.Response.StatusCode, OAuth: re.ErrorCode,
			OAuthDescription: re.ErrorDescription, RetryAfter: retryAfter(re.Response)}
		if re.Response.Request != nil {
			e.URL = re.Response.Request.URL.Redacted()
		}
		if e.StatusCode != http.StatusTooManyRequests || n+1 >= ts.retry.Attempts {
			return nil, e
		}
		if err := sleep(ctx, ts.retry.delay(n, e.RetryAfter)); err != nil {
			return nil, err
		}
	}
}
