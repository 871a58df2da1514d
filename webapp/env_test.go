package webapp_test

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
	"github.com/scopekit/scopekit/webapp"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// password is every test person's password.
const password = "a long test password"

// testKey derives the workspace's OAuth clients in the tests.
var testKey = []byte(strings.Repeat("k", 32))

// store is what the environment needs of a database.
type store interface {
	engine.Store
	webhook.Store
	AuthStore() auth.Store
	Close() error
}

// env is the example server's wiring in small: the API (with the login
// page) and the workspace on one test server, over a bbolt file (or
// PostgreSQL with SCOPEKIT_TEST_STORE=postgres), with two accounts:
// acme (the demo catalog and project, an admin ada, a Read Only ron, an
// approver amy, a service account bot) and globex (its own project).
type env struct {
	t      testing.TB
	db     store
	svc    *scoping.Service
	auth   *auth.Service
	srv    *httptest.Server
	accts  map[string]string // slug -> id
	users  map[string]string // email -> id
	seeded map[string]*demodata.Seeded
	pdf    bool // documents get PDFs (LibreOffice is installed, or converter is set)
	dns    *fakeDNS

	// set by an option before the server starts: the documents' PDF
	// converter (nil: LibreOffice when installed) and the share links'
	// pages' throttle (posts per minute of a link; zero: the default)
	converter  office.Converter
	acceptRate float64

	logged *logBuffer // everything the server logged, at every level
}

// logBuffer keeps what the server logs, for the tests that check what it
// never logs.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fakeDNS answers the TXT lookups of domain verification from a map.
type fakeDNS struct {
	mu  sync.Mutex
	txt map[string][]string
}

func (d *fakeDNS) LookupTXT(_ context.Context, name string) ([]string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.txt[strings.TrimSuffix(name, ".")]; ok {
		return r, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// publish adds a TXT record.
func (d *fakeDNS) publish(name, record string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.txt[name] = append(d.txt[name], record)
}

// instance starts another server over the same database (the same
// PostgreSQL database of pgURL): a second instance of the service.
func (e *env) instance(pgURL string) *env {
	e.t.Helper()
	o := &env{t: e.t, accts: e.accts, users: e.users, seeded: e.seeded}
	o.db = openStore(e.t, pgURL)
	o.start()
	return o
}

func newEnv(t testing.TB, opts ...func(*env)) *env { return newEnvOn(t, "", opts...) }

// newEnvOn is newEnv on the PostgreSQL database of pgURL ("" for the
// default store).
func newEnvOn(t testing.TB, pgURL string, opts ...func(*env)) *env {
	t.Helper()
	e := &env{t: t, accts: map[string]string{}, users: map[string]string{}, seeded: map[string]*demodata.Seeded{}}
	for _, o := range opts {
		o(e)
	}
	e.db = openStore(t, pgURL)
	e.start()
	ctx := context.Background()
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		for _, slug := range []string{"acme", "globex"} {
			acct, err := a.EnsureAccount(slug, strings.ToUpper(slug[:1])+slug[1:]+" IT", "USD")
			if err != nil {
				return err
			}
			e.accts[slug] = acct.ID
		}
		for _, m := range []struct{ slug, email, role, typ string }{
			{"acme", "ada@acme.test", "Account Admin", ""}, {"acme", "ron@acme.test", "Read Only", ""},
			{"acme", "amy@acme.test", "Account Admin", ""}, {"acme", "bot@acme.test", "Account Admin", "service"},
			{"globex", "gus@globex.test", "Account Admin", ""},
		} {
			u, err := a.EnsureMember(e.accts[m.slug], scoping.Member{Email: m.email, Name: strings.ToUpper(m.email[:1]) + m.email[1:3], Role: m.role, UserType: m.typ})
			if err != nil {
				return err
			}
			e.users[m.email] = u.ID
		}
		return nil
	}))
	for email, id := range e.users {
		require.NoError(t, e.auth.SetPassword(ctx, id, password), email)
	}
	for slug, admin := range map[string]string{"acme": "ada@acme.test", "globex": "gus@globex.test"} {
		sys, err := e.svc.SystemActor(ctx, e.accts[slug])
		require.NoError(t, err)
		e.seeded[slug], err = demodata.Seed(ctx, e.svc, sys, e.users[admin])
		require.NoError(t, err)
	}
	return e
}

