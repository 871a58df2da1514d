package mcpadapter_test

import (
	"context"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/pricing"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure every tool is listed with honest annotations, and that its
// schemas describe the wire: ids as strings or integers, money and hours
// as strings, the allowed values of an argument as its enum.
func TestToolSchemas(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	res, err := c.ses.ListTools(context.Background(), nil)
	require.NoError(t, err)
	type hints struct{ readOnly, destructive, idempotent bool }
	want := map[string]hints{
		mcpadapter.ToolSearchProjects: {readOnly: true, idempotent: true}, mcpadapter.ToolGetProject: {readOnly: true, idempotent: true},
		mcpadapter.ToolListProjectItems: {readOnly: true, idempotent: true}, mcpadapter.ToolGetDocument: {readOnly: true, idempotent: true},
		mcpadapter.ToolDeliveryRollup: {readOnly: true, idempotent: true}, mcpadapter.ToolEstimateVsActual: {readOnly: true, idempotent: true},
		mcpadapter.ToolReviewProjectScope: {readOnly: true, idempotent: true}, mcpadapter.ToolGetDocumentText: {readOnly: true, idempotent: true},
		mcpadapter.ToolCreateProject: {}, mcpadapter.ToolAddServiceToProject: {}, mcpadapter.ToolApplyBlueprint: {},
		mcpadapter.ToolGenerateDocument: {}, mcpadapter.ToolUpdateProject: {destructive: true, idempotent: true},
		mcpadapter.ToolListVersions: {readOnly: true, idempotent: true}, mcpadapter.ToolDiffVersions: {readOnly: true, idempotent: true},
		mcpadapter.ToolChangeOrderDeltas: {readOnly: true, idempotent: true}, mcpadapter.ToolTakeVersion: {},
		mcpadapter.ToolOpenChangeOrder: {}, mcpadapter.ToolShareDocument: {},
		mcpadapter.ToolListQuestionnaires: {readOnly: true, idempotent: true}, mcpadapter.ToolSurveyQuestions: {readOnly: true, idempotent: true},
		mcpadapter.ToolCalculateSurvey: {readOnly: true, idempotent: true},
		mcpadapter.ToolAnswerSurvey:    {destructive: true, idempotent: true}, mcpadapter.ToolApplySurvey: {destructive: true, idempotent: true},
		mcpadapter.ToolUpdateProjectService: {destructive: true, idempotent: true}, mcpadapter.ToolRemoveProjectItem: {destructive: true},
	}
	schemas := map[string][2]*jsonschema.Schema{}
	for _, tl := range res.Tools {
		a := tl.Annotations
		destructive := a.DestructiveHint == nil || *a.DestructiveHint // the default is true
		if a.ReadOnlyHint {
			destructive = false // meaningless for a read-only tool
		}
		assert.Equal(t, want[tl.Name], hints{a.ReadOnlyHint, destructive, a.IdempotentHint}, tl.Name)
		require.NotNil(t, a.OpenWorldHint, tl.Name)
		assert.False(t, *a.OpenWorldHint, tl.Name)
		assert.NotEmpty(t, tl.Description, tl.Name)
		var in, out jsonschema.Schema
		remarshal(t, tl.InputSchema, &in)
		remarshal(t, tl.OutputSchema, &out)
		schemas[tl.Name] = [2]*jsonschema.Schema{&in, &out}
	}
	require.Len(t, schemas, len(want))
	for _, tc := range []struct{ tool, arg string }{
		{mcpadapter.ToolSearchProjects, "client"}, {mcpadapter.ToolGetProject, "project_id"},
		{mcpadapter.ToolListProjectItems, "project_id"}, {mcpadapter.ToolGetDocument, "document_id"},
		{mcpadapter.ToolDeliveryRollup, "project_id"}, {mcpadapter.ToolEstimateVsActual, "project_id"},
		{mcpadapter.ToolCreateProject, "client"}, {mcpadapter.ToolAddServiceToProject, "service"},
		{mcpadapter.ToolApplyBlueprint, "blueprint"}, {mcpadapter.ToolGenerateDocument, "template"},
		{mcpadapter.ToolGetDocumentText, "document_id"}, {mcpadapter.ToolReviewProjectScope, "project_id"},
		{mcpadapter.ToolSurveyQuestions, "questionnaire"}, {mcpadapter.ToolAnswerSurvey, "project_id"},
		{mcpadapter.ToolCalculateSurvey, "project_id"}, {mcpadapter.ToolApplySurvey, "questionnaire"},
		{mcpadapter.ToolUpdateProjectService, "line"}, {mcpadapter.ToolRemoveProjectItem, "item"},
	} {
		require.Contains(t, schemas, tc.tool)
		assert.Equal(t, []string{"string", "integer"}, schemas[tc.tool][0].Properties[tc.arg].Types, "%s %s", tc.tool, tc.arg)
	}
	assert.Equal(t, []string{"string", "number"}, schemas[mcpadapter.ToolAddServiceToProject][0].Properties["quantity"].Types)
	for _, tc := range []struct {
		tool, arg string
		values    []any
	}{
		{mcpadapter.ToolSearchProjects, "status", []any{"", "draft", "pending_approval", "approved", "won", "lost", "canceled"}},
		{mcpadapter.ToolListProjectItems, "type", []any{"documents", "services", "phases", "locations", "governance", "expenses", "products"}},
		{mcpadapter.ToolListProjectItems, "response_format", []any{"", "concise", "detailed"}},
		{mcpadapter.ToolGetDocument, "response_format", []any{"", "concise", "detailed"}},
		{mcpadapter.ToolGenerateDocument, "type", []any{"", "sow", "pricing", "breakdown", "change_order"}},
	} {
		assert.Equal(t, tc.values, schemas[tc.tool][0].Properties[tc.arg].Enum, "%s %s", tc.tool, tc.arg)
	}
	pricing := schemas[mcpadapter.ToolGetProject][1].Properties["pricing"]
	for _, field := range []string{"total_contract_value", "total_hours", "total_contract_margin"} {
		assert.Equal(t, "string", pricing.Properties[field].Type, field)
	}
	project := schemas[mcpadapter.ToolDeliveryRollup][1].Properties["project"]
	assert.Equal(t, "string", project.Properties["percent_complete"].Type)
	assert.Equal(t, "integer", project.Properties["services"].Type)
}

// Ensure search finds the projects the user sees by each filter, with
// their client's name and contract revenue, and pages with next_cursor.
func TestSearchProjects(t *testing.T) {
	f := newFixture(t)
	initech := f.create("acme", "clients", map[string]any{"name": "Initech"}, nil)
	won := f.create("acme", "projects", map[string]any{"project-name": "Initech rollout"},
		map[string][2]string{"client": {"clients", initech}})
	f.update("acme", "projects", won, map[string]any{"status": "approved"})
	f.update("acme", "projects", won, map[string]any{"status": "won"})
	archived := f.create("acme", "projects", map[string]any{"project-name": "Old firewall"},
		map[string][2]string{"client": {"clients", initech}})
	f.update("acme", "projects", archived, map[string]any{"active": false})
	admin, err := f.svc.ActorForAccount(context.Background(), f.adminID, f.accts["acme"])
	require.NoError(t, err)
	submitted, err := f.svc.Submit(context.Background(), admin, f.acme.ProjectID)
	require.NoError(t, err)
	approvedAt := submitted.Records[0].Str("approved-at")
	require.NotEmpty(t, approvedAt, "no approval level applies: approved at once")
	c := f.connect(t, f.admin)

	var all mcpadapter.SearchProjectsOutput
	c.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &all)
	require.Equal(t, 2, all.Total, "the archived project is left out")
	require.Len(t, all.Projects, 2)
	assert.Equal(t, "", all.NextCursor)
	byID := map[string]mcpadapter.ProjectSummary{}
	for _, p := range all.Projects {
		byID[p.ID] = p
	}
	example := byID[f.acme.ProjectID]
	created, err := time.Parse(time.RFC3339Nano, example.CreatedAt)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), created, time.Minute)
	assert.Equal(t, mcpadapter.ProjectSummary{ID: f.acme.ProjectID, Name: demodata.ProjectName, ClientID: f.acme.ClientID,
		Client: "Globex Corporation", Status: "approved", Active: true, CreatedAt: example.CreatedAt,
		SubmittedAt: example.SubmittedAt, ApprovedAt: approvedAt, ContractRevenue: "10794.25", Currency: "USD"}, example)
	assert.NotEmpty(t, example.SubmittedAt)
	assert.Equal(t, "Initech", byID[won].Client)
	assert.Equal(t, "", byID[won].ApprovedAt, "its status was set directly")

	today := time.Now().UTC().Format(time.DateOnly)
	n, err := strconv.Atoi(initech)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"name, case-insensitive", map[string]any{"query": "FIREWALL"}, []string{f.acme.ProjectID}},
		{"name, none", map[string]any{"query": "payroll"}, nil},
		{"status", map[string]any{"status": "won"}, []string{won}},
		{"client id as a string", map[string]any{"client": initech}, []string{won}},
		{"client id as an integer", map[string]any{"client": n}, []string{won}},
		{"created after", map[string]any{"created_after": today}, []string{f.acme.ProjectID, won}},
		{"created before", map[string]any{"created_before": "2000-01-01"}, nil},
		{"approved after", map[string]any{"approved_after": today}, []string{f.acme.ProjectID}},
		{"approved before", map[string]any{"approved_before": "2000-01-01T00:00:00Z"}, nil},
		{"blank filters are no filters", map[string]any{"query": " ", "status": ""}, []string{f.acme.ProjectID, won}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out mcpadapter.SearchProjectsOutput
			c.call(t, mcpadapter.ToolSearchProjects, tc.args, &out)
			assert.ElementsMatch(t, tc.want, projectIDs(out.Projects))
			assert.Equal(t, len(tc.want), out.Total)
		})
	}

	t.Run("paging", func(t *testing.T) {
		var page1, page2 mcpadapter.SearchProjectsOutput
		c.call(t, mcpadapter.ToolSearchProjects, map[string]any{"limit": 1}, &page1)
		require.Len(t, page1.Projects, 1)
		assert.Equal(t, 2, page1.Total)
		require.NotEmpty(t, page1.NextCursor)
		c.call(t, mcpadapter.ToolSearchProjects, map[string]any{"cursor": page1.NextCursor}, &page2)
		require.Len(t, page2.Projects, 1, "the cursor keeps the page size")
		assert.Equal(t, "", page2.NextCursor, "last page")
		assert.ElementsMatch(t, []string{f.acme.ProjectID, won}, append(projectIDs(page1.Projects), page2.Projects[0].ID))
	})
}

