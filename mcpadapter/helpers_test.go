package mcpadapter_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// baseURL is the API base the tool answers link to.
const baseURL = "https://api.scopekit.test"

// fixture is a bbolt store with two accounts, acme and globex, each with
// the worked example of docs/pricing.md; acme's admin is a teammate of
// its project.
type fixture struct {
	t     *testing.T
	db    *boltstore.DB
	svc   *scoping.Service
	auth  *auth.Service
	accts map[string]string // account ids by slug
	// adminID and admin are acme's Account Admin and its token.
	adminID, admin string
	acme           *demodata.Seeded
	// globex is the worked example of the other account.
	globex *demodata.Seeded
	// docs generates documents as the workers do, when generate is called.
	docs *docgen.Pool
	logs *os.File // the server's log; a file, read while the server writes
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	db := bolttest.OpenFile(t, filepath.Join(dir, "scopekit.db"), scoping.DefaultSchema())
	logs, err := os.Create(filepath.Join(dir, "server.log"))
	require.NoError(t, err)
	t.Cleanup(func() { logs.Close() })
	f := &fixture{t: t, db: db, svc: scoping.NewService(db), accts: map[string]string{}, logs: logs}
	f.auth = &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db)}
	f.docs = docgen.New(f.svc)
	f.docs.Converter = fakePDF{}
	f.svc.Documents = f.docs.Config() // accounts get the built-in Standard SOW
	require.NoError(t, f.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		for _, slug := range []string{"acme", "globex"} {
			acct, err := a.EnsureAccount(slug, slug, "USD")
			if err != nil {
				return err
			}
			f.accts[slug] = acct.ID
		}
		// a role that reads projects but not their documents, and one
		// without any permission
		if _, err := a.EnsureRole(f.accts["acme"], "No Documents", map[string]string{"projects": "view", "clients": "view"}, "all"); err != nil {
			return err
		}
		_, err := a.EnsureRole(f.accts["acme"], "Nothing", nil, "all")
		return err
	}))
	f.adminID, f.admin = f.user("acme", "admin@acme.test", "Account Admin")
	f.acme = f.seed("acme", f.adminID)
	f.globex = f.seed("globex", "")
	return f
}

func (f *fixture) seed(slug, teammate string) *demodata.Seeded {
	f.t.Helper()
	s, err := demodata.Seed(context.Background(), f.svc, f.system(slug), teammate)
	require.NoError(f.t, err)
	return s
}

// system is an actor with every permission in the account.
func (f *fixture) system(slug string) *engine.Actor {
	f.t.Helper()
	a, err := f.svc.SystemActor(context.Background(), f.accts[slug])
	require.NoError(f.t, err)
	return a
}

// user makes email an active service account with the role in the
// account and returns its id and a fresh access token.
func (f *fixture) user(slug, email, role string) (id, token string) {
	f.t.Helper()
	ctx := context.Background()
	id = f.member(slug, email, role, "active")
	clientID := "cid-" + slug + "-" + email
	require.NoError(f.t, f.auth.SetServiceCredential(ctx, f.accts[slug], id, clientID, "secret-"+email))
	tok, err := f.auth.Token(ctx, &auth.TokenRequest{GrantType: "client_credentials", ClientID: clientID, ClientSecret: "secret-" + email})
	require.NoError(f.t, err)
	return id, tok.AccessToken
}

