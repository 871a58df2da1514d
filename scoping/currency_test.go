package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Projects in another currency (pricing.md, "Currency"): catalog amounts
// are converted with the currency's from_default rate when a line takes
// them.

// curWorld is the demo's catalog and worked example in a USD account.
type curWorld struct {
	t    *testing.T
	ctx  context.Context
	svc  *scoping.Service
	a    *engine.Actor
	demo *demodata.Seeded
	ids  map[string]string // catalog record ids by type and name ("resources/Engineer")
}

func newCurWorld(t *testing.T) *curWorld {
	svc, a := mustSetup(t)
	w := &curWorld{t: t, ctx: context.Background(), svc: svc, a: a, ids: map[string]string{}}
	var err error
	w.demo, err = demodata.Seed(w.ctx, svc, a, "")
	require.NoError(t, err)
	for _, typ := range []string{"resources", "services", "products"} {
		res, err := svc.List(w.ctx, a, typ, engine.ListParams{}, engine.Options{})
		require.NoError(t, err)
		for _, r := range res.Records {
			w.ids[typ+"/"+r.Str("name")] = r.ID
		}
	}
	return w
}

func (w *curWorld) create(typ string, at map[string]json.RawMessage, rels map[string]engine.RelInput) *engine.Record {
	w.t.Helper()
	res, err := w.svc.Create(w.ctx, w.a, typ, &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
	require.NoError(w.t, err, "create %s", typ)
	return res.Records[0]
}

// project creates a project on the rate table with the demo's Assessment
// (service 1) and Firewall deployment, and the appliance, as catalog copies
// unless price is set (the appliance's unit price and cost then).
func (w *curWorld) project(name, table string, price ...string) string {
	w.t.Helper()
	p := w.create("projects", attrs("project-name", `"`+name+`"`), map[string]engine.RelInput{
		"client": rel("clients", w.demo.ClientID), "rate-table": rel("rate-tables", table)}).ID
	for _, s := range []string{"Assessment", "Firewall deployment"} {
		w.create("project-services", nil, map[string]engine.RelInput{"project": rel("projects", p), "service": rel("services", w.ids["services/"+s])})
	}
	at := attrs("quantity", `"2"`)
	if len(price) == 2 {
		at = attrs("quantity", `"2"`, "unit-price", `"`+price[0]+`"`, "unit-cost", `"`+price[1]+`"`)
	}
	w.create("project-products", at, map[string]engine.RelInput{"project": rel("projects", p), "product": rel("products", w.ids["products/Firewall appliance"])})
	w.create("project-expenses", attrs("description", `"Airfare"`, "quantity", `"2"`, "rate", `"70000"`), map[string]engine.RelInput{"project": rel("projects", p)})
	return p
}

// lines returns a project's records of typ by name.
func (w *curWorld) lines(typ, project string) map[string]*engine.Record {
	w.t.Helper()
	res, err := w.svc.List(w.ctx, w.a, typ, engine.ListParams{Filters: map[string]string{"project": project}}, engine.Options{})
	require.NoError(w.t, err)
	m := map[string]*engine.Record{}
	for _, r := range res.Records {
		m[r.Str("name")] = r
	}
	return m
}

// Ensure a JPY project on a JPY rate table without rates prices its
// people, governance and products at the catalog's USD figures converted
// at 150 (the demo's Assessment, 16.5 hours, is ¥525,000, not ¥3,500), a
// rate of the table is taken as it is, and the stored figures are the
// pricing endpoint's.
func TestCatalogAmountsConverted(t *testing.T) {
	w := newCurWorld(t)
	w.create("currencies", attrs("code", `"JPY"`, "conversion-rate", `"150"`), nil)
	yen := w.create("rate-tables", attrs("name", `"Yen"`, "currency", `"JPY"`), nil).ID
	p := w.project("Tokyo", yen)

	res := w.lines("project-resources", p)
	for name, want := range map[string][2]string{"Engineer": {"30000", "13500"}, "Architect": {"37500", "18000"}, "Project Manager": {"26250", "12000"}} {
		require.Contains(t, res, name)
		assert.Equal(t, want[0], res[name].Str("hourly-rate"), name)
		assert.Equal(t, want[1], res[name].Str("hourly-cost"), name)
	}
	svcs := w.lines("project-services", p)
	assert.Equal(t, "16.5", svcs["Assessment"].Dec("total-hours").String())
	assert.Equal(t, "525000", svcs["Assessment"].Str("revenue"), "16.5 hours of service 1 in yen")
	prod := w.lines("project-products", p)["Firewall appliance"]
	assert.Equal(t, "299999", prod.Str("unit-price"), "1999.99 × 150 = 299,998.5, rounded to yen")
	assert.Equal(t, "225000", prod.Str("unit-cost"))
	gov := w.lines("project-governances", p)
	assert.Equal(t, "75000", gov["Kickoff"].Str("revenue"), "2 h of the Architect")

	priced, err := w.svc.Pricing(w.ctx, w.a, p)
	require.NoError(t, err)
	assert.Equal(t, "JPY", priced.Currency.Code)
	proj, err := w.svc.Get(w.ctx, w.a, "projects", p, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	assert.Equal(t, priced.TotalContractValue.String(), proj.Records[0].Str("contract-revenue"))
	assert.Equal(t, "JPY", proj.Records[0].Str("currency"))

	// a rate of the table is the table's; a missing cost still converts
	w.create("resource-rates", attrs("hourly-rate", `"28000"`), map[string]engine.RelInput{
		"rate-table": rel("rate-tables", yen), "resource": rel("resources", w.ids["resources/Engineer"])})
	res = w.lines("project-resources", w.project("Osaka", yen))
	assert.Equal(t, "28000", res["Engineer"].Str("hourly-rate"))
	assert.Equal(t, "13500", res["Engineer"].Str("hourly-cost"))

	// what a request gives is kept as given
	pr := w.create("project-resources", attrs("hourly-rate", `"99"`), map[string]engine.RelInput{
		"project": rel("projects", p), "resource": rel("resources", w.ids["resources/Architect"])})
	assert.Equal(t, "99", pr.Str("hourly-rate"))
	assert.Equal(t, "18000", pr.Str("hourly-cost"))
}

// curCase is one case of the property: a currency (the account's own
// included), its rate, and which of the demo's resources the rate table
// gives a rate, or a rate and a cost.
type curCase struct {
	Code  string
	Minor int
	Rate  decimal.Decimal
	Table map[string]int // resource name -> 0 none, 1 rate only, 2 rate and cost
}

func (curCase) Generate(r *rand.Rand, _ int) reflect.Value {
	codes := []struct {
		code  string
		minor int
	}{{"USD", 2}, {"JPY", 0}, {"EUR", 2}, {"BHD", 3}, {"CLF", 4}, {"INR", 2}}
	c := codes[r.Intn(len(codes))]
	cs := curCase{Code: c.code, Minor: c.minor, Rate: decimal.NewFromInt(1), Table: map[string]int{}}
	if c.code != "USD" {
		cs.Rate = decimal.New(int64(1+r.Intn(2_000_000)), -int32(r.Intn(5))) // 0.0001 to 2,000,000
	}
	for _, name := range []string{"Engineer", "Architect", "Project Manager"} {
		cs.Table[name] = r.Intn(3)
	}
	return reflect.ValueOf(cs)
}

// Ensure no figure mixes two currencies, for any currency and rate table:
// a project whose rate table lacks some rates (so that resources, the
// governance's people and the product fall back to the catalog) prices
// exactly as one whose every input is given in its currency, the
// catalog's amounts converted (FromDefault); and its stored figures are
// the pricing endpoint's.
func TestNoFigureMixesCurrencies(t *testing.T) {
	w := newCurWorld(t)
	catalog := map[string][2]string{"Engineer": {"200", "90"}, "Architect": {"250", "120"}, "Project Manager": {"175", "80"}}
	n := 0
	check := func(cs curCase) bool {
		n++
		if cs.Code != "USD" {
			cur, err := w.svc.List(w.ctx, w.a, "currencies", engine.ListParams{Filters: map[string]string{}}, engine.Options{})
			require.NoError(t, err)
			rateJSON := attrs("conversion-rate", `"`+cs.Rate.String()+`"`)
			id := ""
			for _, r := range cur.Records {
				if r.Str("code") == cs.Code {
					id = r.ID
				}
			}
			if id == "" {
				w.create("currencies", attrs("code", `"`+cs.Code+`"`, "conversion-rate", `"`+cs.Rate.String()+`"`), nil)
			} else {
				_, err := w.svc.Update(w.ctx, w.a, "currencies", id, &engine.Input{Attrs: rateJSON}, engine.Options{})
				require.NoError(t, err)
			}
		}
		conv := func(amount string) string {
			return pricing.FromDefault(decimal.RequireFromString(amount), cs.Rate, pricing.Currency{Code: cs.Code, MinorUnits: cs.Minor}).String()
		}
		if cs.Code == "USD" {
			conv = func(amount string) string { return amount }
		}
		partial := w.create("rate-tables", attrs("name", fmt.Sprintf(`"Partial %d"`, n), "currency", `"`+cs.Code+`"`), nil).ID
		full := w.create("rate-tables", attrs("name", fmt.Sprintf(`"Full %d"`, n), "currency", `"`+cs.Code+`"`), nil).ID
		for name, fig := range catalog {
			own := [2]string{fmt.Sprint(len(name) * 1000), fmt.Sprint(len(name) * 300)} // a rate of the table, in its currency
			want := [2]string{conv(fig[0]), conv(fig[1])}
			at := map[string]json.RawMessage{}
			switch cs.Table[name] {
			case 1:
				at, want[0] = attrs("hourly-rate", `"`+own[0]+`"`), own[0]
			case 2:
				at, want = attrs("hourly-rate", `"`+own[0]+`"`, "hourly-cost", `"`+own[1]+`"`), own
			}
			resRel := rel("resources", w.ids["resources/"+name])
			if len(at) > 0 {
				w.create("resource-rates", at, map[string]engine.RelInput{"rate-table": rel("rate-tables", partial), "resource": resRel})
			}
			w.create("resource-rates", attrs("hourly-rate", `"`+want[0]+`"`, "hourly-cost", `"`+want[1]+`"`),
				map[string]engine.RelInput{"rate-table": rel("rate-tables", full), "resource": resRel})
		}
		fallback := w.project(fmt.Sprintf("Fallback %d", n), partial)
		given := w.project(fmt.Sprintf("Given %d", n), full, conv("1999.99"), conv("1500"))
		got, want := pricedFigures(t, w, fallback), pricedFigures(t, w, given)
		if !assert.Equal(t, want, got, "%+v", cs) {
			return false
		}
		proj, err := w.svc.Get(w.ctx, w.a, "projects", fallback, engine.ListParams{}, engine.Options{})
		require.NoError(t, err)
		return proj.Records[0].Str("currency") == cs.Code && proj.Records[0].Str("contract-revenue") == got["total_contract_value"]
	}
	require.NoError(t, quick.Check(check, &quick.Config{MaxCount: 12, Rand: rand.New(rand.NewSource(35))}))
}

// pricedFigures is a project's pricing, as the endpoint's JSON, without
// record ids (id, phase_id...).
func pricedFigures(t *testing.T, w *curWorld, project string) map[string]any {
	t.Helper()
	res, err := w.svc.Pricing(w.ctx, w.a, project)
	require.NoError(t, err)
	b, err := json.Marshal(res)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "id" || strings.HasSuffix(k, "_id") {
					delete(x, k)
				}
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(m)
	return m
}
