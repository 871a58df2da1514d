package approval_test

import (
	"slices"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/shopspring/decimal"
)

// The six rules of docs/approval.md, each at the level of this package. The
// HTTP half of each rule is tested through the API in httpadapter.

// Ensure a level whose approvers do not cover the project's lines of
// business is skipped for the next applicable level, and that the project
// is approved at once when no level applies.
func TestRule1LevelWithoutCoverageIsSkipped(t *testing.T) {
	tests := []struct {
		name   string
		levels []approval.Level
		want   string // level id, "" = approved
	}{
		{"another line is skipped for the next level", []approval.Level{
			{ID: "1", Position: 1, Coverage: []approval.Coverage{{LineOfBusiness: "voice", Approvers: []string{"a"}}}},
			{ID: "2", Position: 2, Coverage: all("b")},
		}, "2"},
		{"a coverage without approvers is skipped", []approval.Level{
			{ID: "1", Position: 1, Coverage: []approval.Coverage{{LineOfBusiness: "net"}}},
			{ID: "2", Position: 2, Coverage: all("b")},
		}, "2"},
		{"a level without coverage is skipped", []approval.Level{
			{ID: "1", Position: 1},
			{ID: "2", Position: 2, Coverage: all("b")},
		}, "2"},
		{"none applies: approved", []approval.Level{
			{ID: "1", Position: 1, Coverage: []approval.Coverage{{LineOfBusiness: "voice", Approvers: []string{"a"}}}},
			{ID: "2", Position: 2},
		}, ""},
		{"no level at all: approved", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := approval.Next(tt.levels, facts(), approval.Start)
			wantCode(t, err, "")
			if got := map[bool]string{true: p.LevelID}[ok]; got != tt.want {
				t.Fatalf("Next = %q (ok %v), want %q", p.LevelID, ok, tt.want)
			}
		})
	}
}

// Ensure a legacy step is approved like any other: its approvers sign and
// the last signature completes it.
func TestRule2LegacyStepApproves(t *testing.T) {
	s := approval.LegacyStep([]string{"a", "b"}, "s")
	if !s.Legacy || s.Status != approval.StepPending || len(s.Requirements) != 2 {
		t.Fatalf("LegacyStep = %+v", s)
	}
	o, err := s.Approve(approval.Actor{UserID: "a"}, t1, "")
	wantCode(t, err, "")
	if o != approval.SignatureAdded {
		t.Fatalf("first signature: %v, want %v", o, approval.SignatureAdded)
	}
	o, err = s.Approve(approval.Actor{UserID: "b"}, t2, "ok from b")
	wantCode(t, err, "")
	if o != approval.Completed || s.Status != approval.StepApproved || !s.CompletedAt.Equal(t2) || s.Comment != "ok from b" {
		t.Fatalf("last signature: %v, step %+v", o, s)
	}
	// A legacy step whose other approver was removed completes on one signature.
	s = approval.LegacyStep([]string{"a", "b"}, "s")
	s.RemoveUser("b", t1)
	if o, err := s.Approve(approval.Actor{UserID: "a"}, t2, ""); err != nil || o != approval.Completed {
		t.Fatalf("after removal: %v, %v", o, err)
	}
}

