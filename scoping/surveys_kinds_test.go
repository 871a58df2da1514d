package scoping_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// kindsQuestions has a question of every kind; kindsRules reads them.
const kindsQuestions = `[
	{"slug": "name", "prompt": "Name?", "kind": "text", "required": true},
	{"slug": "budget", "prompt": "Budget?", "kind": "number", "min": 0, "max": "1000.5"},
	{"slug": "count", "prompt": "Count?", "kind": "integer", "default": 2},
	{"slug": "flag", "prompt": "Flag?", "kind": "boolean"},
	{"slug": "pick", "prompt": "Pick?", "kind": "single_select", "options": [{"slug": "x", "label": "Ex"}, {"slug": "y", "label": "Why"}]},
	{"slug": "many", "prompt": "Many?", "kind": "multi_select", "options": [{"slug": "a", "label": "A"}, {"slug": "b", "label": "B"}]},
	{"slug": "start", "prompt": "Start?", "kind": "date", "when": "answers.flag"}]`

const kindsRules = `[
	{"slug": "here", "service": "Assessment", "quantity": "answers.count", "phase": "Design", "location": "HQ"},
	{"slug": "travel", "when": "contains(answers.many, 'a') && answers.start >= '2026-01-01'", "expense": "Travel", "rate": "answers.budget / 2"},
	{"slug": "broken", "when": "answers.pick == 'y'", "product": "Firewall appliance", "quantity": "1 / (answers.count - answers.count)"},
	{"slug": "negative", "when": "answers.pick == 'x'", "product": "Firewall appliance", "quantity": "answers.count - 5"}]`

// Ensure every kind of answer is checked (each wrong one a problem
// naming the question and what is wrong), defaults apply, a rule that
// cannot compute (division by zero, a negative quantity) is a problem at
// calculate, a service lands in its rule's phase and location (made on
// demand), and an expense's rate is computed.
func TestSurveyAnswerKinds(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	res, err := w.Svc.Create(ctx, w.Actor, views.TypeQuestionnaires, questionnaireInput("Kinds", kindsQuestions, kindsRules), engine.Options{})
	require.NoError(t, err)
	qid := res.Records[0].ID
	sid := w.Create(views.TypeSurveys, map[string]any{"answers": map[string]any{"name": "Initech", "budget": "300", "flag": true,
		"many": []string{"a"}, "start": "2026-02-01"}}, "project", "projects", w.project, "questionnaire", "questionnaires", qid)
	out := w.calculate(sid)
	require.Empty(t, out.Problems)
	recs := byRule(out.Recommendations)
	require.Equal(t, "2", recs["here"].Quantity, "the default")
	require.Equal(t, "150", recs["travel"].Rate)
	require.Equal(t, "1", recs["travel"].Quantity)
	applied := w.apply(sid)
	line := w.lineOf(sid, "here")
	loc, err := w.Svc.Get(ctx, w.Actor, views.TypeProjectLocations, line.Rel(views.NameProjectLocation), engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "HQ", loc.Records[0].Str(views.NameName))
	phase, err := w.Svc.Get(ctx, w.Actor, views.TypeProjectPhases, line.Rel(views.NameProjectPhase), engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "Design", phase.Records[0].Str(views.NameName))
	require.Equal(t, "150", w.lineOf(sid, "travel").Str(views.NameRate))
	require.NotEmpty(t, applied.ContractRevenueAfter)

	for _, tc := range []struct {
		answers       map[string]any
		slug, problem string
		detail        string
	}{
		{map[string]any{"name": 7}, "name", "kind", "name must be a text"},
		{map[string]any{"name": strings.Repeat("x", 2001)}, "name", "range", "at most 2000 characters"},
		{map[string]any{}, "name", "missing", "name needs an answer: Name?"},
		{map[string]any{"name": "n", "budget": "lots"}, "budget", "kind", `budget must be a number, not "lots"`},
		{map[string]any{"name": "n", "budget": 1e40}, "budget", "kind", "budget must be a number"},
		{map[string]any{"name": "n", "budget": -1}, "budget", "range", "budget must be at least 0, not -1"},
		{map[string]any{"name": "n", "budget": 1000.6}, "budget", "range", "budget must be at most 1000.5, not 1000.6"},
		{map[string]any{"name": "n", "count": 1.5}, "count", "kind", "count must be a whole number"},
		{map[string]any{"name": "n", "flag": "yes"}, "flag", "kind", `flag must be true or false, not "yes"`},
		{map[string]any{"name": "n", "pick": "z"}, "pick", "option", `pick must be one of x, y, not "z"`},
		{map[string]any{"name": "n", "many": "a"}, "many", "kind", "many must be a list of options (a, b)"},
		{map[string]any{"name": "n", "many": []string{"a", "c"}}, "many", "option", `many must list options of a, b, not "c"`},
		{map[string]any{"name": "n", "many": []string{"a", "a"}}, "many", "option", "many lists a twice"},
		{map[string]any{"name": "n", "flag": true, "start": "tomorrow"}, "start", "kind", `start must be a date (YYYY-MM-DD), not "tomorrow"`},
		{map[string]any{"name": "n", "pick": "y"}, "broken", "value", "rule broken: its quantity could not be computed: division by zero"},
		{map[string]any{"name": "n", "pick": "x"}, "negative", "value", "rule negative: its quantity is -3; it must be zero or more"},
	} {
		w.Update(views.TypeSurveys, sid, map[string]any{"answers": tc.answers})
		out := w.calculate(sid)
		found := false
		for _, p := range out.Problems {
			if p.Question+p.Rule == tc.slug {
				require.Equal(t, tc.problem, p.Problem, "%v", tc.answers)
				require.Contains(t, p.Detail, tc.detail)
				found = true
			}
		}
		require.True(t, found, "%v: %v", tc.answers, out.Problems)
	}
	// an answer to a question not asked is left out
	w.Update(views.TypeSurveys, sid, map[string]any{"answers": map[string]any{"name": "n", "flag": false, "start": "never"}})
	require.Empty(t, w.calculate(sid).Problems)
}

