package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// pricedState is what the pricing endpoint and the line reads showed at
// one moment: the contract, each phase and each line's figures.
type pricedState struct {
	total  map[string]string            // revenue, cost, profit, hours, margin
	phases map[string]map[string]string // phase id → revenue, cost, profit, hours
	lines  map[string]map[string]string // type/id → revenue, cost, hours
}

// hoursOf names the figure that holds a line type's hours.
var hoursOf = map[string]string{"project-services": "total-hours", "project-subservices": "extended-hours",
	"project-governances": "hours", "project-resources": "total-hours"}

func observe(t *testing.T, svc *scoping.Service, a *engine.Actor, pid string) pricedState {
	t.Helper()
	ctx := context.Background()
	res, err := svc.Pricing(ctx, a, pid)
	require.NoError(t, err)
	st := pricedState{phases: map[string]map[string]string{}, lines: map[string]map[string]string{},
		total: map[string]string{"revenue": res.TotalContractValue.String(), "cost": res.TotalContractCost.String(),
			"profit": res.TotalContractProfit.String(), "hours": res.TotalHours().String(), "margin": res.TotalContractMargin.String()}}
	for _, p := range res.Phases {
		st.phases[p.PhaseID] = map[string]string{"revenue": p.Revenue.String(), "cost": p.Cost.String(), "profit": p.Profit.String(), "hours": p.Hours.String()}
	}
	for _, typ := range []string{"project-services", "project-subservices", "project-governances", "project-expenses", "project-products", "project-resources"} {
		list, err := svc.List(ctx, a, typ, engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
		require.NoError(t, err)
		for _, r := range list.Records {
			st.lines[typ+"/"+r.ID] = map[string]string{"revenue": r.Str("revenue"), "cost": r.Str("cost"), "hours": r.Str(hoursOf[typ])}
		}
	}
	return st
}

// minus is b − a of two figure strings (blank = 0).
func minus(b, a string) decimal.Decimal {
	d := func(s string) decimal.Decimal {
		if s == "" {
			return decimal.Zero
		}
		return decimal.RequireFromString(s)
	}
	return d(b).Sub(d(a))
}

// checkDeltas checks every delta of d against the two observed states.
func checkDeltas(t *testing.T, d *scoping.VersionDiff, before, after pricedState) {
	t.Helper()
	eq := func(want decimal.Decimal, got string, what string) {
		t.Helper()
		require.True(t, want.Equal(decimal.RequireFromString(got)), "%s: delta %s, pricing says %s", what, got, want)
	}
	for _, f := range []string{"revenue", "cost", "profit", "hours"} {
		got := map[string]string{"revenue": d.Total.Delta.Revenue, "cost": d.Total.Delta.Cost, "profit": d.Total.Delta.Profit, "hours": d.Total.Delta.Hours}[f]
		eq(minus(after.total[f], before.total[f]), got, "total "+f)
	}
	eq(minus(after.total["margin"], before.total["margin"]), d.Total.Delta.Margin, "margin")
	seen := map[string]bool{}
	for _, p := range d.Phases {
		seen[p.PhaseID] = true
		eq(minus(after.phases[p.PhaseID]["revenue"], before.phases[p.PhaseID]["revenue"]), p.Delta.Revenue, "phase "+p.PhaseID+" revenue")
		eq(minus(after.phases[p.PhaseID]["cost"], before.phases[p.PhaseID]["cost"]), p.Delta.Cost, "phase "+p.PhaseID+" cost")
		eq(minus(after.phases[p.PhaseID]["hours"], before.phases[p.PhaseID]["hours"]), p.Delta.Hours, "phase "+p.PhaseID+" hours")
	}
	for id := range after.phases {
		require.True(t, seen[id], "phase %q is in the diff", id)
	}
	listed := map[string]bool{}
	for _, group := range [][]scoping.LineDiff{d.Added, d.Removed, d.Changed} {
		for _, l := range group {
			key := l.Type + "/" + l.ID
			listed[key] = true
			if _, priced := hoursOf[l.Type]; !priced && l.Type != "project-expenses" && l.Type != "project-products" {
				continue
			}
			b, a := before.lines[key], after.lines[key]
			eq(minus(a["revenue"], b["revenue"]), l.Delta.Revenue, key+" revenue")
			eq(minus(a["cost"], b["cost"]), l.Delta.Cost, key+" cost")
			eq(minus(a["hours"], b["hours"]), l.Delta.Hours, key+" hours")
		}
	}
	// a line whose figures moved is listed
	for key, a := range after.lines {
		b := before.lines[key]
		if !minus(a["revenue"], b["revenue"]).IsZero() || !minus(a["cost"], b["cost"]).IsZero() || !minus(a["hours"], b["hours"]).IsZero() {
			require.True(t, listed[key], "%s changed price but is not in the diff", key)
		}
	}
}

// Ensure, over random edits of a scope, that every delta of every diff
// between two versions (and between a version and the current scope)
// equals the difference of what the pricing endpoint and the lines showed
// at those two moments, to the cent: per line, per phase and in total.
func TestVersionDiffDeltasEqualPricing(t *testing.T) {
	ctx := context.Background()
	svc, a, pid := seededProject(t)
	rng := rand.New(rand.NewPCG(32, 7))
	catalog, err := svc.List(ctx, a, "services", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	phases, err := svc.List(ctx, a, "project-phases", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)

	lines := func(typ string) []*engine.Record {
		res, err := svc.List(ctx, a, typ, engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
		require.NoError(t, err)
		return res.Records
	}
	edit := func() {
		num := func() string { return fmt.Sprintf(`"%d.%02d"`, rng.IntN(20), rng.IntN(100)) }
		switch rng.IntN(7) {
		case 0:
			c := catalog.Records[rng.IntN(len(catalog.Records))]
			_, err := svc.Create(ctx, a, "project-services", &engine.Input{Attrs: attrs("quantity", num()),
				Rels: map[string]engine.RelInput{"project": rel("projects", pid), "service": rel("services", c.ID)}}, engine.Options{})
			require.NoError(t, err)
		case 1:
			if ls := lines("project-services"); len(ls) > 1 {
				require.NoError(t, svc.Delete(ctx, a, "project-services", ls[rng.IntN(len(ls))].ID, engine.Options{}))
			}
		case 2:
			if ls := lines("project-services"); len(ls) > 0 {
				l := ls[rng.IntN(len(ls))]
				in := &engine.Input{Attrs: attrs("unit-hours", num(), "name", fmt.Sprintf(`"Line %d"`, rng.IntN(100)))}
				if len(phases.Records) > 0 && rng.IntN(2) == 0 {
					in.Rels = map[string]engine.RelInput{"project-phase": rel("project-phases", phases.Records[rng.IntN(len(phases.Records))].ID)}
				}
				_, err := svc.Update(ctx, a, "project-services", l.ID, in, engine.Options{})
				require.NoError(t, err)
			}
		case 3:
			if ls := lines("project-subservices"); len(ls) > 0 {
				_, err := svc.Update(ctx, a, "project-subservices", ls[rng.IntN(len(ls))].ID, &engine.Input{Attrs: attrs("quantity", num())}, engine.Options{})
				require.NoError(t, err)
			}
		case 4:
			_, err := svc.Create(ctx, a, "project-expenses", &engine.Input{Attrs: attrs("description", `"Hotel"`, "quantity", num(), "rate", num()),
				Rels: map[string]engine.RelInput{"project": rel("projects", pid)}}, engine.Options{})
			require.NoError(t, err)
		case 5:
			_, err := svc.Update(ctx, a, "projects", pid, &engine.Input{Attrs: attrs("revenue-adjustment", fmt.Sprintf(`"-%d.%02d"`, rng.IntN(500), rng.IntN(100)))}, engine.Options{})
			require.NoError(t, err)
		case 6:
			if ls := lines("project-governances"); len(ls) > 0 {
				_, err := svc.Update(ctx, a, "project-governances", ls[0].ID, &engine.Input{Attrs: attrs("rate", fmt.Sprintf(`"0.%02d"`, rng.IntN(50)))}, engine.Options{})
				require.NoError(t, err)
			}
		}
	}

	type taken struct {
		number string
		state  pricedState
	}
	var vs []taken
	for round := range 8 {
		for range 1 + rng.IntN(3) {
			edit()
		}
		res, _, err := svc.TakeVersion(ctx, a, pid, fmt.Sprintf("round %d", round), "")
		require.NoError(t, err)
		vs = append(vs, taken{number: fmt.Sprint(res.Records[0].Int("number")), state: observe(t, svc, a, pid)})
	}
	for i := range vs {
		for j := range vs {
			d, err := svc.DiffVersions(ctx, a, pid, vs[i].number, vs[j].number)
			require.NoError(t, err)
			checkDeltas(t, d, vs[i].state, vs[j].state)
			if i == j {
				require.Empty(t, d.Added)
				require.Empty(t, d.Removed)
				require.Empty(t, d.Changed)
			}
		}
	}
	edit()
	edit()
	now := observe(t, svc, a, pid)
	d, err := svc.DiffVersions(ctx, a, pid, vs[0].number, scoping.Current)
	require.NoError(t, err)
	require.Nil(t, d.To.Number)
	require.Len(t, d.To.Digest, 64)
	checkDeltas(t, d, vs[0].state, now)
}

// Ensure a diff lists each added, removed and changed line once, matched
// by identity rather than position, with each changed attribute and
// relationship before and after.
func TestVersionDiffMatchesLinesByIdentity(t *testing.T) {
	ctx := context.Background()
	svc, a, pid := seededProject(t)
	res, _, err := svc.TakeVersion(ctx, a, pid, "", "")
	require.NoError(t, err)
	from := fmt.Sprint(res.Records[0].Int("number"))
	list, err := svc.List(ctx, a, "project-services", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)
	first, second := list.Records[0], list.Records[1]
	// move the first below the second (position only) and change the second's quantity
	_, err = svc.Update(ctx, a, "project-services", first.ID, &engine.Input{Attrs: attrs("position", `99`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Update(ctx, a, "project-services", second.ID, &engine.Input{Attrs: attrs("quantity", `"4"`)}, engine.Options{})
	require.NoError(t, err)
	exp, err := svc.List(ctx, a, "project-expenses", engine.ListParams{Filters: map[string]string{"project": pid}}, engine.Options{})
	require.NoError(t, err)
	require.NoError(t, svc.Delete(ctx, a, "project-expenses", exp.Records[0].ID, engine.Options{}))

	d, err := svc.DiffVersions(ctx, a, pid, from, scoping.Current)
	require.NoError(t, err)
	byKey := map[string]scoping.LineDiff{}
	for _, l := range d.Changed {
		byKey[l.Type+"/"+l.ID] = l
	}
	moved := byKey["project-services/"+first.ID]
	require.Equal(t, []scoping.FieldChange{{Field: "position", Before: first.Attrs["position"], After: jsonNumber("99")}}, moved.Changes)
	require.Equal(t, "0.00", moved.Delta.Revenue, "a move changes no price")
	q := byKey["project-services/"+second.ID]
	require.Equal(t, "quantity", q.Changes[0].Field)
	require.Equal(t, "1", q.Changes[0].Before)
	require.Equal(t, "4", q.Changes[0].After)
	require.False(t, decimal.RequireFromString(q.Delta.Revenue).IsZero())
	require.Len(t, d.Removed, 1)
	require.Equal(t, views.TypeProjectExpenses, d.Removed[0].Type)
	require.Equal(t, "Airfare", d.Removed[0].Name)
	require.Equal(t, "-900.00", d.Removed[0].Delta.Revenue)
	require.Empty(t, d.Added)

	_, err = svc.DiffVersions(ctx, a, pid, "99", scoping.Current)
	require.Error(t, err)
}

func jsonNumber(s string) any { return json.Number(s) }
