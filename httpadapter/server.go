// Package httpadapter serves ScopeKit over HTTP: the JSON:API resource
// routes of every declared type (v1 under an account slug, v2 with the
// account of the token), the account context, and the OAuth 2.0 token
// endpoint. It maps domain errors to statuses in one place (errors.go) and
// adds the request id, access log, panic recovery, body limit and request
// timeout of the HTTP contract.
package httpadapter

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
)

// MaxBodyBytes is the largest request body accepted (413 above).
const MaxBodyBytes = 1 << 20

// Server holds what the handlers need. Construct it with its fields set and
// use APIHandler, AuthHandler or Handler.
type Server struct {
	Svc  *scoping.Service
	Auth *auth.Service
	// BaseURL is the scheme and host used in links, e.g.
	// "http://127.0.0.1:8080"; empty means the request's own host.
	BaseURL string
	// AuthURL is the auth host's scheme and host: the issuer its
	// metadata names (AuthServerMetadataPath) and the host of the single
	// sign-on redirect URI ({auth_url}/oauth/sso/callback); empty means
	// BaseURL for the metadata, else the request's own host.
	AuthURL string
	// SSO is the relying party of single sign-on (sso.go); nil: one whose
	// HTTP client reaches only public addresses.
	SSO *sso.RelyingParty
	// Key is the deployment's secret key, the same on every instance that
	// serves one database (the one that seals secrets): the login form's
	// CSRF key is derived from it, so that a form shown by one instance
	// may be posted to another. nil draws a key at random per Server: a
	// form must then go back to the instance that showed it.
	Key    []byte
	Logger *slog.Logger
	// Timeout bounds every request (504 after it); default 30 s.
	Timeout time.Duration
	// Limits bound slow and oversized requests (limits.go).
	Limits Limits
	// Metrics, when set, receives a measurement of every request
	// (observe.go); nil measures nothing.
	Metrics Metrics

	// Mounts are further handlers of the API host at exact paths, or
	// under a path when the key ends in a slash (the composition root
	// mounts the MCP endpoint and its resource metadata, and the workspace
	// under /app/, share links' pages included). They get the request id,
	// access log and timeout of every route; their own handlers do the
	// rest, authentication included.
	Mounts map[string]http.Handler

	docs openAPIDocs // the generated API references and their pages, built on first use
	// Throttle limits the auth host's POSTs per client IP and the tokens
	// minted per second; its zero value is docs/operations.md's defaults.
	Throttle Throttle

	throttleOnce sync.Once
	throttle     *throttle
	csrfOnce     sync.Once
	csrfKey      []byte
	ssoOnce      sync.Once
	rp           *sso.RelyingParty

	servedMu sync.Mutex
	served   []servedRoute // every route the handlers built so far answer (for the reference test)

	// DocumentThrottle limits document generation per IP and per account
	// (documents.go); its zero value is the defaults.
	DocumentThrottle DocumentThrottle
	docThrottleOnce  sync.Once
	docThrottle      *throttle

	rendersOnce sync.Once
	renders     *renderCache // rendered records (rendercache.go)
}

// renderCache returns the server's cache of rendered records.
func (s *Server) renderCache() *renderCache {
	s.rendersOnce.Do(func() { s.renders = newRenderCache() })
	return s.renders
}

// APIHandler serves the API host ({base_url}).
func (s *Server) APIHandler() http.Handler { return s.wrap(s.apiRouter(nil)) }

// AuthHandler serves the authentication host ({auth_url}).
func (s *Server) AuthHandler() http.Handler {
	r := s.newRouter()
	s.authRoutes(r)
	return s.wrap(r)
}

// Handler serves both hosts on one address.
func (s *Server) Handler() http.Handler {
	return s.wrap(s.apiRouter(s.authRoutes))
}

func (s *Server) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Server) wrap(h http.Handler) http.Handler {
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	return withBodyDeadline(s.Limits.withDefaults().BodyTimeout, withRequestLog(s.log(), s.Metrics, withTimeout(timeout, h)))
}

