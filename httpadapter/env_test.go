package httpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/jsonapitest"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webapp"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// testEnv is a running API on a real bbolt file in a temp dir, with two
// accounts (acme and globex) and helpers to act as users of given roles.
// With SCOPEKIT_TEST_STORE=postgres it runs on PostgreSQL instead (a fresh
// schema of the server SCOPEKIT_TEST_DATABASE names), so that the same
// end-to-end tests check pgstore.
type testEnv struct {
	t      *testing.T
	path   string
	pg     bool // on PostgreSQL whatever SCOPEKIT_TEST_STORE says
	pgURL  string
	pgOpts []pgstore.Option                // options of its pgstore.Open (a tracer)
	wrap   func(http.Handler) http.Handler // around the API's handler
	db     testDB
	svc    *scoping.Service
	auth   *auth.Service
	srv    *httptest.Server
	accts  map[string]string // slug -> account id

	// documents: the generation workers (stopped by close), the PDF
	// converter they use (nil: none) and the generation throttle
	converter   office.Converter
	docThrottle httpadapter.DocumentThrottle
	stopDocs    func()

	// the token service's access-token lifetime and clock (zero: defaults)
	tokenTTL time.Duration
	now      func() time.Time

	// where the server's logs go (nil: nowhere)
	logs io.Writer
}

// logger is the server's logger: to e.logs when set.
func (e *testEnv) logger(discard *slog.Logger) *slog.Logger {
	if e.logs == nil {
		return discard
	}
	return slog.New(slog.NewTextHandler(e.logs, nil))
}

// envOption configures a test API before it starts.
type envOption func(*testEnv)

// mustEnv starts a test API; it is closed when the test ends.
func mustEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	e := &testEnv{t: t, path: filepath.Join(t.TempDir(), "scopekit.db"), accts: map[string]string{}}
	for _, o := range opts {
		o(e)
	}
	e.open()
	require.NoError(t, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		for _, slug := range []string{"acme", "globex"} {
			acct, err := a.EnsureAccount(slug, strings.ToUpper(slug[:1])+slug[1:], "USD")
			if err != nil {
				return err
			}
			e.accts[slug] = acct.ID
		}
		return nil
	}))
	return e
}

// testDB is what the tests use of a store.
type testDB interface {
	engine.Store
	webhook.Store
	AuthStore() auth.Store
	Close() error
}

// onPostgres reports whether the tests run on pgstore.
func onPostgres() bool { return os.Getenv("SCOPEKIT_TEST_STORE") == "postgres" }

func (e *testEnv) open() {
	var db testDB
	var err error
	if e.pg || onPostgres() {
		if e.pgURL == "" {
			e.pgURL = pgtest.URL(e.t)
		}
		db, err = pgstore.Open(context.Background(), e.pgURL, scoping.DefaultSchema(), e.pgOpts...)
		require.NoError(e.t, err)
	} else {
		// checked for consistency when the test ends, after e.close
		db = bolttest.OpenFile(e.t, e.path, scoping.DefaultSchema())
	}
	e.t.Cleanup(e.close) // again after a restart: it runs once
	e.db = db
	e.svc = scoping.NewService(db)
	e.svc.Webhooks = scoping.WebhookConfig{Sealer: testSealer(e.t), CheckDestination: webhook.CheckDestination(true)}
	e.auth = &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), Providers: scoping.IdentityProviders(e.svc),
		BcryptCost: bcrypt.MinCost, Sealer: testSealer(e.t), TokenTTL: e.tokenTTL, Now: e.now}
	e.svc.SignIns = e.auth
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool := docgen.New(e.svc)
	pool.Converter, pool.Logger, pool.Poll = e.converter, logger, 50*time.Millisecond
	e.svc.Documents = pool.Config()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(e.t, pool.Run(ctx))
	}()
	e.stopDocs = func() { cancel(); <-done }
	s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: e.logger(logger), DocumentThrottle: e.docThrottle}
	// The MCP endpoint, mounted as the example server mounts it.
	m := &mcpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: logger}
	s.Mounts = map[string]http.Handler{mcpadapter.Path: m.HTTPHandler(), mcpadapter.MetadataPath: m.MetadataHandler()}
	h := s.Handler()
	if e.wrap != nil {
		h = e.wrap(h)
	}
	e.srv = httptest.NewUnstartedServer(h)
	// the workspace with the share links' public pages, mounted as the
	// example server mounts it
	ws, err := webapp.New(webapp.Config{Svc: e.svc, Auth: e.auth, BaseURL: "http://" + e.srv.Listener.Addr().String(),
		Key: []byte(strings.Repeat("k", 32)), Logger: e.logger(logger)})
	require.NoError(e.t, err)
	s.Mounts[webapp.Path] = ws.Handler()
	e.srv.Start()
	m.BaseURL = e.srv.URL // for the absolute download links of documents
}

