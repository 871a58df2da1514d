package scoping

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Bringing a project to a survey's recommendations: one line per rule
// that fires, added through the same catalog copy as any project line;
// the survey's lines that nobody edited since are updated or removed as
// the answers change, edited ones kept and reported. Applying runs it in
// the write's transaction; calculating runs the same code on a scratch
// transaction (engine.Scratch), so that its figures are those the lines
// will have.

// SurveyOutcome is what applying a survey does, or would do, to its
// project.
type SurveyOutcome struct {
	Survey string `json:"survey"`
	// Applied is true when the lines were written (apply), false for a
	// calculation.
	Applied  bool   `json:"applied"`
	Currency string `json:"currency"`
	// Problems are the answers' and rules' problems; apply is refused
	// while there are any.
	Problems        []SurveyProblem  `json:"problems"`
	Recommendations []Recommendation `json:"recommendations"`
	// Removed are the survey's lines that go: their rule no longer fires.
	Removed []SurveyLine `json:"removed"`
	// Conflicts are the survey's lines edited since it added them: kept
	// as they are.
	Conflicts []SurveyConflict `json:"conflicts"`
	// The project's contract revenue before and after.
	ContractRevenueBefore string `json:"contract-revenue-before"`
	ContractRevenueAfter  string `json:"contract-revenue-after"`
}

// Recommendation is one rule that fires and the line that carries it.
type Recommendation struct {
	Rule     string `json:"rule"`
	Kind     string `json:"kind"` // service, governance, product or expense
	Name     string `json:"name"`
	Quantity string `json:"quantity,omitempty"`
	Rate     string `json:"rate,omitempty"` // an expense's, in the project's currency
	// Action is what applying does: add (a new line), update (the
	// survey's line changes), unchanged, or kept (the survey's line was
	// edited since: left as it is, and listed in the conflicts).
	Action string `json:"action"`
	// Line is the project line (none for a line a calculation would add).
	Line *SurveyLine `json:"line"`
	// The line's figures as priced with the others (a service's with its
	// subservices).
	Hours   string `json:"hours,omitempty"`
	Revenue string `json:"revenue"`
	Cost    string `json:"cost"`
}

// SurveyLine names a project line a survey added.
type SurveyLine struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Rule string `json:"rule"`
}

// SurveyConflict is a line the survey added that someone edited since.
type SurveyConflict struct {
	Line SurveyLine `json:"line"`
	// Recommended is what the survey recommends now: the quantity, or
	// "removed" when its rule no longer fires.
	Recommended string `json:"recommended"`
	Reason      string `json:"reason"`
}

// surveyLineTypes are the line types a rule's kind makes.
var surveyLineTypes = map[string]string{"service": views.TypeProjectServices, "governance": views.TypeProjectGovernances,
	"product": views.TypeProjectProducts, "expense": views.TypeProjectExpenses}

// surveyFingerprintAttr is the hidden attribute of a survey's line: the
// digest of what the survey wrote (fingerprint), by which a later apply
// tells an edited line from an untouched one.
const surveyFingerprintAttr = "survey-fingerprint"