// openStore opens a bbolt file in a temp dir, or the PostgreSQL database
// of url ("" for a fresh one) when the tests run on PostgreSQL.
func openStore(t testing.TB, pgURL string) store {
	t.Helper()
	if pgURL == "" && os.Getenv("SCOPEKIT_TEST_STORE") == "postgres" {
		pgURL = pgtest.URL(t)
	}
	if pgURL == "" {
		return bolttest.Open(t, scoping.DefaultSchema()) // closed and checked when t ends
	}
	db, err := pgstore.Open(context.Background(), pgURL, scoping.DefaultSchema())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// start wires the services and the server over e.db.
func (e *env) start() {
	t := e.t
	sealer, err := seal.New(make([]byte, seal.KeySize))
	require.NoError(t, err)
	e.svc = scoping.NewService(e.db)
	dispatcher := &webhook.Dispatcher{Store: e.db, Secrets: sealer, AllowPrivate: true, PollInterval: 50 * time.Millisecond,
		Schedule: []time.Duration{0, 50 * time.Millisecond}}
	e.svc.Webhooks = scoping.WebhookConfig{Sealer: sealer, CheckDestination: webhook.CheckDestination(true), Notify: dispatcher.Notify}
	e.dns = &fakeDNS{txt: map[string][]string{}}
	e.svc.SSO = scoping.SSOConfig{Resolver: e.dns}
	e.auth = &auth.Service{Store: e.db.AuthStore(), Directory: scoping.Directory(e.db), Providers: scoping.IdentityProviders(e.svc),
		BcryptCost: bcrypt.MinCost, Sealer: sealer}
	e.logged = &logBuffer{}
	handlers := []slog.Handler{slog.NewTextHandler(testLog{t}, &slog.HandlerOptions{Level: slog.LevelWarn}),
		slog.NewTextHandler(e.logged, &slog.HandlerOptions{Level: slog.LevelDebug})}
	logger := slog.New(slog.NewMultiHandler(handlers...))
	pool := docgen.New(e.svc)
	pool.Logger, pool.Poll = logger, 50*time.Millisecond
	if e.converter != nil {
		pool.Converter, e.pdf = e.converter, true
	} else if lo, err := office.NewLibreOffice(""); err == nil {
		pool.Converter, e.pdf = lo, true
	}
	e.svc.Documents = pool.Config()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = pool.Run(ctx) }()
	delivered := make(chan struct{})
	go func() { defer close(delivered); _ = dispatcher.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; <-delivered })

	// single sign-on reaches the test's provider on loopback
	api := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: logger, SSO: &sso.RelyingParty{Client: &http.Client{Timeout: 10 * time.Second}}}
	e.srv = httptest.NewUnstartedServer(nil)
	ws, err := webapp.New(webapp.Config{Svc: e.svc, Auth: e.auth, BaseURL: "http://" + e.srv.Listener.Addr().String(), Key: testKey, Logger: logger,
		AcceptLinkRate: e.acceptRate, AcceptLinkBurst: e.acceptRate, AcceptAddressRate: e.acceptRate * 4, AcceptAddressBurst: e.acceptRate * 4,
		AdmitAuth: api.AdmitAuth})
	require.NoError(t, err)
	api.Mounts = map[string]http.Handler{webapp.Path: ws.Handler()}
	e.srv.Config.Handler = api.Handler()
	e.srv.Start()
	t.Cleanup(e.srv.Close)
}

// testLog writes the server's warnings and errors to the test's log.
type testLog struct{ t testing.TB }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// browser is a person's browser without JavaScript: a cookie jar that
// follows redirects, and the pages it was shown.
type browser struct {
	e    *env
	c    *http.Client
	last *page
}

type page struct {
	Status int
	URL    string
	Header http.Header
	Body   string
}

