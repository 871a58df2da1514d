package scoping_test

import (
	"maps"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The projects module (snapshot.go): a project with everything around it,
// read in one transaction and priced once.

// snFull builds a project with every kind of record around it on the
// catalog of ccCatalog and returns its id. Teammates: a, b, then c
// removed.
func (w *wfWorld) snFull(c *ccCatalog, a, b, cc string) string {
	w.t.Helper()
	require.NoError(w.t, w.svc.Setup(w.ctx, func(ad *scoping.Admin) error {
		_, err := ad.EnsureCurrency(w.acct, "EUR", "Euro", "0.5")
		return err
	}))
	_, err := w.update(w.sys, "rate-tables", c.table, attrs("currency", `"EUR"`), nil)
	require.NoError(w.t, err)
	term := w.create(w.sys, "payment-terms", attrs("name", `"Net 30"`), nil).ID
	p := w.create(w.sys, "projects", attrs("project-name", `"Full"`), map[string]engine.RelInput{
		"client": rel("clients", w.client), "rate-table": rel("rate-tables", c.table), "payment-term": rel("payment-terms", term),
		"line-of-business": rel("lines-of-business", w.network), "sales-executive": rel("users", a), "presales-engineer": rel("users", b)}).ID
	for _, u := range []string{a, b, cc} {
		w.pjTeammate(p, u)
	}
	tm := w.list("project-teammates", map[string]string{"project": p, "user": cc})[0]
	require.NoError(w.t, w.svc.Delete(w.ctx, w.sys, "project-teammates", tm.ID, engine.Options{}))
	w.create(w.sys, "project-locations", attrs("name", `"HQ"`, "city", `"Springfield"`), map[string]engine.RelInput{"project": rel("projects", p)})
	for _, s := range []string{c.design, c.assessment} {
		w.create(w.sys, "project-services", nil, map[string]engine.RelInput{"project": rel("projects", p), "service": rel("services", s)})
	}
	cat := w.create(w.sys, "expense-categories", attrs("name", `"Travel"`), nil).ID
	w.create(w.sys, "project-expenses", attrs("description", `"Flights"`, "rate", `"400"`), map[string]engine.RelInput{
		"project": rel("projects", p), "expense-category": rel("expense-categories", cat)})
	w.create(w.sys, "project-products", attrs("name", `"Switch"`, "unit-price", `"500"`), map[string]engine.RelInput{"project": rel("projects", p)})
	w.create(w.sys, "project-governances", attrs("name", `"PM"`, "rate", `"0.1"`), map[string]engine.RelInput{"project": rel("projects", p)})
	return p
}

// Ensure a snapshot holds the project, its related records, its active
// teammates in the order they were added, its lines (subservices aligned
// with their services), the catalog records its lines refer to, the
// currency of its rate table, and one pricing run whose figures are the
// lines' own.
func TestSnapshotContents(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	aID, _ := w.member("a@acme.test", "Sales")
	bID, _ := w.member("b@acme.test", "Sales")
	cID, _ := w.member("c@acme.test", "Sales")
	p := w.snFull(c, aID, bID, cID)
	_, sales := w.member("s@acme.test", "Sales")

	snap, err := w.svc.MergeData(w.ctx, sales, p)
	require.NoError(t, err)
	assert.Equal(t, w.acct, snap.Account.ID)
	assert.Equal(t, p, snap.Project.ID)
	assert.Equal(t, "EUR", snap.Project.Str("currency"))
	assert.Equal(t, w.client, snap.Client.ID)
	assert.Equal(t, w.network, snap.LineOfBusiness.ID)
	assert.Equal(t, aID, snap.SalesExecutive.ID)
	assert.Equal(t, bID, snap.PresalesEngineer.ID)
	assert.Equal(t, "Net 30", snap.PaymentTerm.Str("name"))
	assert.Equal(t, c.table, snap.RateTable.ID)
	assert.Equal(t, []string{aID, bID}, viewIDs(snap.Teammates), "removed teammates excluded, in the order added")

	require.Len(t, snap.Locations, 1)
	require.Len(t, snap.Phases, 1)
	require.Len(t, snap.Resources, 2)
	require.Len(t, snap.Services, 2)
	require.Len(t, snap.Subservices, 2)
	require.Len(t, snap.Governance, 1)
	require.Len(t, snap.Expenses, 1)
	require.Len(t, snap.Products, 1)
	for i, s := range snap.Services {
		for j, sub := range snap.Subservices[i] {
			assert.Equal(t, s.ID, sub.Rel("project-service"), "Subservices[%d] are those of Services[%d]", i, i)
			assert.Equal(t, sub.Str("revenue"), snap.Pricing.Subservice(i, j).Revenue.String())
		}
		figs := snap.Pricing.Service(i)
		assert.Equal(t, s.Str("revenue"), figs.Revenue.String(), "Services[%d] is priced as Pricing.Service(%d)", i, i)
		assert.Equal(t, s.Str("total-hours"), figs.TotalHours.String())
		want := map[string]int{c.design: 0, c.assessment: 2}[s.Rel("service")]
		assert.Len(t, snap.Subservices[i], want)
	}
	for i, r := range snap.Resources {
		assert.Equal(t, r.Str("revenue"), snap.Pricing.Resource(i).Revenue.String())
	}
	assert.Equal(t, "EUR", snap.Pricing.Currency.Code)
	assert.Equal(t, snap.Project.Str("contract-revenue"), snap.Pricing.TotalContractValue.String())
	require.NotNil(t, snap.Delivery)
	assert.Equal(t, 1, snap.Delivery.Rollup.Project.Services, "the managed service is not delivered labor")

	require.NotNil(t, snap.Currency)
	assert.Equal(t, "EUR", snap.Currency.Str("code"))
	cat := snap.Catalog
	assert.ElementsMatch(t, []string{c.design, c.assessment}, slices.Collect(maps.Keys(cat.Services)))
	assert.ElementsMatch(t, []string{c.survey, c.report}, slices.Collect(maps.Keys(cat.Subservices)))
	assert.Equal(t, []string{c.category}, slices.Collect(maps.Keys(cat.ServiceCategories)))
	assert.Equal(t, []string{w.network}, slices.Collect(maps.Keys(cat.LinesOfBusiness)))
	assert.Equal(t, []string{c.phase}, slices.Collect(maps.Keys(cat.Phases)))
	assert.Len(t, cat.ExpenseCategories, 1)
	assert.Equal(t, "Travel", cat.ExpenseCategories[snap.Expenses[0].ExpenseCategory()].Name())
}

// viewIDs returns the ids of the records of views.
func viewIDs(vs []views.User) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.ID
	}
	return out
}

