package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cross-account matrix of docs/auth.md "Accounts are walls": two
// accounts on one server; tokens of acme (an Account Admin service
// account, and a person who is Account Admin of both accounts, signed in
// through acme's application) against globex's slug and globex's record
// ids on every route the router registers (so that a new route is covered
// without a line here), and every MCP tool and prompt given globex's ids.
// Only 403 and 404 come back, no answer shows globex's data, and globex's
// records are what they were. SCOPEKIT_TEST_STORE=postgres runs it on
// PostgreSQL.

// wallsMarker is in the names of globex's records: no answer to acme's
// tokens may contain it.
const wallsMarker = "Globex-Wall-Marker"

// wallsPortal is acme's OAuth application.
const (
	wallsPortal       = "acme-portal"
	wallsPortalSecret = "acme-portal-secret"
	wallsPassword     = "correct horse battery"
)

// seedGlobex fills globex with the worked example and a record of most
// other types, names marked, and a live share link of an approved
// project's SOW; it returns one record id per served type and the link.
func seedGlobex(t *testing.T, e *testEnv) (map[string]string, globexLink) {
	t.Helper()
	ctx := context.Background()
	sys, err := e.svc.SystemActor(ctx, e.accts["globex"])
	require.NoError(t, err)
	_, tok := e.user("globex", "admin@globex.test", "Account Admin")
	seeded, err := demodata.Seed(ctx, e.svc, sys, "")
	require.NoError(t, err)
	e.seed("globex", "clients", `{"name":"`+wallsMarker+` client"}`)
	e.patch("/globex/v1/projects/"+seeded.ProjectID, tok, "projects", seeded.ProjectID, `{"project-name":"`+wallsMarker+` project"}`)
	e.seed("globex", "webhook-subscriptions", `{"event-type":"project_status_changed","destination-url":"https://hooks.example.com/`+wallsMarker+`"}`)
	e.seed("globex", "approval-levels", `{"name":"`+wallsMarker+` level","position":1}`)
	e.seed("globex", "user-defined-fields", `{"name":"marker","label":"`+wallsMarker+`","field-type":"text","resource-type":"projects"}`)
	e.seed("globex", "integrated-products", `{"name":"`+wallsMarker+` PSA","kind":"psa"}`)
	e.seed("globex", "identity-providers", `{"name":"`+wallsMarker+` SSO","issuer-url":"https://login.globex.test","client-id":"x","client-secret":"y","email-domains":["globex.test"]}`)
	e.seed("globex", "users", `{"name":"`+wallsMarker+` user","email":"marker@globex.test"}`)
	e.patch("/globex/v1/questionnaires/"+seeded.IntakeID, tok, "questionnaires", seeded.IntakeID, `{"name":"`+wallsMarker+` intake"}`)
	e.seed("globex", "surveys", `{"answers":{"users":20,"sites":2,"firewalls":1,"wifi":false,"cloud":"none","maintenance_window":true,"notes":"`+wallsMarker+`"}}`,
		"project", "projects", seeded.ProjectID, "questionnaire", "questionnaires", seeded.IntakeID)
	r := e.req(http.MethodPost, "/globex/v1/projects/"+seeded.ProjectID+"/submit", tok, "")
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, "%s", r.Body)
	// a won project with a change order (docs/lifecycle.md)
	won := e.create("/globex/v1/projects", tok, "projects", `{"project-name":"`+wallsMarker+` won"}`, "client", "clients", seeded.ClientID)
	for _, st := range []string{"approved", "won"} {
		e.patch("/globex/v1/projects/"+won, tok, "projects", won, `{"status":"`+st+`"}`)
	}
	e.create("/globex/v1/change-orders", tok, "change-orders", `{"title":"`+wallsMarker+` change"}`, "project", "projects", won)
	e.create("/globex/v1/consent-texts", tok, "consent-texts", `{"body":"`+wallsMarker+` consent"}`)
	// a share link's request and a decision's evidence, as the acceptance makes them
	require.NoError(t, e.db.Update(ctx, func(tx engine.Tx) error {
		req := engine.NewRecord("acceptance-requests", e.accts["globex"])
		req.Attrs["status"], req.Attrs["decline-comment"] = "declined", wallsMarker+" comment"
		req.SetRel("project", seeded.ProjectID)
		if err := tx.Insert(req); err != nil {
			return err
		}
		ev := engine.NewRecord("acceptances", e.accts["globex"])
		ev.Attrs["decision"], ev.Attrs["signer-name"] = "declined", wallsMarker+" signer"
		ev.SetRel("project", seeded.ProjectID)
		ev.SetRel("acceptance-request", req.ID)
		return tx.Insert(ev)
	}))
	shared := e.create("/globex/v1/projects", tok, "projects", `{"project-name":"`+wallsMarker+` shared"}`, "client", "clients", seeded.ClientID)
	e.patch("/globex/v1/projects/"+shared, tok, "projects", shared, `{"status":"approved"}`)
	link := globexLink{document: e.generate("/globex/v1", tok, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", shared,
		"document-template", "document-templates", e.standardSOWOf("globex", tok))}
	require.Equal(t, "finished", e.await("/globex/v1", tok, link.document).attr("status"))
	r = e.req(http.MethodPost, "/globex/v1/project-documents/"+link.document+"/share", tok, "")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	link.request, link.token = r.data()["id"].(string), strings.TrimPrefix(r.attr("url").(string), e.srv.URL+httpadapter.AcceptPath)

	ids := map[string]string{}
	for _, def := range e.svc.Schema().Types() {
		if !def.Served() || def.Global {
			continue
		}
		res, err := e.svc.List(ctx, sys, def.Name, engine.ListParams{Filters: activeFilter(def), PageSize: 1}, engine.Options{})
		require.NoError(t, err, def.Name)
		if len(res.Records) > 0 {
			ids[def.Name] = res.Records[0].ID
		}
	}
	return ids, link
}

