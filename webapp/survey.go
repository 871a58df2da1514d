package webapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// The project's surveys tab (docs/workspace.md "Surveys"): a
// questionnaire answered for the project, through the use cases of the
// API and MCP (scoping.Service.SurveyQuestions, RecordAnswers,
// CalculateSurvey, ApplySurvey). The server decides which questions are
// asked: with htmx each change of an answer records it and re-renders
// the questions and the recommendations, so a conditional question
// appears or goes as the answers are given; without it the form is
// saved with its button. The recommendations are calculate's, priced as
// the lines would be; Apply writes them in one transaction.

// tabSurveys is the project page's tab of its surveys.
const tabSurveys = "surveys"

// answerField prefixes the form's answer fields (a question's slug is
// letters, digits and underscores).
const answerField = "a."

// surveyView is what the surveys tab shows: the project's surveys, the
// questionnaires to start one from, and the survey open.
type surveyView struct {
	Surveys        []surveyRow
	Questionnaires []option // active questionnaires the project has no survey of
	CanCatalog     bool     // the role reads the questionnaires
	CanChange      bool     // the role manages projects and the project is a draft
	ReadOnly       string   // why the answers cannot change ("" when they can)
	Open           *surveyForm
}

type surveyRow struct {
	Questionnaire, Name, Status, AppliedAt string
}

// surveyForm is one questionnaire's survey of the project.
type surveyForm struct {
	Questionnaire, Name, Description string
	SurveyID, Status, AppliedAt      string
	Fields                           []*formField
	Problems                         []string // every problem, as the API reports them
	Outcome                          *outcomeView
	CanApply                         bool
}

// outcomeView is calculate's answer with its figures as they are (the
// digits of the pricing run), grouped.
type outcomeView struct {
	Currency       string
	Recs           []recRow
	Removed        []string
	Conflicts      []string
	Before, After  string
	Changes        bool // applying would change a line
	AppliedAlready bool
}

type recRow struct {
	Rule, Kind, Name, Quantity, Action string
	Hours, Revenue, Cost               string
}

func (w *Workspace) surveyRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /app/{slug}/projects/{id}/surveys", w.page(w.surveysTab))
	m.HandleFunc("GET /app/{slug}/projects/{id}/surveys/{q}", w.page(w.surveyTab))
	m.HandleFunc("POST /app/{slug}/projects/{id}/surveys/{q}", w.action(w.answerSurvey))
	m.HandleFunc("POST /app/{slug}/projects/{id}/surveys/{q}/apply", w.action(w.applySurvey))
}

// surveysTab lists the project's surveys; ?questionnaire= opens one (the
// start form sends it without script).
func (w *Workspace) surveysTab(c *call) error {
	if q := c.r.URL.Query().Get("questionnaire"); q != "" {
		return c.redirect(c.url("/projects/" + url.PathEscape(c.r.PathValue("id")) + "/surveys/" + url.PathEscape(q)))
	}
	return w.surveyPage(c, "", http.StatusOK)
}

// surveyTab shows one questionnaire's survey of the project.
func (w *Workspace) surveyTab(c *call) error {
	return w.surveyPage(c, c.r.PathValue("q"), http.StatusOK)
}

func (w *Workspace) surveyPage(c *call, questionnaire string, status int) error {
	pg, err := w.projectPage(c, c.r.PathValue("id"), tabSurveys)
	if err != nil {
		return err
	}
	if pg.Survey, err = w.surveyView(c, pg, questionnaire); err != nil {
		return err
	}
	if c.r.URL.Query().Get("done") == "applied" {
		pg.L.Flash = "Applied: the project's lines follow the answers."
	}
	w.render(c.rw, status, "project", "layout", pg)
	return nil
}

