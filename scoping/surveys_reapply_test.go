package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

var lineTypes = []string{views.TypeProjectServices, views.TypeProjectGovernances, views.TypeProjectProducts, views.TypeProjectExpenses}

// surveyLines lists the lines of the project the survey added, by type
// and id (ids are unique per type).
func (w *intake) surveyLines(sid string) map[string]*engine.Record {
	w.TB.Helper()
	out := map[string]*engine.Record{}
	for _, typ := range lineTypes {
		res, err := w.Svc.List(context.Background(), w.Actor, typ, engine.ListParams{Filters: map[string]string{"survey": sid}}, engine.Options{})
		require.NoError(w.TB, err)
		for _, r := range res.Records {
			out[r.Type+"/"+r.ID] = r
		}
	}
	return out
}

func key(r *engine.Record) string { return r.Type + "/" + r.ID }

// lineOf returns the survey's line of a rule.
func (w *intake) lineOf(sid, rule string) *engine.Record {
	w.TB.Helper()
	for _, l := range w.surveyLines(sid) {
		if l.Str(views.NameSurveyRule) == rule {
			return l
		}
	}
	w.TB.Fatalf("no line of rule %s", rule)
	return nil
}

// Ensure applying after the answers changed updates and removes the
// survey's untouched lines, keeps edited ones (reported as conflicts),
// and that a survey whose answers change is a draft until applied again.
func TestSurveyReapply(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	sid := w.survey(answers())
	w.apply(sid)
	cloud := w.lineOf(sid, "cloud")
	w.Update(views.TypeProjectServices, cloud.ID, map[string]any{"quantity": "2"}) // someone edits it
	wifi := w.lineOf(sid, "wifi_survey")

	a := answers()
	a["wifi"], a["cloud"], a["sites"], a["maintenance_window"] = false, "none", 2, true
	w.Update(views.TypeSurveys, sid, map[string]any{"answers": a})
	res, err := w.Svc.Get(ctx, w.Actor, views.TypeSurveys, sid, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "draft", res.Records[0].Str(views.NameStatus), "new answers make it a draft")

	out := w.apply(sid)
	recs := byRule(out.Recommendations)
	require.Equal(t, "update", recs["assessment"].Action)
	require.Equal(t, "2", recs["assessment"].Quantity)
	require.Equal(t, "update", recs["per_diem"].Action)
	require.Equal(t, "unchanged", recs["firewall_deployment"].Action)
	require.NotContains(t, recs, "cloud")
	removed := map[string]bool{}
	for _, l := range out.Removed {
		removed[l.Rule] = true
	}
	require.Equal(t, map[string]bool{"wifi_survey": true, "wifi_deployment": true, "access_points": true, "cutover": true, "cutover_coordination": true}, removed)
	require.Len(t, out.Conflicts, 1)
	require.Equal(t, cloud.ID, out.Conflicts[0].Line.ID)
	require.Equal(t, "removed", out.Conflicts[0].Recommended)

	lines := w.surveyLines(sid)
	require.Contains(t, lines, key(cloud), "the edited line stays")
	require.Equal(t, "2", lines[key(cloud)].Str(views.NameQuantity))
	require.NotContains(t, lines, key(wifi))
	require.Equal(t, "2", w.lineOf(sid, "assessment").Str(views.NameQuantity))
	res, err = w.Svc.Get(ctx, w.Actor, views.TypeSurveys, sid, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "applied", res.Records[0].Str(views.NameStatus))
	require.NotEmpty(t, res.Records[0].Str(views.NameAppliedAt))

	// the edited line's rule firing again: the line is kept, not doubled
	a["cloud"] = "aws"
	w.Update(views.TypeSurveys, sid, map[string]any{"answers": a})
	out = w.apply(sid)
	require.Equal(t, "kept", byRule(out.Recommendations)["cloud"].Action)
	require.Equal(t, "quantity 1", out.Conflicts[0].Recommended)
	n := 0
	for _, l := range w.surveyLines(sid) {
		if l.Str(views.NameSurveyRule) == "cloud" {
			n++
		}
	}
	require.Equal(t, 1, n)
}