// Ensure money conditions compare Facts.Money as the caller gives it (in
// the default currency, converted by the caller), so that a converted
// amount crosses a threshold its unconverted figure does not, and that
// non-money facts are compared as they are.
func TestRule3MoneyConditionsOnly(t *testing.T) {
	if !slices.Equal(approval.MoneyFields, []string{"contract_revenue", "contract_cost", "contract_profit", "delta_revenue", "delta_cost"}) {
		t.Fatalf("MoneyFields = %v", approval.MoneyFields)
	}
	// A project priced at 9,500.00 EUR, 1 EUR = 1.10 USD (the default).
	eur, rate := d("9500"), d("1.1")
	level := func(c approval.Condition) []approval.Level {
		return []approval.Level{{ID: "1", Position: 1, Conditions: []approval.Condition{c}, Coverage: all("a")}}
	}
	tests := []struct {
		name  string
		cond  approval.Condition
		facts func(*approval.Facts)
		want  bool
	}{
		{"the converted revenue crosses the threshold",
			approval.Condition{Field: "contract_revenue", Operator: "gt", Value: "10000"},
			func(f *approval.Facts) { f.Money["contract_revenue"] = eur.Mul(rate) }, true},
		{"the unconverted revenue would not",
			approval.Condition{Field: "contract_revenue", Operator: "gt", Value: "10000"},
			func(f *approval.Facts) { f.Money["contract_revenue"] = eur }, false},
		{"cost is read from Money",
			approval.Condition{Field: "contract_cost", Operator: "gte", Value: "7700"},
			func(f *approval.Facts) { f.Money["contract_cost"] = d("7000").Mul(rate) }, true},
		{"profit is read from Money",
			approval.Condition{Field: "contract_profit", Operator: "lt", Value: "2000"},
			func(f *approval.Facts) { f.Money["contract_profit"] = d("1900").Mul(rate) }, false},
		{"total hours are compared as given",
			approval.Condition{Field: "total_hours", Operator: "lte", Value: "100"},
			func(f *approval.Facts) { f.TotalHours = d("100") }, true},
		{"the margin is compared as given",
			approval.Condition{Field: "contract_margin", Operator: "eq", Value: "0.25"},
			func(f *approval.Facts) { f.ContractMargin = d("0.2500") }, true},
		{"the line of business is compared as given",
			approval.Condition{Field: "line_of_business", Operator: "eq", Value: "net"},
			func(f *approval.Facts) {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := facts()
			tt.facts(&f)
			_, ok, err := approval.Next(level(tt.cond), f, approval.Start)
			wantCode(t, err, "")
			if ok != tt.want {
				t.Fatalf("applies = %v, want %v", ok, tt.want)
			}
		})
	}
	t.Run("a money figure the caller did not give is an error", func(t *testing.T) {
		f := facts()
		f.Money = map[string]decimal.Decimal{}
		_, _, err := approval.Next(level(approval.Condition{Field: "contract_cost", Operator: "gt", Value: "0"}), f, approval.Start)
		wantCode(t, err, scopekit.EINTERNAL)
	})
}

// Ensure that once the caller removes an archived user's assignments
// (rule 4 is the caller's), Next no longer asks that user: a level whose
// only approver it was is skipped, and another level's step does not
// require it.
func TestRule4RemovedAssignmentIsNotAsked(t *testing.T) {
	levels := []approval.Level{
		{ID: "1", Position: 1, Coverage: all("archived")},
		{ID: "2", Position: 2, Coverage: []approval.Coverage{{LineOfBusiness: "net", Approvers: []string{"archived", "b"}}}},
	}
	p, ok, err := approval.Next(levels, facts(), approval.Start)
	if err != nil || !ok || p.LevelID != "1" {
		t.Fatalf("before: %+v %v %v", p, ok, err)
	}
	levels[0].Coverage[0].Approvers = nil
	levels[1].Coverage[0].Approvers = []string{"b"}
	p, ok, err = approval.Next(levels, facts(), approval.Start)
	if err != nil || !ok || p.LevelID != "2" || !slices.Equal(p.Approvers, []string{"b"}) {
		t.Fatalf("after: %+v %v %v", p, ok, err)
	}
}

