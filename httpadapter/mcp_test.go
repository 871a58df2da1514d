package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bearer adds a bearer token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// mcpSession connects the SDK's own client to the test server's /mcp as
// the token's user.
func (e *testEnv) mcpSession(token string) *mcp.ClientSession {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "scopekit-test", Version: "1"}, nil)
	ses, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.srv.URL + mcpadapter.Path,
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	require.NoError(e.t, err)
	e.t.Cleanup(func() { ses.Close() })
	return ses
}

// call calls a tool and decodes its structured output into out; it fails
// the test when the call is a tool error.
func call(t *testing.T, ses *mcp.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res, err := ses.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %s", tool, toolText(res))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, out), "%s", b)
}

// toolError calls a tool that must fail and returns the error's text.
func toolError(t *testing.T, ses *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res, err := ses.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.True(t, res.IsError, "%s should fail: %s", tool, toolText(res))
	return toolText(res)
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// jsonOf round-trips v through JSON, for comparing a tool's output with
// a REST document's attributes.
func jsonOf(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// Ensure the MCP tools, through the SDK's own client over streamable HTTP,
// answer what the API answers: search by dates and names, the project with
// its pricing, its items concise and detailed, and the delivery figures.
func TestMCPTools(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	list := e.get("/v2/project-services?filter[project]="+s.ProjectID, tok)
	for _, d := range list.list() {
		if d["attributes"].(map[string]any)["name"] == "Assessment" {
			e.patch("/v2/project-services/"+d["id"].(string), tok, "project-services", d["id"].(string), `{"status":"complete","actual-hours":"20"}`)
		}
	}
	ses := e.mcpSession(tok)

	tools, err := ses.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names, readOnly []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		assert.NotNil(t, tl.InputSchema, tl.Name)
		assert.NotNil(t, tl.OutputSchema, tl.Name)
		if tl.Annotations.ReadOnlyHint {
			readOnly = append(readOnly, tl.Name)
		}
	}
	sort.Strings(names)
	sort.Strings(readOnly)
	assert.Equal(t, []string{mcpadapter.ToolAddServiceToProject, mcpadapter.ToolAnswerSurvey, mcpadapter.ToolApplyBlueprint,
		mcpadapter.ToolApplySurvey, mcpadapter.ToolCalculateSurvey, mcpadapter.ToolChangeOrderDeltas, mcpadapter.ToolCreateProject,
		mcpadapter.ToolDeliveryRollup, mcpadapter.ToolDiffVersions, mcpadapter.ToolEstimateVsActual, mcpadapter.ToolGenerateDocument,
		mcpadapter.ToolGetDocument, mcpadapter.ToolGetDocumentText, mcpadapter.ToolGetProject, mcpadapter.ToolSurveyQuestions,
		mcpadapter.ToolListProjectItems, mcpadapter.ToolListQuestionnaires, mcpadapter.ToolListVersions, mcpadapter.ToolOpenChangeOrder,
		mcpadapter.ToolRemoveProjectItem, mcpadapter.ToolReviewProjectScope, mcpadapter.ToolSearchProjects, mcpadapter.ToolShareDocument,
		mcpadapter.ToolTakeVersion, mcpadapter.ToolUpdateProject, mcpadapter.ToolUpdateProjectService}, names)
	assert.Equal(t, []string{mcpadapter.ToolCalculateSurvey, mcpadapter.ToolChangeOrderDeltas, mcpadapter.ToolDeliveryRollup,
		mcpadapter.ToolDiffVersions, mcpadapter.ToolEstimateVsActual, mcpadapter.ToolGetDocument, mcpadapter.ToolGetDocumentText,
		mcpadapter.ToolGetProject, mcpadapter.ToolSurveyQuestions, mcpadapter.ToolListProjectItems, mcpadapter.ToolListQuestionnaires,
		mcpadapter.ToolListVersions, mcpadapter.ToolReviewProjectScope, mcpadapter.ToolSearchProjects}, readOnly)

	pricing := e.get("/acme/v1/projects/"+s.ProjectID+"/pricing", tok)
	require.Equal(t, http.StatusOK, pricing.Status)

	t.Run("search and approval dates", func(t *testing.T) {
		var found mcpadapter.SearchProjectsOutput
		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"query": "FIREWALL"}, &found)
		require.Len(t, found.Projects, 1)
		p := found.Projects[0]
		assert.Equal(t, s.ProjectID, p.ID)
		assert.Equal(t, "Globex Corporation", p.Client)
		assert.Equal(t, s.ClientID, p.ClientID)
		assert.Equal(t, pricing.attr("total_contract_value"), p.ContractRevenue)
		assert.Equal(t, "", p.ApprovedAt)
		assert.Equal(t, "", found.NextCursor)

		// a project whose status is set directly has no approval date
		direct := e.create("/acme/v1/projects", tok, "projects", `{"project-name":"Direct"}`, "client", "clients", s.ClientID)
		e.patch("/acme/v1/projects/"+direct, tok, "projects", direct, `{"status":"approved"}`)
		// the worked example goes through the workflow (no level applies: approved at once)
		sub := e.req(http.MethodPost, "/acme/v1/projects/"+s.ProjectID+"/submit", tok, "")
		require.Equal(t, http.StatusOK, sub.Status, "%s", sub.Body)
		approvedAt := sub.attr("approved-at").(string)
		require.NotEmpty(t, approvedAt)

		today := time.Now().UTC().Format(time.DateOnly)
		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"approved_after": today}, &found)
		require.Len(t, found.Projects, 1)
		assert.Equal(t, s.ProjectID, found.Projects[0].ID)
		assert.Equal(t, approvedAt, found.Projects[0].ApprovedAt)
		assert.Equal(t, "approved", found.Projects[0].Status)
		assert.NotEmpty(t, found.Projects[0].SubmittedAt)

		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"status": "approved"}, &found)
		require.Len(t, found.Projects, 2)
		for _, p := range found.Projects {
			if p.ID == direct {
				assert.Equal(t, "", p.ApprovedAt, "status set directly")
			}
		}
		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"created_after": today, "approved_before": "2000-01-01"}, &found)
		assert.Empty(t, found.Projects)

		// paging
		var page1, page2 mcpadapter.SearchProjectsOutput
		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"limit": 1}, &page1)
		require.Len(t, page1.Projects, 1)
		assert.Equal(t, 2, page1.Total)
		require.NotEmpty(t, page1.NextCursor)
		call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"cursor": page1.NextCursor}, &page2)
		require.Len(t, page2.Projects, 1)
		assert.NotEqual(t, page1.Projects[0].ID, page2.Projects[0].ID)
		assert.Equal(t, "", page2.NextCursor)
	})

	t.Run("bad arguments name the argument", func(t *testing.T) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			arg  string
		}{
			{mcpadapter.ToolSearchProjects, map[string]any{"created_after": "last tuesday"}, "created_after"},
			{mcpadapter.ToolSearchProjects, map[string]any{"approved_before": "2026-13-45"}, "approved_before"},
			{mcpadapter.ToolSearchProjects, map[string]any{"limit": 101}, "limit"},
			{mcpadapter.ToolSearchProjects, map[string]any{"limit": -1}, "limit"},
			{mcpadapter.ToolSearchProjects, map[string]any{"cursor": "nonsense"}, "cursor"},
			{mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "widgets"}, "type"},
			{mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "services", "response_format": "verbose"}, "response_format"},
			{mcpadapter.ToolGetProject, map[string]any{"project_id": " "}, "project_id"},
			{mcpadapter.ToolGetProject, map[string]any{}, "project_id"},
			{mcpadapter.ToolDeliveryRollup, map[string]any{"project_id": true}, "project_id"},
		} {
			msg := toolError(t, ses, tc.tool, tc.args)
			assert.Contains(t, msg, tc.arg, "%s %v", tc.tool, tc.args)
			t.Log(msg)
		}
	})

	t.Run("project with pricing", func(t *testing.T) {
		var p mcpadapter.ProjectDetail
		call(t, ses, mcpadapter.ToolGetProject, map[string]any{"project_id": s.ProjectID}, &p)
		assert.Equal(t, "Globex firewall refresh", p.Name)
		assert.Equal(t, pricing.attr("total_contract_value"), p.Pricing.TotalContractValue.String())
		assert.Equal(t, pricing.attr("total_contract_margin"), p.Pricing.TotalContractMargin.String())
		ps := pricing.attr("professional_services").(map[string]any)
		assert.Equal(t, ps["revenue"], p.Pricing.ProfessionalServicesRevenue.String())
		assert.Equal(t, ps["hours"], p.Pricing.TotalHours.String())
		assert.Equal(t, "48.86", p.Pricing.TotalHours.String())
		assert.Equal(t, "USD", p.Pricing.Currency)
		assert.Empty(t, p.Pricing.Warnings)
		// ids look like numbers: an integer is accepted too
		n, err := strconv.Atoi(s.ProjectID)
		require.NoError(t, err)
		var again mcpadapter.ProjectDetail
		call(t, ses, mcpadapter.ToolGetProject, map[string]any{"project_id": n}, &again)
		assert.Equal(t, p.ID, again.ID)
	})

	t.Run("items concise and detailed", func(t *testing.T) {
		var concise, detailed mcpadapter.ListItemsOutput
		call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "services"}, &concise)
		require.Len(t, concise.Items, 2)
		assert.Equal(t, 2, concise.Total)
		byName := map[string]mcpadapter.Item{}
		for _, it := range concise.Items {
			byName[it.Name] = it
			assert.Nil(t, it.Attributes, "concise has no attributes")
			assert.Nil(t, it.Subservices)
		}
		assert.Equal(t, mcpadapter.Item{ID: byName["Assessment"].ID, Name: "Assessment", Status: "complete",
			Hours: "24.50", Revenue: "5100.00", Cost: "2325.00"}, byName["Assessment"])
		call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "services",
			"response_format": "detailed"}, &detailed)
		require.Len(t, detailed.Items, 2)
		for _, it := range detailed.Items {
			require.NotNil(t, it.Attributes)
			assert.Contains(t, it.Attributes, "created-at")
			assert.Equal(t, []string{s.ProjectID}, it.Relationships["project"])
			if it.Name == "Assessment" {
				assert.Equal(t, "20", it.Attributes["actual-hours"])
				require.Len(t, it.Subservices, 2)
			}
		}
		for typ, n := range map[string]int{"phases": 2, "governance": 2, "expenses": 2, "products": 1, "locations": 0} {
			var out mcpadapter.ListItemsOutput
			call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": typ}, &out)
			assert.Len(t, out.Items, n, typ)
		}
		var exp mcpadapter.ListItemsOutput
		call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "expenses"}, &exp)
		names := []string{exp.Items[0].Name, exp.Items[1].Name}
		sort.Strings(names)
		assert.Equal(t, []string{"Airfare", "Per diem"}, names)
	})

	t.Run("documents: download links only in detail", func(t *testing.T) {
		std := e.get("/acme/v1/document-templates?filter[name]=Standard", tok).ids()[0]
		sow := e.generate("/acme/v1", tok, `{"document-type":"sow"}`, "project", "projects", s.ProjectID,
			"document-template", "document-templates", std)
		rest := e.await("/acme/v1", tok, sow)
		require.Equal(t, scoping.DocumentFinished, rest.attr("status"), "%s", rest.Body)

		var concise, detailed mcpadapter.ListItemsOutput
		call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "documents"}, &concise)
		require.Len(t, concise.Items, 1)
		it := concise.Items[0]
		assert.Equal(t, mcpadapter.Item{ID: sow, Name: rest.attr("filename").(string), Status: "finished", DocumentType: "sow",
			Template: "Standard SOW", CreatedAt: rest.attr("created-at").(string)}, it)
		call(t, ses, mcpadapter.ToolListProjectItems, map[string]any{"project_id": s.ProjectID, "type": "documents",
			"response_format": "detailed"}, &detailed)
		require.Len(t, detailed.Items, 1)
		assert.Equal(t, rest.attr("document-url"), detailed.Items[0].DownloadURL)
		assert.Equal(t, "", detailed.Items[0].PDFURL, "no PDF was asked for")
		assert.Equal(t, "sow", detailed.Items[0].Attributes["document-type"])
		assert.NotContains(t, detailed.Items[0].Attributes, "document-url", "links are given as URLs, not paths")

		var doc, full mcpadapter.Document
		call(t, ses, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow}, &doc)
		assert.Equal(t, mcpadapter.Document{ID: sow, ProjectID: s.ProjectID, DocumentType: "sow", TemplateID: std,
			Template: "Standard SOW", CreatedAt: rest.attr("created-at").(string), Status: "finished",
			Filename: rest.attr("filename").(string), ContentType: scoping.ContentTypeDOCX, Size: doc.Size,
			GeneratedAt: rest.attr("generated-at").(string)}, doc)
		assert.Positive(t, doc.Size)
		call(t, ses, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow, "response_format": "detailed"}, &full)
		require.Equal(t, rest.attr("document-url"), full.DownloadURL)
		// the link downloads the file with the same token
		file := e.download(strings.TrimPrefix(full.DownloadURL, e.srv.URL), tok)
		require.Equal(t, http.StatusOK, file.Status)
		assert.Equal(t, scoping.ContentTypeDOCX, file.Header.Get("Content-Type"))
		assert.Len(t, file.Body, int(doc.Size))

		assert.Contains(t, toolError(t, ses, mcpadapter.ToolGetDocument, map[string]any{"document_id": "999"}), "not found")
		assert.Contains(t, toolError(t, ses, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow, "response_format": "full"}),
			"response_format")
		// documents view is enough (Read Only); an invisible project's documents do not exist
		readOnly := e.mcpSession(e.token("acme", "ro@acme.test", "Read Only"))
		var ro mcpadapter.Document
		call(t, readOnly, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow}, &ro)
		assert.Equal(t, sow, ro.ID)
		eng := e.mcpSession(e.token("acme", "eng2@acme.test", "Engineer")) // not a teammate: the project is invisible
		assert.Contains(t, toolError(t, eng, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow}), "not found")
		other := e.mcpSession(e.token("globex", "admin2@globex.test", "Account Admin"))
		assert.Contains(t, toolError(t, other, mcpadapter.ToolGetDocument, map[string]any{"document_id": sow}), "not found")
	})

	t.Run("delivery figures are the REST ones", func(t *testing.T) {
		var rollup mcpadapter.DeliveryRollupOutput
		call(t, ses, mcpadapter.ToolDeliveryRollup, map[string]any{"project_id": s.ProjectID}, &rollup)
		rest := e.get("/acme/v1/projects/"+s.ProjectID+"/delivery-rollup", tok)
		require.Equal(t, http.StatusOK, rest.Status)
		assert.Equal(t, rest.attr("project"), jsonOf(t, rollup.Project))
		assert.Equal(t, rest.attr("phases"), jsonOf(t, rollup.Phases))
		assert.Equal(t, "0.6012", rollup.Project.PercentComplete.String())
		assert.Equal(t, "USD", rollup.Currency)

		var ev mcpadapter.EstimateVsActualOutput
		call(t, ses, mcpadapter.ToolEstimateVsActual, map[string]any{"project_id": s.ProjectID}, &ev)
		rest = e.get("/acme/v1/projects/"+s.ProjectID+"/estimate-vs-actual", tok)
		// the REST figures, but no variance where no actual hours were
		// recorded: only the Assessment's own line has some
		rows := rest.attr("rows").([]any)
		for _, r := range rows[1:] {
			for _, v := range []string{"variance_hours", "variance_ratio", "variance_cost"} {
				r.(map[string]any)[v] = nil
			}
		}
		assert.Equal(t, rows, jsonOf(t, ev.Rows))
		assert.Equal(t, rest.attr("total"), jsonOf(t, ev.Total))
		ps := pricing.attr("professional_services").(map[string]any)
		assert.Equal(t, ps["service_cost"], ev.Total.EstimatedCost.String())
		assert.Equal(t, "20.00", ev.Total.ActualHours.String())
	})

	t.Run("visibility and accounts", func(t *testing.T) {
		eng := e.mcpSession(e.token("acme", "eng@acme.test", "Engineer")) // assigned visibility, not a teammate
		other := e.mcpSession(e.token("globex", "admin@globex.test", "Account Admin"))
		for _, ses := range []*mcp.ClientSession{eng, other} {
			for _, tool := range []string{mcpadapter.ToolGetProject, mcpadapter.ToolDeliveryRollup, mcpadapter.ToolEstimateVsActual} {
				assert.Contains(t, toolError(t, ses, tool, map[string]any{"project_id": s.ProjectID}), "not found", tool)
			}
			assert.Contains(t, toolError(t, ses, mcpadapter.ToolListProjectItems,
				map[string]any{"project_id": s.ProjectID, "type": "services"}), "not found")
			var found mcpadapter.SearchProjectsOutput
			call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
			assert.Empty(t, found.Projects)
		}
		assert.Contains(t, toolError(t, ses, mcpadapter.ToolGetProject, map[string]any{"project_id": "999"}), "not found")
	})
}