// Ensure an interview runs over several calls: the questions asked grow
// as answers arrive (a when opens a question), a wrong answer is recorded
// and reported, then corrected; null removes an answer; a slug that is no
// question is refused; a viewer reads but does not answer.
func TestSurveyInterview(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	asked := func(st *scoping.SurveyState) []string {
		var out []string
		for _, q := range st.Questions {
			out = append(out, q.Slug)
		}
		return out
	}
	st, err := w.Svc.SurveyQuestions(ctx, w.Actor, w.project, w.demo.IntakeID)
	require.NoError(t, err)
	require.Nil(t, st.Survey)
	require.Equal(t, []string{"users", "sites", "firewalls", "wifi", "cloud", "maintenance_window", "notes"}, asked(st))
	require.Equal(t, "100000", st.Questions[0].Max)
	require.Len(t, st.Questions[4].Options, 4)

	st, err = w.Svc.RecordAnswers(ctx, w.Actor, w.project, w.demo.IntakeID, map[string]any{"users": 120, "sites": "three", "wifi": true})
	require.NoError(t, err)
	require.NotNil(t, st.Survey)
	require.Contains(t, asked(st), "access_points", "wifi opens the access points question")
	var sites scoping.SurveyQuestion
	for _, q := range st.Questions {
		if q.Slug == "sites" {
			sites = q
		}
	}
	require.False(t, sites.Answered)
	require.Contains(t, sites.Problem, `sites must be a number, not "three"`)
	st, err = w.Svc.RecordAnswers(ctx, w.Actor, w.project, w.demo.IntakeID, map[string]any{"sites": 3, "firewalls": 1, "cloud": "none",
		"maintenance_window": true, "wifi": nil})
	require.NoError(t, err)
	require.NotContains(t, asked(st), "access_points")
	require.Contains(t, asked(st), "supply_firewalls")
	for _, p := range st.Problems {
		require.Equal(t, "wifi", p.Question, "only the removed wifi answer is missing: %v", p)
	}
	_, err = w.Svc.RecordAnswers(ctx, w.Actor, w.project, w.demo.IntakeID, map[string]any{"colour": "red"})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	ro := acctMember(t, w.Svc, w.Acct, "rita@acme.test", "Read Only")
	_, err = w.Svc.SurveyQuestions(ctx, ro, w.project, w.demo.IntakeID)
	require.NoError(t, err)
	_, err = w.Svc.RecordAnswers(ctx, ro, w.project, w.demo.IntakeID, map[string]any{"wifi": false})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	_, err = w.Svc.SurveyQuestions(ctx, w.Actor, "999", w.demo.IntakeID)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure a survey follows the catalog and the questionnaire as they
// change: a rule that names another record replaces its untouched line;
// a record archived since the questionnaire was saved is a problem at
// calculate (and apply is refused); an expense's rate is converted into
// the project's currency; the snapshot carries the answers for merge
// data, a select by its label.
func TestSurveyFollowsCatalog(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	sid := w.survey(answers())
	w.apply(sid)
	cloud := w.lineOf(sid, "cloud")

	snap := w.Snapshot(w.project)
	got := map[string]any{}
	for _, a := range snap.SurveyAnswers {
		got[a.Slug] = a.Value
	}
	require.Equal(t, "Microsoft Azure", got["cloud"])
	require.Equal(t, "101", got["users"])
	require.Nil(t, got["notes"])

	// the cloud rule now recommends the wireless survey
	res, err := w.Svc.Get(ctx, w.Actor, views.TypeQuestionnaires, w.demo.IntakeID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	rules := res.Records[0].Attrs[views.NameRules].([]any)
	for _, r := range rules {
		if m := r.(map[string]any); m["slug"] == "cloud" {
			m["service"] = "Wireless site survey"
		}
	}
	w.Update(views.TypeQuestionnaires, w.demo.IntakeID, map[string]any{"rules": rules})
	out := w.apply(sid)
	require.Equal(t, "add", byRule(out.Recommendations)["cloud"].Action)
	require.Equal(t, "Wireless site survey", w.lineOf(sid, "cloud").Str(views.NameName))
	_, err = w.Svc.Get(ctx, w.Actor, views.TypeProjectServices, cloud.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "the old line is replaced")

	// a product archived since
	ap, err := w.Svc.List(ctx, w.Actor, views.TypeProducts, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	for _, p := range ap.Records {
		if p.Str(views.NameName) == "Wireless access point" {
			w.Update(views.TypeProducts, p.ID, map[string]any{"active": false})
		}
	}
	calc := w.calculate(sid)
	require.Len(t, calc.Problems, 1)
	require.Equal(t, "catalog", calc.Problems[0].Problem)
	require.Contains(t, calc.Problems[0].Detail, `rule access_points: the product "Wireless access point" is archived`)
	_, err = w.Svc.ApplySurvey(ctx, w.Actor, sid)
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))

	// a project in euros takes the expense rate converted
	w.Create(views.TypeCurrencies, map[string]any{"code": "EUR", "name": "Euro", "conversion-rate": "0.92"})
	table := w.Create(views.TypeRateTables, map[string]any{"name": "Standard EUR", "currency": "EUR"})
	eur := w.Create(views.TypeProjects, map[string]any{"project-name": "Euro refresh"}, "client", "clients", w.demo.ClientID,
		"rate-table", "rate-tables", table)
	a := answers()
	a["wifi"] = false
	esid := w.Create(views.TypeSurveys, map[string]any{"answers": a}, "project", "projects", eur, "questionnaire", "questionnaires", w.demo.IntakeID)
	eout := w.apply(esid)
	require.Equal(t, "EUR", eout.Currency)
	require.True(t, decimal.RequireFromString("414").Equal(decimal.RequireFromString(byRule(eout.Recommendations)["site_visits"].Rate)),
		"450 USD at 0.92")
}