// authRoutes adds the auth host's routes: the token endpoint, the login
// page of the authorization code flow (and its second step), the single
// sign-on callback, invitation acceptance, and the authorization server
// metadata at its two well-known paths. Other
// methods of the token and invitation routes answer 405 in OAuth's error
// format (newRouter).
func (s *Server) authRoutes(r *router) {
	r.Handler(http.MethodPost, tokenPath, s.route(tokenPath, s.throttledToken(OAuthTokenHandler(s.Auth, s.log()))))
	r.Handler(http.MethodPost, acceptPath, s.route(acceptPath, http.HandlerFunc(s.acceptInvitation)))
	r.Handler(http.MethodGet, "/oauth/authorize", s.route("/oauth/authorize", http.HandlerFunc(s.authorizePage)))
	r.Handler(http.MethodPost, "/oauth/authorize", s.route("/oauth/authorize", http.HandlerFunc(s.authorizeLogin)))
	r.Handler(http.MethodPost, mfaPath, s.route(mfaPath, http.HandlerFunc(s.authorizeMFA)))
	for _, path := range []string{AuthServerMetadataPath, OpenIDConfigurationPath} {
		r.Handler(http.MethodGet, path, s.route(path, http.HandlerFunc(s.authServerMetadata)))
	}
	r.Handler(http.MethodGet, ssoCallbackPath, s.route(ssoCallbackPath, http.HandlerFunc(s.ssoCallback)))
}

const (
	tokenPath      = "/oauth/token"
	acceptPath     = "/oauth/invitations/:token/accept"
	accountPattern = "/:slug/v1/account"
)

// apiRouter builds the API routes. httprouter cannot hold a static first
// segment (/v1, /v2, /oauth) beside a wildcard one (/:slug), so there are
// two routers and the first path segment chooses between them.
//
// Describing a route: every route added to a router here (or in
// authRoutes, resourceRoutes) must appear in the OpenAPI reference, and
// TestEveryRouteIsDescribed fails, naming the route, when one does not. A
// fixed path (like /v1/me) is described by an entry under the same method
// and pattern in routeDocs (openapi_routes.go); a POST action or GET read
// under /{type}/{id}/{name} by an entry in actionDocs or readDocs
// (actions.go) beside its handler. Plain resource routes are described
// from the type declarations and need nothing more.
func (s *Server) apiRouter(extra func(*router)) http.Handler {
	static := s.newRouter()
	static.Handler(http.MethodGet, "/v1/me", s.route("/v1/me", s.api(false, s.me)))
	static.Handler(http.MethodPatch, "/v1/me", s.route("/v1/me", s.api(false, s.updateMe)))
	s.referenceRoutes(static)
	s.catalogRoutes(static)
	s.questionnaireRoutes(static)
	static.Handler(http.MethodGet, "/v1/merge-data/schema", s.route("/v1/merge-data/schema", http.HandlerFunc(serveMergeDataSchema)))
	s.resourceRoutes(static, "/v2", true)
	if extra != nil {
		extra(static)
	}
	slugged := s.newRouter()
	s.resourceRoutes(slugged, "/:slug/v1", false)
	home := s.route("/", s.serveReference(false))
	s.record(http.MethodGet, "/")
	// PATCH /{slug}/v1/account: httprouter cannot hold it beside the
	// collection route /:slug/v1/:type without giving every collection
	// a PATCH.
	accountPatch := s.route(accountPattern, s.api(false, s.updateAccount))
	s.record(http.MethodPatch, accountPattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path, h, ok := s.mount(r.URL.Path); ok {
			s.route(path, h).ServeHTTP(w, r)
			return
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		if r.URL.Path == "/" { // the v1 reference at {base_url}
			w.Header().Set("Allow", readOnlyAllow)
			switch r.Method {
			case http.MethodGet, http.MethodHead:
				home.ServeHTTP(w, r)
			case http.MethodOptions:
				w.WriteHeader(http.StatusNoContent)
			default:
				writeError(w, r, methodNotAllowed(r))
			}
			return
		}
		if scoping.IsReservedSlug(first) || first == ".well-known" { // no slug starts with a dot
			static.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPatch && r.URL.Path == "/"+first+"/v1/account" {
			params := httprouter.Params{{Key: "slug", Value: first}, {Key: "type", Value: "account"}}
			accountPatch.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), httprouter.ParamsKey, params)))
			return
		}
		slugged.ServeHTTP(w, r)
	})
}