// surveyView reads the project's surveys and, when questionnaire is not
// "", where its survey stands, with calculate's outcome.
func (w *Workspace) surveyView(c *call, pg *projectPage, questionnaire string) (*surveyView, error) {
	v := &surveyView{CanCatalog: c.actor.Can("catalog", false)}
	switch {
	case !c.canManage("projects"):
		v.ReadOnly = "Your role can read the answers but not change them."
	case pg.H.Status != "draft":
		v.ReadOnly = "The project is " + strings.ReplaceAll(pg.H.Status, "_", " ") + ": its surveys no longer change."
	default:
		v.CanChange = true
	}
	var questionnaires []*engine.Record
	if v.CanCatalog {
		qs, err := w.svc.List(c.ctx(), c.actor, views.TypeQuestionnaires, engine.ListParams{PageSize: 100, PageNumber: 1,
			Sort: []engine.SortSpec{{Field: views.NameName}}}, engine.Options{})
		if err != nil {
			return nil, err
		}
		questionnaires = qs.Records
	}
	names := map[string]string{}
	for _, q := range questionnaires {
		names[q.ID] = views.Questionnaire{Record: q}.Name()
	}
	surveys, err := w.svc.List(c.ctx(), c.actor, views.TypeSurveys, engine.ListParams{PageSize: 100, PageNumber: 1,
		Filters: map[string]string{views.NameProject: pg.H.ID}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	started := map[string]bool{}
	for _, s := range surveys.Records {
		sv := views.Survey{Record: s}
		row := surveyRow{Questionnaire: sv.Questionnaire(), Name: names[sv.Questionnaire()], Status: sv.Status(), AppliedAt: dateOf(sv.AppliedAt())}
		if row.Name == "" {
			row.Name = "Questionnaire " + row.Questionnaire
		}
		started[row.Questionnaire] = true
		v.Surveys = append(v.Surveys, row)
	}
	for _, q := range questionnaires {
		if !started[q.ID] {
			v.Questionnaires = append(v.Questionnaires, option{Value: q.ID, Label: names[q.ID]})
		}
	}
	if questionnaire == "" {
		return v, nil
	}
	v.Open, err = w.surveyForm(c, pg.H.ID, questionnaire, v.CanChange)
	return v, err
}

// surveyForm is where the survey stands: the questions asked, each with
// its answer and the problem of a given answer beside it, every problem
// listed, and calculate's outcome once the survey exists.
func (w *Workspace) surveyForm(c *call, projectID, questionnaire string, canChange bool) (*surveyForm, error) {
	st, err := w.svc.SurveyQuestions(c.ctx(), c.actor, projectID, questionnaire)
	if err != nil {
		return nil, err
	}
	q := views.Questionnaire{Record: st.Questionnaire}
	f := &surveyForm{Questionnaire: questionnaire, Name: q.Name(), Description: q.Description()}
	for _, qu := range st.Questions {
		f.Fields = append(f.Fields, questionField(qu))
	}
	for _, p := range st.Problems {
		f.Problems = append(f.Problems, p.Detail)
	}
	if st.Survey == nil {
		return f, nil
	}
	sv := views.Survey{Record: st.Survey}
	f.SurveyID, f.Status, f.AppliedAt = st.Survey.ID, sv.Status(), dateOf(sv.AppliedAt())
	out, err := w.svc.CalculateSurvey(c.ctx(), c.actor, st.Survey.ID)
	if err != nil {
		return nil, err
	}
	f.Problems = nil // calculate's are the whole list, the rules' included
	for _, p := range out.Problems {
		f.Problems = append(f.Problems, p.Detail)
	}
	f.Outcome = outcomeOf(out, f.Status == "applied")
	f.CanApply = canChange && len(out.Problems) == 0
	return f, nil
}

func outcomeOf(out *scoping.SurveyOutcome, applied bool) *outcomeView {
	v := &outcomeView{Currency: out.Currency, Before: group(out.ContractRevenueBefore), After: group(out.ContractRevenueAfter),
		AppliedAlready: applied}
	for _, r := range out.Recommendations {
		qty := r.Quantity
		if r.Rate != "" {
			qty += " × " + group(r.Rate)
		}
		v.Recs = append(v.Recs, recRow{Rule: r.Rule, Kind: label(r.Kind), Name: r.Name, Quantity: qty, Action: r.Action,
			Hours: group(r.Hours), Revenue: group(r.Revenue), Cost: group(r.Cost)})
		if r.Action == "add" || r.Action == "update" {
			v.Changes = true
		}
	}
	for _, l := range out.Removed {
		v.Removed = append(v.Removed, l.Name)
		v.Changes = true
	}
	for _, cf := range out.Conflicts {
		v.Conflicts = append(v.Conflicts, cf.Line.Name+": "+cf.Reason+" (the answers now recommend "+cf.Recommended+")")
	}
	return v
}

// questionField is a question as a form field, its answer as its value.
func questionField(q scoping.SurveyQuestion) *formField {
	f := &formField{ID: "q-" + q.Slug, Name: answerField + q.Slug, Label: q.Prompt, Help: q.Help, Required: q.Required, Input: "text"}
	value := answerText(q.Answer)
	switch q.Kind {
	case "boolean":
		f.Control = "select"
		f.Options = []option{{"", "—"}, {"true", "Yes"}, {"false", "No"}}
	case "single_select":
		f.Control = "select"
		f.Options = []option{{"", "—"}}
		for _, o := range q.Options {
			f.Options = append(f.Options, option{o.Slug, o.Label})
		}
	case "multi_select":
		f.Control = "multi"
		f.Selected = map[string]bool{}
		list, _ := q.Answer.([]any)
		for _, v := range list {
			if s, ok := v.(string); ok {
				f.Selected[s] = true
			}
		}
		for _, o := range q.Options {
			f.Options = append(f.Options, option{o.Slug, o.Label})
		}
	case "number", "integer":
		f.Input, f.Min = "number", q.Min
		f.Step = "any"
		if q.Kind == "integer" {
			f.Step = "1"
		}
		if q.Min != "" && q.Max != "" {
			f.Help = strings.TrimSpace(f.Help + " From " + q.Min + " to " + q.Max + ".")
		}
	case "date":
		f.Input = "date"
	}
	f.Value = value
	if q.Answer != nil && q.Problem != "" { // a missing answer is listed with the others, not shouted at
		f.Errors = []string{q.Problem}
	}
	f.describe()
	return f
}

// answerText is a recorded answer as a control's value.
func answerText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case json.Number:
		return t.String()
	case float64:
		return decimal.NewFromFloat(t).String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// plainNumber is what a number control sends as a number; anything else
// is recorded as typed, and its problem shown.
var plainNumber = regexp.MustCompile(`^-?[0-9]{1,30}(\.[0-9]{1,30})?$`)

// answerSurvey records the form's answers (blank removes one) and shows
// where the survey stands: with htmx the questions and the
// recommendations re-rendered, else the page again.
func (w *Workspace) answerSurvey(c *call) error {
	pid, q := c.r.PathValue("id"), c.r.PathValue("q")
	st, err := w.svc.SurveyQuestions(c.ctx(), c.actor, pid, q)
	if err != nil {
		return err
	}
	kinds := map[string]string{}
	for _, qu := range st.Questions {
		kinds[qu.Slug] = qu.Kind
	}
	answers := map[string]any{}
	for name, values := range c.form {
		slug, ok := strings.CutPrefix(name, answerField)
		if !ok {
			continue
		}
		if kinds[slug] != "multi_select" && len(values) > 1 {
			return scopekit.FieldErrorf(scopekit.EBADREQUEST, name, "The form repeats the answer %s.", slug)
		}
		answers[slug] = answerOf(kinds[slug], values)
	}
	if _, err := w.svc.RecordAnswers(c.ctx(), c.actor, pid, q, answers); err != nil {
		return err
	}
	if !c.htmx {
		return c.redirect(c.url("/projects/" + pid + "/surveys/" + q))
	}
	pg, err := w.projectPage(c, pid, tabSurveys)
	if err == nil {
		pg.Survey, err = w.surveyView(c, pg, q)
	}
	if err != nil {
		return err
	}
	w.render(c.rw, http.StatusOK, "project", "survey-body", pg)
	return nil
}

// answerOf is a form's answer as the API takes it: nil (no answer) for
// blank, true or false, a number, a list of options, or the text.
func answerOf(kind string, values []string) any {
	if kind == "multi_select" {
		var list []any
		for _, v := range values {
			if v != "" {
				list = append(list, v)
			}
		}
		if len(list) == 0 {
			return nil
		}
		return list
	}
	v := values[0]
	if kind != "text" {
		v = strings.TrimSpace(v)
	}
	switch {
	case strings.TrimSpace(v) == "":
		return nil
	case kind == "boolean" && (v == "true" || v == "false"):
		return v == "true"
	case (kind == "number" || kind == "integer") && plainNumber.MatchString(v):
		return json.Number(v)
	}
	return v
}

// applySurvey applies the survey (again), then shows it applied.
func (w *Workspace) applySurvey(c *call) error {
	pid, q := c.r.PathValue("id"), c.r.PathValue("q")
	st, err := w.svc.SurveyQuestions(c.ctx(), c.actor, pid, q)
	if err != nil {
		return err
	}
	if st.Survey == nil {
		return scopekit.Errorf(scopekit.EINVALID, "Answer the questions first: this survey has no answers yet.")
	}
	if _, err := w.svc.ApplySurvey(c.ctx(), c.actor, st.Survey.ID); err != nil {
		return err
	}
	return c.redirect(c.url("/projects/"+pid+"/surveys/"+q) + "?done=applied")
}
