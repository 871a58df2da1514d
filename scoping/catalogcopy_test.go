package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The projects module (catalogcopy.go): adding catalog services to
// projects and applying blueprints (docs/resources.md, "Clients and
// projects").

// ccCatalog is a catalog: a phase, two resources (Engineer with a rate in
// the Std rate table, Architect without), a category, the service
// Assessment (8 h, with subservices Survey on the Architect, Report, and
// an archived one), the service Design, an archived service, and a
// blueprint of Design ×2, Assessment ×3 and the archived service.
type ccCatalog struct {
	phase, engineer, architect, category, table       string
	assessment, design, retired, survey, report, gone string
	blueprint                                         string
}

func (w *wfWorld) ccCatalog() *ccCatalog {
	w.t.Helper()
	c := &ccCatalog{}
	sys := w.sys
	c.phase = w.create(sys, "phases", attrs("name", `"Plan"`, "position", `1`, "sow-language", `"We plan."`), nil).ID
	c.engineer = w.create(sys, "resources", attrs("name", `"Engineer"`, "external-name", `"Field engineer"`, "hourly-rate", `"200"`, "hourly-cost", `"90"`), nil).ID
	c.architect = w.create(sys, "resources", attrs("name", `"Architect"`, "hourly-rate", `"300"`, "hourly-cost", `"150"`), nil).ID
	c.category = w.create(sys, "service-categories", attrs("name", `"Network"`), nil).ID
	c.table = w.create(sys, "rate-tables", attrs("name", `"Std"`), nil).ID
	w.create(sys, "resource-rates", attrs("hourly-rate", `"250"`, "hourly-cost", `"100"`), map[string]engine.RelInput{
		"rate-table": rel("rate-tables", c.table), "resource": rel("resources", c.engineer)})
	svcRels := map[string]engine.RelInput{"phase": rel("phases", c.phase), "resource": rel("resources", c.engineer),
		"line-of-business": rel("lines-of-business", w.network), "service-category": rel("service-categories", c.category)}
	c.assessment = w.create(sys, "services", attrs("name", `"Assessment"`, "hours", `8`, "sku", `"AS-1"`, "description", `"We look."`,
		"service-type", `"managed_services"`, "payment-frequency", `"monthly"`, "position", `2`), svcRels).ID
	c.survey = w.create(sys, "subservices", attrs("name", `"Survey"`, "hours", `"1.5"`, "quantity", `3`, "position", `1`),
		map[string]engine.RelInput{"service": rel("services", c.assessment), "resource": rel("resources", c.architect)}).ID
	c.report = w.create(sys, "subservices", attrs("name", `"Report"`, "hours", `2`, "position", `2`),
		map[string]engine.RelInput{"service": rel("services", c.assessment)}).ID
	c.gone = w.create(sys, "subservices", attrs("name", `"Gone"`, "hours", `2`), map[string]engine.RelInput{"service": rel("services", c.assessment)}).ID
	c.design = w.create(sys, "services", attrs("name", `"Design"`, "hours", `4`), map[string]engine.RelInput{
		"phase": rel("phases", c.phase), "resource": rel("resources", c.engineer)}).ID
	c.retired = w.create(sys, "services", attrs("name", `"Retired"`, "hours", `4`), nil).ID
	c.blueprint = w.create(sys, "blueprints", attrs("name", `"Starter"`), nil).ID
	for _, it := range []struct{ svc, qty, pos string }{{c.assessment, `"3"`, `2`}, {c.retired, `"1"`, `3`}, {c.design, `"2"`, `1`}} {
		w.create(sys, "blueprint-items", attrs("quantity", it.qty, "position", it.pos), map[string]engine.RelInput{
			"blueprint": rel("blueprints", c.blueprint), "service": rel("services", it.svc)})
	}
	for _, typ := range []struct{ typ, id string }{{"subservices", c.gone}, {"services", c.retired}} {
		_, err := w.update(sys, typ.typ, typ.id, attrs("active", `false`), nil)
		require.NoError(w.t, err)
	}
	return c
}

// ccProject creates an empty project with the rate table table ("" none).
func (w *wfWorld) ccProject(name, table string) string {
	w.t.Helper()
	rels := map[string]engine.RelInput{"client": rel("clients", w.client)}
	if table != "" {
		rels["rate-table"] = rel("rate-tables", table)
	}
	return w.create(w.sys, "projects", attrs("project-name", `"`+name+`"`), rels).ID
}