// Ensure a bare project's snapshot has empty relations, no teammates and
// the account's default currency, and that an archived project still has
// one.
func TestSnapshotBareAndArchived(t *testing.T) {
	w := newWfWorld(t)
	p := w.ccProject("Bare", "")
	snap, err := w.svc.MergeData(w.ctx, w.admin, p)
	require.NoError(t, err)
	assert.Nil(t, snap.LineOfBusiness)
	assert.Nil(t, snap.SalesExecutive)
	assert.Nil(t, snap.PresalesEngineer)
	assert.Nil(t, snap.PaymentTerm)
	assert.Nil(t, snap.RateTable)
	assert.Empty(t, snap.Teammates)
	assert.Empty(t, snap.Services)
	assert.Equal(t, views.Catalog{}, snap.Catalog)
	require.NotNil(t, snap.Currency)
	assert.Equal(t, "USD", snap.Currency.Str("code"))
	assert.Equal(t, "0.00", snap.Pricing.TotalContractValue.String())

	_, err = w.update(w.sys, "projects", p, attrs("active", `false`), nil)
	require.NoError(t, err)
	snap, err = w.svc.MergeData(w.ctx, w.admin, p)
	require.NoError(t, err)
	assert.False(t, snap.Project.Active())
}

// Ensure Snapshot needs projects view and MergeData merge_data view (the
// guards are the domain's, not the caller's), and each sees only
// projects visible to the actor: ENOTFOUND for a missing project, another
// account's, and one an assigned role is not a teammate of.
func TestSnapshotGuardAndVisibility(t *testing.T) {
	w := newWfWorld(t)
	engID, _ := w.member("eng@acme.test", "Engineer") // merge_data none, documents manage
	w.role("Assigned reader", map[string]string{"projects": "view", "merge_data": "view"}, "assigned")
	readerID, reader := w.member("r@acme.test", "Assigned reader")
	_, readOnly := w.member("ro@acme.test", "Read Only")
	w.role("Merge data only", map[string]string{"merge_data": "view"}, "all")
	mergeID, _ := w.member("m@acme.test", "Merge data only")
	w.pjTeammate(w.project, engID)
	_, theirProject := w.otherProject()

	for _, tc := range []struct {
		name    string
		actor   *engine.Actor
		project string
		guard   string
		code    string
	}{
		{"without the guard", w.actor(engID), w.project, "merge_data", scopekit.EFORBIDDEN},
		{"projects view", w.actor(engID), w.project, "projects", ""},
		{"merge data without projects", w.actor(mergeID), w.project, "merge_data", ""},
		{"projects without projects view", w.actor(mergeID), w.project, "projects", scopekit.EFORBIDDEN},
		{"view is enough", readOnly, w.project, "merge_data", ""},
		{"assigned, not a teammate", reader, w.project, "merge_data", scopekit.ENOTFOUND},
		{"missing project", w.admin, "999999", "merge_data", scopekit.ENOTFOUND},
		{"another account's project", w.admin, theirProject, "merge_data", scopekit.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read := w.svc.MergeData
			if tc.guard == "projects" {
				read = w.svc.Snapshot
			}
			snap, err := read(w.ctx, tc.actor, tc.project)
			if tc.code != "" {
				wfCode(t, tc.code, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.project, snap.Project.ID)
		})
	}
	w.pjTeammate(w.project, readerID)
	snap, err := w.svc.MergeData(w.ctx, w.actor(readerID), w.project)
	require.NoError(t, err)
	assert.Len(t, snap.Teammates, 2)
}

