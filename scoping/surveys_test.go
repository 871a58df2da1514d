package scoping_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// The guided scoping module (questionnaires.go, surveys.go,
// surveyplan.go): surveys of the demo's "Network refresh intake" on an
// empty project of the demo catalog.

// intake is the demo account with an empty draft project for surveys.
type intake struct {
	*snapshottest.Env
	demo    *demodata.Seeded
	project string
}

func newIntake(t *testing.T) *intake {
	t.Helper()
	e := snapshottest.New(t)
	demo := e.SeedDemo()
	pid := e.Create("projects", map[string]any{"project-name": "Initech network refresh"}, "client", "clients", demo.ClientID)
	return &intake{Env: e, demo: demo, project: pid}
}

// survey starts a survey of the intake with answers.
func (w *intake) survey(answers map[string]any) string {
	w.TB.Helper()
	return w.Create("surveys", map[string]any{"answers": answers}, "project", "projects", w.project, "questionnaire", "questionnaires", w.demo.IntakeID)
}

// answers are a complete set of answers to the intake.
func answers() map[string]any {
	return map[string]any{"users": 101, "sites": 3, "firewalls": 2, "supply_firewalls": true, "wifi": true,
		"cloud": "azure", "maintenance_window": false}
}

func (w *intake) calculate(id string) *scoping.SurveyOutcome {
	w.TB.Helper()
	out, err := w.Svc.CalculateSurvey(context.Background(), w.Actor, id)
	require.NoError(w.TB, err)
	return out
}

func (w *intake) apply(id string) *scoping.SurveyOutcome {
	w.TB.Helper()
	out, err := w.Svc.ApplySurvey(context.Background(), w.Actor, id)
	require.NoError(w.TB, err)
	return out
}

// lines lists the project's lines of a type.
func (w *intake) lines(typ string) []*engine.Record {
	w.TB.Helper()
	res, err := w.Svc.List(context.Background(), w.Actor, typ, engine.ListParams{Filters: map[string]string{"project": w.project}}, engine.Options{})
	require.NoError(w.TB, err)
	return res.Records
}

func byRule(recs []scoping.Recommendation) map[string]scoping.Recommendation {
	m := map[string]scoping.Recommendation{}
	for _, r := range recs {
		m[r.Rule] = r
	}
	return m
}

// Ensure a calculation recommends what the rules say, with exact
// quantities (ceil(101 / 50) is 3), writes nothing, and prices each
// recommendation exactly as the line an apply makes is priced.
func TestSurveyCalculateThenApply(t *testing.T) {
	w := newIntake(t)
	id := w.survey(answers())
	calc := w.calculate(id)
	require.Empty(t, calc.Problems)
	require.False(t, calc.Applied)
	recs := byRule(calc.Recommendations)
	require.Equal(t, "3", recs["wifi_deployment"].Quantity) // ceil(101 / 50)
	require.Equal(t, "3", recs["access_points"].Quantity)
	require.Equal(t, "3", recs["assessment"].Quantity)
	require.Equal(t, "1", recs["cloud"].Quantity)
	require.Equal(t, "2", recs["site_visits"].Quantity)
	require.Equal(t, "450", recs["site_visits"].Rate)
	require.Equal(t, "6", recs["per_diem"].Quantity)
	require.Contains(t, recs, "cutover_coordination")
	require.Len(t, calc.Recommendations, 11)
	for _, r := range calc.Recommendations {
		require.Equal(t, "add", r.Action, r.Rule)
		require.Nil(t, r.Line)
		require.NotEmpty(t, r.Revenue, r.Rule)
	}
	require.Empty(t, w.lines(views.TypeProjectServices), "a calculation writes nothing")

	applied := w.apply(id)
	require.True(t, applied.Applied)
	require.Equal(t, calc.ContractRevenueAfter, applied.ContractRevenueAfter)
	got := byRule(applied.Recommendations)
	for _, r := range calc.Recommendations {
		a := got[r.Rule]
		require.Equal(t, r.Revenue, a.Revenue, r.Rule)
		require.Equal(t, r.Cost, a.Cost, r.Rule)
		require.Equal(t, r.Hours, a.Hours, r.Rule)
		require.NotNil(t, a.Line)
	}
	// each line records its survey and rule, and its stored price is the
	// calculation's to the cent
	for _, typ := range []string{views.TypeProjectServices, views.TypeProjectProducts, views.TypeProjectExpenses, views.TypeProjectGovernances} {
		for _, l := range w.lines(typ) {
			if l.Rel(views.NameSurvey) == "" {
				require.Equal(t, views.TypeProjectGovernances, typ, "only the required governance comes without the survey")
				continue
			}
			require.Equal(t, id, l.Rel(views.NameSurvey))
			r := got[l.Str(views.NameSurveyRule)]
			require.Equal(t, l.ID, r.Line.ID)
			require.True(t, decimal.RequireFromString(r.Revenue).Equal(l.Dec(views.NameRevenue)), "%s %s", typ, r.Rule)
		}
	}
	pricing, err := w.Svc.Pricing(context.Background(), w.Actor, w.project)
	require.NoError(t, err)
	require.Equal(t, calc.ContractRevenueAfter, pricing.TotalContractValue.String())

	// applying again with the same answers changes nothing
	before := w.lines(views.TypeProjectServices)
	again := w.apply(id)
	for _, r := range again.Recommendations {
		require.Equal(t, "unchanged", r.Action, r.Rule)
	}
	require.Equal(t, before, w.lines(views.TypeProjectServices))
}

