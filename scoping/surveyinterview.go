package scoping

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// An interview: a project's survey of a questionnaire, found by the two
// (one survey each), answered a few questions at a time. The transports
// that run one (MCP) read where it stands and record answers here.

// SurveyState is where a project's survey of a questionnaire stands.
type SurveyState struct {
	// Survey is the survey (nil while no answer was recorded).
	Survey        *engine.Record
	Questionnaire *engine.Record
	// Questions are those asked, given the answers so far, in order.
	Questions []SurveyQuestion
	// Problems are the answers' and the rules' problems.
	Problems []SurveyProblem
}

// SurveyQuestion is one question asked, with its answer.
type SurveyQuestion struct {
	Slug     string
	Prompt   string
	Help     string
	Kind     string
	Options  []SurveyOption
	Required bool
	Min, Max string // numbers; "" for none
	Default  any
	// Answer is the answer recorded (nil: none); Answered says it is a
	// valid one, else Problem says what is wrong (or that it is missing).
	Answer   any
	Answered bool
	Problem  string
}

// SurveyOption is an option of a select.
type SurveyOption struct{ Slug, Label string }

// SurveyQuestions returns where the project's survey of the
// questionnaire stands: the questions asked given the answers so far
// (a question whose when does not hold is not asked), each with its
// answer or problem. Without a survey yet, nothing is answered.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a project
// outside the actor's visibility or a questionnaire not in the account.
func (s *Service) SurveyQuestions(ctx context.Context, a *engine.Actor, projectID, questionnaireID string) (*SurveyState, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	var st *SurveyState
	err := s.read(ctx, a, func(c *engine.Call) error {
		survey, err := findSurvey(ctx, c, projectID, questionnaireID)
		if err != nil {
			return err
		}
		st, err = surveyState(c, survey, questionnaireID)
		return err
	})
	return st, err
}

// RecordAnswers records answers (question slug → value; null removes an
// answer) in the project's survey of the questionnaire, starting the
// survey on the first answers, and returns where it stands. Answers
// with problems are recorded too, and reported.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND as
// SurveyQuestions; ECONFLICT when the project is not a draft; EINVALID
// for a slug that is no question of the questionnaire.
func (s *Service) RecordAnswers(ctx context.Context, a *engine.Actor, projectID, questionnaireID string, answers map[string]any) (*SurveyState, error) {
	if err := a.Require("projects", true); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeSurveys)
	var st *SurveyState
	_, err := s.eng.WriteThenRead(ctx, a, engine.Options{}, nil, func(c *engine.Call) error {
		survey, err := findSurvey(ctx, c, projectID, questionnaireID)
		if err != nil {
			return err
		}
		merged := map[string]any{}
		if survey != nil {
			maps.Copy(merged, survey.Object(views.NameAnswers))
		}
		for k, v := range answers {
			if v == nil {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
		raw, err := json.Marshal(merged)
		if err != nil {
			return scopekit.Errorf(scopekit.EBADREQUEST, "answers are not JSON values")
		}
		in := &engine.Input{Attrs: map[string]json.RawMessage{views.NameAnswers: raw}}
		if survey != nil {
			_, err = c.UpdateRecord(ctx, def, survey, in)
			return err
		}
		in.Rels = map[string]engine.RelInput{views.NameProject: oneRef(views.TypeProjects, projectID),
			views.NameQuestionnaire: oneRef(views.TypeQuestionnaires, questionnaireID)}
		_, _, err = c.CreateRecord(ctx, def, in)
		return err
	}, func(ctx context.Context, c *engine.Call) error {
		survey, err := findSurvey(ctx, c, projectID, questionnaireID)
		if err == nil {
			st, err = surveyState(c, survey, questionnaireID)
		}
		return err
	})
	return st, err
}

// findSurvey returns the project's survey of the questionnaire (nil for
// none) once both are found.
func findSurvey(ctx context.Context, c *engine.Call, projectID, questionnaireID string) (*engine.Record, error) {
	if _, err := c.GetVisible(ctx, mustLookup(c.Engine.Schema(), views.TypeProjects), projectID, engine.AnyActive(mustLookup(c.Engine.Schema(), views.TypeProjects))); err != nil {
		return nil, err
	}
	if _, err := c.Get(views.TypeQuestionnaires, questionnaireID); err != nil {
		return nil, err
	}
	found, err := c.Find(views.TypeSurveys, engine.Eq(views.NameProject, projectID), engine.Eq(views.NameQuestionnaire, questionnaireID))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return found[0], nil
}

// surveyState evaluates a survey (nil: no answers yet) of the
// questionnaire.
func surveyState(c *engine.Call, survey *engine.Record, questionnaireID string) (*SurveyState, error) {
	q, def, err := questionnaireOf(c, questionnaireID)
	if err != nil {
		return nil, err
	}
	answers := map[string]any{}
	if survey != nil {
		answers = survey.Object(views.NameAnswers)
	}
	ev := evaluate(def, answers)
	st := &SurveyState{Survey: survey, Questionnaire: q, Problems: ev.problems}
	problems := map[string]string{}
	for _, p := range ev.problems {
		if p.Question != "" {
			problems[p.Question] = p.Detail
		}
	}
	for _, qu := range ev.asked {
		sq := SurveyQuestion{Slug: qu.Slug, Prompt: qu.Prompt, Help: qu.Help, Kind: qu.Kind, Required: qu.Required,
			Default: qu.Default, Answer: answers[qu.Slug], Answered: ev.answered[qu.Slug], Problem: problems[qu.Slug]}
		for _, o := range qu.Options {
			sq.Options = append(sq.Options, SurveyOption{Slug: o.Slug, Label: o.Label})
		}
		if qu.min != nil {
			sq.Min = qu.min.String()
		}
		if qu.max != nil {
			sq.Max = qu.max.String()
		}
		st.Questions = append(st.Questions, sq)
	}
	if survey != nil { // the rules' problems: the catalog records they name
		out, err := planSurvey(c.Ctx, dryRun(c), survey, false)
		if err != nil {
			return nil, err
		}
		st.Problems = out.Problems
	}
	return st, nil
}

// surveyAnswers are the questions of the project's surveys with their
// answers as documents show them (views.SurveyAnswer): every question,
// answered or not, the asked ones with their valid answer or default.
func surveyAnswers(c *engine.Call, projectID string) ([]views.SurveyAnswer, error) {
	surveys, err := c.Find(views.TypeSurveys, engine.Eq(views.NameProject, projectID))
	if err != nil || len(surveys) == 0 {
		return nil, err
	}
	slices.SortFunc(surveys, func(a, b *engine.Record) int { return engine.CompareIDs(a.ID, b.ID) })
	var out []views.SurveyAnswer
	for _, sv := range surveys {
		_, def, err := questionnaireOf(c, sv.Rel(views.NameQuestionnaire))
		if err != nil {
			return nil, err
		}
		ev := evaluate(def, sv.Object(views.NameAnswers))
		for _, qu := range def.questions {
			a := views.SurveyAnswer{Slug: qu.Slug, Kind: qu.Kind}
			switch v := ev.values[qu.Slug].(type) {
			case nil:
			case decimal.Decimal:
				a.Value = v.String()
			case []string:
				labels := qu.optionLabels()
				names := make([]string, len(v))
				for i, s := range v {
					names[i] = labels[s]
				}
				a.Value = names
			case string:
				a.Value = v
				if qu.Kind == "single_select" {
					a.Value = qu.optionLabels()[v]
				}
			default:
				a.Value = v
			}
			out = append(out, a)
		}
	}
	return out, nil
}
