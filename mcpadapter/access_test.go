package mcpadapter_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// projectTools are the tools that take a project_id, with the other
// arguments they need and the output field that names the project.
var projectTools = []struct {
	tool string
	args map[string]any
	id   string
}{
	{mcpadapter.ToolGetProject, nil, "id"},
	{mcpadapter.ToolListProjectItems, map[string]any{"type": "services"}, "project_id"},
	{mcpadapter.ToolDeliveryRollup, nil, "project_id"},
	{mcpadapter.ToolEstimateVsActual, nil, "project_id"},
}

func projectArgs(id string, extra map[string]any) map[string]any {
	args := map[string]any{"project_id": id}
	for k, v := range extra {
		args[k] = v
	}
	return args
}

// Ensure the tools apply the API's permission guards and project
// visibility: a role without a permission is refused, an "assigned" role
// sees only its projects, and another account's ids do not exist.
func TestAccess(t *testing.T) {
	f := newFixture(t)
	engID, eng := f.user("acme", "eng@acme.test", "Engineer")
	_, readOnly := f.user("acme", "ro@acme.test", "Read Only")
	_, noDocs := f.user("acme", "nodocs@acme.test", "No Documents")
	_, other := f.user("globex", "admin@globex.test", "Account Admin")
	_, nothing := f.user("acme", "nothing@acme.test", "Nothing")
	// the engineer's project; the worked example is not theirs
	mine := f.create("acme", "projects", map[string]any{"project-name": "Engineer's project"},
		map[string][2]string{"client": {"clients", f.acme.ClientID}})
	f.create("acme", "project-teammates", nil, map[string][2]string{"project": {"projects", mine}, "user": {"users", engID}})
	doc := f.document(scoping.DocumentPricing, false)
	example := f.acme.ProjectID

	notFound := func(typ, id string) string { return "not found: " + typ + " " + id + " not found" }
	forbidden := "forbidden: this action needs the documents permission at view level"
	for _, tc := range []struct {
		who     string
		token   string
		sees    []string // what search finds
		project string   // a project id
		want    string   // the project tools' error; "" when they answer
		docWant string   // get_document's and documents items' error on the acme document
	}{
		{"read only sees every project", readOnly, []string{example, mine}, example, "", ""},
		{"assigned sees its project", eng, []string{mine}, mine, "", notFound("project-documents", doc)},
		{"assigned does not see others", eng, []string{mine}, example, notFound("projects", example), notFound("project-documents", doc)},
		{"no documents permission", noDocs, []string{example, mine}, example, "", forbidden},
		{"another account", other, []string{f.globex.ProjectID}, example, notFound("projects", example), notFound("project-documents", doc)},
	} {
		t.Run(tc.who, func(t *testing.T) {
			c := f.connect(t, tc.token)
			var found mcpadapter.SearchProjectsOutput
			c.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
			assert.ElementsMatch(t, tc.sees, projectIDs(found.Projects))

			for _, pt := range projectTools {
				args := projectArgs(tc.project, pt.args)
				if tc.want == "" {
					var out map[string]any
					c.call(t, pt.tool, args, &out)
					assert.Equal(t, tc.project, out[pt.id], pt.tool)
				} else {
					assert.Equal(t, tc.want, c.fail(t, pt.tool, args), pt.tool)
				}
			}

			docArgs := map[string]any{"document_id": doc}
			itemArgs := map[string]any{"project_id": example, "type": "documents"}
			if tc.docWant == "" {
				var d mcpadapter.Document
				c.call(t, mcpadapter.ToolGetDocument, docArgs, &d)
				assert.Equal(t, doc, d.ID)
				var items mcpadapter.ListItemsOutput
				c.call(t, mcpadapter.ToolListProjectItems, itemArgs, &items)
				assert.Len(t, items.Items, 1)
				return
			}
			assert.Equal(t, tc.docWant, c.fail(t, mcpadapter.ToolGetDocument, docArgs))
			if tc.docWant == forbidden {
				assert.Equal(t, forbidden, c.fail(t, mcpadapter.ToolListProjectItems, itemArgs))
			}
		})
	}

	t.Run("a role without projects", func(t *testing.T) {
		c := f.connect(t, nothing)
		want := "forbidden: this action needs the projects permission at view level"
		assert.Equal(t, want, c.fail(t, mcpadapter.ToolSearchProjects, map[string]any{}))
		for _, pt := range projectTools {
			assert.Equal(t, want, c.fail(t, pt.tool, projectArgs(example, pt.args)), pt.tool)
		}
	})
}