func projectIDs(ps []mcpadapter.ProjectSummary) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

// Ensure a project comes with the pricing summary of docs/pricing.md's
// worked example, the use case's figures, and that an archived project is
// still readable.
func TestGetProject(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)

	var p mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": f.acme.ProjectID}, &p)
	assert.Equal(t, demodata.ProjectName, p.Name)
	assert.Equal(t, "Globex Corporation", p.Client)
	assert.Equal(t, "Assess Globex's network and replace its perimeter firewalls.", p.ExecutiveSummary)
	assert.True(t, p.Active)
	pr, err := f.svc.Pricing(context.Background(), f.system("acme"), f.acme.ProjectID)
	require.NoError(t, err)
	got := p.Pricing
	for name, pair := range map[string][2]string{
		"total hours":           {"48.86", got.TotalHours.String()},
		"service hours":         {"40.75", got.ServiceHours.String()},
		"governance hours":      {"8.11", got.GovernanceHours.String()},
		"services revenue":      {"9669.25", got.ProfessionalServicesRevenue.String()},
		"services cost":         {"4616.30", got.ProfessionalServicesCost.String()},
		"governance revenue":    {"1569.25", got.GovernanceRevenue.String()},
		"expenses revenue":      {"1125.00", got.ExpensesRevenue.String()},
		"materials revenue":     {"3999.98", got.MaterialsRevenue.String()},
		"managed services":      {"0.00", got.ManagedServicesRevenue.String()},
		"contract value":        {"10794.25", got.TotalContractValue.String()},
		"contract cost":         {"5696.30", got.TotalContractCost.String()},
		"contract profit":       {"5097.95", got.TotalContractProfit.String()},
		"contract margin":       {"0.4723", got.TotalContractMargin.String()},
		"use case's value":      {pr.TotalContractValue.String(), got.TotalContractValue.String()},
		"use case's PS revenue": {pr.ProfessionalServices.Revenue.String(), got.ProfessionalServicesRevenue.String()},
	} {
		assert.Equal(t, pair[0], pair[1], name)
	}
	assert.Equal(t, "USD", got.Currency)
	assert.Equal(t, []string{}, got.Warnings)
	assert.Equal(t, got.TotalContractValue.String(), p.ContractRevenue, "the summary's revenue is the contract value")

	// ids look like numbers: an integer is accepted too
	n, err := strconv.Atoi(f.acme.ProjectID)
	require.NoError(t, err)
	var again mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": n}, &again)
	assert.Equal(t, p, again)

	// warnings, of an archived project
	id := f.create("acme", "projects", map[string]any{"project-name": "Ad hoc"},
		map[string][2]string{"client": {"clients", f.acme.ClientID}})
	f.create("acme", "project-services", map[string]any{"name": "Cabling", "unit-hours": "2", "quantity": "1"},
		map[string][2]string{"project": {"projects", id}})
	f.update("acme", "projects", id, map[string]any{"active": false})
	var adhoc mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": id}, &adhoc)
	assert.False(t, adhoc.Active)
	assert.Equal(t, []string{"services[0]: the line has no resource; it is priced at 0"}, adhoc.Pricing.Warnings)
	assert.Equal(t, "2.00", adhoc.Pricing.ServiceHours.String())
}