// member creates or updates the membership of email in the account.
func (f *fixture) member(slug, email, role, status string) (id string) {
	f.t.Helper()
	require.NoError(f.t, f.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(f.accts[slug], scoping.Member{Email: email, Name: email, UserType: "service", Role: role, Status: status})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	return id
}

// create creates a record through the generic engine as the account's
// system actor; rels are to-one relationships as type, id pairs.
func (f *fixture) create(slug, typ string, attrs map[string]any, rels map[string][2]string) string {
	f.t.Helper()
	res, err := f.svc.Create(context.Background(), f.system(slug), typ, f.input(attrs, rels), engine.Options{})
	require.NoError(f.t, err, "create %s", typ)
	return res.Records[0].ID
}

// update changes attributes of a record as the account's system actor.
func (f *fixture) update(slug, typ, id string, attrs map[string]any) {
	f.t.Helper()
	_, err := f.svc.Update(context.Background(), f.system(slug), typ, id, f.input(attrs, nil), engine.Options{})
	require.NoError(f.t, err, "update %s %s", typ, id)
}

// input is a write of attributes, marshaled as a client sends them, and
// to-one relationships.
func (f *fixture) input(attrs map[string]any, rels map[string][2]string) *engine.Input {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for k, v := range attrs {
		b, err := json.Marshal(v)
		require.NoError(f.t, err)
		in.Attrs[k] = b
	}
	for k, r := range rels {
		in.Rels[k] = engine.RelInput{Refs: []engine.Ref{{Type: r[0], ID: r[1]}}}
	}
	return in
}

// document queues a project document of the acme project; a sow uses
// the built-in Standard SOW.
func (f *fixture) document(docType string, pdf bool) string {
	f.t.Helper()
	rels := map[string][2]string{"project": {"projects", f.acme.ProjectID}}
	if docType == scoping.DocumentSOW {
		rels["document-template"] = [2]string{"document-templates", f.standard()}
	}
	return f.create("acme", "project-documents", map[string]any{"document-type": docType, "generate-pdf": pdf}, rels)
}

// standard is the id of acme's built-in Standard SOW.
func (f *fixture) standard() string {
	f.t.Helper()
	res, err := f.svc.List(context.Background(), f.system("acme"), "document-templates",
		engine.ListParams{Filters: map[string]string{"name": documents.StandardSOWName}}, engine.Options{})
	require.NoError(f.t, err)
	require.Len(f.t, res.Records, 1)
	return res.Records[0].ID
}

// generate generates every queued document, as a worker would.
func (f *fixture) generate() {
	f.t.Helper()
	ctx := context.Background()
	for {
		job, err := f.svc.ClaimDocument(ctx, time.Minute)
		require.NoError(f.t, err)
		if job == nil {
			return
		}
		require.NoError(f.t, f.svc.FinishDocument(ctx, job, f.docs.Generate(ctx, job)))
	}
}

// fakePDF stands in for LibreOffice.
type fakePDF struct{}

func (fakePDF) ToPDF(context.Context, []byte) ([]byte, error) { return []byte("%PDF-1.7 fake"), nil }

// logged returns what the servers logged so far.
func (f *fixture) logged() string {
	f.t.Helper()
	b, err := os.ReadFile(f.logs.Name())
	require.NoError(f.t, err)
	return string(b)
}

// server is the adapter over the fixture's store.
func (f *fixture) server(base string) *mcpadapter.Server {
	return &mcpadapter.Server{Svc: f.svc, Auth: f.auth, BaseURL: base,
		Logger: slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}
}

// connect serves the tools as the token's user (Run, over the SDK's
// in-memory transport) and returns a client session on them.
func (f *fixture) connect(t *testing.T, token string) *client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- f.server(baseURL).Run(ctx, serverT, token) }()
	ses, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		ses.Close()
		cancel()
		<-done
	})
	return newClient(t, ses)
}

// client is a client session that checks every tool answer against the
// output schema the server lists for the tool.
type client struct {
	ses     *mcp.ClientSession
	schemas map[string]*jsonschema.Resolved
}

func newClient(t *testing.T, ses *mcp.ClientSession) *client {
	t.Helper()
	c := &client{ses: ses, schemas: map[string]*jsonschema.Resolved{}}
	tools, err := ses.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tl := range tools.Tools {
		var s jsonschema.Schema
		remarshal(t, tl.OutputSchema, &s)
		c.schemas[tl.Name], err = s.Resolve(nil)
		require.NoError(t, err, tl.Name)
	}
	return c
}

// call calls a tool that must succeed, checks its structured output
// against the tool's output schema and decodes it into out.
func (c *client) call(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	res := c.result(t, tool, args)
	require.False(t, res.IsError, "%s %v: %s", tool, args, jsonText(t, res.Content))
	schema, ok := c.schemas[tool]
	require.True(t, ok, "%s is not listed", tool)
	require.NoError(t, schema.Validate(res.StructuredContent), "%s output against its schema", tool)
	remarshal(t, res.StructuredContent, out)
}

// fail calls a tool that must fail and returns the error's text.
func (c *client) fail(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	res := c.result(t, tool, args)
	require.True(t, res.IsError, "%s %v should fail: %s", tool, args, jsonText(t, res.StructuredContent))
	require.Nil(t, res.StructuredContent, "an error has no structured output")
	require.Len(t, res.Content, 1)
	msg, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "an error is text")
	return msg.Text
}

func (c *client) result(t *testing.T, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.ses.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, tool)
	return res
}

// remarshal decodes v's JSON into out.
func remarshal(t *testing.T, v, out any) {
	t.Helper()
	require.NoError(t, json.Unmarshal([]byte(jsonText(t, v)), out))
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
