package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// pricedWorld is an account with the demo catalog, three currencies, two
// rate tables and two payment terms, and a few projects to write to.
type pricedWorld struct {
	ctx      context.Context
	svc      *scoping.Service
	a        *engine.Actor
	seeded   *demodata.Seeded
	services []string // catalog services
	tables   []string // rate tables ("" = none)
	terms    []string // payment terms ("" = none)
	currs    []string // currency records
	products []string
}

func newPricedWorld(t *testing.T) *pricedWorld {
	t.Helper()
	ctx := context.Background()
	svc, a := mustSetup(t)
	seeded, err := demodata.Seed(ctx, svc, a, "")
	require.NoError(t, err)
	w := &pricedWorld{ctx: ctx, svc: svc, a: a, seeded: seeded}
	w.services = w.ids(t, "services")
	w.products = w.ids(t, "products")
	w.terms = append(w.ids(t, "payment-terms"), "")
	w.create(t, "currencies", attrs("code", `"EUR"`, "name", `"Euro"`, "conversion-rate", `"0.9"`), nil)
	w.create(t, "currencies", attrs("code", `"JPY"`, "name", `"Yen"`, "conversion-rate", `"150"`, "minor-units", `0`), nil)
	w.currs = w.ids(t, "currencies")
	w.create(t, "rate-tables", attrs("name", `"Euro table"`, "currency", `"EUR"`), nil)
	w.tables = append(w.ids(t, "rate-tables"), "")
	w.create(t, "payment-terms", attrs("name", `"T&M"`, "include-expenses", `false`, "include-hardware", `true`), nil)
	w.terms = append(w.ids(t, "payment-terms"), "")
	w.newProject(t)
	return w
}

func (w *pricedWorld) ids(t *testing.T, typ string) []string {
	t.Helper()
	p := engine.ListParams{}
	if def, _ := scoping.DefaultSchema().Lookup(typ); def.Archives {
		p.Filters = map[string]string{"active": "true,false"}
	}
	res, err := w.svc.List(w.ctx, w.a, typ, p, engine.Options{})
	require.NoError(t, err)
	out := make([]string, len(res.Records))
	for i, r := range res.Records {
		out[i] = r.ID
	}
	return out
}

func (w *pricedWorld) create(t *testing.T, typ string, at map[string]json.RawMessage, rels map[string]engine.RelInput) string {
	t.Helper()
	in := &engine.Input{Attrs: at, Rels: rels}
	res, err := w.svc.Create(w.ctx, w.a, typ, in, engine.Options{})
	require.NoError(t, err, "create %s", typ)
	return res.Records[0].ID
}

func (w *pricedWorld) newProject(t *testing.T) {
	t.Helper()
	id := w.create(t, "projects", attrs("project-name", `"Another"`),
		map[string]engine.RelInput{"client": rel("clients", w.seeded.ClientID)})
	_, err := w.svc.ApplyBlueprint(w.ctx, w.a, id, w.seeded.BlueprintID)
	require.NoError(t, err)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func decimalText(r *rand.Rand) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`"%d.%02d"`, r.IntN(20), r.IntN(100)))
}

func toOne(typ, id string) engine.RelInput {
	if id == "" {
		return engine.RelInput{}
	}
	return rel(typ, id)
}

