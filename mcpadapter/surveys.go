package mcpadapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// Guided scoping over MCP (docs/questionnaires.md): an assistant lists the
// questionnaires, reads the questions still to ask, records the answers a
// person gives (a few at a time; a wrong one is reported and corrected),
// then calculates and applies the recommendations. A project's survey of
// a questionnaire is found by the two: the tools take the project and the
// questionnaire, never a survey id.

// Tool names.
const (
	ToolListQuestionnaires = "scopekit_list_questionnaires"
	ToolSurveyQuestions    = "scopekit_get_survey_questions"
	ToolAnswerSurvey       = "scopekit_answer_survey"
	ToolCalculateSurvey    = "scopekit_calculate_survey"
	ToolApplySurvey        = "scopekit_apply_survey"
)

// ListQuestionnairesInput are the arguments of scopekit_list_questionnaires.
type ListQuestionnairesInput struct {
	Query string `json:"query,omitempty" jsonschema:"a part of the name to look for (default: all)"`
}

// ListQuestionnairesOutput lists questionnaires.
type ListQuestionnairesOutput struct {
	Questionnaires []QuestionnaireItem `json:"questionnaires"`
}

// QuestionnaireItem is one questionnaire.
type QuestionnaireItem struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Slug        string   `json:"slug"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Questions   int      `json:"questions" jsonschema:"how many questions it has (some are asked only on some answers)"`
	Rules       int      `json:"rules"`
}

// SurveyInput names a project's survey of a questionnaire.
type SurveyInput struct {
	ProjectID     ID `json:"project_id" jsonschema:"the project's id"`
	Questionnaire ID `json:"questionnaire" jsonschema:"a questionnaire: its id, slug, or exact or unambiguous name"`
}

// AnswerSurveyInput are the arguments of scopekit_answer_survey.
type AnswerSurveyInput struct {
	SurveyInput
	Answers map[string]AnswerValue `json:"answers" jsonschema:"answers by question slug: a text, a number, true or false, an option's slug (a list of them for a multi select), a date as YYYY-MM-DD; null removes an answer. Answers given before are kept."`
}

// AnswerValue is an answer as the assistant sent it (any JSON value),
// kept as written so that a number keeps every digit.
type AnswerValue json.RawMessage

// UnmarshalJSON keeps the raw value.
func (v *AnswerValue) UnmarshalJSON(b []byte) error {
	*v = append((*v)[:0], b...)
	return nil
}

// SurveyQuestionsOutput is where an interview stands.
type SurveyQuestionsOutput struct {
	ProjectID     string `json:"project_id"`
	Questionnaire string `json:"questionnaire"`
	SurveyID      string `json:"survey_id" jsonschema:"empty until the first answers are recorded"`
	// ToAsk are the questions asked that have no valid answer yet.
	ToAsk    []QuestionItem `json:"to_ask" jsonschema:"the questions still to ask, in order: unanswered, or answered with a problem (see problem); a question appears once the answers it depends on are given"`
	Answered map[string]any `json:"answered" jsonschema:"the valid answers so far, by question slug"`
	Problems []ProblemItem  `json:"problems" jsonschema:"what is wrong: an answer missing, of the wrong kind, out of range or not an option; a rule that cannot compute"`
	Ready    bool           `json:"ready" jsonschema:"true when nothing is missing or wrong: calculate and apply will work"`
}

// QuestionItem is one question to ask.
type QuestionItem struct {
	Slug     string       `json:"slug"`
	Prompt   string       `json:"prompt"`
	Help     string       `json:"help,omitempty"`
	Kind     string       `json:"kind" jsonschema:"text, number, integer, boolean, single_select, multi_select or date"`
	Options  []OptionItem `json:"options,omitempty" jsonschema:"for a select: answer with the option's slug"`
	Required bool         `json:"required"`
	Min      string       `json:"min,omitempty"`
	Max      string       `json:"max,omitempty"`
	Default  any          `json:"default,omitempty" jsonschema:"what stands for the answer when none is given"`
	Answer   any          `json:"answer,omitempty" jsonschema:"the answer recorded, when it has a problem"`
	Problem  string       `json:"problem,omitempty"`
}

// OptionItem is an option of a select.
type OptionItem struct {
	Slug  string `json:"slug"`
	Label string `json:"label"`
}

// ProblemItem is one problem of a survey.
type ProblemItem struct {
	Question string `json:"question,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Problem  string `json:"problem"`
	Detail   string `json:"detail"`
}