// ccByRel indexes records by a relationship.
func ccByRel(recs []*engine.Record, name string) map[string]*engine.Record {
	m := map[string]*engine.Record{}
	for _, r := range recs {
		m[r.Rel(name)] = r
	}
	return m
}

// Ensure a project service created from a catalog service copies its
// figures and relationships, creates the project phase and the project
// resource (at the project's rate table's rate) on demand and reuses them,
// and copies the active subservices with their own resources.
func TestCatalogCopyProjectService(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Copy", c.table)

	ps := w.create(w.admin, "project-services", attrs("quantity", `2`), map[string]engine.RelInput{
		"project": rel("projects", p), "service": rel("services", c.assessment)})
	assert.Equal(t, "Assessment", ps.Str("name"))
	assert.Equal(t, "8", ps.Str("unit-hours"))
	assert.Equal(t, "2", ps.Str("quantity"))
	assert.Equal(t, "AS-1", ps.Str("sku"))
	assert.Equal(t, "We look.", ps.Str("service-description"))
	assert.Equal(t, "managed_services", ps.Str("service-type"))
	assert.Equal(t, "monthly", ps.Str("payment-frequency"))
	assert.Equal(t, int64(2), ps.Int("position"))
	assert.Equal(t, w.network, ps.Rel("line-of-business"))
	assert.Equal(t, c.category, ps.Rel("service-category"))
	assert.False(t, ps.Bool("custom-hours"))

	phases := w.list("project-phases", map[string]string{"project": p})
	require.Len(t, phases, 1)
	assert.Equal(t, phases[0].ID, ps.Rel("project-phase"))
	assert.Equal(t, c.phase, phases[0].Rel("phase"))
	assert.Equal(t, "Plan", phases[0].Str("name"))
	assert.Equal(t, "We plan.", phases[0].Str("sow-language"))

	res := ccByRel(w.list("project-resources", map[string]string{"project": p}), "resource")
	require.Len(t, res, 2, "the service's and the Survey's resources")
	eng, arch := res[c.engineer], res[c.architect]
	assert.Equal(t, eng.ID, ps.Rel("project-resource"))
	assert.Equal(t, "Engineer", eng.Str("name"))
	assert.Equal(t, "Field engineer", eng.Str("external-name"))
	assert.Equal(t, "250", eng.Str("hourly-rate"), "the rate table's rate")
	assert.Equal(t, "100", eng.Str("hourly-cost"))
	assert.Equal(t, "300", arch.Str("hourly-rate"), "no rate in the table: the resource's own")
	assert.Equal(t, "150", arch.Str("hourly-cost"))

	subs := ccByRel(w.list("project-subservices", map[string]string{"project-service": ps.ID}), "subservice")
	require.Len(t, subs, 2, "archived subservices are not copied")
	survey, report := subs[c.survey], subs[c.report]
	require.NotNil(t, survey)
	require.NotNil(t, report)
	assert.Equal(t, "Survey", survey.Str("name"))
	assert.Equal(t, "1.5", survey.Str("unit-hours"))
	assert.Equal(t, "3", survey.Str("quantity"))
	assert.Equal(t, int64(1), survey.Int("position"))
	assert.Equal(t, p, survey.Rel("project"))
	assert.Equal(t, arch.ID, survey.Rel("project-resource"))
	assert.Empty(t, report.Rel("project-resource"), "empty: the parent's")
	assert.Equal(t, "1", report.Str("quantity"))

	// a second service shares the project phase and resource
	design := w.create(w.admin, "project-services", nil, map[string]engine.RelInput{
		"project": rel("projects", p), "service": rel("services", c.design)})
	assert.Equal(t, ps.Rel("project-phase"), design.Rel("project-phase"))
	assert.Equal(t, eng.ID, design.Rel("project-resource"))
	assert.Equal(t, "1", design.Str("quantity"))
	assert.Len(t, w.list("project-phases", map[string]string{"project": p}), 1)
	assert.Len(t, w.list("project-resources", map[string]string{"project": p}), 2)
	assert.Empty(t, w.list("project-subservices", map[string]string{"project-service": design.ID}))
}

