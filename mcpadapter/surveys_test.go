package mcpadapter_test

import (
	"testing"

	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slugs lists the questions of an interview's to_ask.
func slugs(out mcpadapter.SurveyQuestionsOutput) []string {
	var s []string
	for _, q := range out.ToAsk {
		s = append(s, q.Slug)
	}
	return s
}

func toAsk(out mcpadapter.SurveyQuestionsOutput, slug string) mcpadapter.QuestionItem {
	for _, q := range out.ToAsk {
		if q.Slug == slug {
			return q
		}
	}
	return mcpadapter.QuestionItem{}
}

// Ensure an assistant runs the demo intake through the go-sdk client as
// it would with a person: it finds the questionnaire, asks the questions
// still to ask over several calls (a when opens a question once its
// answer is given), records a wrong answer, reads its problem and
// records the correction, then calculates, applies and finds the scope
// and price the calculation announced.
func TestSurveyInterviewTools(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)

	var list mcpadapter.ListQuestionnairesOutput
	c.call(t, mcpadapter.ToolListQuestionnaires, map[string]any{"query": "intake"}, &list)
	require.Len(t, list.Questionnaires, 1)
	intake := list.Questionnaires[0]
	assert.Equal(t, demodata.IntakeName, intake.Name)
	assert.Equal(t, 10, intake.Questions)

	var project mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolCreateProject, map[string]any{"name": "Initech network refresh", "client": "Globex"}, &project)
	args := func(more map[string]any) map[string]any {
		m := map[string]any{"project_id": project.ID, "questionnaire": "network_refresh"}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	assert.Contains(t, c.fail(t, mcpadapter.ToolCalculateSurvey, args(nil)), "no answers are recorded")

	var st mcpadapter.SurveyQuestionsOutput
	c.call(t, mcpadapter.ToolSurveyQuestions, args(nil), &st)
	assert.Equal(t, []string{"users", "sites", "firewalls", "wifi", "cloud", "maintenance_window", "notes"}, slugs(st))
	assert.False(t, st.Ready)
	assert.Empty(t, st.SurveyID)

	// the first answers: one is wrong
	c.call(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"users": 101, "sites": "three"}}), &st)
	assert.NotEmpty(t, st.SurveyID)
	assert.Equal(t, float64(101), st.Answered["users"])
	assert.Contains(t, toAsk(st, "sites").Problem, `sites must be a number, not "three"`)
	assert.Equal(t, "three", toAsk(st, "sites").Answer)

	// the correction, and more: Wi-Fi opens the access points question
	c.call(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"sites": 3, "firewalls": 2, "wifi": true}}), &st)
	assert.NotContains(t, slugs(st), "sites")
	assert.Contains(t, slugs(st), "access_points")
	assert.Contains(t, slugs(st), "supply_firewalls")

	// a label given for an option: refused with the options listed, then corrected
	c.call(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"cloud": "Microsoft Azure", "supply_firewalls": true,
		"maintenance_window": false}}), &st)
	assert.Contains(t, toAsk(st, "cloud").Problem, "cloud must be one of none, aws, azure, gcp")
	require.Len(t, toAsk(st, "cloud").Options, 4)
	assert.False(t, st.Ready)
	c.call(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"cloud": "azure"}}), &st)
	assert.True(t, st.Ready, "%v", st.Problems)
	assert.Equal(t, []string{"access_points", "notes"}, slugs(st), "only optional questions are left")

	// a slug that is no question is refused, naming it
	assert.Contains(t, c.fail(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"colour": "red"}})),
		"no question of the questionnaire has the slug colour")

	var calc, applied mcpadapter.SurveyOutcomeOutput
	c.call(t, mcpadapter.ToolCalculateSurvey, args(nil), &calc)
	assert.False(t, calc.Applied)
	rec := map[string]mcpadapter.RecommendationItem{}
	for _, r := range calc.Recommendations {
		rec[r.Rule] = r
		assert.Equal(t, "add", r.Action)
	}
	assert.Equal(t, "3", rec["wifi_deployment"].Quantity, "ceil(101 / 50)")
	// 3 sites × 8 h at 200, and the subservices Site survey 4.5 h at 200 and Report 4 h at 250
	assert.Equal(t, "6700.00", rec["assessment"].Revenue)
	assert.Equal(t, "900.00", rec["wifi_deployment"].Revenue) // 3 × 1.5 h at 200
	assert.Equal(t, "1350.00", rec["access_points"].Revenue)  // 3 × 450
	assert.Equal(t, "900.00", rec["site_visits"].Revenue)     // 2 × 450

	c.call(t, mcpadapter.ToolApplySurvey, args(nil), &applied)
	assert.True(t, applied.Applied)
	assert.Equal(t, calc.RevenueAfter, applied.RevenueAfter)
	var got mcpadapter.ProjectDetail
	c.call(t, mcpadapter.ToolGetProject, map[string]any{"project_id": project.ID}, &got)
	assert.Equal(t, calc.RevenueAfter, got.Pricing.TotalContractValue.String(), "the project's price is the calculation's")
	var items mcpadapter.ListItemsOutput
	c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": project.ID, "type": "services"}, &items)
	var names []string
	for _, it := range items.Items {
		names = append(names, it.Name)
	}
	assert.ElementsMatch(t, []string{"Assessment", "Firewall deployment", "Wireless site survey", "Wireless deployment",
		"Cloud connectivity", "After-hours cutover"}, names)

	// applying again changes nothing
	c.call(t, mcpadapter.ToolApplySurvey, args(nil), &applied)
	for _, r := range applied.Recommendations {
		assert.Equal(t, "unchanged", r.Action, r.Rule)
	}
	assert.Empty(t, applied.Removed)

	// a questionnaire that is not there is an error naming what is
	assert.Contains(t, c.fail(t, mcpadapter.ToolSurveyQuestions, map[string]any{"project_id": project.ID, "questionnaire": "nope"}),
		`no questionnaire has the id or name "nope"; there are "Network refresh intake"`)
	// a role that reads projects does not answer
	_, viewer := f.user("acme", "viewer@acme.test", "Read Only")
	v := f.connect(t, viewer)
	v.call(t, mcpadapter.ToolSurveyQuestions, args(nil), &st)
	assert.Contains(t, v.fail(t, mcpadapter.ToolAnswerSurvey, args(map[string]any{"answers": map[string]any{"notes": "x"}})), "forbidden")
	assert.Contains(t, v.fail(t, mcpadapter.ToolApplySurvey, args(nil)), "forbidden")
}