func (e *env) browser() *browser {
	jar, err := cookiejar.New(nil)
	require.NoError(e.t, err)
	return &browser{e: e, c: &http.Client{Jar: jar, Timeout: 60 * time.Second}}
}

func (b *browser) do(req *http.Request) *page {
	b.e.t.Helper()
	res, err := b.c.Do(req)
	require.NoError(b.e.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(b.e.t, err)
	b.last = &page{Status: res.StatusCode, URL: res.Request.URL.String(), Header: res.Header, Body: string(body)}
	return b.last
}

// get opens a path of the server (or an absolute URL).
func (b *browser) get(path string) *page {
	b.e.t.Helper()
	if !strings.HasPrefix(path, "http") {
		path = b.e.srv.URL + path
	}
	req, err := http.NewRequest(http.MethodGet, path, nil)
	require.NoError(b.e.t, err)
	return b.do(req)
}

// post sends a form to path; htmx sends it as htmx does.
func (b *browser) post(path string, form url.Values, htmx bool) *page {
	b.e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.e.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(b.e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	return b.do(req)
}

var (
	hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
	csrfInput   = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
)

// hidden returns the hidden fields of the page's first form.
func (p *page) hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(p.Body, -1) {
		if v.Get(html.UnescapeString(m[1])) == "" {
			v.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
		}
	}
	return v
}

// csrf returns the workspace page's CSRF token.
func (p *page) csrf(t *testing.T) string {
	m := csrfInput.FindStringSubmatch(p.Body)
	require.NotNil(t, m, "no CSRF token on %s", p.URL)
	return m[1]
}

// signIn signs in to the account's workspace with the password through
// the login page, as a person does, and returns the page it lands on.
func (b *browser) signIn(slug, email string) *page {
	b.e.t.Helper()
	login := b.get("/app/signin?account=" + url.QueryEscape(slug))
	require.Equal(b.e.t, http.StatusOK, login.Status, login.Body)
	require.Contains(b.e.t, login.URL, "/oauth/authorize")
	form := login.hidden()
	form.Set("email", email)
	form.Set("password", password)
	req, err := http.NewRequest(http.MethodPost, b.e.srv.URL+"/oauth/authorize", strings.NewReader(form.Encode()))
	require.NoError(b.e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// pricing is the pricing endpoint's answer for a project, as a service
// account of the account reads it.
func (e *env) pricing(slug, projectID string) map[string]any {
	e.t.Helper()
	tok := e.apiToken(slug)
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/"+slug+"/v1/projects/"+projectID+"/pricing", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "application/vnd.api+json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	require.Equal(e.t, http.StatusOK, res.StatusCode)
	var doc struct {
		Data struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"data"`
	}
	dec := json.NewDecoder(res.Body)
	dec.UseNumber()
	require.NoError(e.t, dec.Decode(&doc))
	return doc.Data.Attributes
}

// apiToken is an access token of an admin of the account (amy, gus),
// through a password grant of a test application.
func (e *env) apiToken(slug string) string {
	e.t.Helper()
	ctx := context.Background()
	id, secret := "api-"+slug, "api-secret-"+slug
	require.NoError(e.t, e.auth.RegisterApplication(ctx, e.accts[slug], "Test API client", id, secret, nil))
	email := map[string]string{"acme": "amy@acme.test", "globex": "gus@globex.test"}[slug]
	tok, err := e.auth.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: id, ClientSecret: secret, Username: email, Password: password})
	require.NoError(e.t, err)
	return tok.AccessToken
}

// actor resolves a member's actor in the account.
func (e *env) actor(slug, email string) *engine.Actor {
	e.t.Helper()
	a, err := e.svc.ActorForAccount(context.Background(), e.users[email], e.accts[slug])
	require.NoError(e.t, err)
	return a
}

// create makes a record through the generic create, as the API would.
func (e *env) create(a *engine.Actor, typ string, attrs map[string]string, rels map[string]engine.Ref) string {
	e.t.Helper()
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for k, v := range attrs {
		in.Attrs[k] = json.RawMessage(v)
	}
	def, _ := e.svc.Schema().Lookup(typ)
	for k, r := range rels {
		rd, _ := def.Rel(k)
		in.Rels[k] = engine.RelInput{Refs: []engine.Ref{r}, ToMany: rd != nil && rd.ToMany}
	}
	res, err := e.svc.Create(context.Background(), a, typ, in, engine.Options{})
	require.NoError(e.t, err, "create %s", typ)
	return res.Records[0].ID
}

// approvalLevel makes every acme project need the approver's signature
// (a business level that always applies, covering every line of
// business).
func (e *env) approvalLevel(approver string) {
	e.t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(e.t, err)
	level := e.create(sys, "approval-levels", map[string]string{"name": `"Business"`, "kind": `"business"`, "position": "1",
		"conditions": "[]", "required-approvals": "0"}, nil)
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{
		"approval-level": {Refs: []engine.Ref{{Type: "approval-levels", ID: level}}},
		"approvers":      {ToMany: true, Refs: []engine.Ref{{Type: "users", ID: e.users[approver]}}}}}
	_, err = e.svc.Create(context.Background(), sys, "line-of-business-approvals", in, engine.Options{})
	require.NoError(e.t, err)
}

// screenshotState sets acme up as the screenshots show it: an approval
// level with amy as approver, a service without a resource added to the
// demo project, which ada submits, and a statement of work generated; it
// returns the demo project's id.
func (e *env) screenshotState(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	e.approvalLevel("amy@acme.test")
	pid := e.seeded["acme"].ProjectID
	ada := e.actor("acme", "ada@acme.test")
	// a service without a resource: the review has a finding to show
	ws := e.create(ada, "services", map[string]string{"name": `"Wireless survey"`, "sku": `"WS-100"`, "hours": `"6"`}, nil)
	e.create(ada, "project-services", nil, map[string]engine.Ref{"project": {Type: "projects", ID: pid}, "service": {Type: "services", ID: ws}})
	e.create(ada, "project-documents", map[string]string{"document-type": `"sow"`, "generate-pdf": "true"},
		map[string]engine.Ref{"project": {Type: "projects", ID: pid}, "document-template": {Type: "document-templates", ID: e.standardSOW(ada)}})
	_, err := e.svc.Submit(ctx, ada, pid)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		res, err := e.svc.List(ctx, ada, "project-documents", engine.ListParams{PageSize: 10, PageNumber: 1}, engine.Options{})
		return err == nil && len(res.Records) == 1 && res.Records[0].Str("status") != "queued" && res.Records[0].Str("status") != "generating"
	}, 90*time.Second, 200*time.Millisecond)
	return pid
}

// standardSOW is the id of the account's built-in Standard SOW template.
func (e *env) standardSOW(a *engine.Actor) string {
	e.t.Helper()
	res, err := e.svc.List(context.Background(), a, "document-templates", engine.ListParams{PageSize: 100, PageNumber: 1}, engine.Options{})
	require.NoError(e.t, err)
	for _, r := range res.Records {
		if r.Str("name") == "Standard SOW" {
			return r.ID
		}
	}
	e.t.Fatal("no Standard SOW")
	return ""
}

// formOf builds a form from name, value pairs.
func formOf(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// apiRecord reads a record's attributes through the v1 API as acme's
// admin.
func (e *env) apiRecord(slug, typ, id string) map[string]any {
	e.t.Helper()
	return e.apiRecordPath(slug, "/"+slug+"/v1/"+typ+"/"+id)
}

// apiRecordPath reads the resource of an API path as an admin of the
// account.
func (e *env) apiRecordPath(slug, path string) map[string]any {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.apiToken(slug))
	req.Header.Set("Accept", "application/vnd.api+json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	require.Equal(e.t, http.StatusOK, res.StatusCode)
	var doc struct {
		Data struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(e.t, json.NewDecoder(res.Body).Decode(&doc))
	return doc.Data.Attributes
}

// member makes email an active member of the account with the role.
func (e *env) member(slug, email, name, role string) string {
	e.t.Helper()
	var id string
	require.NoError(e.t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(e.accts[slug], scoping.Member{Email: email, Name: name, Role: role})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	e.users[email] = id
	return id
}
