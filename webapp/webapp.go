// Package webapp is the workspace: the web application where presales
// engineers, account managers and approvers scope, price, approve and
// send projects (docs/workspace.md). It is an adapter beside httpadapter
// and mcpadapter: server-rendered html/template pages, made partial by
// htmx (vendored and embedded), over the same scoping.Service use cases,
// and it holds no rule of the domain. What a page shows is what a use
// case returns; what a form sends is what a use case takes; whether a
// control is offered follows the actor's role, and the use case decides.
//
// People sign in through the server's own login page: the workspace is
// an OAuth client of /oauth/authorize (authorization code with PKCE), so
// every way the login page signs people in (password, second factor,
// single sign-on) signs them in here. The code is exchanged in the
// server through auth.Service and ends in a session (scoping.Session) of
// one account, kept in a cookie. A client with a share link needs no
// sign-in: the link's public page (accept.go) is the workspace's too.
package webapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
	"golang.org/x/time/rate"
)

// Path is where the workspace is mounted; its handler expects the full
// path (it is not stripped).
const Path = "/app/"

// Config is what the workspace needs; Svc, Auth, BaseURL and Key are
// required.
type Config struct {
	Svc  *scoping.Service
	Auth *auth.Service
	// BaseURL is the scheme and host people reach the workspace at; the
	// OAuth redirect URI is BaseURL + "/app/callback".
	BaseURL string
	// AuthURL is the scheme and host of the login page (/oauth/authorize);
	// default BaseURL.
	AuthURL string
	// Key derives each account's workspace OAuth client (its id and
	// secret); every instance serving one database must have the same
	// key, at least 32 bytes.
	Key []byte
	// Logger receives what fails on the server's side (default
	// slog.Default()).
	Logger *slog.Logger
	// DocumentRate and DocumentBurst throttle document generation per
	// account, as the API's DocumentThrottle does (defaults 1 per second,
	// bursts of 20): the workspace is no way around the API's limit.
	DocumentRate  float64
	DocumentBurst int
	// AcceptLinkRate and AcceptLinkBurst bound the form posts of one share
	// link, and AcceptAddressRate and AcceptAddressBurst every request of
	// one address to the share links' pages (per minute; defaults 6 and
	// 6, 60 and 30).
	AcceptLinkRate, AcceptLinkBurst       float64
	AcceptAddressRate, AcceptAddressBurst float64
	// AdmitAuth throttles the invitation page as the API host throttles
	// its own accept route (httpadapter.Server.AdmitAuth: nil to go on,
	// else an error with code ERATELIMITED or EFORBIDDEN); nil for none.
	AdmitAuth func(*http.Request) error
}

// Workspace serves the workspace's pages.
type Workspace struct {
	svc     *scoping.Service
	auth    *auth.Service
	base    string
	authURL string
	key     []byte
	log     *slog.Logger
	mux     *http.ServeMux

	registered sync.Map // account id -> redirect URI its client was registered with, by this process

	docRate   rate.Limit
	docBurst  int
	generated sync.Map // account id -> *rate.Limiter of its document generations

	acceptPages *acceptPages // accept.go

	admitAuth func(*http.Request) error
}

// New returns the workspace of cfg.
func New(cfg Config) (*Workspace, error) {
	switch {
	case cfg.Svc == nil || cfg.Auth == nil:
		return nil, errors.New("webapp: Svc and Auth are required")
	case cfg.BaseURL == "":
		return nil, errors.New("webapp: BaseURL is required")
	case len(cfg.Key) < 32:
		return nil, errors.New("webapp: Key must have at least 32 bytes")
	}
	w := &Workspace{svc: cfg.Svc, auth: cfg.Auth, base: strings.TrimRight(cfg.BaseURL, "/"),
		authURL: strings.TrimRight(cfg.AuthURL, "/"), key: cfg.Key, log: cfg.Logger, admitAuth: cfg.AdmitAuth}
	if w.authURL == "" {
		w.authURL = w.base
	}
	if w.log == nil {
		w.log = slog.Default()
	}
	w.docRate, w.docBurst = rate.Limit(cfg.DocumentRate), cfg.DocumentBurst
	if w.docRate <= 0 {
		w.docRate = 1
	}
	if w.docBurst <= 0 {
		w.docBurst = 20
	}
	w.acceptPages = newAcceptPages(cfg)
	w.routes()
	return w, nil
}

