// Package client is a Go SDK for ScopeKit's HTTP API (docs/http.md): it
// gets and caches OAuth 2.0 tokens with golang.org/x/oauth2, renews them
// on 401 and 403 (the spec's rule: refresh, and when the refresh fails
// authenticate from the start), waits out 429 answers (at least
// Retry-After, then exponential backoff with jitter, a bounded number of
// times), pages through lists with an iterator that reads meta.page-count
// once, and returns failures as *Error carrying the JSON:API error
// objects. Typed helpers cover the common resources (generated documents
// included); Call and the generic Get, List, Create, Update and Delete
// functions cover the rest.
//
// It imports no server package: it speaks to any ScopeKit server over
// HTTP.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// MediaType is the JSON:API media type of requests and responses.
const MediaType = "application/vnd.api+json"

// Client calls one ScopeKit server as one user. It is safe for concurrent
// use.
type Client struct {
	base   string
	hc     *http.Client
	tokens *tokenSource
	retry  Retry

	slugMu sync.Mutex
	slug   string
}

// Retry bounds how 429 answers are waited out: after the n-th 429 (from
// 0) the client waits Retry-After plus min(Max, Base<<n) scaled by a
// random factor in [0.5, 1), and gives up after Attempts answers.
type Retry struct {
	Attempts  int           // 429 answers tolerated per call; default 5
	Base, Max time.Duration // default 500 ms and 30 s
}

func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = 5
	}
	if r.Base <= 0 {
		r.Base = 500 * time.Millisecond
	}
	if r.Max <= 0 {
		r.Max = 30 * time.Second
	}
	return r
}

// delay is the wait before the next attempt after the n-th 429.
func (r Retry) delay(n int, retryAfter time.Duration) time.Duration {
	backoff := r.Max
	if n < 30 && r.Base<<n < r.Max {
		backoff = r.Base << n
	}
	return retryAfter + time.Duration(float64(backoff)*(0.5+rand.Float64()/2))
}

// Option configures a Client.
type Option func(*settings)

type settings struct {
	hc       *http.Client
	tokenURL string
	slug     string
	retry    Retry
	token    *oauth2.Token
}

// WithHTTPClient sends requests (the token endpoint's too) with hc instead
// of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(s *settings) { s.hc = hc } }

// WithTokenURL sets the token endpoint when the auth host differs from
// the API's (the server's -auth-addr); default baseURL + "/oauth/token".
func WithTokenURL(u string) Option { return func(s *settings) { s.tokenURL = u } }

// WithAccount sets the account slug of /{slug}/v1 paths; by default the
// client asks GET /v1/me once for the token's account.
func WithAccount(slug string) Option { return func(s *settings) { s.slug = slug } }

// WithRetry sets how 429 answers are waited out.
func WithRetry(r Retry) Option { return func(s *settings) { s.retry = r } }

// WithToken starts the client with a token obtained earlier (a saved
// password-grant token with its refresh token, say) instead of asking for
// one on the first call.
func WithToken(t *oauth2.Token) Option { return func(s *settings) { s.token = t } }

func newClient(baseURL string, opts []Option, grant func(s *settings) *tokenSource) *Client {
	s := &settings{hc: http.DefaultClient}
	for _, o := range opts {
		o(s)
	}
	base := strings.TrimRight(baseURL, "/")
	if s.tokenURL == "" {
		s.tokenURL = base + "/oauth/token"
	}
	s.retry = s.retry.withDefaults()
	ts := grant(s)
	ts.hc, ts.retry, ts.current, ts.lock = s.hc, s.retry, s.token, make(chan struct{}, 1)
	return &Client{base: base, hc: s.hc, tokens: ts, retry: s.retry, slug: s.slug}
}

// Error is a failed call: the HTTP status with the JSON:API error objects
// of the body (or, from the token endpoint, the OAuth error). Use
// errors.As to read it.
type Error struct {
	Method, URL string
	StatusCode  int
	Errors      []ErrorObject // JSON:API errors, one per problem
	// OAuth is the token endpoint's error code ("invalid_grant", ...) and
	// OAuthDescription its description.
	OAuth, OAuthDescription string
	// RetryAfter is the Retry-After of a 429 or 503 answer.
	RetryAfter time.Duration
}