// SurveyOutcomeOutput is what applying the survey does, or would do.
type SurveyOutcomeOutput struct {
	ProjectID       string               `json:"project_id"`
	SurveyID        string               `json:"survey_id"`
	Applied         bool                 `json:"applied" jsonschema:"true when the lines were written"`
	Currency        string               `json:"currency"`
	Problems        []ProblemItem        `json:"problems"`
	Recommendations []RecommendationItem `json:"recommendations"`
	Removed         []SurveyLineItem     `json:"removed" jsonschema:"lines the survey added whose rule no longer fires: removed"`
	Conflicts       []ConflictItem       `json:"conflicts" jsonschema:"lines the survey added that someone edited since: kept as they are"`
	RevenueBefore   string               `json:"contract_revenue_before"`
	RevenueAfter    string               `json:"contract_revenue_after"`
}

// RecommendationItem is one rule that fires.
type RecommendationItem struct {
	Rule     string          `json:"rule"`
	Kind     string          `json:"kind" jsonschema:"service, governance, product or expense"`
	Name     string          `json:"name"`
	Quantity string          `json:"quantity,omitempty"`
	Rate     string          `json:"rate,omitempty"`
	Action   string          `json:"action" jsonschema:"add, update, unchanged, or kept (an edited line left as it is)"`
	Line     *SurveyLineItem `json:"line,omitempty"`
	Hours    string          `json:"hours,omitempty"`
	Revenue  string          `json:"revenue"`
	Cost     string          `json:"cost"`
}

// SurveyLineItem is a project line a survey added.
type SurveyLineItem struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Rule string `json:"rule"`
}

// ConflictItem is an edited line a survey keeps.
type ConflictItem struct {
	Line        SurveyLineItem `json:"line"`
	Recommended string         `json:"recommended"`
	Reason      string         `json:"reason"`
}

func (t *tools) registerSurveys(srv *mcp.Server, checks map[string]enums) {
	addTool(srv, checks, &mcp.Tool{Name: ToolListQuestionnaires, Annotations: readOnly,
		Description: "List the account's questionnaires: intake interviews whose answers recommend services, governance, " +
			"products and expenses for a project. Start an interview with " + ToolSurveyQuestions + "."},
		t.listQuestionnaires, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolSurveyQuestions, Annotations: readOnly,
		Description: "Read the questions still to ask in a project's interview of a questionnaire (only those that apply " +
			"to the answers so far; more appear as answers are given), the answers recorded and their problems. Ask the " +
			"person the questions in to_ask, in order, then record the answers with " + ToolAnswerSurvey + "."},
		t.surveyQuestions, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolAnswerSurvey, Annotations: overwrites,
		Description: "Record answers in a project's interview of a questionnaire (a few at a time is fine; answers given " +
			"before are kept, null removes one). An answer with a problem is recorded too and reported: ask again and " +
			"record the corrected answer. Returns the questions still to ask."},
		t.answerSurvey, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolCalculateSurvey, Annotations: readOnly,
		Description: "What applying the interview's answers would add to the project, priced exactly as the lines would " +
			"be (each recommendation's hours, revenue and cost, and the contract revenue before and after). Writes nothing."},
		t.calculateSurvey, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolApplySurvey, Annotations: overwrites,
		Description: "Bring the project to the interview's recommendations, in one step: lines added from the catalog, the " +
			"interview's earlier lines updated or removed as the answers changed; lines someone edited since are kept and " +
			"listed as conflicts. Applying again with the same answers changes nothing. Refused while there are problems."},
		t.applySurvey, nil)
}