func (e *testEnv) close() {
	if e.srv != nil {
		e.srv.Close()
		e.stopDocs()
		require.NoError(e.t, e.db.Close())
		e.srv = nil
	}
}

// stored returns everything the store holds as bytes (the file, or a
// text dump of the tables), to check that no secret is kept in clear.
func (e *testEnv) stored() []byte {
	e.t.Helper()
	if pg, ok := e.db.(*pgstore.DB); ok {
		var dump string
		require.NoError(e.t, pg.Pool().QueryRow(context.Background(), `SELECT concat_ws(E'\n',
			(SELECT string_agg(r::text, E'\n') FROM records r), (SELECT string_agg(a::text, E'\n') FROM auth_applications a),
			(SELECT string_agg(c::text, E'\n') FROM auth_service_credentials c), (SELECT string_agg(p::text, E'\n') FROM auth_passwords p),
			(SELECT string_agg(t::text, E'\n') FROM auth_tokens t), (SELECT string_agg(c::text, E'\n') FROM auth_codes c),
			(SELECT string_agg(m::text, E'\n') FROM auth_mfa m), (SELECT string_agg(s::text, E'\n') FROM auth_signins s))`).Scan(&dump))
		return []byte(dump)
	}
	raw, err := os.ReadFile(e.path)
	require.NoError(e.t, err)
	return raw
}

// restart closes and reopens the database and server on the same file.
func (e *testEnv) restart() {
	e.close()
	e.open()
}

// token creates (or updates) a user with the role in the account and
// returns a fresh access token for it (client_credentials of a service
// account: the role, not the user type, decides what it may do).
func (e *testEnv) token(slug, email, role string) string {
	e.t.Helper()
	_, tok := e.user(slug, email, role)
	return tok
}

// user is token that also returns the user's id.
func (e *testEnv) user(slug, email, role string) (id, token string) {
	e.t.Helper()
	ctx := context.Background()
	var uid string
	require.NoError(e.t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		u, err := a.EnsureMember(e.accts[slug], scoping.Member{Email: email, Name: email, UserType: "service", Role: role})
		if u != nil {
			uid = u.ID
		}
		return err
	}))
	clientID := "cid-" + slug + "-" + email
	require.NoError(e.t, e.auth.SetServiceCredential(ctx, e.accts[slug], uid, clientID, "secret-"+email))
	tok, err := e.auth.Token(ctx, &auth.TokenRequest{GrantType: "client_credentials", ClientID: clientID, ClientSecret: "secret-" + email})
	require.NoError(e.t, err)
	return uid, tok.AccessToken
}

// admin returns a token of an Account Admin of acme.
func (e *testEnv) admin() string { return e.token("acme", "admin@acme.test", "Account Admin") }

// resp is a response with its body decoded when it is JSON.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
	Doc    map[string]any
}

// req sends a request with JSON:API headers; body "" sends none. Every
// JSON:API body is checked against the official schema. headers are name,
// value pairs; an empty value removes the header.
func (e *testEnv) req(method, path, token, body string, headers ...string) *resp {
	e.t.Helper()
	return e.send(e.newRequest(e.srv.URL, method, path, token, body, headers...))
}

