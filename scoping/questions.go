package scoping

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/expr"
	"github.com/shopspring/decimal"
)

// A questionnaire's questions and rules (docs/questionnaires.md) as they
// are stored: ordered lists of objects in its `questions` and `rules`
// attributes, read into the types below and checked as a whole on every
// write.

// Question kinds.
var questionKinds = []string{"text", "number", "integer", "boolean", "single_select", "multi_select", "date"}

// The bounds of a questionnaire.
const (
	maxQuestions      = 200
	maxRules          = 200
	maxOptions        = 100
	maxPromptChars    = 500
	maxHelpChars      = 2000
	maxTextAnswer     = 2000
	maxSlugChars      = 64
	maxQuestionsBytes = 256 << 10 // of the questions' and of the rules' JSON
)

var slugPattern = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

type option struct {
	Slug  string `json:"slug"`
	Label string `json:"label"`
}

type question struct {
	Slug     string   `json:"slug"`
	Prompt   string   `json:"prompt"`
	Help     string   `json:"help,omitempty"`
	Kind     string   `json:"kind"`
	Options  []option `json:"options,omitempty"`
	Required bool     `json:"required,omitempty"`
	Min      *numText `json:"min,omitempty"`
	Max      *numText `json:"max,omitempty"`
	Default  any      `json:"default,omitempty"`
	When     string   `json:"when,omitempty"`

	when     *expr.Node
	min, max *decimal.Decimal
	def      any // the default, checked (checkAnswer's form)
}

// rule is one rule: when it fires, what it recommends. Exactly one of
// Service, Governance, Product and Expense is set.
type rule struct {
	Slug       string  `json:"slug"`
	When       string  `json:"when,omitempty"`
	Service    string  `json:"service,omitempty"`
	Governance string  `json:"governance,omitempty"`
	Product    string  `json:"product,omitempty"`
	Expense    string  `json:"expense,omitempty"`
	Quantity   numText `json:"quantity,omitempty"`
	Phase      string  `json:"phase,omitempty"`
	Resource   string  `json:"resource,omitempty"`
	Location   string  `json:"location,omitempty"`
	Category   string  `json:"category,omitempty"`
	Rate       numText `json:"rate,omitempty"`

	when, quantity, rate *expr.Node
}

// kind is what the rule recommends: service, governance, product or
// expense.
func (r *rule) kind() string {
	switch {
	case r.Service != "":
		return "service"
	case r.Governance != "":
		return "governance"
	case r.Product != "":
		return "product"
	}
	return "expense"
}

// target is the name of what the rule recommends (an expense's
// description).
func (r *rule) target() string {
	return r.Service + r.Governance + r.Product + r.Expense
}

// questionnaireDef is a questionnaire's questions and rules, read and
// checked.
type questionnaireDef struct {
	questions []*question
	rules     []*rule
	bySlug    map[string]*question
	index     map[string]int // question slug → position
}

// parseQuestionnaire reads and checks the stored questions and rules
// (each a JSON array of objects): the fields of each, slugs, options,
// ranges, defaults, and every expression parsed and checked against the
// questions it reads. It does not look at the catalog (resolveTargets
// does). The errors name the question or rule and point at the field.
func parseQuestionnaire(questions, rules any) (*questionnaireDef, []error) {
	q := &questionnaireDef{bySlug: map[string]*question{}, index: map[string]int{}}
	var errs []error
	if err := decodeList(questions, &q.questions, "questions", maxQuestions); err != nil {
		return nil, []error{err}
	}
	if err := decodeList(rules, &q.rules, "rules", maxRules); err != nil {
		return nil, []error{err}
	}
	for i, qu := range q.questions { // every slug first: a when may name only earlier ones
		if q.bySlug[qu.Slug] == nil {
			q.bySlug[qu.Slug], q.index[qu.Slug] = qu, i
		}
	}
	for i, qu := range q.questions {
		errs = append(errs, q.checkQuestion(i, qu)...)
	}
	slugs := map[string]bool{}
	for i, r := range q.rules {
		errs = append(errs, q.checkRule(i, r, slugs)...)
	}
	return q, errs
}

// decodeList decodes a stored list into dst, refusing members the type
// does not have.
func decodeList[T any](v any, dst *[]*T, attr string, most int) error {
	if v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return engine.Invalid(engine.AttrPointer(attr), "%s is not a list of objects", attr)
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return engine.Invalid(engine.AttrPointer(attr), "%s must be a list of objects", attr)
	}
	if len(items) > most {
		return engine.Invalid(engine.AttrPointer(attr), "%s holds at most %d items", attr, most)
	}
	for i, item := range items {
		var t T
		dec := json.NewDecoder(strings.NewReader(string(item)))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		if err := dec.Decode(&t); err != nil {
			return engine.Invalid(fmt.Sprintf("%s/%d", engine.AttrPointer(attr), i), "%s[%d]: %s", attr, i, jsonProblem(err))
		}
		*dst = append(*dst, &t)
	}
	return nil
}

