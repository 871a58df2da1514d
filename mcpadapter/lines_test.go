package mcpadapter_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// line reads a project service as the API serves it.
func (f *fixture) line(t *testing.T, id string) *engine.Record {
	t.Helper()
	res, err := f.svc.Get(context.Background(), f.system("acme"), "project-services", id, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	return res.Records[0]
}

// Ensure "fire" picks "Firewall deployment" only while it is the one name
// that starts with it, and the answer says so; with a second such name it
// picks nothing and lists both.
func TestNamePrefix(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	var out mcpadapter.ScopeOutput
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "fire"}, &out)
	require.Len(t, out.Services, 1)
	assert.Equal(t, "Firewall deployment", out.Services[0].Name)
	require.Len(t, out.Matched, 1)
	assert.Equal(t, mcpadapter.NameMatch{Argument: "service", Value: "fire", Name: "Firewall deployment", ID: out.Services[0].ServiceID, By: "prefix"}, out.Matched[0])

	drill := f.create("acme", "services", map[string]any{"name": "Fire drill", "hours": "1"}, nil)
	f.create("acme", "services", map[string]any{"name": "Campfire", "hours": "1"}, nil)
	msg := c.fail(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "fire"})
	assert.Equal(t, `invalid argument service: "fire" is how 2 catalog services' names start: "Fire drill" (id `+drill+`), "Firewall deployment" (id `+
		out.Services[0].ServiceID+`); pass the id or the exact name`, msg)
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "FIRE DRILL"}, &out)
	assert.Equal(t, "Fire drill", out.Services[0].Name)
	assert.Equal(t, "name", out.Matched[0].By)
	msg = c.fail(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "amp"})
	assert.Contains(t, msg, `nor a name starting with it; names that hold it: "Campfire"`)

	// a phase: the project's exact name before the catalog's, exact names
	// before prefixes
	f.create("acme", "project-phases", map[string]any{"name": "Planning"}, map[string][2]string{"project": {"projects", p}})
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "phase": "Plan"}, &out)
	assert.Equal(t, "Plan", out.Services[0].Phase, "the project's Plan, not its Planning")
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "phase": "Plann"}, &out)
	assert.Equal(t, "Planning", out.Services[0].Phase)
	assert.Equal(t, []mcpadapter.NameMatch{{Argument: "service", Value: "Assessment", Name: "Assessment", ID: out.Services[0].ServiceID, By: "name"},
		{Argument: "phase", Value: "Plann", Name: "Planning", ID: out.Matched[1].ID, By: "prefix"}}, out.Matched)
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Assessment", "phase": "des"}, &out)
	assert.Equal(t, "Design", out.Services[0].Phase, "the catalog's Design, made the project's")
}

// Ensure update_project_service changes a line's quantity, hours, phase,
// resource and location through the update use case (the project's price
// follows, as REST's PATCH makes it), clears them with "", and refuses
// what REST refuses, naming the argument.
func TestUpdateProjectService(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	office := f.create("acme", "project-locations", map[string]any{"name": "Head office"}, map[string][2]string{"project": {"projects", p}})
	var items mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "services"}, &items)
	require.Len(t, items.Items, 2)
	assessment, firewall := items.Items[0].ID, items.Items[1].ID
	var before mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": p}, &before)

	var out mcpadapter.ScopeOutput
	c.call(t, mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": p, "line": "assessment", "quantity": 3,
		"unit_hours": "9.5", "phase": "Design", "resource": "architect", "location": "head"}, &out)
	require.Len(t, out.Services, 1)
	l := out.Services[0]
	assert.Equal(t, [6]string{assessment, "3", "9.5", "Design", "Architect", "Head office"}, [6]string{l.ID, l.Quantity, l.UnitHours, l.Phase, l.Resource, l.Location})
	assert.NotEqual(t, before.ContractRevenue, out.ContractRevenue, "the price follows")
	rec := f.line(t, assessment)
	assert.Equal(t, "3", rec.Str("quantity"))
	assert.Equal(t, office, rec.Rel("project-location"))
	byArg := map[string]string{}
	for _, m := range out.Matched {
		byArg[m.Argument] = m.By + " " + m.Name
	}
	assert.Equal(t, map[string]string{"line": "name Assessment", "phase": "name Design", "resource": "name Architect", "location": "prefix Head office"}, byArg)

	out = mcpadapter.ScopeOutput{}
	c.call(t, mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": p, "line": assessment, "location": "", "phase": ""}, &out)
	assert.Equal(t, [2]string{"", ""}, [2]string{out.Services[0].Location, out.Services[0].Phase}, "cleared")
	assert.Equal(t, "3", out.Services[0].Quantity, "not given: unchanged")
	assert.Empty(t, out.Matched, "an id matches no name")

	// two lines of one name: only an id tells them apart
	var added mcpadapter.ScopeOutput
	c.call(t, mcpadapter.ToolAddServiceToProject, map[string]any{"project_id": p, "service": "Firewall deployment"}, &added)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"line": "Firewall deployment", "quantity": 2},
			`invalid argument line: "Firewall deployment" names 2 service line of the projects: "Firewall deployment" (id ` + firewall +
				`), "Firewall deployment" (id ` + added.Services[0].ID + `); pass the id`},
		{map[string]any{"line": "Cabling", "quantity": 2}, `invalid argument line: no service line of the project has the id or name "Cabling"; there are "Assessment" (id ` +
			assessment + `), "Firewall deployment" (id ` + firewall + `), "Firewall deployment" (id ` + added.Services[0].ID + `)`},
		{map[string]any{"line": firewall, "quantity": -1}, "invalid argument quantity: quantity must be zero or positive"},
		{map[string]any{"line": firewall, "quantity": "99999999999999999999"}, "invalid argument quantity: quantity must be at most 1000000"},
		{map[string]any{"line": firewall, "unit_hours": "1.123456"}, "invalid argument unit_hours: unit_hours has more than 4 digits after the decimal point"},
		{map[string]any{"line": firewall}, "invalid argument line: nothing to change: pass quantity, unit_hours, phase, resource or location"},
		{map[string]any{"line": firewall, "location": "Branch"}, `invalid argument location: no location of the project has the id or name "Branch"; there are "Head office" (id ` + office + `)`},
	} {
		tc.args["project_id"] = p
		assert.Equal(t, tc.want, c.fail(t, mcpadapter.ToolUpdateProjectService, tc.args), "%v", tc.args)
	}
	assert.Equal(t, "1", f.line(t, firewall).Str("quantity"), "refused: unchanged")
	assert.Equal(t, "not found: projects "+f.globex.ProjectID+" not found",
		c.fail(t, mcpadapter.ToolUpdateProjectService, map[string]any{"project_id": f.globex.ProjectID, "line": "Assessment", "quantity": 2}))
}