// Ensure each item type lists the project's items with the figures of its
// type, concise by default and with every declared attribute in detail.
func TestListProjectItems(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	list := func(t *testing.T, typ, format string) mcpadapter.ListItemsOutput {
		t.Helper()
		var out mcpadapter.ListItemsOutput
		c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": typ, "response_format": format}, &out)
		assert.Equal(t, f.acme.ProjectID, out.ProjectID)
		assert.Equal(t, typ, out.Type)
		assert.Equal(t, len(out.Items), out.Total)
		assert.False(t, out.Truncated)
		return out
	}

	for _, tc := range []struct {
		typ  string
		want []mcpadapter.Item // ids are not compared
	}{
		{"services", []mcpadapter.Item{
			{Name: "Assessment", Status: "not_started", Hours: "24.50", Revenue: "5100.00", Cost: "2325.00"},
			{Name: "Firewall deployment", Status: "not_started", Hours: "16.25", Revenue: "3250.00", Cost: "1462.50"}}},
		{"phases", []mcpadapter.Item{{Name: "Implement"}, {Name: "Plan"}}},
		{"governance", []mcpadapter.Item{
			{Name: "Kickoff", Hours: "2.00", Revenue: "500.00", Cost: "240.00"},
			{Name: "Project management", Hours: "6.11", Revenue: "1069.25", Cost: "488.80"}}},
		{"expenses", []mcpadapter.Item{
			{Name: "Airfare", Revenue: "900.00", Cost: "900.00"}, {Name: "Per diem", Revenue: "225.00", Cost: "180.00"}}},
		{"products", []mcpadapter.Item{{Name: "Firewall appliance", Revenue: "3999.98", Cost: "3000.00"}}},
		{"locations", []mcpadapter.Item{}},
		{"documents", []mcpadapter.Item{}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			out := list(t, tc.typ, "")
			items := make([]mcpadapter.Item, 0, len(out.Items))
			for _, it := range out.Items {
				assert.NotEmpty(t, it.ID)
				it.ID = ""
				items = append(items, it)
			}
			sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
			assert.Equal(t, tc.want, items)
			assert.Equal(t, out, list(t, tc.typ, mcpadapter.Concise), "concise is the default")
		})
	}

	t.Run("detailed", func(t *testing.T) {
		out := list(t, "services", mcpadapter.Detailed)
		require.Len(t, out.Items, 2)
		subs := map[string][]string{}
		for _, it := range out.Items {
			assert.Equal(t, it.Name, it.Attributes["name"])
			assert.Equal(t, it.Hours, it.Attributes["total-hours"])
			assert.Contains(t, it.Attributes, "created-at")
			assert.Contains(t, it.Attributes, "updated-at")
			assert.Equal(t, []string{f.acme.ProjectID}, it.Relationships["project"])
			for _, s := range it.Subservices {
				assert.NotEmpty(t, s.ID)
				assert.Equal(t, s.Name, s.Attributes["name"])
				subs[it.Name] = append(subs[it.Name], s.Name)
			}
		}
		assert.Equal(t, map[string][]string{"Assessment": {"Site survey", "Report"}}, subs)

		// other types have no subservices
		for _, it := range list(t, "expenses", mcpadapter.Detailed).Items {
			assert.Nil(t, it.Subservices)
			assert.Contains(t, []any{"450", "75"}, it.Attributes["rate"])
			assert.Len(t, it.Relationships["expense-category"], 1)
		}
	})

	// more items than a page
	for i := range mcpadapter.ItemsPageSize + 1 {
		f.create("acme", "project-locations", map[string]any{"name": "Site " + strconv.Itoa(i)},
			map[string][2]string{"project": {"projects", f.acme.ProjectID}})
	}
	var out mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": "locations"}, &out)
	assert.Len(t, out.Items, mcpadapter.ItemsPageSize)
	assert.Equal(t, mcpadapter.ItemsPageSize+1, out.Total)
	assert.True(t, out.Truncated)
}