// planSurvey brings the project to the survey's recommendations in c's
// transaction (or says why it cannot when apply: EINVALID listing the
// problems) and reports what it did.
func planSurvey(ctx context.Context, c *engine.Call, survey *engine.Record, apply bool) (*SurveyOutcome, error) {
	pid := survey.Rel(views.NameProject)
	_, def, err := questionnaireOf(c, survey.Rel(views.NameQuestionnaire))
	if err != nil {
		return nil, err
	}
	ev := evaluate(def, survey.Object(views.NameAnswers))
	out := &SurveyOutcome{Survey: survey.ID, Applied: apply, Problems: ev.problems,
		Recommendations: []Recommendation{}, Removed: []SurveyLine{}, Conflicts: []SurveyConflict{}}
	rules := make([]*rule, len(ev.fired))
	for i, f := range ev.fired {
		rules[i] = f.rule
	}
	targets, terrs, err := resolveTargets(c, rules)
	if err != nil {
		return nil, err
	}
	var fired []firing
	var found []ruleTarget
	for i, f := range ev.fired {
		if terrs != nil && terrs[i] != nil {
			out.Problems = append(out.Problems, SurveyProblem{Rule: f.rule.Slug, Problem: "catalog", Detail: "rule " + f.rule.Slug + ": " + message(terrs[i])})
			continue
		}
		fired, found = append(fired, f), append(found, targets[i])
	}
	if out.Problems == nil {
		out.Problems = []SurveyProblem{}
	}
	if apply && len(out.Problems) > 0 {
		return nil, problemErrors(out.Problems)
	}
	if out.ContractRevenueBefore, err = revenueNow(c, pid); err != nil {
		return nil, err
	}
	p := &surveyPlanner{ctx: ctx, c: c, pid: pid, sid: survey.ID}
	if err := p.run(out, fired, found); err != nil {
		return nil, err
	}
	if apply && len(out.Problems) > 0 {
		return nil, problemErrors(out.Problems)
	}
	after, err := priceNow(c, pid)
	if err != nil {
		return nil, err
	}
	out.ContractRevenueAfter = contractRevenue(after)
	if after.in != nil {
		out.Currency = after.in.Currency.Code
	}
	for i := range out.Recommendations {
		figuresOf(&out.Recommendations[i], p.made[i], after)
	}
	if !apply {
		for i := range out.Recommendations { // lines a calculation made are not there
			if out.Recommendations[i].Action == "add" {
				out.Recommendations[i].Line = nil
			}
		}
	}
	return out, nil
}

// problemErrors are the problems as a refused write's errors: an
// answer's points at it.
func problemErrors(problems []SurveyProblem) error {
	errs := make(scopekit.Errors, 0, len(problems))
	for _, pr := range problems {
		e := scopekit.Errorf(scopekit.EINVALID, "%s", pr.Detail)
		if pr.Question != "" {
			e.Field = engine.AttrPointer(views.NameAnswers) + "/" + pr.Question
		}
		errs = append(errs, e)
	}
	return errs.Err()
}

// priceNow prices the project as the call's transaction holds it now.
func priceNow(c *engine.Call, pid string) (*pricedProject, error) {
	delete(state(c).pricedCache, pid)
	runs, err := priced(c, []string{pid}, nil)
	if err != nil {
		return nil, err
	}
	return runs[pid], nil
}

// revenueNow is the project's contract revenue before the survey
// changes it: as stored when the stored figures are fresh (storedprices.go),
// else priced.
func revenueNow(c *engine.Call, pid string) (string, error) {
	proj, err := c.Get(views.TypeProjects, pid)
	if err != nil {
		return "", err
	}
	acct, err := txAccount(c)
	if err != nil {
		return "", err
	}
	if epoch, _ := epochOf(acct, priceEpochAttr); pricesFresh(proj, epoch) {
		return proj.Str(views.NameContractRevenue), nil
	}
	pp, err := priceNow(c, pid)
	if err != nil {
		return "", err
	}
	return contractRevenue(pp), nil
}

func contractRevenue(pp *pricedProject) string {
	if pp == nil || pp.err != nil || pp.res == nil {
		return ""
	}
	return pp.res.TotalContractValue.String()
}

// figuresOf sets a recommendation's figures from the run of its line.
func figuresOf(r *Recommendation, line *engine.Record, pp *pricedProject) {
	if line == nil || pp == nil || pp.err != nil || pp.res == nil {
		return
	}
	put := func(name string, f pricing.Fixed) {
		switch name {
		case views.NameTotalHours, views.NameHours:
			r.Hours = f.String()
		case views.NameRevenue:
			r.Revenue = f.String()
		case views.NameCost:
			r.Cost = f.String()
		}
	}
	lineFigures(line, pp, put)
}