// Ensure what the request sends wins over what is copied, relationships
// included (no project phase or resource is created for them).
func TestCatalogCopyRequestWins(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Sent", "")
	ph := w.create(w.sys, "project-phases", attrs("name", `"Mine"`), map[string]engine.RelInput{"project": rel("projects", p)}).ID
	pr := w.create(w.sys, "project-resources", attrs("name", `"Mine"`, "hourly-rate", `"10"`), map[string]engine.RelInput{"project": rel("projects", p)}).ID
	ps := w.create(w.admin, "project-services", attrs("name", `"Custom"`, "unit-hours", `5`, "sku", `"X"`, "service-type", `"professional_services"`), map[string]engine.RelInput{
		"project": rel("projects", p), "service": rel("services", c.assessment),
		"project-phase": rel("project-phases", ph), "project-resource": rel("project-resources", pr),
		"line-of-business": rel("lines-of-business", w.security)})
	assert.Equal(t, "Custom", ps.Str("name"))
	assert.Equal(t, "5", ps.Str("unit-hours"))
	assert.True(t, ps.Bool("custom-hours"), "unit hours differ from the catalog's")
	assert.Equal(t, "X", ps.Str("sku"))
	assert.Equal(t, "professional_services", ps.Str("service-type"))
	assert.Equal(t, "monthly", ps.Str("payment-frequency"), "what is not sent is copied")
	assert.Equal(t, w.security, ps.Rel("line-of-business"))
	assert.Equal(t, c.category, ps.Rel("service-category"))
	assert.Equal(t, ph, ps.Rel("project-phase"))
	assert.Equal(t, pr, ps.Rel("project-resource"))
	assert.Len(t, w.list("project-phases", map[string]string{"project": p}), 1)
	// the Survey's Architect is still created for the subservice
	assert.Len(t, w.list("project-resources", map[string]string{"project": p}), 2)

	// a service of another account is a bad reference
	other := wfAccount(t, w.svc, "other", "USD")
	theirs := w.create(other, "services", attrs("name", `"Theirs"`), nil).ID
	_, err := w.svc.Create(w.ctx, w.admin, "project-services", &engine.Input{Rels: map[string]engine.RelInput{
		"project": rel("projects", p), "service": rel("services", theirs)}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)
	assert.Equal(t, "/data/relationships/service", scopekit.List(err)[0].Field)
}

// Ensure a project resource named after a catalog resource takes its
// name, external name and the project's rate table's rate (else the
// resource's own); sent values win. The resource a project derives when a
// service adds it (ensureProjectResource) takes the same values as one
// created through the API.
func TestCatalogCopyProjectResource(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	for _, tc := range []struct {
		name       string
		table      string
		at         []string
		wantName   string
		rate, cost string
	}{
		{"rate table", c.table, nil, "Engineer", "250", "100"},
		{"no rate table", "", nil, "Engineer", "200", "90"},
		{"sent values", c.table, []string{"name", `"Lead"`, "hourly-rate", `"275"`}, "Lead", "275", "100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.ccProject(tc.name, tc.table)
			pr := w.create(w.sys, "project-resources", attrs(tc.at...), map[string]engine.RelInput{
				"project": rel("projects", p), "resource": rel("resources", c.engineer)})
			assert.Equal(t, tc.wantName, pr.Str("name"))
			assert.Equal(t, "Field engineer", pr.Str("external-name"))
			assert.Equal(t, tc.rate, pr.Str("hourly-rate"))
			assert.Equal(t, tc.cost, pr.Str("hourly-cost"))
			if tc.at != nil {
				return
			}
			derived := w.ccProject(tc.name+" derived", tc.table)
			w.create(w.sys, "project-services", nil, map[string]engine.RelInput{
				"project": rel("projects", derived), "service": rel("services", c.design)})
			got := w.list("project-resources", map[string]string{"project": derived})
			require.Len(t, got, 1)
			for _, a := range []string{"name", "external-name", "hourly-rate", "hourly-cost"} {
				assert.Equal(t, pr.Attrs[a], got[0].Attrs[a], a)
			}
		})
	}
}