// Ensure UpdateLine answers with the project's snapshot as the change
// left it, priced once (the write's own run, no second one), equal to a
// snapshot read afterwards; that it refuses a type that is no line of a
// project; and that a refused change answers no snapshot.
func TestSnapshotAfterUpdateLine(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	aID, _ := w.member("a@acme.test", "Sales")
	p := w.snFull(c, aID, aID, aID)
	lines := w.list("project-services", map[string]string{"project": p})
	var runs atomic.Int64
	scoping.CountPricing(w.svc, &runs)

	snap, err := w.svc.UpdateLine(w.ctx, w.admin, "project-services", lines[0].ID, &engine.Input{Attrs: attrs("quantity", `"7"`)})
	require.NoError(t, err)
	assert.Equal(t, int64(1), runs.Load(), "the write's pricing run, served again")
	after, err := w.svc.Snapshot(w.ctx, w.admin, p)
	require.NoError(t, err)
	assert.Equal(t, int64(2), runs.Load())
	assert.Equal(t, after.Pricing.TotalContractValue.String(), snap.Pricing.TotalContractValue.String())
	assert.Equal(t, after.Project.Str("contract-revenue"), snap.Project.Str("contract-revenue"))
	require.Len(t, snap.Services, len(after.Services))
	for i := range snap.Services {
		assert.Equal(t, after.Services[i].Quantity().String(), snap.Services[i].Quantity().String())
		assert.Equal(t, after.Pricing.Service(i).Revenue.String(), snap.Pricing.Service(i).Revenue.String())
		assert.Equal(t, scoping.Figures(after.Services[i].Record), scoping.Figures(snap.Services[i].Record))
	}
	i := slices.IndexFunc(snap.Services, func(s views.ProjectService) bool { return s.ID == lines[0].ID })
	assert.Equal(t, "7", snap.Services[i].Quantity().String())

	_, err = w.svc.UpdateLine(w.ctx, w.admin, "clients", w.client, &engine.Input{Attrs: attrs("name", `"X"`)})
	wfCode(t, scopekit.EBADREQUEST, err)
	_, readOnly := w.member("ro@acme.test", "Read Only")
	snap, err = w.svc.UpdateLine(w.ctx, readOnly, "project-services", lines[0].ID, &engine.Input{Attrs: attrs("quantity", `"8"`)})
	wfCode(t, scopekit.EFORBIDDEN, err)
	assert.Nil(t, snap)
}
