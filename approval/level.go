package approval

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// Level kinds.
const (
	KindTechnical = "technical"
	KindSales     = "sales"
	KindBusiness  = "business"
)

// Kinds lists the kinds of a level.
var Kinds = []string{KindTechnical, KindSales, KindBusiness}

// Start is the after argument of Next that walks from the first level,
// whatever its position.
const Start = math.MinInt

// Facts are the project's facts a level's conditions read. Money figures
// (contract_revenue, contract_cost, contract_profit, keyed by field name)
// are already in the account's default currency: the caller converts them
// (docs/approval.md rule 3); a money condition whose figure is missing from
// Money is an error. The other facts are used as they are.
type Facts struct {
	Money           map[string]decimal.Decimal
	ContractMargin  decimal.Decimal
	DeltaMargin     decimal.Decimal // the contract margin less the margin of the contract before
	TotalHours      decimal.Decimal
	LineOfBusiness  string   // the project's own; line_of_business conditions read it
	LinesOfBusiness []string // the project's own plus those of its services; coverage reads them
	Client          string
	PaymentTerm     string
}

// Coverage is one line-of-business approval of a level. LineOfBusiness ""
// covers every line. Approvers are user ids; the caller passes only active
// users. RequiredApprovals, when non-nil, replaces the level's count for
// steps of projects of that line (the project's own line; a coverage of
// every line sets the count for every project unless a coverage of the
// project's own line sets one too).
type Coverage struct {
	LineOfBusiness    string
	Approvers         []string
	RequiredApprovals *int
}

// Level is one approval level. The caller passes only active levels.
type Level struct {
	ID                string
	Position          int
	Kind              string // one of Kinds
	Conditions        []Condition
	RequiredApprovals int // 0 (or less) = every required approver
	SubmitterApproves bool
	Coverage          []Coverage
}

// Plan is the step to create for a level that applies. Its approvers are
// fixed now (docs/approval.md rule 6): the slice is the plan's own, so later
// changes to the level's coverage do not reach it.
type Plan struct {
	LevelID           string
	Kind              string
	Position          int
	Approvers         []string // distinct user ids, in coverage order
	RequiredApprovals int      // 0 = every required approver
	SubmitterApproves bool
}

// Next walks levels in position order after the position after (exclusive;
// Start, or -1 when positions are not negative, walks from the first) and
// returns the plan of the first level that applies: all of its conditions
// hold (none = always), and a coverage with at least one approver covers
// one of the project's lines of business (docs/approval.md rule 1). ok is false
// when no further level applies: the project is approved.
//
// Levels that share a position are walked in the order of their ids
// (shorter first, then lexically, so numeric ids sort by value); since
// after is a position, once a step of one of them completes the others at
// that position are passed. Next fails only on a level it cannot evaluate:
// an invalid condition (EINVALID, naming the level) or a money condition
// whose figure is missing from f.Money (EINTERNAL).
func Next(levels []Level, f Facts, after int) (p Plan, ok bool, err error) {
	order := make([]*Level, 0, len(levels))
	for i := range levels {
		if levels[i].Position > after {
			order = append(order, &levels[i])
		}
	}
	slices.SortStableFunc(order, func(a, b *Level) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), cmp.Compare(len(a.ID), len(b.ID)), strings.Compare(a.ID, b.ID))
	})
	lines := f.lines()
	for _, l := range order {
		holds, err := l.holds(&f)
		if err != nil {
			return Plan{}, false, err
		}
		if !holds {
			continue
		}
		if p, ok := l.plan(f.LineOfBusiness, lines); ok {
			return p, true, nil
		}
	}
	return Plan{}, false, nil
}

// lines returns the set of the project's lines of business.
func (f *Facts) lines() map[string]bool {
	lines := make(map[string]bool, len(f.LinesOfBusiness)+1)
	for _, l := range f.LinesOfBusiness {
		if l != "" {
			lines[l] = true
		}
	}
	if f.LineOfBusiness != "" {
		lines[f.LineOfBusiness] = true
	}
	return lines
}

// holds reports whether every condition of l holds for f.
func (l *Level) holds(f *Facts) (bool, error) {
	for i, c := range l.Conditions {
		if err := c.Validate(); err != nil {
			return false, invalid("conditions", "approval level %s, condition %d: %s", l.ID, i, err.(*scopekit.Error).Message)
		}
		ok, err := c.holds(f)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// plan gathers the approvers of the coverages of l that cover one of lines
// and the count of the step; ok is false when no approver covers them.
func (l *Level) plan(own string, lines map[string]bool) (Plan, bool) {
	var approvers []string
	seen := map[string]bool{}
	required := max(l.RequiredApprovals, 0)
	var generalCount, ownCount *int
	for _, c := range l.Coverage {
		if c.LineOfBusiness == "" && generalCount == nil {
			generalCount = c.RequiredApprovals
		}
		if c.LineOfBusiness != "" && c.LineOfBusiness == own && ownCount == nil {
			ownCount = c.RequiredApprovals
		}
		if c.LineOfBusiness != "" && !lines[c.LineOfBusiness] {
			continue
		}
		for _, u := range c.Approvers {
			if u != "" && !seen[u] {
				seen[u] = true
				approvers = append(approvers, u)
			}
		}
	}
	if len(approvers) == 0 {
		return Plan{}, false
	}
	if n := cmp.Or(ownCount, generalCount); n != nil {
		required = max(*n, 0)
	}
	return Plan{LevelID: l.ID, Kind: l.Kind, Position: l.Position, Approvers: approvers,
		RequiredApprovals: required, SubmitterApproves: l.SubmitterApproves}, true
}

// NewStep returns the pending step of p for a project submitted by
// submitter: one pending requirement per approver.
func (p Plan) NewStep(submitter string) *Step {
	s := &Step{Status: StepPending, RequiredApprovals: p.RequiredApprovals,
		SubmitterApproves: p.SubmitterApproves, Submitter: submitter}
	for _, u := range p.Approvers {
		s.Requirements = append(s.Requirements, Requirement{UserID: u, Status: Pending})
	}
	return s
}