func (t *tools) listQuestionnaires(ctx context.Context, req *mcp.CallToolRequest, in ListQuestionnairesInput) (*mcp.CallToolResult, ListQuestionnairesOutput, error) {
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return nil, ListQuestionnairesOutput{}, t.fail(err)
	}
	p := engine.ListParams{Filters: map[string]string{}, PageSize: MaxLimit, PageNumber: 1}
	if q := strings.TrimSpace(in.Query); q != "" {
		p.Filters[views.NameName] = q
	}
	res, err := t.s.Svc.List(ctx, a, views.TypeQuestionnaires, p, opts)
	if err != nil {
		return nil, ListQuestionnairesOutput{}, t.failWrite(err, map[string]string{views.NameName: "query"})
	}
	out := ListQuestionnairesOutput{Questionnaires: make([]QuestionnaireItem, 0, len(res.Records))}
	for _, r := range res.Records {
		q := views.Questionnaire{Record: r}
		qs, _ := r.Attrs[views.NameQuestions].([]any)
		rs, _ := r.Attrs[views.NameRules].([]any)
		out.Questionnaires = append(out.Questionnaires, QuestionnaireItem{ID: r.ID, Name: q.Name(), Slug: q.Slug(),
			Description: q.Description(), Tags: append([]string{}, q.Tags()...), Questions: len(qs), Rules: len(rs)})
	}
	return nil, out, nil
}

// survey resolves a tool's project and questionnaire.
func (t *tools) survey(ctx context.Context, req *mcp.CallToolRequest, in SurveyInput) (pid, qid string, a *engine.Actor, err error) {
	pid, a, err = t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return "", "", nil, err
	}
	l := lookup{arg: "questionnaire", what: "questionnaire", typ: views.TypeQuestionnaires}
	q, err := t.find(ctx, a, l, in.Questionnaire)
	if err != nil {
		return "", "", nil, err
	}
	if q == nil { // a slug
		res, err := t.s.Svc.List(ctx, a, views.TypeQuestionnaires, engine.ListParams{
			Filters: map[string]string{views.NameSlug: strings.TrimSpace(string(in.Questionnaire))}, PageSize: 1, PageNumber: 1}, opts)
		if err == nil && len(res.Records) == 1 {
			return pid, res.Records[0].ID, a, nil
		}
		if q, err = t.resolve(ctx, a, l, in.Questionnaire); err != nil {
			return "", "", nil, err
		}
	}
	return pid, q.ID, a, nil
}

func (t *tools) surveyQuestions(ctx context.Context, req *mcp.CallToolRequest, in SurveyInput) (*mcp.CallToolResult, SurveyQuestionsOutput, error) {
	pid, qid, a, err := t.survey(ctx, req, in)
	if err != nil {
		return nil, SurveyQuestionsOutput{}, err
	}
	st, err := t.s.Svc.SurveyQuestions(ctx, a, pid, qid)
	if err != nil {
		return nil, SurveyQuestionsOutput{}, t.fail(err)
	}
	return nil, questionsOutput(pid, st), nil
}

func (t *tools) answerSurvey(ctx context.Context, req *mcp.CallToolRequest, in AnswerSurveyInput) (*mcp.CallToolResult, SurveyQuestionsOutput, error) {
	pid, qid, a, err := t.survey(ctx, req, in.SurveyInput)
	if err != nil {
		return nil, SurveyQuestionsOutput{}, err
	}
	if len(in.Answers) == 0 {
		return nil, SurveyQuestionsOutput{}, argError("answers", "give at least one answer, by question slug")
	}
	answers := make(map[string]any, len(in.Answers))
	for slug, raw := range in.Answers {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, SurveyQuestionsOutput{}, argError("answers", "the answer to %s is not a JSON value", slug)
		}
		answers[slug] = v
	}
	st, err := t.s.Svc.RecordAnswers(ctx, a, pid, qid, answers)
	if err != nil {
		return nil, SurveyQuestionsOutput{}, t.failWrite(err, map[string]string{views.NameAnswers: "answers"})
	}
	return nil, questionsOutput(pid, st), nil
}

