package mcpadapter_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// workers runs the document workers (docgen) until the test ends, as the
// composition root runs them beside the server.
func (f *fixture) workers(t *testing.T) {
	t.Helper()
	f.docs.Poll = 50 * time.Millisecond
	f.docs.Logger = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.docs.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
}

// counts are how many records of the types the write tools write the
// acme account holds, archived ones too.
func (f *fixture) counts() map[string]int {
	f.t.Helper()
	out := map[string]int{}
	for _, typ := range []string{"projects", "project-services", "project-subservices", "project-phases",
		"project-resources", "project-governances", "project-documents"} {
		p := engine.ListParams{}
		if def, _ := f.svc.Schema().Lookup(typ); def.Archives {
			p.Filters = map[string]string{"active": "true,false"}
		}
		res, err := f.svc.List(context.Background(), f.system("acme"), typ, p, engine.Options{})
		require.NoError(f.t, err)
		out[typ] = res.Total
	}
	return out
}

// Ensure an assistant's session through the SDK's client over HTTP, with
// the document workers running: it creates a project for a client named
// by name, adds three catalog services, applies a blueprint, reviews the
// scope (which names the defects seeded meanwhile), generates the
// Standard SOW, waits for it, and reads its Markdown, which holds the
// project's contract revenue. The same calls as a read-only role are
// refused and write nothing; with another account's ids they find
// nothing.
func TestSession(t *testing.T) {
	f := newFixture(t)
	f.workers(t)
	// a catalog service without hours or resource, and an approval level
	// for margins under 90 %: defects the review is to find
	f.create("acme", "services", map[string]any{"name": "Cabling", "hours": "0"}, nil)
	level := f.create("acme", "approval-levels", map[string]any{"name": "Margin check", "kind": "business", "position": 1,
		"conditions": []map[string]any{{"field": "contract_margin", "operator": "lt", "value": "0.9"}}}, nil)
	coverage := f.input(nil, map[string][2]string{"approval-level": {"approval-levels", level}})
	coverage.Rels["approvers"] = engine.RelInput{ToMany: true, Refs: []engine.Ref{{Type: "users", ID: f.adminID}}}
	_, err := f.svc.Create(context.Background(), f.system("acme"), "line-of-business-approvals", coverage, engine.Options{})
	require.NoError(t, err)
	_, readOnly := f.user("acme", "ro@acme.test", "Read Only")
	_, other := f.user("globex", "admin@globex.test", "Account Admin")
	srv := serve(t, f.server(""))
	c := connectHTTP(t, srv.URL, f.admin)

	var project mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolCreateProject, map[string]any{"name": "Globex branch offices", "client": "globex",
		"executive_summary": "Connect Globex's branch offices."}, &project)
	assert.Equal(t, "Globex Corporation", project.Client, "the client by the start of its name")
	assert.Equal(t, []mcpadapter.NameMatch{{Argument: "client", Value: "globex", Name: "Globex Corporation", ID: project.ClientID, By: "prefix"}},
		project.Matched, "the answer says what the start of a name picked")
	assert.Equal(t, "draft", project.Status)
	assert.Equal(t, "Connect Globex's branch offices.", project.ExecutiveSummary)
	assert.Equal(t, "2.00", project.Pricing.GovernanceHours.String(), "the required governance came with it: Kickoff's 2 hours (and 15 % of no service hours)")
	pid := project.ID

	var added mcpadapter.ScopeOutput
	for _, svc := range []map[string]any{
		{"service": "Assessment", "quantity": 2},
		{"service": "firewall deployment", "phase": "Design", "quantity": "1.5"},
		{"service": "Cabling"},
	} {
		svc["project_id"] = pid
		c.call(t, mcpadapter.ToolAddServiceToProject, svc, &added)
		require.Len(t, added.Services, 1)
	}
	assert.Equal(t, "Cabling", added.Services[0].Name)
	assert.Equal(t, "", added.Services[0].Resource)
	var blueprint mcpadapter.ScopeOutput
	c.call(t, mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": pid, "blueprint": "Firewall project"}, &blueprint)
	require.Len(t, blueprint.Services, 2)
	assert.Equal(t, []string{"Assessment", "Firewall deployment"}, []string{blueprint.Services[0].Name, blueprint.Services[1].Name})
	assert.Equal(t, []string{"Site survey", "Report"}, blueprint.Services[0].Subservices)
	assert.NotEqual(t, added.ContractRevenue, blueprint.ContractRevenue, "the project's revenue follows")

	// defects a person adds meanwhile: an empty phase, a required
	// governance item the project lacks, a catalog figure that changed
	f.create("acme", "project-phases", map[string]any{"name": "Closing"}, map[string][2]string{"project": {"projects", pid}})
	f.create("acme", "governances", map[string]any{"name": "Security review", "calculation-type": "fixed_hours",
		"fixed-hours": "4", "required": true}, nil)
	f.update("acme", "services", blueprint.Services[1].ServiceID, map[string]any{"hours": "20"})
	var items mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": pid, "type": "services"}, &items)
	require.Len(t, items.Items, 5)

	var review mcpadapter.ReviewOutput
	c.call(t, mcpadapter.ToolReviewProjectScope, map[string]any{"project_id": pid}, &review)
	assert.False(t, review.Ready)
	found := map[string][]string{}
	for _, fd := range review.Findings {
		found[fd.Kind] = append(found[fd.Kind], fd.LineName)
	}
	assert.Equal(t, map[string][]string{
		"zero_hours":           {"Cabling"},
		"no_resource":          {"Cabling"},
		"duplicate_line":       {"Assessment"}, // added, then again by the blueprint
		"empty_phase":          {"Closing"},
		"missing_governance":   {"Security review"},
		"margin_below":         {""},
		"differs_from_catalog": {"Firewall deployment", "Firewall deployment"},
	}, found)
	require.Len(t, review.Approvals, 1)
	assert.Equal(t, mcpadapter.ApprovalStep{LevelID: level, Kind: "business", Position: 1,
		Approvers: []mcpadapter.Approver{{ID: f.adminID, Name: "admin@acme.test"}}}, review.Approvals[0], "approvers by name")
	assert.Empty(t, review.Note)

	// the assistant fixes the doubled line: one line of 3, not two
	var dup mcpadapter.Finding
	for _, fd := range review.Findings {
		if fd.Kind == "duplicate_line" {
			dup = fd
		}
	}
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": pid, "type": "services"}, &items)
	first := items.Items[0].ID // Assessment, added first
	require.NotEqual(t, first, dup.LineID)
	var fixed mcpadapter.ScopeOutput
	c.call(t, mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": pid, "line": first, "quantity": 3}, &fixed)
	assert.Equal(t, "3", fixed.Services[0].Quantity)
	var removed mcpadapter.RemoveItemOutput
	c.call(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": pid, "type": "services", "item": dup.LineID}, &removed)
	assert.Equal(t, mcpadapter.ItemRef{ID: dup.LineID, Name: "Assessment"}, removed.Removed)
	c.call(t, mcpadapter.ToolReviewProjectScope, map[string]any{"project_id": pid}, &review)
	for _, fd := range review.Findings {
		assert.NotEqual(t, "duplicate_line", fd.Kind)
	}
	require.Len(t, review.MarginThresholds, 1)
	assert.True(t, review.MarginThresholds[0].Below)

	var doc mcpadapter.Document
	c.call(t, mcpadapter.ToolGenerateDocument, map[string]any{"project_id": pid, "type": "sow", "template": "Standard SOW",
		"wait": 25}, &doc)
	assert.Equal(t, "finished", doc.Status, doc.ErrorText)
	assert.Equal(t, "Standard SOW", doc.Template)
	var text mcpadapter.DocumentTextOutput
	c.call(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": doc.ID}, &text)
	assert.Equal(t, "Globex branch offices - SOW.docx", text.Filename)
	assert.False(t, text.Truncated)
	assert.Contains(t, text.Markdown, "# Statement of Work\n")
	assert.Contains(t, text.Markdown, "\n## Executive summary\n\nConnect Globex's branch offices.\n")
	// printed by the money filter: en-US grouping
	total := message.NewPrinter(language.AmericanEnglish).Sprintf("$%.2f", review.Pricing.TotalContractValue.InexactFloat64())
	assert.Contains(t, text.Markdown, "| Total contract value |  | "+total+" |")
	assert.Contains(t, text.Markdown, "| Cabling |")

	before := f.counts()
	t.Run("read only", func(t *testing.T) {
		ro := connectHTTP(t, srv.URL, readOnly)
		manage := func(perm string) string {
			return "forbidden: this action needs the " + perm + " permission at manage level"
		}
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{mcpadapter.ToolCreateProject, map[string]any{"name": "Mine", "client": "Globex"}, manage("projects")},
			{mcpadapter.ToolUpdateProject, map[string]any{"project_id": pid, "name": "Mine"}, manage("projects")},
			{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": pid, "service": "Assessment"}, manage("projects")},
			{mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": pid, "blueprint": "Firewall project"}, manage("projects")},
			{mcpadapter.ToolGenerateDocument, map[string]any{"project_id": pid, "template": "Standard SOW"}, manage("documents")},
			{mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": pid, "line": "Cabling", "quantity": 2}, manage("projects")},
			{mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": pid, "type": "services", "item": "Cabling"}, manage("projects")},
		} {
			assert.Equal(t, tc.want, ro.fail(t, tc.tool, tc.args), tc.tool)
		}
		// it reads what was made
		var again mcpadapter.DocumentTextOutput
		ro.call(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": doc.ID}, &again)
		assert.Equal(t, text, again)
		ro.call(t, mcpadapter.ToolReviewProjectScope, map[string]any{"project_id": pid}, &review)
		assert.Equal(t, []mcpadapter.Approver{{ID: f.adminID}}, review.Approvals[0].Approvers, "no users view: ids only")
		assert.Contains(t, review.Note, "your role cannot view users: approvers are shown by id")
		assert.Equal(t, f.counts(), before, "nothing was written")
	})

	t.Run("another account", func(t *testing.T) {
		g := connectHTTP(t, srv.URL, other)
		notFound := "not found: projects " + pid + " not found"
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{mcpadapter.ToolUpdateProject, map[string]any{"project_id": pid, "name": "Theirs"}, notFound},
			{mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": pid, "service": "Assessment"}, notFound},
			{mcpadapter.ToolApplyBlueprint, map[string]any{"project_id": pid, "blueprint": "Firewall project"}, notFound},
			{mcpadapter.ToolReviewProjectScope, map[string]any{"project_id": pid}, notFound},
			{mcpadapter.ToolGenerateDocument, map[string]any{"project_id": pid, "template": "Standard SOW"}, notFound},
			{mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": pid, "line": "Cabling", "quantity": 2}, notFound},
			{mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": pid, "type": "services", "item": "Cabling"}, notFound},
			{mcpadapter.ToolGetDocumentText, map[string]any{"document_id": doc.ID}, "not found: project-documents " + doc.ID + " not found"},
		} {
			assert.Equal(t, tc.want, g.fail(t, tc.tool, tc.args), tc.tool)
		}
		// acme's client id is no client of globex's
		msg := g.fail(t, mcpadapter.ToolCreateProject, map[string]any{"name": "Theirs", "client": f.acme.ClientID})
		assert.True(t, strings.HasPrefix(msg, `invalid argument client: no client has the id or name "`+f.acme.ClientID+`"`), msg)
		assert.Equal(t, f.counts(), before, "nothing was written in acme")
	})
}