// surveyPlanner makes the lines of one survey.
type surveyPlanner struct {
	ctx      context.Context
	c        *engine.Call
	pid, sid string
	made     []*engine.Record // the line of each recommendation, in order
}

// run reconciles the survey's lines with the rules that fire.
func (p *surveyPlanner) run(out *SurveyOutcome, fired []firing, targets []ruleTarget) error {
	byRule := map[string][]*engine.Record{}
	var order []*engine.Record // the survey's lines, to find those left over
	for _, typ := range []string{views.TypeProjectServices, views.TypeProjectGovernances, views.TypeProjectProducts, views.TypeProjectExpenses} {
		lines, err := p.c.Find(typ, engine.Eq(views.NameSurvey, p.sid))
		if err != nil {
			return err
		}
		slices.SortFunc(lines, func(a, b *engine.Record) int { return engine.CompareIDs(a.ID, b.ID) })
		for _, l := range lines {
			byRule[l.Str(views.NameSurveyRule)] = append(byRule[l.Str(views.NameSurveyRule)], l)
			order = append(order, l)
		}
	}
	used := map[*engine.Record]bool{}
	for i, f := range fired {
		rec := Recommendation{Rule: f.rule.Slug, Kind: f.rule.kind(), Name: f.rule.target()}
		if rec.Kind != "governance" {
			rec.Quantity = f.quantity.String()
		}
		if rec.Kind == "expense" {
			rate, err := p.rate(f)
			if err != nil {
				return err
			}
			rec.Rate = rate
		}
		var line *engine.Record
		var err error
		for _, l := range byRule[f.rule.Slug] {
			if !used[l] {
				line = l
				used[l] = true
				break
			}
		}
		rec.Action, line, err = p.bring(line, f, targets[i], rec.Rate)
		if scopekit.ErrorCode(err) == scopekit.EINVALID {
			// what only the answers reveal (a quantity past its bound) is
			// a problem of the rule, never a failed read
			out.Problems = append(out.Problems, SurveyProblem{Rule: f.rule.Slug, Problem: "value", Detail: "rule " + f.rule.Slug + ": " + message(err)})
			continue
		}
		if err != nil {
			return err
		}
		ref := lineRef(line, f.rule.Slug)
		rec.Line = &ref
		if rec.Action == "kept" {
			out.Conflicts = append(out.Conflicts, SurveyConflict{Line: ref, Recommended: recommendedText(rec),
				Reason: "edited since the survey added it: kept as it is"})
		}
		out.Recommendations = append(out.Recommendations, rec)
		p.made = append(p.made, line)
	}
	for _, l := range order {
		if used[l] {
			continue
		}
		ref := lineRef(l, l.Str(views.NameSurveyRule))
		edited, err := p.edited(l)
		if err != nil {
			return err
		}
		if edited {
			out.Conflicts = append(out.Conflicts, SurveyConflict{Line: ref, Recommended: "removed",
				Reason: "its rule no longer recommends it, but it was edited since the survey added it: kept as it is"})
			continue
		}
		if err := p.c.Remove(mustLookup(p.c.Engine.Schema(), l.Type), l); err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return err
		}
		out.Removed = append(out.Removed, ref)
	}
	return nil
}

func recommendedText(r Recommendation) string {
	if r.Quantity == "" {
		return "the governance item"
	}
	return "quantity " + r.Quantity
}

func lineRef(l *engine.Record, rule string) SurveyLine {
	name := l.Str(views.NameName)
	if l.Type == views.TypeProjectExpenses {
		name = l.Str(views.NameDescription)
	}
	return SurveyLine{Type: l.Type, ID: l.ID, Name: name, Rule: rule}
}