// globexLink is globex's live share link: its document, request and
// token.
type globexLink struct{ document, request, token string }

// wallsShareLinks checks globex's share link against acme's tokens: its
// request, document and evidence routes under acme's slug find nothing,
// and the public page finds nothing for the token bound to acme's account
// or with another secret (the link's token is the only key, whatever
// bearer token comes with it).
func wallsShareLinks(t *testing.T, e *testEnv, who, tok string, link globexLink) {
	t.Helper()
	for _, rq := range []wallsRequest{
		{method: http.MethodGet, path: "/acme/v1/acceptance-requests/" + link.request},
		{method: http.MethodPost, path: "/acme/v1/acceptance-requests/" + link.request + "/revoke", body: `{"meta":{}}`},
		{method: http.MethodPost, path: "/acme/v1/project-documents/" + link.document + "/share", body: `{"meta":{}}`},
		{method: http.MethodGet, path: "/acme/v1/project-documents/" + link.document + "/acceptance"},
	} {
		r := e.req(rq.method, rq.path, tok, rq.body)
		assert.Equal(t, http.StatusNotFound, r.Status, "%s: %s %s: %s", who, rq.method, rq.path, r.Body)
		assert.NotContains(t, string(r.Body), wallsMarker, "%s: %s %s", who, rq.method, rq.path)
		assert.NotContains(t, string(r.Body), link.token, "%s: %s %s", who, rq.method, rq.path)
	}
	account, rest, _ := strings.Cut(link.token, ".")
	require.Equal(t, e.accts["globex"], account)
	secret := rest[strings.LastIndexByte(rest, '.')+1:]
	for _, token := range []string{e.accts["acme"] + "." + rest, account + "." + strings.TrimSuffix(rest, secret) + strings.Repeat("A", len(secret))} {
		for _, rq := range []wallsRequest{{method: http.MethodGet, path: httpadapter.AcceptPath + token},
			{method: http.MethodGet, path: httpadapter.AcceptPath + token + "/document.pdf"},
			{method: http.MethodPost, path: httpadapter.AcceptPath + token, body: "decision=accept&agree=yes",
				headers: []string{"Content-Type", "application/x-www-form-urlencoded"}}} {
			r := e.req(rq.method, rq.path, tok, rq.body, rq.headers...)
			assert.Equal(t, http.StatusNotFound, r.Status, "%s: %s %s: %s", who, rq.method, rq.path, r.Body)
			assert.NotContains(t, string(r.Body), wallsMarker, "%s: %s %s", who, rq.method, rq.path)
		}
	}
}

