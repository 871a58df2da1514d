// Package mcpadapter serves ScopeKit to AI assistants over the Model
// Context Protocol, on the official Go SDK: the scopekit_* tools (search
// projects, read a project with its pricing summary, list its items and
// documents, read its delivery rollup and estimate-versus-actual table).
//
// The tools call the same scoping use cases as the HTTP adapter, as the
// token's user in the token's account: permission guards and project
// visibility are those of the API (a project the user cannot see does not
// exist for the tools either). Two transports: streamable HTTP (stateless,
// so any instance answers), behind the API's bearer token validation, with
// OAuth 2.0 protected resource metadata, every refusal a JSON-RPC error
// object and the calls of each person and each OAuth client rate limited
// (httpfront.go, jsonrpc.go, ratelimit.go);
// and stdio (Run with a token) for local assistants.
package mcpadapter

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// Paths the composition root mounts on the API host.
const (
	// Path is the streamable HTTP endpoint.
	Path = "/mcp"
	// MetadataPath is the OAuth 2.0 protected resource metadata (RFC 9728)
	// that 401 answers point at.
	MetadataPath = "/.well-known/oauth-protected-resource"
)

// MaxBodyBytes bounds a request to Path (413 above), as the API bounds
// its bodies; tool arguments are small.
const MaxBodyBytes = 1 << 20

// Version is the server version reported to MCP clients.
const Version = "1.0.0"

// Server holds what the tools need. Construct it with its fields set.
type Server struct {
	Svc  *scoping.Service
	Auth *auth.Service
	// BaseURL is the API's scheme and host ("http://127.0.0.1:8080"), used
	// in links and as the protected resource. When empty, the metadata
	// names the request's own host and links are paths.
	BaseURL string
	// AuthURL is the auth host named in the resource metadata; empty means
	// BaseURL.
	AuthURL string
	Logger  *slog.Logger
	// CallRate is the JSON-RPC messages per second each person (a user,
	// all of its access tokens together) may send to the HTTP transport,
	// and CallBurst the size of its bucket; ClientCallRate and
	// ClientCallBurst are those of each OAuth client (all the tokens
	// issued to it, whoever they are for). Over either a request gets 429
	// with Retry-After. Defaults DefaultCallRate, DefaultCallBurst,
	// DefaultClientCallRate and DefaultClientCallBurst; bursts are at
	// least MaxBatch.
	CallRate        float64
	CallBurst       int
	ClientCallRate  float64
	ClientCallBurst int
}

func (s *Server) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// base returns the API base URL: BaseURL, else that of the request (nil
// outside HTTP).
func (s *Server) base(r *http.Request) string {
	if s.BaseURL != "" || r == nil {
		return strings.TrimRight(s.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// session is how one tool call learns who it runs as.
type session interface {
	actor(ctx context.Context, req *mcp.CallToolRequest) (*engine.Actor, error)
}

// newServer returns an MCP server with every tool, resolving callers
// through ses.
func (s *Server) newServer(ses session) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "scopekit", Title: "ScopeKit", Version: Version}, &mcp.ServerOptions{
		Instructions: "ScopeKit scopes, prices and documents IT services projects. Search projects with " +
			"scopekit_search_projects, then pass a project_id to the other tools. Money and hours are decimal strings.",
		Logger: s.log(),
	})
	srv.AddReceivingMiddleware(honestCapabilities, checkArguments)
	(&tools{s: s, ses: ses}).register(srv)
	return srv
}

// HTTPHandler serves the streamable HTTP transport at Path: stateless and
// with JSON responses, so that any instance answers any request. Requests
// need a bearer token that the API would accept; without one they get 401
// with a WWW-Authenticate header pointing at MetadataPath. Every refusal
// is a JSON-RPC error object (jsonrpc.go); the calls of a token are rate
// limited per person and per client (CallRate, ClientCallRate) and a
// batch holds at most MaxBatch.
func (s *Server) HTTPHandler() http.Handler {
	srv := s.newServer(httpSession{s})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: s.log(), MaxRequestBodyBytes: MaxBodyBytes})
	checked := front(sdk, newCallLimiter(s.CallRate, s.CallBurst, s.ClientCallRate, s.ClientCallBurst))
	return jsonrpcErrors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		opts := &sdkauth.RequireBearerTokenOptions{ResourceMetadataURL: s.base(r) + MetadataPath}
		sdkauth.RequireBearerToken(s.verify, opts)(checked).ServeHTTP(w, r)
	}))
}