// ErrorObject is one JSON:API error object.
type ErrorObject struct {
	Status string `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	Code   string `json:"code,omitempty"`
	Source *struct {
		Pointer   string `json:"pointer,omitempty"`
		Parameter string `json:"parameter,omitempty"`
	} `json:"source,omitempty"`
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "scopekit: %s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.OAuth != "" {
		fmt.Fprintf(&b, ": %s", e.OAuth)
		if e.OAuthDescription != "" {
			fmt.Fprintf(&b, " (%s)", e.OAuthDescription)
		}
	}
	for _, o := range e.Errors {
		if o.Detail != "" {
			fmt.Fprintf(&b, "; %s", o.Detail)
		}
	}
	return b.String()
}

// NotFound reports whether the call answered 404: no such record for this
// caller.
func (e *Error) NotFound() bool { return e.StatusCode == http.StatusNotFound }

// Pointers lists the source pointers of the error objects (for a 422, the
// attributes that failed validation).
func (e *Error) Pointers() []string {
	var out []string
	for _, o := range e.Errors {
		if o.Source != nil && o.Source.Pointer != "" {
			out = append(out, o.Source.Pointer)
		}
	}
	return out
}

// errorOf reads a failed answer.
func errorOf(req *http.Request, res *http.Response, body []byte) *Error {
	e := &Error{Method: req.Method, URL: req.URL.Redacted(), StatusCode: res.StatusCode, RetryAfter: retryAfter(res)}
	var doc struct {
		Errors           []ErrorObject `json:"errors"`
		Error            string        `json:"error"`
		ErrorDescription string        `json:"error_description"`
	}
	if json.Unmarshal(body, &doc) == nil {
		e.Errors, e.OAuth, e.OAuthDescription = doc.Errors, doc.Error, doc.ErrorDescription
	}
	return e
}

func retryAfter(res *http.Response) time.Duration {
	s := res.Header.Get("Retry-After")
	if s == "" {
		return 0
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(s); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Call sends one request to path (absolute, e.g. "/v2/projects", or a full
// URL on the same server) with the query and, when body is not nil, the
// JSON encoding of body as a JSON:API document, and returns the decoded
// answer (nil for 204). It adds the token, renews it once on 401 or 403,
// and waits out 429 answers. A failure status is an *Error.
func (c *Client) Call(ctx context.Context, method, path string, query url.Values, body any) (*Document, error) {
	raw, _, err := c.callRaw(ctx, method, path, query, body, MediaType)
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	var doc Document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("scopekit: %s %s: decode the answer: %w", method, path, err)
	}
	return &doc, nil
}

// callRaw is Call with the Accept header given, answering the body and
// the headers of a success.
func (c *Client) callRaw(ctx context.Context, method, path string, query url.Values, body any, accept string) ([]byte, http.Header, error) {
	u := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		u = c.base + path
	} else if !strings.HasPrefix(path, c.base+"/") {
		// a link to another host must not get this client's token
		return nil, nil, fmt.Errorf("scopekit: %s is not on %s", path, c.base)
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + query.Encode()
	}
	var payload []byte
	contentType, header := MediaType, http.Header(nil)
	switch b := body.(type) {
	case nil:
	case *fileBody:
		payload, contentType, header = b.data, b.contentType, b.header
	default:
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, nil, fmt.Errorf("scopekit: encode the %s %s body: %w", method, path, err)
		}
	}
	renewed := false
	for throttled := 0; ; {
		tok, err := c.tokens.Token(ctx)
		if err != nil {
			return nil, nil, err
		}
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
		if err != nil {
			return nil, nil, err
		}
		for k, v := range header {
			req.Header[k] = v
		}
		req.Header.Set("Accept", accept)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		if payload != nil {
			req.Header.Set("Content-Type", contentType)
		}
		res, err := c.hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, nil, err
		}
		switch {
		case res.StatusCode < 300:
			return raw, res.Header, nil
		case (res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden) && !renewed:
			renewed = true
			if _, err := c.tokens.Renew(ctx, tok); err != nil {
				return nil, nil, err
			}
			continue
		case res.StatusCode == http.StatusTooManyRequests && throttled+1 < c.retry.Attempts:
			e := errorOf(req, res, raw)
			if err := sleep(ctx, c.retry.delay(throttled, e.RetryAfter)); err != nil {
				return nil, nil, err
			}
			throttled++
			continue
		}
		return nil, nil, errorOf(req, res, raw)
	}
}

// Slug returns the account slug of /{slug}/v1 paths: the one set with
// WithAccount, or the token's account from GET /v1/me (asked once).
func (c *Client) Slug(ctx context.Context) (string, error) {
	c.slugMu.Lock()
	defer c.slugMu.Unlock()
	if c.slug != "" {
		return c.slug, nil
	}
	me, err := c.Me(ctx)
	if err != nil {
		return "", err
	}
	if me.AccountSlug == "" {
		return "", errors.New("scopekit: GET /v1/me named no account slug")
	}
	c.slug = me.AccountSlug
	return c.slug, nil
}

// v1 returns "/{slug}/v1" + rest.
func (c *Client) v1(ctx context.Context, rest string) (string, error) {
	slug, err := c.Slug(ctx)
	if err != nil {
		return "", err
	}
	return "/" + url.PathEscape(slug) + "/v1" + rest, nil
}