// step makes one random write. Writes the engine rejects (a rule of the
// data, not of pricing) are fine: they must leave prices as they were.
func (w *pricedWorld) step(t *testing.T, r *rand.Rand) string {
	t.Helper()
	projects := w.ids(t, "projects")
	if len(projects) == 0 {
		w.newProject(t)
		return "new project"
	}
	proj := pick(r, projects)
	upd := func(typ string, at map[string]json.RawMessage, rels map[string]engine.RelInput) error {
		ids := w.ids(t, typ)
		if len(ids) == 0 {
			return nil
		}
		_, err := w.svc.Update(w.ctx, w.a, typ, pick(r, ids), &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
		return err
	}
	del := func(typ string) error {
		ids := w.ids(t, typ)
		if len(ids) == 0 {
			return nil
		}
		return w.svc.Delete(w.ctx, w.a, typ, pick(r, ids), engine.Options{})
	}
	onProject := map[string]engine.RelInput{"project": rel("projects", proj)}
	var err error
	var what string
	switch op := r.IntN(23); op {
	case 0:
		what = "add a catalog service"
		_, err = w.svc.Create(w.ctx, w.a, "project-services", &engine.Input{Attrs: map[string]json.RawMessage{"quantity": decimalText(r)},
			Rels: map[string]engine.RelInput{"project": rel("projects", proj), "service": rel("services", pick(r, w.services))}}, engine.Options{})
	case 1:
		what = "service hours"
		err = upd("project-services", map[string]json.RawMessage{"quantity": decimalText(r), "unit-hours": decimalText(r)}, nil)
	case 2:
		what = "delete a service"
		err = del("project-services")
	case 3:
		what = "subservice hours"
		err = upd("project-subservices", map[string]json.RawMessage{"quantity": decimalText(r), "unit-hours": decimalText(r)}, nil)
	case 4:
		what = "delete a subservice"
		err = del("project-subservices")
	case 5:
		what = "governance rate"
		err = upd("project-governances", map[string]json.RawMessage{"rate": json.RawMessage(fmt.Sprintf(`"0.%02d"`, r.IntN(40)))}, nil)
	case 6:
		what = "governance fixed hours"
		err = upd("project-governances", map[string]json.RawMessage{"fixed-hours": decimalText(r)}, nil)
	case 7:
		what = "add an expense"
		_, err = w.svc.Create(w.ctx, w.a, "project-expenses", &engine.Input{Attrs: map[string]json.RawMessage{
			"description": json.RawMessage(`"Taxi"`), "quantity": decimalText(r), "rate": decimalText(r)}, Rels: onProject}, engine.Options{})
	case 8:
		what = "expense"
		err = upd("project-expenses", map[string]json.RawMessage{"quantity": decimalText(r), "unit-cost": decimalText(r)}, nil)
	case 9:
		what = "add a product"
		_, err = w.svc.Create(w.ctx, w.a, "project-products", &engine.Input{Attrs: map[string]json.RawMessage{"quantity": decimalText(r)},
			Rels: map[string]engine.RelInput{"project": rel("projects", proj), "product": rel("products", pick(r, w.products))}}, engine.Options{})
	case 10:
		what = "delete a product or expense"
		err = del(pick(r, []string{"project-products", "project-expenses"}))
	case 11:
		what = "resource rate"
		err = upd("project-resources", map[string]json.RawMessage{"hourly-rate": decimalText(r), "hourly-cost": decimalText(r)}, nil)
	case 12:
		what = "delete a project resource"
		err = del("project-resources")
	case 13:
		what = "project adjustments"
		_, err = w.svc.Update(w.ctx, w.a, "projects", proj, &engine.Input{Attrs: map[string]json.RawMessage{
			"revenue-adjustment": json.RawMessage(fmt.Sprintf(`"-%d.5"`, r.IntN(300))), "cost-adjustment": decimalText(r),
			"mrr-terms": json.RawMessage(fmt.Sprint(r.IntN(36)))}}, engine.Options{})
	case 14:
		what = "project rate table and payment term"
		_, err = w.svc.Update(w.ctx, w.a, "projects", proj, &engine.Input{Rels: map[string]engine.RelInput{
			"rate-table": toOne("rate-tables", pick(r, w.tables)), "payment-term": toOne("payment-terms", pick(r, w.terms))}}, engine.Options{})
	case 15:
		what = "rate table currency"
		err = upd("rate-tables", map[string]json.RawMessage{"currency": json.RawMessage(pick(r, []string{`"USD"`, `"EUR"`, `"JPY"`, `"GBP"`}))}, nil)
	case 16:
		what = "payment term flags"
		err = upd("payment-terms", map[string]json.RawMessage{"include-expenses": json.RawMessage(fmt.Sprint(r.IntN(2) == 0)),
			"include-hardware": json.RawMessage(fmt.Sprint(r.IntN(2) == 0))}, nil)
	case 17:
		what = "currency minor units and rate"
		_, err = w.svc.Update(w.ctx, w.a, "currencies", pick(r, w.currs), &engine.Input{Attrs: map[string]json.RawMessage{
			"minor-units": json.RawMessage(fmt.Sprint(r.IntN(4))), "conversion-rate": decimalText(r)}}, engine.Options{})
	case 18:
		what = "apply the blueprint"
		_, err = w.svc.ApplyBlueprint(w.ctx, w.a, proj, w.seeded.BlueprintID)
	case 19:
		what = "new project"
		w.newProject(t)
	case 20:
		what = "delete a project"
		if len(projects) > 1 {
			err = w.svc.Delete(w.ctx, w.a, "projects", proj, engine.Options{})
		}
	case 21:
		what = "delete a phase or location"
		err = del(pick(r, []string{"project-phases", "project-locations"}))
	case 22:
		what = "account default currency"
		err = w.svc.Setup(w.ctx, func(a *scoping.Admin) error {
			_, err := a.EnsureAccount("acme", "Acme", pick(r, []string{"USD", "EUR", "JPY"}))
			return err
		})
	}
	if err != nil {
		require.NotEqual(t, scopekit.EINTERNAL, scopekit.ErrorCode(err), "%s: %v", what, err)
	}
	return what
}

// served reads every priced record through the service, as clients do,
// and returns its figures by "type/id".
func (w *pricedWorld) served(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, typ := range scoping.PricedTypes() {
		p := engine.ListParams{}
		if def, _ := scoping.DefaultSchema().Lookup(typ); def.Archives {
			p.Filters = map[string]string{"active": "true,false"}
		}
		res, err := w.svc.List(w.ctx, w.a, typ, p, engine.Options{})
		require.NoError(t, err)
		for _, r := range res.Records {
			out[typ+"/"+r.ID] = scoping.Figures(r)
		}
	}
	return out
}

// Ensure that after any sequence of writes the figures a read serves are
// those of a fresh pricing run, and that reads price nothing.
func TestStoredPricesMatchFreshPricing(t *testing.T) {
	steps := 100
	if testing.Short() {
		steps = 40
	}
	for _, seed := range []uint64{1, 2} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			w := newPricedWorld(t)
			var runs atomic.Int64
			scoping.CountPricing(w.svc, &runs)
			r := rand.New(rand.NewPCG(seed, 14))
			for i := range steps {
				what := w.step(t, r)
				runs.Store(0)
				got := w.served(t)
				require.Zero(t, runs.Load(), "step %d (%s): reads priced", i, what)
				want, err := scoping.FreshFigures(w.ctx, w.svc, w.a)
				require.NoError(t, err)
				require.Equal(t, want, got, "step %d (%s)", i, what)
			}
		})
	}
}

