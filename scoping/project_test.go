package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The projects module (project.go): defaults, teammates, the teammate
// filters and visibility, required governance and the children's defaults
// (docs/resources.md, "Clients and projects").

// pjIDs returns the ids of records.
func pjIDs(recs []*engine.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// pjListAs lists projects as a with filters.
func (w *wfWorld) pjListAs(a *engine.Actor, filters map[string]string) ([]string, error) {
	res, err := w.svc.List(w.ctx, a, "projects", engine.ListParams{Filters: filters}, engine.Options{})
	if err != nil {
		return nil, err
	}
	return pjIDs(res.Records), nil
}

func (w *wfWorld) pjTeammate(project, user string) *engine.Result {
	w.t.Helper()
	res, err := w.svc.Create(w.ctx, w.sys, "project-teammates", &engine.Input{Rels: map[string]engine.RelInput{
		"project": rel("projects", project), "user": rel("users", user)}}, engine.Options{})
	require.NoError(w.t, err)
	return res
}

// Ensure a new project takes the account's active default rate table and
// payment term unless named (an empty relationship stays empty), starts as
// draft with mrr-terms 12, and is priced in its rate table's currency.
func TestProjectDefaults(t *testing.T) {
	w := newWfWorld(t)
	require.NoError(t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		_, err := ad.EnsureCurrency(w.acct, "EUR", "Euro", "0.9")
		return err
	}))
	std := w.create(w.sys, "rate-tables", attrs("name", `"Standard"`, "default", `true`, "currency", `"EUR"`), nil).ID
	other := w.create(w.sys, "rate-tables", attrs("name", `"Other"`), nil).ID
	term := w.create(w.sys, "payment-terms", attrs("name", `"Net 30"`, "default", `true`), nil).ID

	p := w.create(w.admin, "projects", attrs("project-name", `"Defaults"`), map[string]engine.RelInput{"client": rel("clients", w.client)})
	assert.Equal(t, std, p.Rel("rate-table"))
	assert.Equal(t, term, p.Rel("payment-term"))
	assert.Equal(t, "draft", p.Str("status"))
	assert.Equal(t, int64(12), p.Int("mrr-terms"))
	assert.Equal(t, "EUR", p.Str("currency"))
	assert.Empty(t, p.Str("submitted-at"))
	assert.Empty(t, p.Str("approved-at"))

	p = w.create(w.admin, "projects", attrs("project-name", `"Named"`), map[string]engine.RelInput{"client": rel("clients", w.client),
		"rate-table": rel("rate-tables", other), "payment-term": {}})
	assert.Equal(t, other, p.Rel("rate-table"))
	assert.Equal(t, term, p.Rel("payment-term"), "null names none: the default")
	assert.Equal(t, "USD", p.Str("currency"))
	// both may be emptied afterwards
	p, err := w.update(w.admin, "projects", p.ID, nil, map[string]engine.RelInput{"rate-table": {}, "payment-term": {}})
	require.NoError(t, err)
	assert.Empty(t, p.Rel("rate-table"))
	assert.Empty(t, p.Rel("payment-term"))

	// an archived default is no default
	_, err = w.update(w.sys, "rate-tables", std, attrs("active", `false`), nil)
	require.NoError(t, err)
	p = w.create(w.admin, "projects", attrs("project-name", `"Archived default"`), map[string]engine.RelInput{"client": rel("clients", w.client)})
	assert.Empty(t, p.Rel("rate-table"))
	assert.Equal(t, "USD", p.Str("currency"), "no rate table: the account's default currency")

	// the client is required and must be of the account
	_, err = w.svc.Create(w.ctx, w.admin, "projects", &engine.Input{Attrs: attrs("project-name", `"No client"`)}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)
	other2 := wfAccount(t, w.svc, "other", "USD")
	theirs := w.create(other2, "clients", attrs("name", `"Initech"`), nil).ID
	_, err = w.svc.Create(w.ctx, w.admin, "projects", &engine.Input{Attrs: attrs("project-name", `"Theirs"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", theirs)}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)
	assert.Equal(t, "/data/relationships/client", scopekit.List(err)[0].Field)
}

// Ensure teammates: one record per (project, user) — adding one again
// returns the same record, and adding a removed one restores it; removing
// keeps the record with removed-at, shown only with filter removed=true;
// removed teammates leave the project's teammates.
func TestProjectTeammatesUpsertAndRestore(t *testing.T) {
	w := newWfWorld(t)
	aID, _ := w.member("a@acme.test", "Sales")
	bID, _ := w.member("b@acme.test", "Sales")

	first := w.pjTeammate(w.project, aID)
	assert.True(t, first.Created)
	tm := first.Records[0]
	again := w.pjTeammate(w.project, aID)
	assert.False(t, again.Created)
	assert.Equal(t, tm.ID, again.Records[0].ID)
	w.pjTeammate(w.project, bID)
	assert.Len(t, w.list("project-teammates", map[string]string{"project": w.project}), 2)
	assert.ElementsMatch(t, []string{aID, bID}, w.pjTeammates(w.project))

	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "project-teammates", tm.ID, engine.Options{}))
	removed := w.get("project-teammates", tm.ID)
	assert.Equal(t, engine.FormatTime(wfNow), removed.Str("removed-at"))
	assert.Equal(t, []string{bID}, pjIDs2(w.list("project-teammates", map[string]string{"project": w.project}), "user"))
	assert.Equal(t, []string{aID}, pjIDs2(w.list("project-teammates", map[string]string{"project": w.project, "removed": "true"}), "user"))
	assert.Equal(t, []string{bID}, w.pjTeammates(w.project))
	// removing again changes nothing
	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "project-teammates", tm.ID, engine.Options{}))
	assert.Equal(t, engine.FormatTime(wfNow), w.get("project-teammates", tm.ID).Str("removed-at"))

	restored := w.pjTeammate(w.project, aID)
	assert.False(t, restored.Created)
	assert.Equal(t, tm.ID, restored.Records[0].ID)
	assert.Empty(t, w.get("project-teammates", tm.ID).Str("removed-at"))
	assert.Len(t, w.list("project-teammates", map[string]string{"project": w.project}), 2)
}

// pjTeammates returns the ids of the project's teammates.
func (w *wfWorld) pjTeammates(project string) []string {
	w.t.Helper()
	res, err := w.svc.Related(w.ctx, w.sys, "projects", project, "teammates", engine.ListParams{}, engine.Options{})
	require.NoError(w.t, err)
	return pjIDs(res.Records)
}

// pjIDs2 returns the rel of each record.
func pjIDs2(recs []*engine.Record, rel string) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Rel(rel)
	}
	return out
}

// Ensure the teammate filters: teammate=<ids> and my-projects=true list
// the projects with one of those users as an active teammate,
// my-projects=false lists all, anything else is EBADREQUEST; and an
// assigned role sees only its projects and their children (ENOTFOUND
// otherwise), which a removed teammate no longer does.
func TestProjectTeammateFiltersAndVisibility(t *testing.T) {
	w := newWfWorld(t)
	p2 := w.newProject("Second", w.network)
	p3 := w.newProject("Third", "")
	engID, _ := w.member("eng@acme.test", "Engineer")
	salesID, _ := w.member("s@acme.test", "Sales")
	w.pjTeammate(w.project, engID)
	w.pjTeammate(p2, salesID)
	gone := w.pjTeammate(p3, salesID).Records[0]
	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "project-teammates", gone.ID, engine.Options{}))
	eng, sales := w.actor(engID), w.actor(salesID)

	for _, tc := range []struct {
		name    string
		actor   *engine.Actor
		filters map[string]string
		want    []string
	}{
		{"teammate", w.sys, map[string]string{"teammate": salesID}, []string{p2}},
		{"teammates", w.sys, map[string]string{"teammate": engID + "," + salesID}, []string{w.project, p2}},
		{"teammate nobody", w.sys, map[string]string{"teammate": "999999"}, []string{}},
		{"my projects", sales, map[string]string{"my-projects": "true"}, []string{p2}},
		{"not only mine", sales, map[string]string{"my-projects": "false"}, []string{w.project, p2, p3}},
		{"assigned sees its projects", eng, nil, []string{w.project}},
		{"assigned, my projects", eng, map[string]string{"my-projects": "true"}, []string{w.project}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := w.pjListAs(tc.actor, tc.filters)
			require.NoError(t, err)
			assert.ElementsMatch(t, tc.want, got)
		})
	}
	_, err := w.pjListAs(sales, map[string]string{"my-projects": "maybe"})
	wfCode(t, scopekit.EBADREQUEST, err)

	// children of an invisible project are not found
	_, err = w.svc.Get(w.ctx, eng, "projects", p2, engine.ListParams{}, engine.Options{})
	wfCode(t, scopekit.ENOTFOUND, err)
	ps := w.list("project-services", map[string]string{"project": p2})[0]
	_, err = w.svc.Get(w.ctx, eng, "project-services", ps.ID, engine.ListParams{}, engine.Options{})
	wfCode(t, scopekit.ENOTFOUND, err)
	_, err = w.svc.Update(w.ctx, eng, "projects", p2, &engine.Input{Attrs: attrs("project-name", `"Mine now"`)}, engine.Options{})
	wfCode(t, scopekit.ENOTFOUND, err)
	res, err := w.svc.List(w.ctx, eng, "project-services", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	for _, r := range res.Records {
		assert.Equal(t, w.project, r.Rel("project"))
	}

	// removed from the team, the engineer sees nothing
	tm := w.list("project-teammates", map[string]string{"user": engID})[0]
	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "project-teammates", tm.ID, engine.Options{}))
	got, err := w.pjListAs(w.actor(engID), nil)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// Ensure a removed teammate whose role sees every project is restored when
// it edits the project again, and stays removed otherwise.
func TestProjectRemovedTeammateRestoredByEdit(t *testing.T) {
	w := newWfWorld(t)
	sID, _ := w.member("s@acme.test", "Sales")
	tm := w.pjTeammate(w.project, sID).Records[0]
	require.NoError(t, w.svc.Delete(w.ctx, w.sys, "project-teammates", tm.ID, engine.Options{}))
	_, err := w.update(w.admin, "projects", w.project, attrs("executive-summary", `"by someone else"`), nil)
	require.NoError(t, err)
	assert.NotEmpty(t, w.get("project-teammates", tm.ID).Str("removed-at"))

	_, err = w.update(w.actor(sID), "projects", w.project, attrs("executive-summary", `"back"`), nil)
	require.NoError(t, err)
	assert.Empty(t, w.get("project-teammates", tm.ID).Str("removed-at"))
}

// Ensure the account's required, active governance items are copied onto
// a new project in position order, each with the project resource of its
// catalog resource and the project phase of its catalog phase (created on
// demand, shared between items); existing projects are not touched.
func TestProjectRequiredGovernance(t *testing.T) {
	w := newWfWorld(t)
	pm := w.create(w.sys, "resources", attrs("name", `"PM"`, "external-name", `"Project manager"`, "hourly-rate", `"120"`, "hourly-cost", `"70"`), nil).ID
	closing := w.create(w.sys, "phases", attrs("name", `"Close"`, "position", `9`, "sow-language", `"We close."`), nil).ID
	cat := w.create(w.sys, "service-categories", attrs("name", `"Ops"`), nil).ID
	w.create(w.sys, "governances", attrs("name", `"Oversight"`, "required", `true`, "position", `2`, "rate", `"0.1"`,
		"allocation-method", `"assign_to_category"`), map[string]engine.RelInput{"resource": rel("resources", pm), "service-category": rel("service-categories", cat)})
	w.create(w.sys, "governances", attrs("name", `"Closing"`, "required", `true`, "position", `1`, "calculation-type", `"fixed_hours"`,
		"fixed-hours", `"4"`, "allocation-method", `"assign_to_phase"`), map[string]engine.RelInput{"resource": rel("resources", pm), "phase": rel("phases", closing)})
	w.create(w.sys, "governances", attrs("name", `"Optional"`, "rate", `"0.2"`), nil)
	old := w.create(w.sys, "governances", attrs("name", `"Retired"`, "required", `true`, "rate", `"0.2"`), nil).ID
	_, err := w.update(w.sys, "governances", old, attrs("active", `false`), nil)
	require.NoError(t, err)

	before := w.project
	_, err = w.update(w.sys, "projects", before, attrs("executive-summary", `"edited"`), nil)
	require.NoError(t, err)
	assert.Empty(t, w.list("project-governances", map[string]string{"project": before}), "only new projects get governance")

	p := w.newProject("Governed", w.network)
	gov := w.list("project-governances", map[string]string{"project": p})
	require.Len(t, gov, 2)
	byName := map[string]*engine.Record{}
	for _, g := range gov {
		byName[g.Str("name")] = g
	}
	closingGov, oversight := byName["Closing"], byName["Oversight"]
	require.NotNil(t, closingGov)
	require.NotNil(t, oversight)
	assert.Equal(t, "fixed_hours", closingGov.Str("calculation-type"))
	assert.Equal(t, "4", closingGov.Str("fixed-hours"))
	assert.Equal(t, "assign_to_phase", closingGov.Str("allocation-method"))
	assert.Equal(t, "0.1", oversight.Str("rate"))
	assert.Equal(t, cat, oversight.Rel("service-category"))
	assert.Empty(t, oversight.Rel("project-phase"))
	assert.Equal(t, closingGov.Rel("project-resource"), oversight.Rel("project-resource"), "one project resource per catalog resource")

	prs := w.list("project-resources", map[string]string{"project": p})
	var pmRes *engine.Record
	for _, r := range prs {
		if r.Rel("resource") == pm {
			pmRes = r
		}
	}
	require.NotNil(t, pmRes)
	assert.Equal(t, pmRes.ID, oversight.Rel("project-resource"))
	assert.Equal(t, "PM", pmRes.Str("name"))
	assert.Equal(t, "Project manager", pmRes.Str("external-name"))
	assert.Equal(t, "120", pmRes.Str("hourly-rate"))
	assert.Equal(t, "70", pmRes.Str("hourly-cost"))
	phases := w.list("project-phases", map[string]string{"project": p})
	require.Len(t, phases, 1)
	assert.Equal(t, phases[0].ID, closingGov.Rel("project-phase"))
	assert.Equal(t, "Close", phases[0].Str("name"))
	assert.Equal(t, int64(9), phases[0].Int("position"))
	assert.Equal(t, "We close.", phases[0].Str("sow-language"))
	assert.Equal(t, "4.00", closingGov.Str("hours"), "priced as the project's governance")
}

// Ensure the children's defaults: a project product copies its catalog
// product (what is sent wins), an expense's unit cost defaults to its
// rate, and a project subservice belongs to its project service's project.
func TestProjectChildrenDefaults(t *testing.T) {
	w := newWfWorld(t)
	prod := w.create(w.sys, "products", attrs("name", `"Switch"`, "sku", `"SW-24"`, "unit-price", `"500"`, "unit-cost", `"300"`), nil).ID
	pp := w.create(w.sys, "project-products", attrs("quantity", `2`), map[string]engine.RelInput{
		"project": rel("projects", w.project), "product": rel("products", prod)})
	assert.Equal(t, "Switch", pp.Str("name"))
	assert.Equal(t, "SW-24", pp.Str("sku"))
	assert.Equal(t, "500", pp.Str("unit-price"))
	assert.Equal(t, "300", pp.Str("unit-cost"))
	assert.Equal(t, "1000.00", pp.Str("revenue"))
	pp = w.create(w.sys, "project-products", attrs("name", `"Core switch"`, "unit-price", `"450"`), map[string]engine.RelInput{
		"project": rel("projects", w.project), "product": rel("products", prod)})
	assert.Equal(t, "Core switch", pp.Str("name"))
	assert.Equal(t, "450", pp.Str("unit-price"))
	assert.Equal(t, "SW-24", pp.Str("sku"))
	bare := w.create(w.sys, "project-products", attrs("name", `"Cable"`, "unit-price", `"5"`), map[string]engine.RelInput{"project": rel("projects", w.project)})
	assert.Empty(t, bare.Str("sku"))
	_, err := w.svc.Create(w.ctx, w.sys, "project-products", &engine.Input{Rels: map[string]engine.RelInput{
		"project": rel("projects", w.project), "product": rel("products", "999999")}}, engine.Options{})
	wfCode(t, scopekit.EINVALID, err)

	ex := w.create(w.sys, "project-expenses", attrs("description", `"Travel"`, "rate", `"250"`), map[string]engine.RelInput{"project": rel("projects", w.project)})
	assert.Equal(t, "250", ex.Str("unit-cost"))
	ex = w.create(w.sys, "project-expenses", attrs("description", `"Hotel"`, "rate", `"250"`, "unit-cost", `"200"`), map[string]engine.RelInput{"project": rel("projects", w.project)})
	assert.Equal(t, "200", ex.Str("unit-cost"))

	ps := w.list("project-services", map[string]string{"project": w.project})[0]
	sub := w.create(w.sys, "project-subservices", attrs("name", `"Extra"`, "unit-hours", `2`), map[string]engine.RelInput{"project-service": rel("project-services", ps.ID)})
	assert.Equal(t, w.project, sub.Rel("project"))
	assert.Equal(t, []string{sub.ID}, pjIDs(w.list("project-subservices", map[string]string{"project": w.project})))
}
