package mcpadapter_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure names resolve as documented: an id first, then the exact name
// (in any case), then the only name that starts with the value, which
// the answer names; a value that is only inside names, or the start of
// several, picks nothing and lists the candidates.
func TestNames(t *testing.T) {
	f := newFixture(t)
	initech := f.create("acme", "clients", map[string]any{"name": "Initech"}, nil)
	labs := f.create("acme", "clients", map[string]any{"name": "Initech Labs"}, nil)
	labs2 := f.create("acme", "clients", map[string]any{"name": "Globex Labs"}, nil)
	c := f.connect(t, f.admin)

	var p mcpadapter.ProjectDetail
	for _, tc := range []struct {
		client, want string
		matched      []mcpadapter.NameMatch
	}{
		{"initech", initech, []mcpadapter.NameMatch{{Argument: "client", Value: "initech", Name: "Initech", ID: initech, By: "name"}}}, // exact, though "Initech Labs" starts with it too
		{f.acme.ClientID, f.acme.ClientID, nil}, // an id
		{"initech l", labs, []mcpadapter.NameMatch{{Argument: "client", Value: "initech l", Name: "Initech Labs", ID: labs, By: "prefix"}}},
	} {
		p = mcpadapter.ProjectDetail{}
		c.call(t, mcpadapter.ToolCreateProject, map[string]any{"name": "P " + tc.client, "client": tc.client}, &p)
		assert.Equal(t, tc.want, p.ClientID, tc.client)
		assert.Equal(t, tc.matched, p.Matched, tc.client)
	}
	msg := c.fail(t, mcpadapter.ToolCreateProject, map[string]any{"name": "P", "client": "labs"})
	assert.Equal(t, `invalid argument client: no client has the id or name "labs", nor a name starting with it; names that hold it: "Globex Labs" (id `+labs2+`), "Initech Labs" (id `+labs+`); pass the id or the exact name`, msg)
	msg = c.fail(t, mcpadapter.ToolCreateProject, map[string]any{"name": "P", "client": "corporation"})
	assert.Contains(t, msg, `names that hold it: "Globex Corporation" (id `+f.acme.ClientID+`)`, "a part of a name picks nothing")
	msg = c.fail(t, mcpadapter.ToolCreateProject, map[string]any{"name": "P", "client": "ini"})
	assert.Equal(t, `invalid argument client: "ini" is how 2 clients' names start: "Initech Labs" (id `+labs+`), "Initech" (id `+initech+`); pass the id or the exact name`, msg)

	var found mcpadapter.SearchProjectsOutput
	c.call(t, mcpadapter.ToolSearchProjects, map[string]any{"client": "Initech", "status": "draft"}, &found)
	assert.Equal(t, 1, found.Total)
	assert.Equal(t, map[string]string{"client": "Initech (id " + initech + ")", "status": "draft"}, found.Filters)
	assert.Empty(t, found.Note)
	c.call(t, mcpadapter.ToolSearchProjects, map[string]any{"client": "Initech", "status": "won", "query": "zzz"}, &found)
	assert.Equal(t, 0, found.Total)
	assert.Equal(t, `no project you can see matched client "Initech (id `+initech+`)", query "zzz", status "won" (archived projects are not searched)`, found.Note)

	t.Run("without clients view", func(t *testing.T) {
		f.svc.Setup(context.Background(), func(a *scoping.Admin) error { //nolint:errcheck // checked by the call below
			_, err := a.EnsureRole(f.accts["acme"], "Projects only", map[string]string{"projects": "view"}, "all")
			return err
		})
		_, token := f.user("acme", "po@acme.test", "Projects only")
		po := f.connect(t, token)
		var found mcpadapter.SearchProjectsOutput
		po.call(t, mcpadapter.ToolSearchProjects, map[string]any{"client": initech}, &found)
		assert.Equal(t, 1, found.Total, "an id still filters")
		assert.Equal(t, map[string]string{"client": "id " + initech}, found.Filters)
		po.call(t, mcpadapter.ToolSearchProjects, map[string]any{"query": "nothing like it"}, &found)
		assert.Contains(t, found.Note, `no project you can see matched query "nothing like it"`)
		po.call(t, mcpadapter.ToolSearchProjects, map[string]any{"status": "lost"}, &found)
		assert.Equal(t, 0, found.Total)
	})

	t.Run("none at all", func(t *testing.T) {
		_, token := f.user("globex", "new@globex.test", "Engineer")
		var found mcpadapter.SearchProjectsOutput
		f.connect(t, token).call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
		assert.Equal(t, "you can see no active project (archived projects are not searched)", found.Note)
	})
}