// jsonProblem says what encoding/json found wrong, in the member's words.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("%s must not be a JSON %s", te.Field, te.Value)
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return strings.ReplaceAll(msg, "unknown field", "no member")
}

// numText is an expression or a number as written in a question or
// rule: a JSON string, or a JSON number kept as its text.
type numText string

// UnmarshalJSON accepts a JSON string or number.
func (t *numText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = numText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("must be a text or a number")
	}
	*t = numText(n)
	return nil
}

func qPointer(i int, field string) string {
	return fmt.Sprintf("%s/%d/%s", engine.AttrPointer("questions"), i, field)
}

func rPointer(i int, field string) string {
	return fmt.Sprintf("%s/%d/%s", engine.AttrPointer("rules"), i, field)
}

// checkQuestion checks the question at i, whose when may read only the
// questions before it, and records it.
func (q *questionnaireDef) checkQuestion(i int, qu *question) []error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, engine.Invalid(qPointer(i, field), "question %s: %s", quoteSlug(qu.Slug, i), fmt.Sprintf(format, args...)))
	}
	switch {
	case !slugPattern.MatchString(qu.Slug) || len(qu.Slug) > maxSlugChars:
		bad("slug", "slug must be 1 to %d letters, digits and underscores", maxSlugChars)
	case q.index[qu.Slug] != i:
		bad("slug", "slug is taken by an earlier question")
	}
	if strings.TrimSpace(qu.Prompt) == "" {
		bad("prompt", "prompt can't be blank")
	}
	if utf8.RuneCountInString(qu.Prompt) > maxPromptChars {
		bad("prompt", "prompt is at most %d characters", maxPromptChars)
	}
	if utf8.RuneCountInString(qu.Help) > maxHelpChars {
		bad("help", "help is at most %d characters", maxHelpChars)
	}
	if !slices.Contains(questionKinds, qu.Kind) {
		bad("kind", "kind must be one of %s", strings.Join(questionKinds, ", "))
	}
	selects := qu.Kind == "single_select" || qu.Kind == "multi_select"
	switch {
	case selects && len(qu.Options) == 0:
		bad("options", "a %s needs options", qu.Kind)
	case !selects && len(qu.Options) > 0:
		bad("options", "only a select has options")
	case len(qu.Options) > maxOptions:
		bad("options", "at most %d options", maxOptions)
	}
	seen := map[string]bool{}
	for j, o := range qu.Options {
		switch {
		case !slugPattern.MatchString(o.Slug) || len(o.Slug) > maxSlugChars:
			bad(fmt.Sprintf("options/%d/slug", j), "option slug must be 1 to %d letters, digits and underscores", maxSlugChars)
		case seen[o.Slug]:
			bad(fmt.Sprintf("options/%d/slug", j), "option %s is listed twice", o.Slug)
		}
		seen[o.Slug] = true
		if strings.TrimSpace(o.Label) == "" || utf8.RuneCountInString(o.Label) > maxPromptChars {
			bad(fmt.Sprintf("options/%d/label", j), "option %s needs a label of at most %d characters", o.Slug, maxPromptChars)
		}
	}
	numeric := qu.Kind == "number" || qu.Kind == "integer"
	for _, b := range []struct {
		name string
		src  *numText
		dst  **decimal.Decimal
	}{{"min", qu.Min, &qu.min}, {"max", qu.Max, &qu.max}} {
		if b.src == nil {
			continue
		}
		d, err := engine.ParseDecimal(string(*b.src))
		switch {
		case !numeric:
			bad(b.name, "only a number or an integer has a %s", b.name)
		case err != nil || d.Abs().GreaterThanOrEqual(decimal.New(1, expr.MaxIntDigits)):
			bad(b.name, "%s must be a number", b.name)
		default:
			*b.dst = &d
		}
	}
	if qu.min != nil && qu.max != nil && qu.min.GreaterThan(*qu.max) {
		bad("max", "max is below min")
	}
	if qu.When != "" {
		n, err := q.parseExpr(qu.When, i)
		if err != nil {
			bad("when", "when: %v", err)
		}
		qu.when = n
	}
	if len(errs) == 0 && qu.Default != nil {
		v, problem := qu.checkAnswer(qu.Default)
		if problem != nil {
			bad("default", "default: %s", problem.Detail)
		}
		qu.def = v
	}
	return errs
}

