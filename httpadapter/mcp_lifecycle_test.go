package httpadapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/stretchr/testify/require"
)

// callJSON calls an MCP tool and decodes its structured answer into out;
// it fails the test on a tool error unless wantErr.
func callJSON(t *testing.T, ses *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := ses.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		text, _ := json.Marshal(res.Content)
		return string(text)
	}
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), "%s", b)
	}
	return ""
}

// Ensure the lifecycle's MCP tools over the same use cases: versions
// listed, taken (the same scope: no copy) and diffed; a change order
// opened on a won project only, and its deltas read; a share link made
// for a finished SOW with a PDF, once, that opens the client's page.
func TestMCPLifecycleTools(t *testing.T) {
	e := mustEnv(t, func(e *testEnv) { e.converter = officetest.Fixed(sowPDF) })
	tok := e.admin()
	ses := e.mcpSession(tok)
	pid := e.demoProject()
	e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"revenue-adjustment":"-300"}`) // a price changed since creation

	var taken struct {
		Created bool
		Version struct{ Number int64 }
	}
	callJSON(t, ses, mcpadapter.ToolTakeVersion, map[string]any{"project_id": pid, "name": "Quote"}, &taken)
	require.True(t, taken.Created)
	callJSON(t, ses, mcpadapter.ToolTakeVersion, map[string]any{"project_id": pid}, &taken)
	require.False(t, taken.Created)
	var list struct{ Versions []struct{ Number int64 } }
	callJSON(t, ses, mcpadapter.ToolListVersions, map[string]any{"project_id": pid}, &list)
	require.Len(t, list.Versions, 2)
	var diff struct {
		Total struct{ Delta struct{ Revenue string } }
	}
	callJSON(t, ses, mcpadapter.ToolDiffVersions, map[string]any{"project_id": pid, "from": 1}, &diff)
	require.NotEqual(t, "0.00", diff.Total.Delta.Revenue, "the adjustment since the creation version")

	msg := callJSON(t, ses, mcpadapter.ToolOpenChangeOrder, map[string]any{"project_id": pid, "title": "Extra"}, nil)
	require.Contains(t, msg, "won projects")
	for _, st := range []string{"approved", "won"} {
		e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"`+st+`"}`)
	}
	var co struct{ ID, Status string }
	callJSON(t, ses, mcpadapter.ToolOpenChangeOrder, map[string]any{"project_id": pid, "title": "Extra"}, &co)
	require.Equal(t, "draft", co.Status)
	var deltas struct {
		ChangeOrder struct {
			DeltaRevenue string `json:"delta_revenue"`
		} `json:"change_order"`
		Deltas struct {
			Total struct{ Delta struct{ Revenue string } }
		}
	}
	callJSON(t, ses, mcpadapter.ToolChangeOrderDeltas, map[string]any{"change_order_id": co.ID}, &deltas)
	require.Equal(t, "0.00", deltas.ChangeOrder.DeltaRevenue)
	require.Equal(t, "0.00", deltas.Deltas.Total.Delta.Revenue)

	// a change order's copy of a line is not a line of the project: the
	// line tools given the project never reach it
	coLines := e.get("/acme/v1/project-services?filter[change-order]="+co.ID, tok).ids()
	require.NotEmpty(t, coLines)
	msg = toolError(t, ses, mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": pid, "line": coLines[0], "quantity": "8"})
	require.Contains(t, msg, "no service line of the project")
	msg = toolError(t, ses, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": pid, "type": "services", "item": coLines[0]})
	require.Contains(t, msg, coLines[0])
	require.Len(t, e.get("/acme/v1/project-services?filter[change-order]="+co.ID, tok).ids(), len(coLines), "the change order's lines stay")

	p2 := e.create("/acme/v1/projects", tok, "projects", `{"project-name":"Second"}`, "client", "clients", e.get("/acme/v1/clients", tok).ids()[0])
	e.patch("/acme/v1/projects/"+p2, tok, "projects", p2, `{"status":"approved"}`)
	doc := e.generate("/acme/v1", tok, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", p2,
		"document-template", "document-templates", e.standardSOW(tok))
	e.await("/acme/v1", tok, doc)
	var share struct{ URL string }
	msg = callJSON(t, ses, mcpadapter.ToolShareDocument, map[string]any{"document_id": doc, "expires_in": 400}, nil)
	require.Contains(t, msg, "expires_in")
	callJSON(t, ses, mcpadapter.ToolShareDocument, map[string]any{"document_id": doc}, &share)
	require.True(t, strings.HasPrefix(share.URL, e.srv.URL+"/app/accept/"), share.URL)
	l, err := e.svc.AcceptanceLink(context.Background(), strings.TrimPrefix(share.URL, e.srv.URL+"/app/accept/"))
	require.NoError(t, err, "the link's token opens the client's page")
	require.Equal(t, "Second", l.ProjectName)
}