// MetadataHandler serves the protected resource metadata: the resource
// (BaseURL + Path), the auth host that issues its tokens, and that tokens
// go in the Authorization header.
func (s *Server) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := s.base(r)
		authURL := strings.TrimRight(s.AuthURL, "/")
		if authURL == "" {
			authURL = base
		}
		sdkauth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               base + Path,
			AuthorizationServers:   []string{authURL},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "ScopeKit",
		}).ServeHTTP(w, r)
	})
}

// Run serves the tools over transport t (an mcp.StdioTransport for a local
// assistant) as the user of the access token, until ctx is done or the
// client disconnects. The token is checked first, then again on every tool
// call, so that it stops working when it expires or its user is
// deactivated, as on the API.
func (s *Server) Run(ctx context.Context, t mcp.Transport, token string) error {
	ses := tokenSession{s: s, token: strings.TrimSpace(token)}
	if _, err := ses.actor(ctx, nil); err != nil {
		return err
	}
	return s.newServer(ses).Run(ctx, t)
}

// verify is the bearer check of the HTTP transport: the token service's
// Authenticate, then the token user's membership in the token's account,
// as the API checks a token for its account-less routes.
func (s *Server) verify(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	p, a, err := s.authenticate(ctx, token)
	if err != nil {
		if scopekit.ErrorCode(err) == scopekit.EUNAUTHORIZED {
			return nil, sdkauth.ErrInvalidToken
		}
		if errors.Is(err, context.Canceled) {
			return nil, err // the client went away: not a server error
		}
		s.log().Error("mcp: token check failed", "err", err)
		return nil, errors.New("internal error")
	}
	return &sdkauth.TokenInfo{UserID: p.UserID, Expiration: p.ExpiresAt,
		Extra: map[string]any{accountKey: a.AccountID(), clientKey: p.ClientID}}, nil
}

// Keys of what verify puts in a token's TokenInfo.Extra.
const (
	accountKey = "scopekit_account_id"
	clientKey  = "scopekit_client_id"
)

// authenticate resolves a bearer token to its principal and actor;
// EUNAUTHORIZED for any token the API would refuse.
func (s *Server) authenticate(ctx context.Context, token string) (*auth.Principal, *engine.Actor, error) {
	p, err := s.Auth.Authenticate(ctx, token)
	if err != nil {
		return nil, nil, err
	}
	a, err := s.Svc.ActorForAccount(ctx, p.UserID, p.AccountID)
	switch scopekit.ErrorCode(err) {
	case "":
		return p, a, nil
	case scopekit.EFORBIDDEN, scopekit.ENOTFOUND:
		return nil, nil, scopekit.Errorf(scopekit.EUNAUTHORIZED, "token user is no longer an active member")
	}
	return nil, nil, err
}

// httpSession resolves callers from the token info that verify put on
// the request.
type httpSession struct{ s *Server }

func (h httpSession) actor(ctx context.Context, req *mcp.CallToolRequest) (*engine.Actor, error) {
	var ti *sdkauth.TokenInfo
	if req != nil && req.Extra != nil {
		ti = req.Extra.TokenInfo
	}
	if ti == nil {
		return nil, scopekit.Errorf(scopekit.EUNAUTHORIZED, "no token")
	}
	account, _ := ti.Extra[accountKey].(string)
	a, err := h.s.Svc.ActorForAccount(ctx, ti.UserID, account)
	if code := scopekit.ErrorCode(err); code == scopekit.EFORBIDDEN || code == scopekit.ENOTFOUND {
		return nil, scopekit.Errorf(scopekit.EUNAUTHORIZED, "token user is no longer an active member")
	}
	return a, err
}

// tokenSession runs every call as the user of one token (stdio).
type tokenSession struct {
	s     *Server
	token string
}

func (t tokenSession) actor(ctx context.Context, _ *mcp.CallToolRequest) (*engine.Actor, error) {
	_, a, err := t.s.authenticate(ctx, t.token)
	return a, err
}