// Ensure ApplyBlueprint adds the blueprint's active services in position
// order with their quantities and answers with the created, priced
// project services; its errors are EFORBIDDEN without projects manage,
// ENOTFOUND for an invisible project and EINVALID for a blueprint not in
// the account.
func TestCatalogCopyApplyBlueprint(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Blueprinted", c.table)

	res, err := w.svc.ApplyBlueprint(w.ctx, w.admin, p, c.blueprint)
	require.NoError(t, err)
	require.Equal(t, 2, res.Total)
	require.Len(t, res.Records, 2, "the archived service is left out")
	design, assessment := res.Records[0], res.Records[1]
	assert.Equal(t, "Design", design.Str("name"))
	assert.Equal(t, "2", design.Str("quantity"))
	assert.Equal(t, "Assessment", assessment.Str("name"))
	assert.Equal(t, "3", assessment.Str("quantity"))
	assert.Equal(t, "2000.00", design.Str("revenue"), "2 × 4 h × 250")
	for _, r := range res.Records {
		assert.Equal(t, scoping.Figures(w.get("project-services", r.ID)), scoping.Figures(r), "served as stored, figures included")
	}
	assert.Len(t, w.list("project-services", map[string]string{"project": p}), 2)
	assert.Len(t, w.list("project-subservices", map[string]string{"project-service": assessment.ID}), 2)

	_, readOnly := w.member("ro@acme.test", "Read Only")
	_, eng := w.member("eng@acme.test", "Engineer")
	other := wfAccount(t, w.svc, "other", "USD")
	theirs := w.create(other, "blueprints", attrs("name", `"Theirs"`), nil).ID
	for _, tc := range []struct {
		name      string
		actor     *engine.Actor
		project   string
		blueprint string
		code      string
	}{
		{"no projects manage", readOnly, p, c.blueprint, scopekit.EFORBIDDEN},
		{"assigned, not a teammate", eng, p, c.blueprint, scopekit.ENOTFOUND},
		{"unknown project", w.admin, "999999", c.blueprint, scopekit.ENOTFOUND},
		{"another account's project", other, p, theirs, scopekit.ENOTFOUND},
		{"unknown blueprint", w.admin, p, "999999", scopekit.EINVALID},
		{"another account's blueprint", w.admin, p, theirs, scopekit.EINVALID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.svc.ApplyBlueprint(w.ctx, tc.actor, tc.project, tc.blueprint)
			wfCode(t, tc.code, err)
			if tc.code == scopekit.EINVALID {
				assert.Equal(t, "/data/id", scopekit.List(err)[0].Field)
			}
		})
	}
	assert.Len(t, w.list("project-services", map[string]string{"project": p}), 2, "failed applications add nothing")

	// an empty blueprint adds nothing
	empty := w.create(w.sys, "blueprints", attrs("name", `"Empty"`), nil).ID
	res, err = w.svc.ApplyBlueprint(w.ctx, w.admin, p, empty)
	require.NoError(t, err)
	assert.Equal(t, 0, res.Total)
}

// Ensure a catalog reference that does not exist in the account is
// reported as such (422 naming the relationship) rather than copied from.
func TestCatalogCopyBadReferences(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Refs", c.table)
	for _, tc := range []struct {
		typ, field string
		rels       map[string]engine.RelInput
	}{
		{"project-resources", "resource", map[string]engine.RelInput{"project": rel("projects", p), "resource": rel("resources", "999999")}},
		{"project-services", "service", map[string]engine.RelInput{"project": rel("projects", p), "service": rel("services", "999999")}},
		{"project-services", "project", map[string]engine.RelInput{"project": rel("projects", "999999"), "service": rel("services", c.design)}},
	} {
		t.Run(tc.typ+" "+tc.field, func(t *testing.T) {
			_, err := w.svc.Create(w.ctx, w.sys, tc.typ, &engine.Input{Rels: tc.rels}, engine.Options{})
			wfCode(t, scopekit.EINVALID, err)
			assert.Equal(t, "/data/relationships/"+tc.field, scopekit.List(err)[0].Field)
		})
	}
	assert.Empty(t, w.list("project-resources", map[string]string{"project": p}))
	assert.Empty(t, w.list("project-phases", map[string]string{"project": p}))
}

