package scoping

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Surveys: one questionnaire answered for one project (docs/questionnaires.md).
// A survey's problems and recommendations are computed on every read,
// priced as its lines would be; applying it brings the project to its
// recommendations (surveyplan.go). Only a project being built (a draft)
// takes answers, applies or loses a survey.

func declareSurveys(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "surveys", Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{{Name: "answers", Kind: engine.KindObject, Default: map[string]any{}, NotNull: true}},
			computed(enum("status", "draft", "draft", "applied"), engine.AttrDef{Name: "applied-at", Kind: engine.KindTime},
				engine.AttrDef{Name: "problems", Kind: engine.KindAny}, engine.AttrDef{Name: "recommendations", Kind: engine.KindAny})),
		Rels:    []engine.RelDef{owner("project", "projects"), {Name: "questionnaire", Type: "questionnaires", Required: true}},
		Filters: eq("project", "questionnaire", "status"),
		Hooks:   engine.Hooks{Validate: validateSurvey, Compute: computeSurveys, Delete: deleteSurvey},
	})
}

// beingBuilt answers ECONFLICT unless the project is a draft: a survey of
// a project submitted, approved, won, lost or canceled is read-only.
func beingBuilt(c *engine.Call, projectID string) error {
	proj, err := c.Get(views.TypeProjects, projectID)
	if err != nil {
		return err
	}
	if st := (views.Project{Record: proj}).Status(); st != "draft" {
		return scopekit.Errorf(scopekit.ECONFLICT, "the project is %s: its surveys are read-only until it is a draft again", st)
	}
	return nil
}

// validateSurvey checks a survey: its project is a draft, one survey
// per project and questionnaire, a questionnaire that stays, answers
// keyed by the questionnaire's question slugs. New answers after an
// apply make the survey a draft again.
func validateSurvey(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	sv := views.Survey{Record: rec}
	if pid := sv.Project(); pid != "" {
		if err := beingBuilt(c, pid); err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return []error{err}
		}
	}
	qid := sv.Questionnaire()
	if qid == "" {
		return nil // reported as blank
	}
	qp := engine.RelPointer(views.NameQuestionnaire)
	if old != nil && old.Rel(views.NameQuestionnaire) != qid {
		return []error{engine.Invalid(qp, "a survey's questionnaire does not change; start another survey")}
	}
	q, def, err := questionnaireOf(c, qid)
	if err != nil {
		return []error{err}
	}
	var errs []error
	if old == nil && !q.Active() {
		errs = append(errs, engine.Invalid(qp, "the questionnaire %q is archived", views.Questionnaire{Record: q}.Name()))
	}
	dups, err := c.Find(views.TypeSurveys, engine.Eq(views.NameProject, sv.Project()), engine.Eq(views.NameQuestionnaire, qid))
	if err != nil {
		return []error{err}
	}
	for _, d := range dups {
		if d.ID != rec.ID {
			errs = append(errs, engine.Invalid(qp, "the project has a survey of this questionnaire already (surveys %s)", d.ID))
		}
	}
	answers := sv.Answers()
	for _, slug := range sortedKeys(answers) {
		if def.bySlug[slug] == nil {
			errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameAnswers)+"/"+slug,
				"no question of the questionnaire has the slug %s", slug))
		}
	}
	if old != nil && !reflect.DeepEqual(answers, old.Object(views.NameAnswers)) {
		rec.Attrs[views.NameStatus] = "draft"
	}
	return errs
}

// deleteSurvey removes a survey of a draft project; its lines stay, no
// longer linked to it.
func deleteSurvey(_ context.Context, c *engine.Call, rec *engine.Record) error {
	if err := beingBuilt(c, rec.Rel(views.NameProject)); err != nil {
		return err
	}
	return c.Remove(mustLookup(c.Engine.Schema(), views.TypeSurveys), rec)
}

// computeSurveys sets the problems and recommendations of the surveys
// served: each calculated on a scratch transaction.
func computeSurveys(ctx context.Context, c *engine.Call, recs []*engine.Record) error {
	for _, r := range recs {
		out, err := planSurvey(ctx, dryRun(c), r, false)
		if err != nil {
			return err
		}
		r.Attrs[views.NameProblems] = jsonValue(out.Problems)
		r.Attrs[views.NameRecommendations] = jsonValue(out.Recommendations)
	}
	return nil
}

// dryRun is a read call like c whose writes stay in memory, with a state
// of its own.
func dryRun(c *engine.Call) *engine.Call {
	d := &engine.Call{Ctx: c.Ctx, Engine: c.Engine, Tx: engine.Scratch(c.Tx), Actor: c.Actor, Opts: c.Opts}
	d.Ext = &callState{svc: svcOf(c)}
	return d
}

// jsonValue is v as a decoded JSON value (as attributes are kept).
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}

// CalculateSurvey answers what applying the survey would do: its
// problems, its recommendations priced as their lines would be (with
// every other line of the project), the lines it would remove and the
// edited lines it would keep. It writes nothing.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a survey
// outside the actor's visibility.
func (s *Service) CalculateSurvey(ctx context.Context, a *engine.Actor, id string) (*SurveyOutcome, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeSurveys)
	var out *SurveyOutcome
	err := s.read(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		out, err = planSurvey(ctx, dryRun(c), rec, false)
		return err
	})
	return out, err
}

// ApplySurvey brings the survey's project to its recommendations in one
// transaction: a line per rule that fires (each recording the survey and
// rule), the survey's lines nobody edited since updated or removed,
// edited ones kept and listed as conflicts. Applying again with the same
// answers changes nothing.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND outside the
// actor's visibility; ECONFLICT when the project is not a draft;
// EINVALID listing the survey's problems (an answer's points at it).
func (s *Service) ApplySurvey(ctx context.Context, a *engine.Actor, id string) (*SurveyOutcome, error) {
	if err := a.Require("projects", true); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeSurveys)
	var out *SurveyOutcome
	_, err := s.write(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		if err := beingBuilt(c, rec.Rel(views.NameProject)); err != nil {
			return err
		}
		if out, err = planSurvey(ctx, c, rec, true); err != nil {
			return err
		}
		if !changedAny(out) && (views.Survey{Record: rec}).Status() == "applied" {
			return nil // nothing to do: the survey stays as it was
		}
		rec.Attrs[views.NameStatus] = "applied"
		rec.Attrs[views.NameAppliedAt] = engine.FormatTime(s.Now())
		return c.Tx.Replace(rec)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changedAny reports whether an apply changed a line.
func changedAny(out *SurveyOutcome) bool {
	if len(out.Removed) > 0 {
		return true
	}
	return slices.ContainsFunc(out.Recommendations, func(r Recommendation) bool { return r.Action == "add" || r.Action == "update" })
}