// Ensure a survey of a project that is not being built is read-only
// (409) but may still be calculated, and that a survey is checked on
// write: its answers' slugs, one per project and questionnaire, a
// questionnaire that does not change.
func TestSurveyRules(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	sid := w.survey(answers())
	in := func(attrs map[string]any, rels map[string]engine.RelInput) *engine.Input {
		return &engine.Input{Attrs: w.attrsOf(attrs), Rels: rels}
	}
	_, err := w.Svc.Update(ctx, w.Actor, views.TypeSurveys, sid, in(map[string]any{"answers": map[string]any{"colour": "red"}}, nil), engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.Equal(t, "/data/attributes/answers/colour", scopekit.List(err)[0].Field)
	_, err = w.Svc.Create(ctx, w.Actor, views.TypeSurveys, in(nil, map[string]engine.RelInput{
		"project": rel("projects", w.project), "questionnaire": rel("questionnaires", w.demo.IntakeID)}), engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.Contains(t, err.Error(), "has a survey of this questionnaire already")
	other := w.Create(views.TypeQuestionnaires, map[string]any{"name": "Other", "slug": "other"})
	_, err = w.Svc.Update(ctx, w.Actor, views.TypeSurveys, sid, in(nil, map[string]engine.RelInput{"questionnaire": rel("questionnaires", other)}), engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	w.Update(views.TypeQuestionnaires, other, map[string]any{"active": false})
	_, err = w.Svc.Create(ctx, w.Actor, views.TypeSurveys, in(nil, map[string]engine.RelInput{
		"project": rel("projects", w.project), "questionnaire": rel("questionnaires", other)}), engine.Options{})
	require.Contains(t, err.Error(), "is archived")

	// the computed attributes on a read
	res, err := w.Svc.Get(ctx, w.Actor, views.TypeSurveys, sid, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, res.Records[0].Attrs[views.NameRecommendations], 11)
	require.Empty(t, res.Records[0].Attrs[views.NameProblems])

	w.apply(sid)
	w.Update(views.TypeProjects, w.project, map[string]any{"status": "approved"})
	_, err = w.Svc.Update(ctx, w.Actor, views.TypeSurveys, sid, in(map[string]any{"answers": answers()}, nil), engine.Options{})
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	_, err = w.Svc.ApplySurvey(ctx, w.Actor, sid)
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(w.Svc.Delete(ctx, w.Actor, views.TypeSurveys, sid, engine.Options{})))
	_, err = w.Svc.Create(ctx, w.Actor, views.TypeSurveys, in(nil, map[string]engine.RelInput{
		"project": rel("projects", w.project), "questionnaire": rel("questionnaires", other)}), engine.Options{})
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	out := w.calculate(sid)
	for _, r := range out.Recommendations {
		require.Equal(t, "unchanged", r.Action)
	}

	// back to draft, the survey goes; its lines stay, unlinked
	w.Update(views.TypeProjects, w.project, map[string]any{"status": "canceled"})
	w.Update(views.TypeProjects, w.project, map[string]any{"status": "draft"})
	lines := w.surveyLines(sid)
	require.NoError(t, w.Svc.Delete(ctx, w.Actor, views.TypeSurveys, sid, engine.Options{}))
	for _, l := range lines {
		res, err := w.Svc.Get(ctx, w.Actor, l.Type, l.ID, engine.ListParams{}, engine.Options{})
		require.NoError(t, err)
		require.Empty(t, res.Records[0].Rel(views.NameSurvey))
	}
	// a viewer calculates but does not apply
	ro := acctMember(t, w.Svc, w.Acct, "rita@acme.test", "Read Only")
	sid = w.survey(answers())
	_, err = w.Svc.CalculateSurvey(ctx, ro, sid)
	require.NoError(t, err)
	_, err = w.Svc.ApplySurvey(ctx, ro, sid)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

func (w *intake) attrsOf(attrs map[string]any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range attrs {
		b, err := json.Marshal(v)
		require.NoError(w.TB, err)
		out[k] = b
	}
	return out
}

// oracle is what the intake recommends for valid answers, by rule: the
// quantity ("" for governance). It restates docs/questionnaires.md's
// rules in Go.
func oracle(a map[string]any) map[string]string {
	n := func(k string) int { v, _ := a[k].(int); return v }
	b := func(k string) bool { v, _ := a[k].(bool); return v }
	sites, fw := n("sites"), n("firewalls")
	m := map[string]string{"assessment": fmt.Sprint(sites), "per_diem": fmt.Sprint(sites * 2)}
	if fw > 0 {
		m["firewall_deployment"] = fmt.Sprint(fw)
		if b("supply_firewalls") {
			m["firewall_appliances"] = fmt.Sprint(fw)
		}
	}
	if b("wifi") {
		ap := n("access_points")
		if ap == 0 {
			ap = (n("users") + 49) / 50
		}
		m["wifi_survey"], m["wifi_deployment"], m["access_points"] = fmt.Sprint(sites), fmt.Sprint(ap), fmt.Sprint(ap)
	}
	if a["cloud"] != "none" {
		m["cloud"] = "1"
	}
	if !b("maintenance_window") {
		m["cutover"], m["cutover_coordination"] = fmt.Sprint(sites), ""
	}
	if sites > 1 {
		m["site_visits"] = fmt.Sprint(sites - 1)
	}
	return m
}

func randomAnswers(r *rand.Rand) map[string]any {
	a := map[string]any{"users": 1 + r.IntN(400), "sites": 1 + r.IntN(6), "firewalls": r.IntN(4), "wifi": r.IntN(2) == 0,
		"cloud": []string{"none", "aws", "azure", "gcp"}[r.IntN(4)], "maintenance_window": r.IntN(2) == 0}
	if a["firewalls"].(int) > 0 && r.IntN(2) == 0 {
		a["supply_firewalls"] = true
	}
	if a["wifi"].(bool) && r.IntN(2) == 0 {
		a["access_points"] = 1 + r.IntN(20)
	}
	return a
}

// Property: whatever the answers and whatever is edited or deleted in
// between, an apply leaves exactly the recommended lines (the oracle's
// rules and quantities) plus the edited ones, and a second apply changes
// nothing at all.
func TestSurveyApplyProperties(t *testing.T) {
	for _, seed := range []uint64{33, 7, 2026} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { surveyApplyProperties(t, seed) })
	}
}

func surveyApplyProperties(t *testing.T, seed uint64) {
	w := newIntake(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(seed, 1))
	sid := w.survey(randomAnswers(r))
	edited := map[string]*engine.Record{} // the lines edited, as edited
	for round := range 12 {
		a := randomAnswers(r)
		w.Update(views.TypeSurveys, sid, map[string]any{"answers": a})
		out := w.apply(sid)
		want := oracle(a)
		got := map[string]string{}
		lines := w.surveyLines(sid)
		for _, rec := range out.Recommendations {
			got[rec.Rule] = rec.Quantity
			require.NotNil(t, rec.Line)
			line := lines[rec.Line.Type+"/"+rec.Line.ID]
			require.NotNil(t, line, "round %d: the line of %s is there", round, rec.Rule)
			if rec.Action == "kept" {
				require.Contains(t, edited, key(line), "round %d: only an edited line is kept", round)
				continue
			}
			require.NotContains(t, edited, key(line))
			if rec.Quantity != "" {
				require.Equal(t, rec.Quantity, line.Str(views.NameQuantity), "round %d: %s", round, rec.Rule)
			}
		}
		require.Equal(t, want, got, "round %d: the recommendations are the oracle's for %v", round, a)
		// every line of the survey is a recommended one or an edited one
		for k, l := range lines {
			inRecs := slices.ContainsFunc(out.Recommendations, func(rec scoping.Recommendation) bool { return rec.Line.Type == l.Type && rec.Line.ID == l.ID })
			require.True(t, inRecs || edited[k] != nil, "round %d: line %s (%s) is neither", round, k, l.Str(views.NameSurveyRule))
		}
		for id, e := range edited {
			require.Contains(t, lines, id, "round %d: an edited line stays", round)
			require.Equal(t, e.Attrs[views.NameQuantity], lines[id].Attrs[views.NameQuantity])
		}
		// idempotent: a second apply changes nothing, not even updated-at
		again := w.apply(sid)
		require.Empty(t, again.Removed)
		for _, rec := range again.Recommendations {
			require.Contains(t, []string{"unchanged", "kept"}, rec.Action)
		}
		require.Equal(t, lines, w.surveyLines(sid))

		// edit or delete a few of the survey's untouched lines
		for _, k := range slices.Sorted(maps.Keys(lines)) {
			l := lines[k]
			if edited[k] != nil || r.IntN(4) != 0 || l.Type == views.TypeProjectGovernances {
				continue
			}
			if r.IntN(3) == 0 {
				require.NoError(t, w.Svc.Delete(ctx, w.Actor, l.Type, l.ID, engine.Options{}))
				continue
			}
			w.Update(l.Type, l.ID, map[string]any{"quantity": "99"})
			res, err := w.Svc.Get(ctx, w.Actor, l.Type, l.ID, engine.ListParams{}, engine.Options{})
			require.NoError(t, err)
			edited[k] = res.Records[0]
		}
	}
}