// Ensure update_project changes what it is given only, by name where it
// takes names, on an archived project too; and that a role that sees only
// its teammates' projects sees the one it creates.
func TestUpdateProject(t *testing.T) {
	f := newFixture(t)
	initech := f.create("acme", "clients", map[string]any{"name": "Initech"}, nil)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	var out mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolUpdateProject, map[string]any{"project_id": p, "name": "Renamed", "client": "Initech",
		"line_of_business": "network", "solution_summary": "New firewalls.", "out_of_scope": "Cabling."}, &out)
	assert.Equal(t, [6]string{"Renamed", initech, "Initech", "1", "New firewalls.", "Cabling."},
		[6]string{out.Name, out.ClientID, out.Client, out.LineOfBusinessID, out.SolutionSummary, out.OutOfScope})
	assert.Equal(t, "Assess Globex's network and replace its perimeter firewalls.", out.ExecutiveSummary, "not given: unchanged")

	f.update("acme", "projects", p, map[string]any{"active": false})
	out = mcpadapter.ProjectDetail{}
	c.call(t, mcpadapter.ToolUpdateProject, map[string]any{"project_id": p, "executive_summary": "", "line_of_business": ""}, &out)
	assert.Equal(t, "", out.ExecutiveSummary, "cleared")
	assert.Equal(t, "", out.LineOfBusinessID, "cleared")
	assert.False(t, out.Active)
	assert.Equal(t, "Renamed", out.Name)

	_, eng := f.user("acme", "eng@acme.test", "Engineer")
	e := f.connect(t, eng)
	assert.Equal(t, "not found: projects "+p+" not found", e.fail(t, mcpadapter.ToolUpdateProject, map[string]any{"project_id": p, "name": "x"}))
	// an Engineer sees only its teammates' projects: it becomes the
	// teammate of the one it creates
	var mine mcpadapter.ProjectDetail
	e.call(t, mcpadapter.ToolCreateProject, map[string]any{"name": "Engineer's", "client": "Initech"}, &mine)
	var found mcpadapter.SearchProjectsOutput
	e.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	require.Len(t, found.Projects, 1)
	assert.Equal(t, mine.ID, found.Projects[0].ID)
	e.call(t, mcpadapter.ToolUpdateProject, map[string]any{"project_id": mine.ID, "out_of_scope": "Cabling."}, &out)
	assert.Equal(t, "Cabling.", out.OutOfScope)
}

// Ensure add_service_to_project puts the service on the phase, resource
// and location asked for, of the project or of the catalog (made the
// project's once), and apply_blueprint takes an id too.
func TestAddService(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	f.create("acme", "project-locations", map[string]any{"name": "Head office"}, map[string][2]string{"project": {"projects", p}})
	var out mcpadapter.ScopeOutput
	for _, tc := range []struct {
		args                      map[string]any
		phase, resource, location string
	}{
		{map[string]any{"service": "Assessment", "phase": "Implement", "resource": "Engineer", "location": "head office"},
			"Implement", "Engineer", "Head office"}, // the project's own
		{map[string]any{"service": "Assessment", "phase": "Design", "resource": "Architect"}, "Design", "Architect", ""}, // the catalog's
		{map[string]any{"service": "Assessment", "phase": "design", "resource": "architect"}, "Design", "Architect", ""}, // now the project's
	} {
		tc.args["project_id"] = p
		c.call(t, mcpadapter.ToolAddServiceToProject, tc.args, &out)
		require.Len(t, out.Services, 1)
		s := out.Services[0]
		assert.Equal(t, [3]string{tc.phase, tc.resource, tc.location}, [3]string{s.Phase, s.Resource, s.Location})
		assert.Equal(t, "1", s.Quantity)
	}
	var phases, resources mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "phases"}, &phases)
	assert.Equal(t, 3, phases.Total, "Plan, Implement and Design, once")
	// the architect's rate is the project's rate table's
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Firewall deployment", "resource": "Architect"}, &out)
	assert.Equal(t, "4062.50", out.Services[0].Revenue, "16.25 h at 250/h")

	c.call(t, mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": p, "blueprint": f.acme.BlueprintID}, &out)
	assert.Len(t, out.Services, 2)
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "services"}, &resources)
	assert.Equal(t, 8, resources.Total)
	msg := c.fail(t, mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": p, "blueprint": "Nothing like it"})
	assert.Equal(t, `invalid argument blueprint: no blueprint has the id or name "Nothing like it"; there are "Firewall project" (id 1)`, msg)
}

// Ensure the list of a project's items finds the project whether
// archived or not, as get_project does.
func TestArchivedProjectItems(t *testing.T) {
	f := newFixture(t)
	f.update("acme", "projects", f.acme.ProjectID, map[string]any{"active": false})
	c := f.connect(t, f.admin)
	var out mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": "services"}, &out)
	assert.Equal(t, 2, out.Total)
	var d mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": f.acme.ProjectID}, &d)
	assert.False(t, d.Active)
	assert.Equal(t, "not found: projects "+f.globex.ProjectID+" not found",
		c.fail(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.globex.ProjectID, "type": "services"}))
}