// quoteSlug names a question or rule in a message: its slug, or its
// position when it has none.
func quoteSlug(slug string, i int) string {
	if slug == "" {
		return "#" + strconv.Itoa(i+1)
	}
	return slug
}

// parseExpr parses and checks an expression that may read the answers
// of the first `upto` questions (all of them: len(questions)).
func (q *questionnaireDef) parseExpr(src string, upto int) (*expr.Node, error) {
	n, err := expr.Parse(src, expr.Formula)
	if err != nil {
		return nil, err
	}
	_, err = q.check(n, upto)
	return n, err
}

// check checks n against the first upto questions.
func (q *questionnaireDef) check(n *expr.Node, upto int) (expr.Type, error) {
	return expr.Check(n, &expr.Env{
		Path: func(p []string) (expr.Type, error) {
			if len(p) != 2 || p[0] != "answers" {
				return expr.Any, fmt.Errorf("%s: a path is answers.<question slug>", strings.Join(p, "."))
			}
			qu, ok := q.bySlug[p[1]]
			if !ok {
				return expr.Any, fmt.Errorf("answers.%s: no question has the slug %s", p[1], p[1])
			}
			if q.index[p[1]] >= upto {
				return expr.Any, fmt.Errorf("answers.%s: a question's when reads only earlier questions", p[1])
			}
			return qu.valueType(), nil
		},
		Options: func(p []string) []string {
			if len(p) != 2 || q.bySlug[p[1]] == nil || len(q.bySlug[p[1]].Options) == 0 {
				return nil
			}
			var out []string
			for _, o := range q.bySlug[p[1]].Options {
				out = append(out, o.Slug)
			}
			return out
		},
	})
}

// valueType is the type of the question's answer in expressions.
func (qu *question) valueType() expr.Type {
	switch qu.Kind {
	case "number", "integer":
		return expr.Number
	case "boolean":
		return expr.Bool
	case "multi_select":
		return expr.List
	}
	return expr.Text
}

// checkRule checks the rule at i against every question; slugs holds
// the rule slugs seen so far. A rule without a slug is given rule_<n>.
func (q *questionnaireDef) checkRule(i int, r *rule, slugs map[string]bool) []error {
	if r.Slug == "" {
		r.Slug = fmt.Sprintf("rule_%d", i+1)
	}
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, engine.Invalid(rPointer(i, field), "rule %s: %s", r.Slug, fmt.Sprintf(format, args...)))
	}
	switch {
	case !slugPattern.MatchString(r.Slug) || len(r.Slug) > maxSlugChars:
		bad("slug", "slug must be 1 to %d letters, digits and underscores", maxSlugChars)
	case slugs[r.Slug]:
		bad("slug", "slug is taken by an earlier rule")
	}
	slugs[r.Slug] = true
	targets := 0
	for _, t := range []string{r.Service, r.Governance, r.Product, r.Expense} {
		if strings.TrimSpace(t) != "" {
			targets++
		}
	}
	if targets != 1 {
		bad("service", "a rule recommends exactly one of service, governance, product or expense")
		return errs
	}
	for _, f := range []struct{ name, v string }{{"service", r.Service}, {"governance", r.Governance}, {"product", r.Product},
		{"expense", r.Expense}, {"phase", r.Phase}, {"resource", r.Resource}, {"location", r.Location}, {"category", r.Category}} {
		if utf8.RuneCountInString(f.v) > engine.MaxStringChars {
			bad(f.name, "%s is at most %d characters", f.name, engine.MaxStringChars)
		}
	}
	kind := r.kind()
	if kind != "service" && (r.Phase != "" || r.Resource != "" || r.Location != "") {
		bad("phase", "phase, resource and location go with a service")
	}
	if kind != "expense" && (r.Category != "" || r.Rate != "") {
		bad("category", "category and rate go with an expense")
	}
	if kind == "governance" && r.Quantity != "" {
		bad("quantity", "a governance item has no quantity")
	}
	if kind == "expense" && r.Rate == "" {
		bad("rate", "an expense needs a rate")
	}
	all := len(q.questions)
	if r.When != "" {
		n, err := q.parseExpr(r.When, all)
		if err != nil {
			bad("when", "when: %v", err)
		}
		r.when = n
	}
	for _, e := range []struct {
		name string
		src  numText
		dst  **expr.Node
	}{{"quantity", r.Quantity, &r.quantity}, {"rate", r.Rate, &r.rate}} {
		if e.src == "" {
			continue
		}
		n, err := expr.Parse(string(e.src), expr.Formula)
		if err == nil {
			var t expr.Type
			if t, err = q.check(n, all); err == nil && t != expr.Number && t != expr.Any {
				err = fmt.Errorf("gives %s, not a number", t)
			}
		}
		if err != nil {
			bad(e.name, "%s: %v", e.name, err)
		}
		*e.dst = n
	}
	return errs
}