// bring makes line (nil: none yet) the line of f: kept when edited,
// updated when it is the same catalog record, else replaced by a new
// one. It returns the action and the line.
func (p *surveyPlanner) bring(line *engine.Record, f firing, t ruleTarget, rate string) (string, *engine.Record, error) {
	if line != nil {
		edited, err := p.edited(line)
		if err != nil {
			return "", nil, err
		}
		if edited {
			return "kept", line, nil
		}
		if line.Type == surveyLineTypes[f.rule.kind()] && p.same(line, f, t) {
			in, err := p.input(f, t, rate, line)
			if err != nil {
				return "", nil, err
			}
			if len(in.Attrs) == 0 && len(in.Rels) == 0 {
				return "unchanged", line, nil
			}
			def := mustLookup(p.c.Engine.Schema(), line.Type)
			rec, err := p.c.UpdateRecord(p.ctx, def, line, in)
			if err != nil {
				return "", nil, err
			}
			return "update", rec, p.mark(def, rec, f.rule.Slug)
		}
		if err := p.c.Remove(mustLookup(p.c.Engine.Schema(), line.Type), line); err != nil {
			return "", nil, err
		}
	}
	in, err := p.input(f, t, rate, nil)
	if err != nil {
		return "", nil, err
	}
	def := mustLookup(p.c.Engine.Schema(), surveyLineTypes[f.rule.kind()])
	in.Rels[views.NameProject] = oneRef(views.TypeProjects, p.pid)
	rec, _, err := p.c.CreateRecord(p.ctx, def, in)
	if err != nil {
		return "", nil, err
	}
	return "add", rec, p.mark(def, rec, f.rule.Slug)
}

// same reports whether line is of the catalog record the rule names.
func (p *surveyPlanner) same(line *engine.Record, f firing, t ruleTarget) bool {
	switch f.rule.kind() {
	case "service":
		return line.Rel(views.NameService) == t.rec.ID
	case "governance":
		return line.Rel(views.NameGovernance) == t.rec.ID
	case "product":
		return line.Rel(views.NameProduct) == t.rec.ID
	}
	cat := ""
	if t.category != nil {
		cat = t.category.ID
	}
	return line.Str(views.NameDescription) == f.rule.Expense && line.Rel(views.NameExpenseCategory) == cat
}

// input is the write that makes a line of f: all of it for a new line
// (cur nil), else what differs from cur.
func (p *surveyPlanner) input(f firing, t ruleTarget, rate string, cur *engine.Record) (*engine.Input, error) {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	setDec := func(name, v string) {
		if cur != nil {
			if d, ok := cur.DecOK(name); ok && d.Equal(decimal.RequireFromString(v)) {
				return
			}
		}
		in.Attrs[name] = json.RawMessage(fmt.Sprintf("%q", v))
	}
	setRel := func(name, typ, id string) {
		if cur == nil || cur.Rel(name) != id {
			in.Rels[name] = oneRef(typ, id)
		}
	}
	kind := f.rule.kind()
	if kind != "governance" {
		setDec(views.NameQuantity, f.quantity.String())
	}
	switch kind {
	case "service":
		setRel(views.NameService, views.TypeServices, t.rec.ID)
		if t.phase != nil {
			id, err := ensureProjectPhase(p.c, lineScope{project: p.pid}, t.phase.ID)
			if err != nil {
				return nil, err
			}
			setRel(views.NameProjectPhase, views.TypeProjectPhases, id)
		}
		if t.resource != nil {
			id, err := ensureProjectResource(p.c, lineScope{project: p.pid}, t.resource.ID)
			if err != nil {
				return nil, err
			}
			setRel(views.NameProjectResource, views.TypeProjectResources, id)
		}
		if f.rule.Location != "" {
			id, err := p.location(f.rule.Location)
			if err != nil {
				return nil, err
			}
			setRel(views.NameProjectLocation, views.TypeProjectLocations, id)
		}
	case "governance":
		setRel(views.NameGovernance, views.TypeGovernances, t.rec.ID)
	case "product":
		setRel(views.NameProduct, views.TypeProducts, t.rec.ID)
	case "expense":
		if cur == nil {
			in.Attrs[views.NameDescription] = json.RawMessage(fmt.Sprintf("%q", f.rule.Expense))
			if t.category != nil {
				setRel(views.NameExpenseCategory, views.TypeExpenseCategories, t.category.ID)
			}
		}
		setDec(views.NameRate, rate)
		setDec(views.NameUnitCost, rate)
	}
	return in, nil
}