// Ensure AddService puts a service on a phase and a resource of the
// catalog through the project's own, derived as the catalog service's own
// are (the same project phase and resource as a create naming none), and
// reused; and that it refuses a catalog phase or resource of another
// account, one given beside the project's own, and a project the actor
// cannot see, writing nothing.
func TestCatalogCopyAddServiceOnCatalogPhase(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Added", c.table)
	input := func(svc string) *engine.Input {
		return &engine.Input{Rels: map[string]engine.RelInput{"project": rel("projects", p), "service": rel("services", svc)}}
	}
	retired := c.retired // no phase, no resource of its own
	res, err := w.svc.AddService(w.ctx, w.admin, scoping.ServiceToAdd{Input: input(retired), Phase: c.phase, Resource: c.engineer}, engine.Options{})
	require.NoError(t, err)
	added := res.Records[0]
	phases := w.list("project-phases", map[string]string{"project": p})
	require.Len(t, phases, 1)
	assert.Equal(t, phases[0].ID, added.Rel("project-phase"))
	assert.Equal(t, "Plan", phases[0].Str("name"))
	assert.Equal(t, "We plan.", phases[0].Str("sow-language"))
	resources := w.list("project-resources", map[string]string{"project": p})
	require.Len(t, resources, 1)
	assert.Equal(t, resources[0].ID, added.Rel("project-resource"))
	assert.Equal(t, "250", resources[0].Str("hourly-rate"), "the rate table's rate, as for a derived resource")
	assert.Equal(t, "1000.00", added.Str("revenue"), "4 h × 250, priced in the same write")

	// the catalog service's own phase and resource land on the same records
	design := w.create(w.admin, "project-services", nil, input(c.design).Rels)
	assert.Equal(t, added.Rel("project-phase"), design.Rel("project-phase"))
	assert.Equal(t, added.Rel("project-resource"), design.Rel("project-resource"))
	again, err := w.svc.AddService(w.ctx, w.admin, scoping.ServiceToAdd{Input: input(retired), Phase: c.phase}, engine.Options{})
	require.NoError(t, err)
	assert.Equal(t, added.Rel("project-phase"), again.Records[0].Rel("project-phase"))
	assert.Len(t, w.list("project-phases", map[string]string{"project": p}), 1)

	other, theirProject := w.otherProject()
	theirPhase := w.create(other, "phases", attrs("name", `"Theirs"`), nil).ID
	mine := w.create(w.sys, "project-phases", attrs("name", `"Mine"`), map[string]engine.RelInput{"project": rel("projects", p)}).ID
	both := input(retired)
	both.Rels["project-phase"] = rel("project-phases", mine)
	w.role("Assigned editor", map[string]string{"projects": "manage", "catalog": "view"}, "assigned")
	_, editor := w.member("ed@acme.test", "Assigned editor")
	before := len(w.list("project-services", map[string]string{"project": p}))
	for _, tc := range []struct {
		name  string
		actor *engine.Actor
		add   scoping.ServiceToAdd
		code  string
		field string
	}{
		{"another account's phase", w.admin, scoping.ServiceToAdd{Input: input(retired), Phase: theirPhase}, scopekit.EINVALID, "/data/relationships/project-phase"},
		{"a missing resource", w.admin, scoping.ServiceToAdd{Input: input(retired), Resource: "999999"}, scopekit.EINVALID, "/data/relationships/project-resource"},
		{"both phases", w.admin, scoping.ServiceToAdd{Input: both, Phase: c.phase}, scopekit.EINVALID, "/data/relationships/project-phase"},
		{"another account's project", w.admin, scoping.ServiceToAdd{Input: &engine.Input{Rels: map[string]engine.RelInput{
			"project": rel("projects", theirProject), "service": rel("services", retired)}}, Phase: c.phase}, scopekit.ENOTFOUND, ""},
		{"a project outside the visibility", editor, scoping.ServiceToAdd{Input: input(retired), Phase: c.phase}, scopekit.ENOTFOUND, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.svc.AddService(w.ctx, tc.actor, tc.add, engine.Options{})
			wfCode(t, tc.code, err)
			if tc.field != "" {
				assert.Equal(t, tc.field, scopekit.List(err)[0].Field)
			}
		})
	}
	assert.Len(t, w.list("project-services", map[string]string{"project": p}), before, "nothing written")
	assert.Len(t, w.list("project-phases", map[string]string{"project": p}), 2)
	theirs, err := w.svc.List(w.ctx, other, "project-phases", engine.ListParams{Filters: map[string]string{"project": theirProject}}, engine.Options{})
	require.NoError(t, err)
	assert.Empty(t, theirs.Records, "no phase derived in a project the actor cannot see")
}