// newRequest builds what req sends, to the server at base.
func (e *testEnv) newRequest(base, method, path, token, body string, headers ...string) *http.Request {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r, err := http.NewRequest(method, base+path, rd)
	require.NoError(e.t, err)
	r.Header.Set("Accept", "application/vnd.api+json")
	if body != "" {
		r.Header.Set("Content-Type", "application/vnd.api+json")
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
		} else {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	return r
}

// send sends r and reads the response, checking JSON:API bodies.
func (e *testEnv) send(r *http.Request) *resp {
	e.t.Helper()
	res, err := http.DefaultClient.Do(r)
	require.NoError(e.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(e.t, err)
	out := &resp{Status: res.StatusCode, Header: res.Header, Body: b}
	if len(b) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/vnd.api+json") {
		require.NoError(e.t, json.Unmarshal(b, &out.Doc), "%s", b)
		jsonapitest.Check(e.t, b)
	}
	return out
}

func (e *testEnv) get(path, token string) *resp { return e.req(http.MethodGet, path, token, "") }

// create posts a resource and returns its id, failing unless 201.
func (e *testEnv) create(path, token, typ, attrs string, rels ...string) string {
	e.t.Helper()
	r := e.req(http.MethodPost, path, token, doc(typ, "", attrs, rels...))
	require.Equal(e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.data()["id"].(string)
}

// doc builds a write document; rels are name, type, id triples.
func doc(typ, id, attrs string, rels ...string) string {
	if attrs == "" {
		attrs = "{}"
	}
	var b strings.Builder
	b.WriteString(`{"data":{"type":"` + typ + `"`)
	if id != "" {
		b.WriteString(`,"id":"` + id + `"`)
	}
	b.WriteString(`,"attributes":` + attrs)
	if len(rels) > 0 {
		b.WriteString(`,"relationships":{`)
		for i := 0; i+2 < len(rels); i += 3 {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"` + rels[i] + `":{"data":{"type":"` + rels[i+1] + `","id":"` + rels[i+2] + `"}}`)
		}
		b.WriteString("}")
	}
	b.WriteString("}}")
	return b.String()
}

func (r *resp) data() map[string]any {
	d, _ := r.Doc["data"].(map[string]any)
	return d
}

func (r *resp) list() []map[string]any {
	raw, _ := r.Doc["data"].([]any)
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i], _ = v.(map[string]any)
	}
	return out
}

func (r *resp) attr(name string) any {
	a, _ := r.data()["attributes"].(map[string]any)
	return a[name]
}

// firstError returns the first error object.
func (r *resp) firstError() map[string]any {
	errs, _ := r.Doc["errors"].([]any)
	if len(errs) == 0 {
		return nil
	}
	e, _ := errs[0].(map[string]any)
	return e
}

func (r *resp) meta(name string) any {
	m, _ := r.Doc["meta"].(map[string]any)
	return m[name]
}

// seed creates a record through the engine as the account's system actor,
// without HTTP (for bulk fixtures), and returns its id. attrs is a JSON
// object; rels are name, type, id triples.
func (e *testEnv) seed(slug, typ, attrs string, rels ...string) string {
	e.t.Helper()
	ctx := context.Background()
	in := &engine.Input{Rels: map[string]engine.RelInput{}}
	if attrs != "" {
		require.NoError(e.t, json.Unmarshal([]byte(attrs), &in.Attrs))
	}
	for i := 0; i+2 < len(rels); i += 3 {
		in.Rels[rels[i]] = engine.RelInput{Refs: []engine.Ref{{Type: rels[i+1], ID: rels[i+2]}}}
	}
	a, err := e.svc.SystemActor(ctx, e.accts[slug])
	require.NoError(e.t, err)
	res, err := e.svc.Create(ctx, a, typ, in, engine.Options{})
	require.NoError(e.t, err)
	return res.Records[0].ID
}

// patch updates a resource and fails unless 200.
func (e *testEnv) patch(path, token, typ, id, attrs string, rels ...string) *resp {
	e.t.Helper()
	r := e.req(http.MethodPatch, path, token, doc(typ, id, attrs, rels...))
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return r
}

// errors returns the error objects of an error document.
func (r *resp) errors() []map[string]any {
	raw, _ := r.Doc["errors"].([]any)
	out := make([]map[string]any, len(raw))
	for i, v := range raw {
		out[i], _ = v.(map[string]any)
	}
	return out
}

// ids returns the ids of a list document's data, in order.
func (r *resp) ids() []string {
	var out []string
	for _, d := range r.list() {
		id, _ := d["id"].(string)
		out = append(out, id)
	}
	return out
}

// rel returns the linkage id of a to-one relationship of single data ("" when null).
func (r *resp) rel(name string) string {
	rels, _ := r.data()["relationships"].(map[string]any)
	rel, _ := rels[name].(map[string]any)
	d, _ := rel["data"].(map[string]any)
	id, _ := d["id"].(string)
	return id
}

// assertError checks that r is a JSON:API error document answering status
// whose errors all carry the status as a string and its standard title, and
// that one of them has the source: a JSON pointer (starting with "/") or a
// query parameter; "" checks no source.
func assertError(t *testing.T, r *resp, status int, source string) map[string]any {
	t.Helper()
	require.Equal(t, status, r.Status, "%s", r.Body)
	assert.True(t, strings.HasPrefix(r.Header.Get("Content-Type"), "application/vnd.api+json"), "Content-Type %q", r.Header.Get("Content-Type"))
	errs := r.errors()
	require.NotEmpty(t, errs, "%s", r.Body)
	for _, e := range errs {
		assert.Equal(t, strconv.Itoa(status), e["status"], "status is a string: %s", r.Body)
		assert.Equal(t, http.StatusText(status), e["title"], "%s", r.Body)
	}
	if source == "" {
		return errs[0]
	}
	member := "parameter"
	if strings.HasPrefix(source, "/") {
		member = "pointer"
	}
	for _, e := range errs {
		if src, _ := e["source"].(map[string]any); src[member] == source {
			return e
		}
	}
	t.Errorf("no error with source %s %q in %s", member, source, r.Body)
	return errs[0]
}