// Ensure /mcp refuses requests without a valid token as the API does, and
// points at the protected resource metadata, which names the auth host.
func TestMCPAuth(t *testing.T) {
	e := mustEnv(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, token := range []string{"", "not-a-token", strings.Repeat("a", 43)} {
		r, err := http.NewRequest(http.MethodPost, e.srv.URL+mcpadapter.Path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, res.StatusCode, "token %q", token)
		assert.Equal(t, `Bearer resource_metadata="`+e.srv.URL+mcpadapter.MetadataPath+`"`, res.Header.Get("WWW-Authenticate"))
		assert.NotEmpty(t, res.Header.Get("X-Request-Id"), "served through the API's middleware")
	}

	// a deactivated user's token stops working
	uid, tok := e.user("acme", "leaver@acme.test", "Account Admin")
	ses := e.mcpSession(tok)
	var found mcpadapter.SearchProjectsOutput
	call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	admin := e.admin()
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/users/"+uid, admin, "").Status)
	_, err := ses.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpadapter.ToolSearchProjects, Arguments: map[string]any{}})
	require.Error(t, err)

	// bodies are bounded as on the API
	big, err := http.NewRequest(http.MethodPost, e.srv.URL+mcpadapter.Path,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"`+strings.Repeat("x", mcpadapter.MaxBodyBytes)+`"}}`))
	require.NoError(t, err)
	big.Header.Set("Content-Type", "application/json")
	big.Header.Set("Accept", "application/json, text/event-stream")
	big.Header.Set("Authorization", "Bearer "+admin)
	bres, err := http.DefaultClient.Do(big)
	require.NoError(t, err)
	bres.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, bres.StatusCode)

	res, err := http.Get(e.srv.URL + mcpadapter.MetadataPath)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var meta map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&meta))
	assert.Equal(t, e.srv.URL+mcpadapter.Path, meta["resource"])
	assert.Equal(t, []any{e.srv.URL}, meta["authorization_servers"])
}