// Ensure bad arguments are refused with a message naming the argument.
func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string // in the message: ours whole, the SDK schema check's in part
	}{
		{mcpadapter.ToolSearchProjects, map[string]any{"limit": 101}, "invalid argument limit: must be between 1 and 100, not 101"},
		{mcpadapter.ToolSearchProjects, map[string]any{"limit": -1}, "invalid argument limit: must be between 1 and 100, not -1"},
		{mcpadapter.ToolSearchProjects, map[string]any{"cursor": "nonsense"}, "invalid argument cursor: not a next_cursor of this tool"},
		{mcpadapter.ToolSearchProjects, map[string]any{"created_after": "last tuesday"},
			"invalid argument created_after: created_after must be an RFC 3339 date or time"},
		{mcpadapter.ToolSearchProjects, map[string]any{"created_before": "yesterday"},
			"invalid argument created_before: created_before must be an RFC 3339 date or time"},
		{mcpadapter.ToolSearchProjects, map[string]any{"approved_after": "soon"},
			"invalid argument approved_after: approved_after must be an RFC 3339 date or time"},
		{mcpadapter.ToolSearchProjects, map[string]any{"approved_before": "2026-13-45"},
			"invalid argument approved_before: approved_before must be an RFC 3339 date or time"},
		{mcpadapter.ToolSearchProjects, map[string]any{"limit": "ten"}, `invalid argument limit: must be an integer, not "ten"`},
		{mcpadapter.ToolGetProject, map[string]any{}, "invalid argument project_id: is required"},
		{mcpadapter.ToolGetProject, map[string]any{"project_id": " "}, "invalid argument project_id: is required"},
		{mcpadapter.ToolGetProject, map[string]any{"project_id": true}, "invalid argument project_id: must be a string or an integer, not true"},
		{mcpadapter.ToolGetProject, map[string]any{"project_id": 1.5}, "invalid argument project_id: must be a string or an integer, not 1.5"},
		{mcpadapter.ToolDeliveryRollup, map[string]any{"project_id": ""}, "invalid argument project_id: is required"},
		{mcpadapter.ToolEstimateVsActual, map[string]any{}, "invalid argument project_id: is required"},
		{mcpadapter.ToolListProjectItems, map[string]any{"type": "services"}, "invalid argument project_id: is required"},
		{mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": ""}, `invalid argument type: "" is not one of documents`},
		{mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "widgets"},
			`invalid argument type: "widgets" is not one of documents, services, phases, locations, governance, expenses or products`},
		{mcpadapter.ToolListProjectItems, map[string]any{"project_id": p}, "invalid argument type: is required"},
		{mcpadapter.ToolDeliveryRollup, map[string]any{"project_id": p, "format": "csv"}, "invalid argument format: unknown argument; scopekit_delivery_rollup takes project_id"},
		{mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "services", "response_format": "verbose"},
			`invalid argument response_format: "verbose" is not one of concise or detailed`},
		{mcpadapter.ToolGetDocument, map[string]any{}, "invalid argument document_id: is required"},
		{mcpadapter.ToolGetDocument, map[string]any{"document_id": "  "}, "invalid argument document_id: is required"},
		{mcpadapter.ToolGetDocument, map[string]any{"document_id": "1", "response_format": "full"},
			`invalid argument response_format: "full" is not one of concise or detailed`},
		{mcpadapter.ToolSearchProjects, map[string]any{"status": "aproved"},
			`invalid argument status: "aproved" is not one of draft, pending_approval, approved, won, lost or canceled`},
		{mcpadapter.ToolGenerateDocument, map[string]any{"project_id": p, "type": "invoice"},
			`invalid argument type: "invoice" is not one of sow, pricing, breakdown or change_order`},
		{mcpadapter.ToolGenerateDocument, map[string]any{"project_id": p, "wait": 26}, "invalid argument wait: must be between 0 and 25 seconds, not 26"},
		{mcpadapter.ToolSearchProjects, map[string]any{"client": "Umbrella"},
			`invalid argument client: no client has the id or name "Umbrella"; there are "Globex Corporation" (id 1)`},
		{mcpadapter.ToolCreateProject, map[string]any{"name": "x", "client": " "}, "invalid argument client: is required"},
		{mcpadapter.ToolCreateProject, map[string]any{"name": "", "client": "Globex"}, "invalid argument name: name can't be blank"},
		{mcpadapter.ToolCreateProject, map[string]any{"client": "Globex"}, "invalid argument name: is required"},
		{mcpadapter.ToolUpdateProject, map[string]any{"project_id": p}, "invalid: nothing to change"},
		{mcpadapter.ToolUpdateProject, map[string]any{"project_id": p, "line_of_business": "Voice"},
			`invalid argument line_of_business: no line of business has the id or name "Voice"; there are "Network" (id 1), "Security" (id 2)`},
		{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "quantity": "-1"},
			"invalid argument quantity: quantity must be zero or positive"},
		{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "quantity": "lots"},
			"invalid argument quantity: quantity is not a number"},
		{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "location": "Moon"},
			`invalid argument location: no location of the project has the id or name "Moon", and there are none`},
		{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "phase": "Closing"},
			`invalid argument phase: no phase of the project or the catalog has the id or name "Closing"; there are "Design" (id 2), "Implement" (id 3), "Plan" (id 1)`},
		{mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": p, "blueprint": ""}, "invalid argument blueprint: is required"},
		{mcpadapter.ToolGetDocumentText, map[string]any{"document_id": 999}, "not found: project-documents 999 not found"},
		{mcpadapter.ToolGetProject, map[string]any{"project_id": "999"}, "not found: projects 999 not found"},
		{mcpadapter.ToolGetDocument, map[string]any{"document_id": 999}, "not found: project-documents 999 not found"},
	} {
		msg := c.fail(t, tc.tool, tc.args)
		assert.Contains(t, msg, tc.want, "%s %v", tc.tool, tc.args)
		assert.NotContains(t, msg, "filter[", "arguments are named as the tool names them")
	}
}