// Ensure a survey's problems name the question, and that apply is
// refused while there are any (422 pointing at the answer).
func TestSurveyProblems(t *testing.T) {
	w := newIntake(t)
	a := answers()
	a["users"] = "many"
	a["cloud"] = "oracle"
	delete(a, "sites")
	a["access_points"] = 0
	id := w.survey(a)
	out := w.calculate(id)
	questions, rules := map[string]string{}, map[string]string{}
	for _, p := range out.Problems {
		if p.Question != "" {
			questions[p.Question] = p.Problem
		} else {
			rules[p.Rule] = p.Problem
		}
	}
	require.Equal(t, map[string]string{"users": "kind", "sites": "missing", "access_points": "range", "cloud": "option"}, questions)
	// the rules that read an answer with a problem cannot compute
	require.Equal(t, "value", rules["assessment"])
	require.Equal(t, "value", rules["wifi_deployment"])
	_, err := w.Svc.ApplySurvey(context.Background(), w.Actor, id)
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	fields := map[string]bool{}
	for _, e := range scopekit.List(err) {
		fields[e.Field] = true
	}
	require.True(t, fields["/data/attributes/answers/users"], "%v", err)
	require.True(t, fields["/data/attributes/answers/sites"], "%v", err)
	require.Empty(t, w.lines(views.TypeProjectServices))
}

// Ensure answers that bring a line past its bound (a quantity over 10^6)
// are a problem of the rule at calculate, never a failed request: the
// survey is stored and read, calculate lists the problem, apply is
// refused and writes nothing.
func TestSurveyValuePastBound(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	qid := w.Create("questionnaires", map[string]any{"name": "Bounds", "slug": "bounds",
		"questions": []any{map[string]any{"slug": "n", "prompt": "How many?", "kind": "integer", "min": 1, "max": 100}},
		"rules":     []any{map[string]any{"slug": "svc", "service": "Assessment", "quantity": "answers.n * 1000000"}}})
	id := w.Create("surveys", map[string]any{"answers": map[string]any{"n": 2}}, "project", "projects", w.project, "questionnaire", "questionnaires", qid)
	_, err := w.Svc.List(ctx, w.Actor, "surveys", engine.ListParams{}, engine.Options{})
	require.NoError(t, err, "the account's surveys are read")
	_, err = w.Svc.Get(ctx, w.Actor, "surveys", id, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	out := w.calculate(id)
	require.Len(t, out.Problems, 1, "%+v", out.Problems)
	require.Equal(t, "svc", out.Problems[0].Rule)
	require.Equal(t, "value", out.Problems[0].Problem)
	require.Contains(t, out.Problems[0].Detail, "at most 1000000")
	_, err = w.Svc.ApplySurvey(ctx, w.Actor, id)
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.Empty(t, w.lines(views.TypeProjectServices), "nothing applied")
}
