package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/observe/observetest"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"golang.org/x/crypto/bcrypt"
)

// env is the library wired as the example server wires it, with metrics
// and an in-memory span exporter, over a bbolt file holding the worked
// example of docs/pricing.md.
type env struct {
	db      *boltstore.DB
	tel     *observe.Telemetry
	spans   *tracetest.InMemoryExporter
	svc     *scoping.Service
	pool    *docgen.Pool
	actor   *engine.Actor // the system actor of the account
	user    string        // the service account's user id
	h       http.Handler
	log     *bytes.Buffer // the access log: requests are served on the test's goroutine
	token   string
	project string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	e := &env{db: db, spans: tracetest.NewInMemoryExporter(), log: &bytes.Buffer{}}
	e.tel = observe.New(observe.Config{Metrics: true, Spans: e.spans})
	t.Cleanup(func() { _ = e.tel.Shutdown(context.Background()) })
	e.svc = scoping.NewService(e.tel.Store(db))
	e.svc.Tracer = e.tel.Tracer()
	e.pool = docgen.New(e.svc)
	e.pool.Observer = e.tel.DocumentObserver()
	e.pool.Logger = slog.New(slog.DiscardHandler)
	e.svc.Documents = e.pool.Config()

	// the account and its service account, as the bootstrap file makes them
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
	_, err := provision.Provision(ctx, db, e.svc, as, &provision.Spec{
		Accounts: []provision.Account{{Slug: "acme", Name: "Acme", DefaultCurrency: "USD"}},
		Users: []provision.User{{Email: "bot@acme.test", Name: "Bot", UserType: "service", ClientID: "bot", ClientSecret: "bot-secret",
			Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}}}})
	require.NoError(t, err)
	tok, err := as.Token(ctx, &auth.TokenRequest{GrantType: "client_credentials", ClientID: "bot", ClientSecret: "bot-secret"})
	require.NoError(t, err)
	e.token = tok.AccessToken
	who, err := as.Authenticate(ctx, e.token)
	require.NoError(t, err)
	e.user = who.UserID
	e.actor, err = e.svc.SystemActor(ctx, who.AccountID)
	require.NoError(t, err)
	seeded, err := demodata.Seed(ctx, e.svc, e.actor, "")
	require.NoError(t, err)
	e.project = seeded.ProjectID
	api := &httpadapter.Server{Svc: e.svc, Auth: as, Logger: slog.New(slog.NewTextHandler(e.log, nil)),
		Metrics: e.tel.RequestMetrics()}
	e.h = e.tel.TraceHTTP(api.Handler())
	return e
}

// newRequest is a request to the API with the token.
func newRequest(t *testing.T, e *env, method, path string, body ...string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(strings.Join(body, "")))
	r.Header.Set("Accept", "application/vnd.api+json")
	r.Header.Set("Authorization", "Bearer "+e.token)
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/vnd.api+json")
	}
	return r
}

// serve answers r.
func serve(e *env, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, r)
	return w
}

// do sends a request to the API with the token and returns the answer.
func (e *env) do(t *testing.T, method, path string, body ...string) *httptest.ResponseRecorder {
	t.Helper()
	return serve(e, newRequest(t, e, method, path, body...))
}

// queue creates a project document of the worked example through the
// API: a workbook of docType, or with a template a SOW; attrs are more
// attributes in JSON.
func (e *env) queue(t *testing.T, docType, template string, attrs ...string) string {
	t.Helper()
	rels := fmt.Sprintf(`"project":{"data":{"type":"projects","id":%q}}`, e.project)
	if template != "" {
		rels += fmt.Sprintf(`,"document-template":{"data":{"type":"document-templates","id":%q}}`, template)
	}
	more := ""
	for _, a := range attrs {
		more += "," + a
	}
	w := e.do(t, http.MethodPost, "/v2/project-documents", fmt.Sprintf(`{"data":{"type":"project-documents",
		"attributes":{"document-type":%q%s},"relationships":{%s}}}`, docType, more, rels))
	require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
	var doc struct{ Data struct{ ID string } }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &doc))
	return doc.Data.ID
}

// template is the id of the built-in Standard SOW template.
func (e *env) template(t *testing.T) string {
	t.Helper()
	res, err := e.svc.List(context.Background(), e.actor, views.TypeDocumentTemplates,
		engine.ListParams{Filters: map[string]string{"name": "Standard SOW"}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, res.Records, 1)
	return res.Records[0].ID
}

// status reads a project document's status.
func (e *env) status(t *testing.T, id string) string {
	t.Helper()
	res, err := e.svc.Get(context.Background(), e.actor, views.TypeProjectDocuments, id, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	return views.ProjectDocument{Record: res.Records[0]}.Status()
}

// scrape reads the metrics as Prometheus would and parses them.
func scrape(t *testing.T, h http.Handler, header ...string) observetest.Families {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, observe.PathMetrics, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	return observetest.Parse(t, w.Body.Bytes())
}