// Ensure the delivery tools answer the use case's delivery figures, and
// follow the delivery of the services.
func TestDelivery(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	args := map[string]any{"project_id": f.acme.ProjectID}

	var services mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": "services"}, &services)
	for _, it := range services.Items {
		if it.Name == "Assessment" {
			f.update("acme", "project-services", it.ID, map[string]any{"status": "complete", "actual-hours": "20"})
		}
	}
	d, err := f.svc.Delivery(context.Background(), f.system("acme"), f.acme.ProjectID)
	require.NoError(t, err)

	var rollup mcpadapter.DeliveryRollupOutput
	c.call(t, mcpadapter.ToolDeliveryRollup, args, &rollup)
	assert.Equal(t, mcpadapter.DeliveryRollupOutput{ProjectID: f.acme.ProjectID, Currency: "USD", DeliveryRollup: d.Rollup}, rollup)
	assert.Equal(t, "0.6012", rollup.Project.PercentComplete.String(), "24.50 of 40.75 estimated hours are complete")
	assert.Equal(t, 1, rollup.Project.StatusCounts.Complete)
	require.Len(t, rollup.Phases, 2)
	assert.Equal(t, "Plan", rollup.Phases[0].Name)
	assert.Equal(t, "1.0000", rollup.Phases[0].PercentComplete.String())

	var ev mcpadapter.EstimateVsActualOutput
	c.call(t, mcpadapter.ToolEstimateVsActual, args, &ev)
	assert.Equal(t, f.acme.ProjectID, ev.ProjectID)
	assert.Equal(t, "USD", ev.Currency)
	require.Len(t, ev.Rows, 4, "two services and two subservices")
	// the use case's figures; variances only where actual hours were
	// recorded (the Assessment's own line), and on the totals above it
	want := d.EstimateVsActual
	for i, r := range ev.Rows {
		w := want.Rows[i]
		assert.Equal(t, [5]string{w.ServiceID, w.SubserviceID, w.Name, w.PhaseID, w.Status},
			[5]string{r.ServiceID, r.SubserviceID, r.Name, r.PhaseID, r.Status})
		assertTotals(t, w.EstimateTotals, r.EstimateTotals, w.Name == "Assessment", w.Name)
	}
	require.Len(t, ev.Phases, 2)
	assertTotals(t, want.Phases[0].EstimateTotals, ev.Phases[0].EstimateTotals, true, "Plan")
	assertTotals(t, want.Phases[1].EstimateTotals, ev.Phases[1].EstimateTotals, false, "Implement: nothing recorded")
	assertTotals(t, want.Total, ev.Total, true, "total")
	assert.Equal(t, "20.00", ev.Total.ActualHours.String())
	assert.Equal(t, "40.75", ev.Total.EstimatedHours.String())

	// an actual of 0 recorded is an actual
	f.update("acme", "project-services", ev.Rows[3].ServiceID, map[string]any{"actual-hours": "0"})
	c.call(t, mcpadapter.ToolEstimateVsActual, args, &ev)
	require.NotNil(t, ev.Rows[3].VarianceRatio)
	assert.Equal(t, "-1.0000", ev.Rows[3].VarianceRatio.String())
}

// assertTotals checks figures against the use case's: the variances null
// unless recorded.
func assertTotals(t *testing.T, want pricing.EstimateTotals, got mcpadapter.EstimateTotals, recorded bool, what string) {
	t.Helper()
	assert.Equal(t, [4]string{want.EstimatedHours.String(), want.ActualHours.String(), want.EstimatedCost.String(), want.ActualCost.String()},
		[4]string{got.EstimatedHours.String(), got.ActualHours.String(), got.EstimatedCost.String(), got.ActualCost.String()}, what)
	if !recorded {
		assert.Nil(t, got.VarianceHours, what)
		assert.Nil(t, got.VarianceRatio, what)
		assert.Nil(t, got.VarianceCost, what)
		return
	}
	require.NotNil(t, got.VarianceHours, what)
	assert.Equal(t, [3]string{want.VarianceHours.String(), want.VarianceRatio.String(), want.VarianceCost.String()},
		[3]string{got.VarianceHours.String(), got.VarianceRatio.String(), got.VarianceCost.String()}, what)
}