func activeFilter(def *engine.TypeDef) map[string]string {
	if def.Archives {
		return map[string]string{"active": "true,false"}
	}
	return nil
}

// accountDump is every record of the account, as stored (updated-at
// included), for comparing before and after.
func accountDump(t *testing.T, e *testEnv, slug string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	require.NoError(t, e.db.View(ctx, func(tx engine.Tx) error {
		for _, def := range e.svc.Schema().Types() {
			if def.Global {
				continue
			}
			recs, _, err := tx.List(&engine.Query{Type: def.Name, AccountID: e.accts[slug]})
			if err != nil {
				return err
			}
			for _, r := range recs {
				raw, err := json.Marshal(r)
				if err != nil {
					return err
				}
				b.WriteString(def.Name + " " + string(raw) + "\n")
			}
		}
		return nil
	}))
	return b.String()
}

// dualMember makes pat@both.test Account Admin of acme and globex, with a
// password, and signs it in through acme's application: a token of acme.
func dualMember(t *testing.T, e *testEnv) (userID, token string) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		for _, slug := range []string{"acme", "globex"} {
			u, err := a.EnsureMember(e.accts[slug], scoping.Member{Email: "pat@both.test", Name: "Pat", Role: "Account Admin"})
			if err != nil {
				return err
			}
			userID = u.ID
		}
		return nil
	}))
	require.NoError(t, e.auth.SetPassword(ctx, userID, wallsPassword))
	require.NoError(t, e.auth.RegisterApplication(ctx, e.accts["acme"], "Portal", wallsPortal, wallsPortalSecret, nil))
	tok, err := e.auth.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: wallsPortal, ClientSecret: wallsPortalSecret,
		Username: "pat@both.test", Password: wallsPassword})
	require.NoError(t, err)
	return userID, tok.AccessToken
}

// wallsRequest is one request of the matrix.
type wallsRequest struct {
	method, path, body string
	headers            []string
}

// matrixRequests expands the router's registered routes into requests:
// with globex's slug (every type, record, relationship, read, action and
// upload), and with acme's own slug and v2 but globex's record ids.
func matrixRequests(t *testing.T, e *testEnv, ids map[string]string) (otherSlug, otherIDs []wallsRequest) {
	t.Helper()
	s := &httpadapter.Server{}
	s.Handler()
	actions, reads := s.ExtraRoutes()
	uploads := s.UploadRoutes()
	names := func(typ string, list []string) []string {
		var out []string
		for _, k := range list {
			if ty, name, _ := strings.Cut(k, "/"); ty == typ {
				out = append(out, name)
			}
		}
		return out
	}
	for _, route := range s.ServedRoutes() {
		method, pattern, _ := strings.Cut(route, " ")
		if method == http.MethodHead {
			continue
		}
		isV2, slugged := strings.HasPrefix(pattern, "/v2/"), strings.HasPrefix(pattern, "/:slug/")
		if !isV2 && !slugged {
			continue // the token's own account by construction (/v1/me, catalog import); the reference
		}
		if !strings.Contains(pattern, ":type") { // /:slug/v1/account
			otherSlug = append(otherSlug, wallsRequest{method: method, path: strings.Replace(pattern, ":slug", "globex", 1), body: patchBody(method, "accounts", "")})
			continue
		}
		for _, def := range e.svc.Schema().Types() {
			if !def.Served() || (isV2 && !def.V2) {
				continue
			}
			rest := strings.TrimPrefix(strings.TrimPrefix(pattern, "/:slug/v1"), "/v2")
			id, hasID := ids[def.Name]
			if !hasID {
				id = "1"
			}
			var tails []string
			switch rest {
			case "/:type":
				if method == http.MethodPost && def.ReadOnly && def.Hooks.Create == nil {
					continue
				}
				if method == http.MethodGet || method == http.MethodPost {
					otherSlug = append(otherSlug, wallsRequest{method: method, path: "/globex/v1/" + def.Name, body: patchBody(method, def.Name, "")})
				}
				continue
			case "/:type/:id":
				if (method == http.MethodPatch || method == http.MethodDelete) && def.ReadOnly {
					continue
				}
				tails = []string{""}
			case "/:type/:id/:rel", "/:type/:id/:rel/:relid":
				switch method {
				case http.MethodGet:
					for _, r := range def.Rels {
						tails = append(tails, "/"+r.Name)
					}
					for _, n := range names(def.Name, reads) {
						if !isV2 || httpadapter.V2Read(def.Name+"/"+n) {
							tails = append(tails, "/"+n)
						}
					}
				case http.MethodPost:
					for _, n := range names(def.Name, actions) {
						tails = append(tails, "/"+n)
					}
				case http.MethodPut:
					for _, n := range names(def.Name, uploads) {
						tails = append(tails, "/"+n)
					}
				}
				if strings.HasSuffix(rest, ":relid") {
					for i := range tails {
						tails[i] += "/1"
					}
				}
			case "/:type/:id/:rel/:relid/:sub/:subid":
				for k, p := range s.DeepReads() {
					if typ, _, _ := strings.Cut(k, "/"); typ == def.Name {
						tails = append(tails, strings.NewReplacer("/{id}", "", "{relid}", "1", "{subid}", "1").Replace(p))
					}
				}
			default:
				t.Fatalf("route %s: the matrix does not know how to expand it", route)
			}
			for _, tail := range tails {
				rq := requestFor(method, def.Name, id, tail, ids)
				rq.path = "/globex/v1/" + def.Name + "/" + id + tail
				otherSlug = append(otherSlug, rq)
				if !hasID || (isV2 && !def.V2) {
					continue
				}
				rq.path = "/acme/v1/" + def.Name + "/" + id + tail
				if isV2 {
					rq.path = "/v2/" + def.Name + "/" + id + tail
				}
				otherIDs = append(otherIDs, rq)
			}
		}
	}
	return otherSlug, otherIDs
}