// Handler returns the workspace's handler, for the paths under Path.
// The static files are under /app/static/, the share links' public pages
// under AcceptPath and the invitation pages under /app/invitations/ (no
// account is slugged static, accept or invitations: scoping reserves the
// names).
func (w *Workspace) Handler() http.Handler {
	static := staticHandler()
	invitations := http.NewServeMux() // beside the mux: its paths would overlap /app/{slug}/projects
	invitations.HandleFunc("GET "+invitationPath+"{token}", w.invitation)
	invitations.HandleFunc("POST "+invitationPath+"{token}", w.acceptInvitation)
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/app/static/") && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			static.ServeHTTP(rw, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, AcceptPath) {
			w.accept(rw, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, invitationPath) {
			invitations.ServeHTTP(rw, r)
			return
		}
		w.mux.ServeHTTP(rw, r)
	})
}

// routes declares every page and action. Pages of an account are under
// /app/{slug}/; a session acts in its own account only.
func (w *Workspace) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /app/{$}", w.home)
	m.HandleFunc("GET /app/signin", w.signIn)
	m.HandleFunc("GET /app/callback", w.callback)
	m.HandleFunc("GET /app/{slug}/{$}", w.page(func(c *call) error { return c.redirect(c.url("/projects")) }))
	m.HandleFunc("POST /app/{slug}/signout", w.signOut)

	m.HandleFunc("GET /app/{slug}/projects", w.page(w.projects))
	m.HandleFunc("GET /app/{slug}/projects/new", w.page(w.newProject))
	m.HandleFunc("POST /app/{slug}/projects", w.action(w.createProject))
	m.HandleFunc("GET /app/{slug}/approvals", w.page(w.approvals))
	m.HandleFunc("GET /app/{slug}/catalog", w.page(w.catalogSearch))

	m.HandleFunc("GET /app/{slug}/projects/{id}", w.page(w.tab(tabScope)))
	for _, t := range []string{tabPricing, tabReview, tabApproval, tabDocuments, tabMergeData} {
		m.HandleFunc("GET /app/{slug}/projects/{id}/"+t, w.page(w.tab(t)))
	}
	m.HandleFunc("GET /app/{slug}/projects/{id}/documents/{doc}/download", w.page(w.download))
	m.HandleFunc("POST /app/{slug}/projects/{id}/lines/{type}", w.action(w.addLine))
	m.HandleFunc("POST /app/{slug}/projects/{id}/lines/{type}/{line}", w.action(w.editLine))
	m.HandleFunc("POST /app/{slug}/projects/{id}/lines/{type}/{line}/remove", w.action(w.removeLine))
	m.HandleFunc("POST /app/{slug}/projects/{id}/lines/{type}/{line}/move", w.action(w.moveLine))
	m.HandleFunc("POST /app/{slug}/projects/{id}/blueprint", w.action(w.applyBlueprint))
	m.HandleFunc("POST /app/{slug}/projects/{id}/submit", w.action(w.submit))
	m.HandleFunc("POST /app/{slug}/projects/{id}/documents", w.action(w.generate))
	m.HandleFunc("POST /app/{slug}/steps/{step}/{act}", w.action(w.stepAction))
	w.surveyRoutes(m)
	w.settingsRoutes(m)
	w.mux = m
}

// clientID and clientSecret are the account's workspace OAuth client,
// derived from the key: nobody can guess either, and every instance
// derives the same.
func (w *Workspace) clientID(accountID string) string {
	return "scopekit-workspace-" + hex.EncodeToString(w.derive("client id", accountID)[:16])
}

func (w *Workspace) clientSecret(accountID string) string {
	return base64.RawURLEncoding.EncodeToString(w.derive("client secret", accountID))
}

func (w *Workspace) derive(purpose, accountID string) []byte {
	m := hmac.New(sha256.New, w.key)
	m.Write([]byte("scopekit workspace " + purpose + "\x00" + accountID))
	return m.Sum(nil)
}

// redirectURI is where the login page sends people back with a code.
func (w *Workspace) redirectURI() string { return w.base + "/app/callback" }