// canonical is the stored form of questions or rules: what the types
// above encode (members in a fixed order, rule slugs filled in).
func canonical[T any](items []*T) any {
	if items == nil {
		return []any{}
	}
	raw, _ := json.Marshal(items)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v []any
	_ = dec.Decode(&v)
	return v
}

// checkAnswer checks v as an answer to qu and returns it as expressions
// read it (a decimal.Decimal, string, bool or []string), or the problem.
func (qu *question) checkAnswer(v any) (any, *SurveyProblem) {
	bad := func(problem, format string, args ...any) (any, *SurveyProblem) {
		return nil, &SurveyProblem{Question: qu.Slug, Problem: problem, Detail: fmt.Sprintf(format, args...)}
	}
	switch qu.Kind {
	case "text":
		s, ok := v.(string)
		if !ok {
			return bad("kind", "%s must be a text", qu.Slug)
		}
		if utf8.RuneCountInString(s) > maxTextAnswer {
			return bad("range", "%s is at most %d characters", qu.Slug, maxTextAnswer)
		}
		return s, nil
	case "number", "integer":
		d, ok := answerNumber(v)
		if !ok {
			return bad("kind", "%s must be a number, not %s", qu.Slug, shown(v))
		}
		if qu.Kind == "integer" && !d.IsInteger() {
			return bad("kind", "%s must be a whole number, not %s", qu.Slug, d)
		}
		if qu.min != nil && d.LessThan(*qu.min) {
			return bad("range", "%s must be at least %s, not %s", qu.Slug, qu.min, d)
		}
		if qu.max != nil && d.GreaterThan(*qu.max) {
			return bad("range", "%s must be at most %s, not %s", qu.Slug, qu.max, d)
		}
		return d, nil
	case "boolean":
		b, ok := v.(bool)
		if !ok {
			return bad("kind", "%s must be true or false, not %s", qu.Slug, shown(v))
		}
		return b, nil
	case "date":
		s, ok := v.(string)
		if _, err := time.Parse(time.DateOnly, s); !ok || err != nil {
			return bad("kind", "%s must be a date (YYYY-MM-DD), not %s", qu.Slug, shown(v))
		}
		return s, nil
	case "single_select":
		s, ok := v.(string)
		if !ok || !qu.hasOption(s) {
			return bad("option", "%s must be one of %s, not %s", qu.Slug, qu.optionList(), shown(v))
		}
		return s, nil
	case "multi_select":
		list, ok := v.([]any)
		if !ok {
			return bad("kind", "%s must be a list of options (%s), not %s", qu.Slug, qu.optionList(), shown(v))
		}
		out := make([]string, 0, len(list))
		for _, it := range list {
			s, ok := it.(string)
			if !ok || !qu.hasOption(s) {
				return bad("option", "%s must list options of %s, not %s", qu.Slug, qu.optionList(), shown(it))
			}
			if slices.Contains(out, s) {
				return bad("option", "%s lists %s twice", qu.Slug, s)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return bad("kind", "%s has no kind", qu.Slug)
}

func (qu *question) hasOption(s string) bool {
	return slices.ContainsFunc(qu.Options, func(o option) bool { return o.Slug == s })
}

func (qu *question) optionList() string {
	slugs := make([]string, len(qu.Options))
	for i, o := range qu.Options {
		slugs[i] = o.Slug
	}
	return strings.Join(slugs, ", ")
}

// answerNumber reads a number answer: a JSON number or a text holding
// a plain decimal, within the digits expressions compute with.
func answerNumber(v any) (decimal.Decimal, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = string(t)
	case string:
		s = strings.TrimSpace(t)
	default:
		return decimal.Zero, false
	}
	d, err := engine.ParseDecimal(s)
	if err != nil || d.Abs().GreaterThanOrEqual(decimal.New(1, expr.MaxIntDigits)) {
		return decimal.Zero, false
	}
	return d, true
}

// shown writes an answer's value for a message.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 60 {
		return "that"
	}
	return string(b)
}

// optionLabels maps option slugs to labels, for merge data.
func (qu *question) optionLabels() map[string]string {
	m := make(map[string]string, len(qu.Options))
	for _, o := range qu.Options {
		m[o.Slug] = o.Label
	}
	return m
}