// Ensure documents are generated as asked (a workbook without template,
// at once when not waiting) and that only a finished SOW's text is read.
func TestGenerateDocument(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	var wb, sow mcpadapter.Document
	c.call(t, mcpadapter.ToolGenerateDocument, map[string]any{"project_id": p, "type": "pricing"}, &wb)
	assert.Equal(t, [3]string{"pricing", "queued", ""}, [3]string{wb.DocumentType, wb.Status, wb.Template})
	c.call(t, mcpadapter.ToolGenerateDocument, map[string]any{"project_id": p, "template": f.standard(), "pdf": true, "wait": 1}, &sow)
	assert.Equal(t, [3]string{"sow", "queued", "Standard SOW"}, [3]string{sow.DocumentType, sow.Status, sow.Template},
		"no worker runs: still queued after the wait")
	assert.Equal(t, "conflict: document "+sow.ID+" is queued; read it once its status is finished (scopekit_get_document shows it, or pass wait to scopekit_generate_document)",
		c.fail(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": sow.ID}))
	f.generate()
	assert.Equal(t, "invalid argument document_id: document "+wb.ID+" is a pricing workbook; only SOW documents have text to read",
		c.fail(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": wb.ID}))
	var text mcpadapter.DocumentTextOutput
	c.call(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": sow.ID}, &text)
	assert.Contains(t, text.Markdown, "| Total contract value |  | $10,794.25 |")

	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"project_id": p}, `invalid argument template: a sow document needs a template (every account has the built-in "Standard SOW")`},
		{map[string]any{"project_id": p, "type": "pricing", "template": "Standard SOW"},
			"invalid argument template: pricing documents are built without a template; leave template empty"},
		{map[string]any{"project_id": p, "type": "breakdown", "pdf": true},
			"invalid argument pdf: pdf applies to sow and change_order documents only; breakdown documents are workbooks"},
		{map[string]any{"project_id": "999"}, "not found: projects 999 not found"},
	} {
		assert.Contains(t, c.fail(t, mcpadapter.ToolGenerateDocument, tc.args), tc.want, tc.args)
	}
}

// Ensure the prompts are listed and name the tools to use, with the
// arguments given.
func TestPrompts(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	ctx := context.Background()
	list, err := c.ses.ListPrompts(ctx, nil)
	require.NoError(t, err)
	names := map[string]string{}
	for _, p := range list.Prompts {
		names[p.Name] = p.Title
	}
	assert.Equal(t, map[string]string{mcpadapter.PromptScopeProject: "Scope a project from a description",
		mcpadapter.PromptReviewProject: "Review a project before sending its SOW"}, names)

	for _, tc := range []struct {
		name  string
		args  map[string]string
		tools []string
		has   []string
	}{
		{mcpadapter.PromptScopeProject, map[string]string{"description": "Ten branch firewalls", "client": "Globex"},
			[]string{mcpadapter.ToolCreateProject, mcpadapter.ToolAddServiceToProject, mcpadapter.ToolApplyBlueprint, mcpadapter.ToolReviewProjectScope,
				mcpadapter.ToolUpdateProjectService, mcpadapter.ToolRemoveProjectItem},
			[]string{"Ten branch firewalls", `"Globex"`, "never by adding another line beside a wrong one", "duplicate_line", "matched"}},
		{mcpadapter.PromptScopeProject, map[string]string{"description": "x", "client": "Globex", "name": "Branches"},
			nil, []string{"the name Branches"}},
		{mcpadapter.PromptReviewProject, map[string]string{"project": "Globex firewall refresh"},
			[]string{mcpadapter.ToolReviewProjectScope, mcpadapter.ToolGenerateDocument, mcpadapter.ToolGetDocumentText,
				mcpadapter.ToolUpdateProjectService, mcpadapter.ToolRemoveProjectItem},
			[]string{`"Globex firewall refresh"`, `template "Standard SOW"`, "rather than adding another"}},
		{mcpadapter.PromptReviewProject, map[string]string{"project": "1", "template": "Short SOW"}, nil, []string{`template "Short SOW"`}},
	} {
		res, err := c.ses.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
		require.NoError(t, err, tc.name)
		require.Len(t, res.Messages, 1)
		text := res.Messages[0].Content.(*mcp.TextContent).Text
		for _, want := range append(tc.tools, tc.has...) {
			assert.Contains(t, text, want, tc.name)
		}
	}
	for name, args := range map[string]map[string]string{
		mcpadapter.PromptScopeProject:  {"client": "Globex"},
		mcpadapter.PromptReviewProject: {"project": " "},
	} {
		_, err := c.ses.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "is required")
	}
	_, err = c.ses.GetPrompt(ctx, &mcp.GetPromptParams{Name: mcpadapter.PromptScopeProject, Arguments: map[string]string{"description": "x"}})
	assert.ErrorContains(t, err, "the argument client is required")
}
