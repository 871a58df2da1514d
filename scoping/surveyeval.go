package scoping

import (
	"fmt"

	"github.com/scopekit/scopekit/expr"
	"github.com/shopspring/decimal"
)

// Evaluating a survey's answers against its questionnaire: which
// questions are asked (their when holds for the answers before them),
// what is wrong with each answer, and which rules fire with what
// quantity. Pure: no store, no clock.

// SurveyProblem is what is wrong with one answer (Question), or what one
// rule could not compute from the answers or find in the catalog (Rule).
type SurveyProblem struct {
	Question string `json:"question,omitempty"`
	Rule     string `json:"rule,omitempty"`
	// Problem is missing, kind, range or option for an answer; when,
	// value or catalog for a rule (when for a question's when).
	Problem string `json:"problem"`
	Detail  string `json:"detail"`
}

// surveyEval is the answers evaluated.
type surveyEval struct {
	asked    []*question    // in order
	values   map[string]any // the answers as expressions read them, by slug (defaults included)
	answered map[string]bool
	problems []SurveyProblem
	fired    []firing
}

// firing is a rule that fires, with what it computed.
type firing struct {
	rule     *rule
	index    int             // of the rule in the questionnaire
	quantity decimal.Decimal // 0 for governance
	rate     decimal.Decimal // expenses
}

// recommendedPlaces are the decimals a computed quantity or rate keeps
// (rounded half away from zero): a line holds 1.3333, not twenty 3s.
const recommendedPlaces = 4

// evaluate evaluates answers (question slug → value) against def.
func evaluate(def *questionnaireDef, answers map[string]any) *surveyEval {
	ev := &surveyEval{values: map[string]any{}, answered: map[string]bool{}}
	scope := func(p []string) any {
		if len(p) == 2 && p[0] == "answers" {
			return ev.values[p[1]]
		}
		return nil
	}
	for _, qu := range def.questions {
		if qu.when != nil {
			v, err := expr.Eval(qu.when, scope)
			if err != nil {
				ev.problems = append(ev.problems, SurveyProblem{Question: qu.Slug, Problem: "when",
					Detail: fmt.Sprintf("%s is not asked: its when could not be computed: %v", qu.Slug, err)})
				continue
			}
			if !expr.Truthy(v) {
				continue
			}
		}
		ev.asked = append(ev.asked, qu)
		raw, given := answers[qu.Slug]
		if !given || raw == nil {
			switch {
			case qu.def != nil:
				ev.values[qu.Slug] = qu.def
			case qu.Required:
				ev.problems = append(ev.problems, SurveyProblem{Question: qu.Slug, Problem: "missing",
					Detail: fmt.Sprintf("%s needs an answer: %s", qu.Slug, qu.Prompt)})
			}
			continue
		}
		v, problem := qu.checkAnswer(raw)
		if problem != nil {
			ev.problems = append(ev.problems, *problem)
			continue
		}
		ev.values[qu.Slug], ev.answered[qu.Slug] = v, true
	}
	for i, r := range def.rules {
		ev.fire(i, r, scope)
	}
	return ev
}

// fire evaluates rule r (at i): when it holds and its quantity is not
// zero, it fires.
func (ev *surveyEval) fire(i int, r *rule, scope expr.Scope) {
	bad := func(problem, format string, args ...any) {
		ev.problems = append(ev.problems, SurveyProblem{Rule: r.Slug, Problem: problem, Detail: fmt.Sprintf("rule "+r.Slug+": "+format, args...)})
	}
	if r.when != nil {
		v, err := expr.Eval(r.when, scope)
		if err != nil {
			bad("when", "its when could not be computed: %v", err)
			return
		}
		if !expr.Truthy(v) {
			return
		}
	}
	f := firing{rule: r, index: i, quantity: decimal.NewFromInt(1)}
	if r.kind() == "governance" {
		f.quantity = decimal.Zero
		ev.fired = append(ev.fired, f)
		return
	}
	for _, e := range []struct {
		name string
		n    *expr.Node
		dst  *decimal.Decimal
	}{{"quantity", r.quantity, &f.quantity}, {"rate", r.rate, &f.rate}} {
		if e.n == nil {
			continue
		}
		v, err := expr.Eval(e.n, scope)
		if err != nil {
			bad("value", "its %s could not be computed: %v", e.name, err)
			return
		}
		d, ok := v.(decimal.Decimal)
		if !ok {
			bad("value", "its %s is %s, not a number", e.name, expr.KindOf(v))
			return
		}
		if d.IsNegative() {
			bad("value", "its %s is %s; it must be zero or more", e.name, d)
			return
		}
		*e.dst = d.Round(recommendedPlaces)
	}
	if !f.quantity.IsZero() {
		ev.fired = append(ev.fired, f)
	}
}