// questionsOutput is where an interview stands, for the assistant.
func questionsOutput(pid string, st *scoping.SurveyState) SurveyQuestionsOutput {
	out := SurveyQuestionsOutput{ProjectID: pid, Questionnaire: views.Questionnaire{Record: st.Questionnaire}.Name(),
		ToAsk: []QuestionItem{}, Answered: map[string]any{}, Problems: problemItems(st.Problems)}
	if st.Survey != nil {
		out.SurveyID = st.Survey.ID
	}
	for _, q := range st.Questions {
		if q.Answered {
			out.Answered[q.Slug] = q.Answer
			continue
		}
		item := QuestionItem{Slug: q.Slug, Prompt: q.Prompt, Help: q.Help, Kind: q.Kind, Required: q.Required,
			Min: q.Min, Max: q.Max, Default: q.Default, Answer: q.Answer, Problem: q.Problem}
		for _, o := range q.Options {
			item.Options = append(item.Options, OptionItem{Slug: o.Slug, Label: o.Label})
		}
		out.ToAsk = append(out.ToAsk, item)
	}
	out.Ready = len(st.Problems) == 0
	return out
}

func problemItems(ps []scoping.SurveyProblem) []ProblemItem {
	out := make([]ProblemItem, len(ps))
	for i, p := range ps {
		out[i] = ProblemItem{Question: p.Question, Rule: p.Rule, Problem: p.Problem, Detail: p.Detail}
	}
	return out
}

func (t *tools) calculateSurvey(ctx context.Context, req *mcp.CallToolRequest, in SurveyInput) (*mcp.CallToolResult, SurveyOutcomeOutput, error) {
	return t.surveyOutcome(ctx, req, in, false)
}

func (t *tools) applySurvey(ctx context.Context, req *mcp.CallToolRequest, in SurveyInput) (*mcp.CallToolResult, SurveyOutcomeOutput, error) {
	return t.surveyOutcome(ctx, req, in, true)
}

// errNoAnswers is the error of a calculation or apply before any answer.
var errNoAnswers = errors.New("invalid: no answers are recorded for this project and questionnaire yet: record them with " + ToolAnswerSurvey)

func (t *tools) surveyOutcome(ctx context.Context, req *mcp.CallToolRequest, in SurveyInput, apply bool) (*mcp.CallToolResult, SurveyOutcomeOutput, error) {
	pid, qid, a, err := t.survey(ctx, req, in)
	if err != nil {
		return nil, SurveyOutcomeOutput{}, err
	}
	st, err := t.s.Svc.SurveyQuestions(ctx, a, pid, qid)
	if err != nil {
		return nil, SurveyOutcomeOutput{}, t.fail(err)
	}
	if st.Survey == nil {
		return nil, SurveyOutcomeOutput{}, errNoAnswers
	}
	run := t.s.Svc.CalculateSurvey
	if apply {
		run = t.s.Svc.ApplySurvey
	}
	o, err := run(ctx, a, st.Survey.ID)
	if err != nil {
		return nil, SurveyOutcomeOutput{}, t.failWrite(err, map[string]string{views.NameAnswers: "answers"})
	}
	out := SurveyOutcomeOutput{ProjectID: pid, SurveyID: st.Survey.ID, Applied: o.Applied, Currency: o.Currency,
		Problems: problemItems(o.Problems), Recommendations: make([]RecommendationItem, 0, len(o.Recommendations)),
		Removed: make([]SurveyLineItem, 0, len(o.Removed)), Conflicts: make([]ConflictItem, 0, len(o.Conflicts)),
		RevenueBefore: o.ContractRevenueBefore, RevenueAfter: o.ContractRevenueAfter}
	for _, r := range o.Recommendations {
		item := RecommendationItem{Rule: r.Rule, Kind: r.Kind, Name: r.Name, Quantity: r.Quantity, Rate: r.Rate,
			Action: r.Action, Hours: r.Hours, Revenue: r.Revenue, Cost: r.Cost}
		if r.Line != nil {
			l := lineItem(*r.Line)
			item.Line = &l
		}
		out.Recommendations = append(out.Recommendations, item)
	}
	for _, l := range o.Removed {
		out.Removed = append(out.Removed, lineItem(l))
	}
	for _, c := range o.Conflicts {
		out.Conflicts = append(out.Conflicts, ConflictItem{Line: lineItem(c.Line), Recommended: c.Recommended, Reason: c.Reason})
	}
	return nil, out, nil
}

func lineItem(l scoping.SurveyLine) SurveyLineItem {
	return SurveyLineItem{Type: l.Type, ID: l.ID, Name: l.Name, Rule: l.Rule}
}