// Ensure the token is checked before serving and on every call: an
// invalid one never serves, and an expired token or a deactivated user
// stops working mid-session.
func TestTokenChecks(t *testing.T) {
	f := newFixture(t)
	for _, token := range []string{"", "not-a-token", "  "} {
		serverT, _ := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second) // should it serve anyway
		err := f.server(baseURL).Run(ctx, serverT, token)
		cancel()
		assert.Equal(t, scopekit.EUNAUTHORIZED, scopekit.ErrorCode(err), "token %q: %v", token, err)
	}

	unauthorized := "unauthorized: the access token is no longer valid"
	_, leaver := f.user("acme", "leaver@acme.test", "Account Admin")
	_, bot := f.user("acme", "bot@acme.test", "Account Admin")
	deactivated := f.connect(t, " "+leaver+"\n") // as read from a file
	expired := f.connect(t, bot)
	var found mcpadapter.SearchProjectsOutput
	for _, c := range []*client{deactivated, expired} {
		c.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	}

	f.member("acme", "leaver@acme.test", "Account Admin", "deactivated")
	assert.Equal(t, unauthorized, deactivated.fail(t, mcpadapter.ToolSearchProjects, map[string]any{}))
	assert.Equal(t, unauthorized, deactivated.fail(t, mcpadapter.ToolGetProject, map[string]any{"project_id": f.acme.ProjectID}))
	expired.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)

	f.auth.Now = func() time.Time { return time.Now().Add(auth.DefaultTokenTTL + time.Minute) }
	assert.Equal(t, unauthorized, expired.fail(t, mcpadapter.ToolSearchProjects, map[string]any{}))
}

// Ensure a failure that is no use case's answer (here the store is gone)
// shows only as "internal error", and is logged with its cause.
func TestInternalError(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	var found mcpadapter.SearchProjectsOutput
	c.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	require.NoError(t, f.db.Close())
	assert.Equal(t, "internal error", c.fail(t, mcpadapter.ToolSearchProjects, map[string]any{}))
	for _, pt := range projectTools {
		assert.Equal(t, "internal error", c.fail(t, pt.tool, projectArgs(f.acme.ProjectID, pt.args)), pt.tool)
	}
	assert.Contains(t, f.logged(), "mcp: tool failed")
	assert.Contains(t, f.logged(), "database not open")
}