// Ensure a new project's stored figures equal a fresh pricing run whether
// it is created alone (no lines: nothing is looked up for them) or with
// lines written in the same transaction (the account's required
// governance), and that lines added later re-price it.
func TestNewProjectFigures(t *testing.T) {
	check := func(t *testing.T, w *pricedWorld) {
		t.Helper()
		want, err := scoping.FreshFigures(w.ctx, w.svc, w.a)
		require.NoError(t, err)
		require.Equal(t, want, w.served(t))
	}
	t.Run("with required governance", func(t *testing.T) {
		w := newPricedWorld(t)
		before := len(w.ids(t, "project-governances"))
		w.create(t, "projects", attrs("project-name", `"Fresh"`), map[string]engine.RelInput{"client": rel("clients", w.seeded.ClientID)})
		require.Greater(t, len(w.ids(t, "project-governances")), before, "the governance came along")
		check(t, w)
	})
	t.Run("without lines", func(t *testing.T) {
		svc, a := mustSetup(t)
		w := &pricedWorld{ctx: context.Background(), svc: svc, a: a}
		client := w.create(t, "clients", attrs("name", `"Globex"`), nil)
		pid := w.create(t, "projects", attrs("project-name", `"Empty"`), map[string]engine.RelInput{"client": rel("clients", client)})
		require.Empty(t, w.ids(t, "project-governances"))
		check(t, w)
		empty := scoping.Figures(mustGet(t, w, "projects", pid))
		require.Contains(t, empty, "contract-revenue")
		w.create(t, "project-expenses", attrs("description", `"Travel"`, "quantity", `"2"`, "rate", `"150"`),
			map[string]engine.RelInput{"project": rel("projects", pid)})
		check(t, w)
		require.NotEqual(t, empty["contract-revenue"], scoping.Figures(mustGet(t, w, "projects", pid))["contract-revenue"])
	})
}

func mustGet(t *testing.T, w *pricedWorld, typ, id string) *engine.Record {
	t.Helper()
	res, err := w.svc.Get(w.ctx, w.a, typ, id, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	return res.Records[0]
}