func (s *Server) resourceRoutes(r *router, prefix string, v2 bool) {
	coll, one, rel, relOne := prefix+"/:type", prefix+"/:type/:id", prefix+"/:type/:id/:rel", prefix+"/:type/:id/:rel/:relid"
	deep := relOne + "/:sub/:subid" // deepReads (lifecycle.go)
	r.Handler(http.MethodGet, coll, s.route(coll, s.api(v2, s.list)))
	r.Handler(http.MethodPost, coll, s.route(coll, s.api(v2, s.create)))
	r.Handler(http.MethodGet, one, s.route(one, s.api(v2, s.show)))
	r.Handler(http.MethodPatch, one, s.route(one, s.api(v2, s.update)))
	r.Handler(http.MethodDelete, one, s.route(one, s.api(v2, s.remove)))
	r.Handler(http.MethodGet, rel, s.route(rel, s.api(v2, s.related)))
	r.Handler(http.MethodPost, rel, s.route(rel, s.api(v2, s.action)))
	r.Handler(http.MethodPut, rel, s.route(rel, s.api(v2, s.put)))
	r.Handler(http.MethodGet, relOne, s.route(relOne, s.api(v2, s.relatedOne)))
	if !v2 {
		r.Handler(http.MethodGet, deep, s.route(deep, s.api(v2, s.deepRead)))
	}
}

// router is an httprouter.Router that records the routes it is given, so
// that the reference test can check each is described.
type router struct {
	*httprouter.Router
	s *Server
}

// Handler adds a route (as httprouter's Handler) and records it. A GET
// route answers HEAD too: net/http drops the body of a HEAD answer and
// keeps its headers.
func (r *router) Handler(method, path string, h http.Handler) {
	r.s.record(method, path)
	r.Router.Handler(method, path, h)
	if method == http.MethodGet {
		r.Router.Handler(http.MethodHead, path, h)
	}
}

// HandlerFunc adds a route (as httprouter's HandlerFunc) and records it.
func (r *router) HandlerFunc(method, path string, h http.HandlerFunc) { r.Handler(method, path, h) }

// Handle adds a route (as httprouter's Handle) and records it.
func (r *router) Handle(method, path string, h httprouter.Handle) {
	r.s.record(method, path)
	r.Router.Handle(method, path, h)
}

// GET, POST, PUT, PATCH and DELETE add a route as httprouter's do, and
// record it.
func (r *router) GET(path string, h httprouter.Handle)    { r.Handle(http.MethodGet, path, h) }
func (r *router) POST(path string, h httprouter.Handle)   { r.Handle(http.MethodPost, path, h) }
func (r *router) PUT(path string, h httprouter.Handle)    { r.Handle(http.MethodPut, path, h) }
func (r *router) PATCH(path string, h httprouter.Handle)  { r.Handle(http.MethodPatch, path, h) }
func (r *router) DELETE(path string, h httprouter.Handle) { r.Handle(http.MethodDelete, path, h) }

// servedRoute is one method and httprouter pattern a handler answers.
type servedRoute struct{ Method, Pattern string }

func (s *Server) record(method, pattern string) {
	s.servedMu.Lock()
	defer s.servedMu.Unlock()
	rt := servedRoute{method, pattern}
	if !slices.Contains(s.served, rt) {
		s.served = append(s.served, rt)
	}
}

func (s *Server) newRouter() *router {
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, req, scopekit.Errorf(scopekit.ENOTFOUND, "no route for %s %s", req.Method, req.URL.Path))
	})
	// OPTIONS and 405 answers carry the router's Allow, narrowed to what
	// the resource type admits (a read-only type takes no writes).
	r.GlobalOPTIONS = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.narrowAllow(w, req)
		w.WriteHeader(http.StatusNoContent)
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.narrowAllow(w, req)
		if p := req.URL.Path; p == tokenPath || (strings.HasPrefix(p, "/oauth/invitations/") && strings.HasSuffix(p, "/accept")) {
			w.Header().Set("Cache-Control", "no-store")
			oauthWriteError(w, http.StatusMethodNotAllowed, "invalid_request", req.Method+" is not allowed here: use POST")
			return
		}
		writeError(w, req, methodNotAllowed(req))
	})
	return &router{Router: r, s: s}
}

func methodNotAllowed(r *http.Request) error {
	return &scopekit.Error{Code: codeMethod, Message: r.Method + " is not allowed here; see the Allow header"}
}

// route records the matched route pattern for the access log.
func (s *Server) route(pattern string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoOf(r); info != nil {
			info.route = pattern
		}
		h.ServeHTTP(w, r)
	})
}

// mount returns the mounted handler of path and the path it is mounted
// at: an exact mount, else the longest mount ending in a slash that path
// begins with.
func (s *Server) mount(path string) (string, http.Handler, bool) {
	if h, ok := s.Mounts[path]; ok {
		return path, h, true
	}
	best := ""
	for p := range s.Mounts {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return "", nil, false
	}
	return best, s.Mounts[best], true
}