// requestFor is a well-formed request of the method on the record id
// of typ (tail: "" or the relationship, read, action or upload): an
// action gets its meta (apply-blueprint globex's blueprint), an upload
// a file of its media type.
func requestFor(method, typ, id, tail string, ids map[string]string) wallsRequest {
	rq := wallsRequest{method: method, body: patchBody(method, typ, id)}
	switch {
	case method == http.MethodPost && tail == "/apply-blueprint":
		rq.body = `{"data":{"type":"blueprints","id":"` + ids["blueprints"] + `"}}`
	case method == http.MethodPost && tail == "/revert":
		rq.body = `{"data":{"type":"project-versions","id":"` + ids["project-versions"] + `"}}`
	case method == http.MethodPost && tail != "":
		rq.body = `{"meta":{}}`
	case method == http.MethodPut:
		rq.body = "PK\x03\x04 not really a DOCX"
		rq.headers = []string{"Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
	}
	return rq
}

// patchBody is a well-formed body for the method: a document of the type
// (with the id on an update), none on a read or delete.
func patchBody(method, typ, id string) string {
	switch method {
	case http.MethodPatch:
		return `{"data":{"type":"` + typ + `","id":"` + id + `","attributes":{}}}`
	case http.MethodPost, http.MethodPut:
		return `{"data":{"type":"` + typ + `","attributes":{"name":"x"}}}`
	}
	return ""
}

func TestWallsCrossAccountMatrix(t *testing.T) {
	e := mustEnv(t, func(e *testEnv) { e.converter = officetest.Fixed(sowPDF) })
	ids, link := seedGlobex(t, e)
	require.Greater(t, len(ids), 25, "globex holds records of most types: %v", ids)
	_, personTok := dualMember(t, e)
	tokens := map[string]string{"acme's Account Admin": e.admin(), "a member of both signed in to acme": personTok}
	before := accountDump(t, e, "globex")
	require.Contains(t, before, wallsMarker)

	otherSlug, otherIDs := matrixRequests(t, e, ids)
	require.Greater(t, len(otherSlug), 200)
	require.Greater(t, len(otherIDs), 100)
	check := func(who string, rq wallsRequest, r *resp, want ...int) {
		t.Helper()
		assert.Contains(t, want, r.Status, "%s: %s %s: %s", who, rq.method, rq.path, r.Body)
		assert.NotContains(t, string(r.Body), wallsMarker, "%s: %s %s shows globex's data", who, rq.method, rq.path)
	}
	for who, tok := range tokens {
		for _, rq := range otherSlug {
			check(who, rq, e.req(rq.method, rq.path, tok, rq.body, rq.headers...), http.StatusForbidden)
		}
		for _, rq := range otherIDs {
			check(who, rq, e.req(rq.method, rq.path, tok, rq.body, rq.headers...), http.StatusNotFound, http.StatusForbidden)
		}
		// the token's own account answers; what it lists is acme's
		for _, path := range []string{"/v1/me", "/acme/v1/projects", "/v2/projects", "/acme/v1/users", "/acme/v1/clients", "/v1/catalog-export"} {
			r := e.get(path, tok)
			require.Equal(t, http.StatusOK, r.Status, "%s: GET %s: %s", who, path, r.Body)
			assert.NotContains(t, string(r.Body), wallsMarker, "%s: GET %s", who, path)
		}
		wallsMCP(t, e, who, tok, ids)
		wallsShareLinks(t, e, who, tok, link)
	}
	require.Equal(t, before, accountDump(t, e, "globex"), "globex's records are unchanged")
}

// mcpIDTypes maps a tool argument named <x>_id to the type of its record.
var mcpIDTypes = map[string]string{"project": "projects", "document": "project-documents", "service": "services",
	"blueprint": "blueprints", "client": "clients", "template": "document-templates", "phase": "phases",
	"line_of_business": "lines-of-business", "level": "approval-levels", "line": "project-services",
	"change_order": "change-orders", "version": "project-versions", "acceptance": "acceptances", "acceptance_request": "acceptance-requests"}

// wallsMCP calls every MCP tool and prompt with globex's record ids where
// it takes an id: each answers a tool error, or nothing of globex.
func wallsMCP(t *testing.T, e *testEnv, who, token string, ids map[string]string) {
	t.Helper()
	ctx := context.Background()
	ses := e.mcpSession(token)
	tools, err := ses.ListTools(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, tools.Tools)
	for _, tool := range tools.Tools {
		args, usesID := mcpArgs(t, tool.InputSchema, ids)
		res, err := ses.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		require.NoError(t, err, "%s: %s", who, tool.Name)
		out, _ := json.Marshal(res)
		assert.NotContains(t, string(out), wallsMarker, "%s: %s(%v) shows globex's data", who, tool.Name, args)
		if usesID {
			assert.True(t, res.IsError, "%s: %s(%v) acts on globex's ids: %s", who, tool.Name, args, out)
		}
	}
	prompts, err := ses.ListPrompts(ctx, nil)
	require.NoError(t, err)
	for _, p := range prompts.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "x"
			if typ, ok := mcpIDTypes[strings.TrimSuffix(a.Name, "_id")]; ok && strings.HasSuffix(a.Name, "_id") {
				args[a.Name] = ids[typ]
			}
		}
		res, err := ses.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: args})
		out, _ := json.Marshal(res)
		if err == nil {
			assert.NotContains(t, string(out), wallsMarker, "%s: prompt %s", who, p.Name)
		}
	}
}

// mcpArgs fills a tool's arguments from its input schema: globex's id
// for an argument <x>_id, a plain value of the declared type otherwise.
func mcpArgs(t *testing.T, schema any, ids map[string]string) (map[string]any, bool) {
	t.Helper()
	raw, err := json.Marshal(schema)
	require.NoError(t, err)
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	require.NoError(t, json.Unmarshal(raw, &s))
	args, usesID := map[string]any{}, false
	for name, p := range s.Properties {
		if typ, ok := mcpIDTypes[strings.TrimSuffix(name, "_id")]; ok && strings.HasSuffix(name, "_id") && ids[typ] != "" {
			args[name], usesID = ids[typ], true
			continue
		}
		if !slices.Contains(s.Required, name) {
			continue
		}
		kind, _ := p.Type.(string)
		if list, ok := p.Type.([]any); ok && len(list) > 0 {
			kind, _ = list[0].(string)
		}
		switch kind {
		case "string":
			args[name] = "x"
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = false
		case "array":
			args[name] = []any{}
		default:
			args[name] = map[string]any{}
		}
	}
	return args, usesID
}