// rate is an expense rule's rate in the project's currency: the rule
// gives it in the account's default currency, as catalog amounts are.
func (p *surveyPlanner) rate(f firing) (string, error) {
	conv, err := catalogConversion(p.c, p.pid)
	if err != nil {
		return "", err
	}
	v, _ := conv.of(f.rate.String()).(string)
	return v, nil
}

// location returns the project's location of that name, made when the
// project has none.
func (p *surveyPlanner) location(name string) (string, error) {
	found, err := p.c.Find(views.TypeProjectLocations, append(lineScope{project: p.pid}.where(), engine.Eq(views.NameName, name))...)
	if err != nil || len(found) > 0 {
		if len(found) > 0 {
			slices.SortFunc(found, func(a, b *engine.Record) int { return engine.CompareIDs(a.ID, b.ID) })
			return found[0].ID, nil
		}
		return "", err
	}
	def := mustLookup(p.c.Engine.Schema(), views.TypeProjectLocations)
	rec, _, err := p.c.CreateRecord(p.ctx, def, &engine.Input{
		Attrs: map[string]json.RawMessage{views.NameName: json.RawMessage(fmt.Sprintf("%q", name))},
		Rels:  map[string]engine.RelInput{views.NameProject: oneRef(views.TypeProjects, p.pid)}})
	if err != nil {
		return "", err
	}
	return rec.ID, nil
}

// mark records on a line the survey and rule it came from and the
// fingerprint of what the survey made of it.
func (p *surveyPlanner) mark(def *engine.TypeDef, rec *engine.Record, rule string) error {
	rec.SetRel(views.NameSurvey, p.sid)
	rec.Attrs[views.NameSurveyRule] = rule
	fp, err := p.fingerprint(def, rec)
	if err != nil {
		return err
	}
	rec.Attrs[surveyFingerprintAttr] = fp
	return p.c.Tx.Replace(rec)
}

// edited reports whether a line of the survey changed since the survey
// wrote it.
func (p *surveyPlanner) edited(line *engine.Record) (bool, error) {
	fp, err := p.fingerprint(mustLookup(p.c.Engine.Schema(), line.Type), line)
	return fp != line.Str(surveyFingerprintAttr), err
}

// fingerprint digests what anyone may edit of a line: its attributes and
// relationships that are not computed or read-only (the survey's own
// aside), and for a service its subservices as well.
func (p *surveyPlanner) fingerprint(def *engine.TypeDef, rec *engine.Record) (string, error) {
	fields := editable(def, rec)
	if def.Name == views.TypeProjectServices {
		subs, err := p.c.Find(views.TypeProjectSubservices, engine.Eq(views.NameProjectService, rec.ID))
		if err != nil {
			return "", err
		}
		sdef := mustLookup(p.c.Engine.Schema(), views.TypeProjectSubservices)
		for _, s := range subs {
			fields["sub:"+s.ID] = editable(sdef, s)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// editable are the fields of rec a write may change.
func editable(def *engine.TypeDef, rec *engine.Record) map[string]any {
	m := map[string]any{}
	for _, a := range def.Attrs {
		if v := rec.Attrs[a.Name]; !a.Computed && v != nil {
			m["a:"+a.Name] = v
		}
	}
	for _, r := range def.Rels {
		if ids := rec.Rels[r.Name]; r.Stored() && !r.ReadOnly && len(ids) > 0 {
			m["r:"+r.Name] = ids
		}
	}
	return m
}

func oneRef(typ, id string) engine.RelInput {
	return engine.RelInput{Refs: []engine.Ref{{Type: typ, ID: id}}}
}