// Ensure remove_project_item removes an item of each type from the
// project, by id or name, through the delete use case, and that its type
// and item are checked first.
func TestRemoveProjectItem(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	p := f.acme.ProjectID
	f.create("acme", "project-locations", map[string]any{"name": "Head office"}, map[string][2]string{"project": {"projects", p}})
	var items mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": "services"}, &items)
	firewall := items.Items[1].ID

	var out mcpadapter.RemoveItemOutput
	revenue := ""
	for _, tc := range []struct {
		typ, item, name, note string
		priced                bool // the payment term includes it in the price
	}{
		{"services", firewall, "Firewall deployment", "its subservices were removed with it", true},
		{"services", "Assessment", "Assessment", "its subservices were removed with it", true},
		{"expenses", "airfare", "Airfare", "", true},
		{"products", "Firewall appliance", "Firewall appliance", "", false},
		{"governance", "Kickoff", "Kickoff", "", true},
		{"locations", "Head office", "Head office", "any service at it has no location now", false},
		{"phases", "Implement", "Implement", "any service on it has no phase now", false},
	} {
		out = mcpadapter.RemoveItemOutput{}
		c.call(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": p, "type": tc.typ, "item": tc.item}, &out)
		assert.Equal(t, tc.name, out.Removed.Name, tc.typ)
		assert.Equal(t, p, out.ProjectID)
		if tc.priced {
			assert.NotEqual(t, revenue, out.ContractRevenue, "the price follows: %s", tc.typ)
		}
		revenue = out.ContractRevenue
		var left mcpadapter.ListItemsOutput
		c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": p, "type": tc.typ}, &left)
		for _, it := range left.Items {
			assert.NotEqual(t, out.Removed.ID, it.ID, "%s removed", tc.typ)
		}
		assert.Equal(t, tc.note, out.Note)
	}
	res, err := f.svc.List(context.Background(), f.system("acme"), "project-subservices", engine.ListParams{Filters: map[string]string{"project": p}}, engine.Options{})
	require.NoError(t, err)
	assert.Empty(t, res.Records, "the services' subservices went with them")

	assert.Equal(t, `invalid argument type: "documents" is not one of services, phases, locations, governance, expenses or products`,
		c.fail(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": p, "type": "documents", "item": "1"}))
	assert.Contains(t, c.fail(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": p, "type": "expenses", "item": "Hotel"}),
		`invalid argument item: no expense of the project has the id or name "Hotel"; there are "Per diem" (id `)
	assert.Equal(t, "not found: projects "+f.globex.ProjectID+" not found",
		c.fail(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": f.globex.ProjectID, "type": "services", "item": "Assessment"}))
	// another project's item is not this project's
	var g mcpadapter.ListItemsOutput
	_, gtok := f.user("globex", "admin@globex.test", "Account Admin")
	f.connect(t, gtok).call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.globex.ProjectID, "type": "services"}, &g)
	assert.Contains(t, c.fail(t, mcpadapter.ToolRemoveProjectItem, map[string]any{"project_id": p, "type": "phases", "item": g.Items[0].ID}),
		"invalid argument item: no phase of the project has the id or name")
}