// Ensure a removed user's pending requirement is downgraded so that the
// remaining approvers complete the step, and that a project_approvals
// manager completes it when no approver remains.
func TestRule5RemovedUserDowngraded(t *testing.T) {
	type action struct {
		remove  string         // RemoveUser(remove) when set, else approve as actor
		actor   approval.Actor //
		changed bool           // RemoveUser's report
		want    approval.Outcome
		code    string
	}
	tests := []struct {
		name      string
		required  int
		approvers []string
		actions   []action
		final     string
	}{
		{"the remaining approver completes the step", 0, []string{"a", "b"}, []action{
			{remove: "b", changed: true},
			{actor: approval.Actor{UserID: "a"}, want: approval.Completed},
		}, approval.StepApproved},
		{"a removal completes a step whose signatures suffice", 0, []string{"a", "b"}, []action{
			{actor: approval.Actor{UserID: "a"}, want: approval.SignatureAdded},
			{remove: "b", changed: true, want: approval.Completed},
		}, approval.StepApproved},
		{"a count of two is capped by the approvers left", 2, []string{"a", "b"}, []action{
			{remove: "a", changed: true},
			{actor: approval.Actor{UserID: "b"}, want: approval.Completed},
		}, approval.StepApproved},
		{"the removed user can no longer act", 0, []string{"a", "b"}, []action{
			{remove: "a", changed: true},
			{actor: approval.Actor{UserID: "a"}, code: scopekit.EFORBIDDEN},
		}, approval.StepPending},
		{"a manager cannot act while an approver remains", 0, []string{"a", "b"}, []action{
			{remove: "a", changed: true},
			{actor: approval.Actor{UserID: "m", CanManage: true}, code: scopekit.EFORBIDDEN},
		}, approval.StepPending},
		{"no approver left: a manager completes the step", 0, []string{"a"}, []action{
			{remove: "a", changed: true},
			{actor: approval.Actor{UserID: "x"}, code: scopekit.EFORBIDDEN},
			{actor: approval.Actor{UserID: "m", CanManage: true}, want: approval.Completed},
		}, approval.StepApproved},
		{"a signature survives its user's removal", 0, []string{"a", "b", "c"}, []action{
			{actor: approval.Actor{UserID: "a"}, want: approval.SignatureAdded},
			{remove: "a"},
			{remove: "c", changed: true},
			{actor: approval.Actor{UserID: "b"}, want: approval.Completed},
		}, approval.StepApproved},
		{"removing a user who is not required changes nothing", 0, []string{"a"}, []action{
			{remove: "z"},
		}, approval.StepPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := step(tt.required, false, tt.approvers...)
			for i, a := range tt.actions {
				if a.remove != "" {
					changed, completed := s.RemoveUser(a.remove, t1)
					if changed != a.changed || completed != (a.want == approval.Completed) {
						t.Fatalf("action %d: RemoveUser(%s) = %v, %v", i, a.remove, changed, completed)
					}
					if changed && statuses(s)[a.remove] != approval.Downgraded {
						t.Fatalf("action %d: %s is %s, want downgraded", i, a.remove, statuses(s)[a.remove])
					}
					continue
				}
				o, err := s.Approve(a.actor, t2, "")
				wantCode(t, err, a.code)
				if o != a.want {
					t.Fatalf("action %d: Approve(%s) = %v, want %v", i, a.actor.UserID, o, a.want)
				}
			}
			if s.Status != tt.final {
				t.Fatalf("status %s, want %s", s.Status, tt.final)
			}
		})
	}
	t.Run("the manager's signature is recorded", func(t *testing.T) {
		s := step(0, false, "a")
		s.RemoveUser("a", t1)
		if _, err := s.Approve(approval.Actor{UserID: "m", CanManage: true}, t2, ""); err != nil {
			t.Fatal(err)
		}
		last := s.Requirements[len(s.Requirements)-1]
		if last.UserID != "m" || last.Status != approval.Signed || !last.SignedAt.Equal(t2) || !s.CompletedAt.Equal(t2) {
			t.Fatalf("requirements %+v", s.Requirements)
		}
	})
	t.Run("a step that is not pending is left alone", func(t *testing.T) {
		s := step(0, false, "a")
		s.Cancel(t1)
		if changed, completed := s.RemoveUser("a", t2); changed || completed || statuses(s)["a"] != approval.Pending {
			t.Fatalf("RemoveUser on a canceled step = %v, %v", changed, completed)
		}
	})
}

// Ensure the required approvers are fixed when the step is planned: an
// approver added to the level afterwards is neither in the plan nor
// allowed to sign, and the plan does not share the level's slices.
func TestRule6LaterApproverNotRequired(t *testing.T) {
	levels := []approval.Level{{ID: "1", Position: 1, Coverage: []approval.Coverage{{Approvers: make([]string, 0, 8)}}}}
	levels[0].Coverage[0].Approvers = append(levels[0].Coverage[0].Approvers, "a", "b")
	p, ok, err := approval.Next(levels, facts(), approval.Start)
	if err != nil || !ok {
		t.Fatalf("Next: %v %v", ok, err)
	}
	s := p.NewStep("s")
	levels[0].Coverage[0].Approvers = append(levels[0].Coverage[0].Approvers, "late")
	levels[0].Coverage[0].Approvers[0] = "changed"
	levels[0].Coverage = append(levels[0].Coverage, approval.Coverage{Approvers: []string{"later"}})
	if !slices.Equal(p.Approvers, []string{"a", "b"}) {
		t.Fatalf("plan approvers = %v", p.Approvers)
	}
	for _, u := range []string{"late", "later"} {
		_, err := s.Approve(approval.Actor{UserID: u}, t1, "")
		wantCode(t, err, scopekit.EFORBIDDEN)
	}
	s.Approve(approval.Actor{UserID: "a"}, t1, "")
	if o, err := s.Approve(approval.Actor{UserID: "b"}, t2, ""); err != nil || o != approval.Completed {
		t.Fatalf("the original approvers complete the step: %v %v", o, err)
	}
}
