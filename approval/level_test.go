package approval_test

import (
	"slices"
	"testing"

	"github.com/scopekit/scopekit/approval"
)

// Ensure a coverage of every line, of the project's own line and of one of
// its services' lines each make a level apply, and that the plan gathers
// the approvers of every coverage that covers the project, once each.
func TestNextCoverage(t *testing.T) {
	tests := []struct {
		name     string
		coverage []approval.Coverage
		want     []string // approvers; nil = the level does not apply
	}{
		{"every line", []approval.Coverage{{LineOfBusiness: "", Approvers: []string{"a"}}}, []string{"a"}},
		{"the project's line", []approval.Coverage{{LineOfBusiness: "net", Approvers: []string{"a"}}}, []string{"a"}},
		{"a service's line", []approval.Coverage{{LineOfBusiness: "cloud", Approvers: []string{"a"}}}, []string{"a"}},
		{"another line", []approval.Coverage{{LineOfBusiness: "voice", Approvers: []string{"a"}}}, nil},
		{"only covering coverages count", []approval.Coverage{
			{LineOfBusiness: "voice", Approvers: []string{"v"}},
			{LineOfBusiness: "net", Approvers: []string{"n1", "n2"}},
			{LineOfBusiness: "", Approvers: []string{"all"}},
		}, []string{"n1", "n2", "all"}},
		{"an approver of several coverages is required once", []approval.Coverage{
			{LineOfBusiness: "net", Approvers: []string{"a", "b", "a"}},
			{LineOfBusiness: "cloud", Approvers: []string{"b", "c"}},
			{Approvers: []string{"c", "", "a"}},
		}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := approval.Next([]approval.Level{{ID: "1", Position: 1, Coverage: tt.coverage}}, facts(), approval.Start)
			if err != nil {
				t.Fatal(err)
			}
			if ok != (tt.want != nil) || !slices.Equal(p.Approvers, tt.want) {
				t.Fatalf("Next = %v (ok %v), want %v", p.Approvers, ok, tt.want)
			}
		})
	}
	t.Run("the project's own line need not be repeated in LinesOfBusiness", func(t *testing.T) {
		f := facts()
		f.LinesOfBusiness = nil
		levels := []approval.Level{{ID: "1", Position: 1, Coverage: []approval.Coverage{{LineOfBusiness: "net", Approvers: []string{"a"}}}}}
		if _, ok, _ := approval.Next(levels, f, approval.Start); !ok {
			t.Fatal("the project's own line does not cover it")
		}
	})
}

// Ensure Next walks levels by position (not by their order in the slice),
// after the position it is given, and returns the plan of the level.
func TestNextWalk(t *testing.T) {
	big := []approval.Condition{{Field: "contract_revenue", Operator: "gt", Value: "100000"}}
	levels := []approval.Level{
		{ID: "30", Position: 30, Kind: approval.KindBusiness, Coverage: all("ceo"), RequiredApprovals: 1},
		{ID: "10", Position: 10, Kind: approval.KindTechnical, Coverage: all("t1", "t2"), SubmitterApproves: true},
		{ID: "20", Position: 20, Kind: approval.KindSales, Coverage: all("s1"), Conditions: big},
	}
	tests := []struct {
		name  string
		after int
		want  string
	}{
		{"from the start", approval.Start, "10"},
		{"from -1", -1, "10"},
		{"after the first completed level, skipping one whose condition fails", 10, "30"},
		{"between positions", 15, "30"},
		{"after the last: approved", 30, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := approval.Next(levels, facts(), tt.after)
			if err != nil {
				t.Fatal(err)
			}
			if got := map[bool]string{true: p.LevelID}[ok]; got != tt.want {
				t.Fatalf("Next = %q (ok %v), want %q", p.LevelID, ok, tt.want)
			}
		})
	}
	p, _, _ := approval.Next(levels, facts(), approval.Start)
	want := approval.Plan{LevelID: "10", Kind: "technical", Position: 10, Approvers: []string{"t1", "t2"}, SubmitterApproves: true}
	if p.LevelID != want.LevelID || p.Kind != want.Kind || p.Position != want.Position || !slices.Equal(p.Approvers, want.Approvers) ||
		p.RequiredApprovals != want.RequiredApprovals || p.SubmitterApproves != want.SubmitterApproves {
		t.Fatalf("plan %+v, want %+v", p, want)
	}
	t.Run("levels sharing a position are walked by id", func(t *testing.T) {
		tied := []approval.Level{
			{ID: "12", Position: 5, Coverage: all("b")},
			{ID: "9", Position: 5, Coverage: all("a")},
			{ID: "10", Position: 5, Coverage: []approval.Coverage{{LineOfBusiness: "voice", Approvers: []string{"c"}}}},
		}
		if p, _, _ := approval.Next(tied, facts(), approval.Start); p.LevelID != "9" {
			t.Fatalf("Next = %q, want 9", p.LevelID)
		}
	})
}

// Ensure the plan's count is the level's, replaced by the count of a
// coverage of the project's own line, else by that of a coverage of every
// line.
func TestNextRequiredApprovals(t *testing.T) {
	tests := []struct {
		name     string
		level    int
		coverage []approval.Coverage
		want     int
	}{
		{"every approver", 0, all("a", "b"), 0},
		{"the level's count", 2, all("a", "b", "c"), 2},
		{"a negative count is every approver", -1, all("a"), 0},
		{"the project's line overrides", 2, []approval.Coverage{
			{LineOfBusiness: "net", Approvers: []string{"a"}, RequiredApprovals: intp(1)}}, 1},
		{"an override of 0 means every approver", 2, []approval.Coverage{
			{LineOfBusiness: "net", Approvers: []string{"a"}, RequiredApprovals: intp(0)}}, 0},
		{"a service's line does not override", 2, []approval.Coverage{
			{LineOfBusiness: "cloud", Approvers: []string{"a"}, RequiredApprovals: intp(1)}}, 2},
		{"every line overrides", 2, []approval.Coverage{
			{Approvers: []string{"a"}, RequiredApprovals: intp(3)}}, 3},
		{"the project's line beats every line", 2, []approval.Coverage{
			{Approvers: []string{"a"}, RequiredApprovals: intp(3)},
			{LineOfBusiness: "net", Approvers: []string{"b"}, RequiredApprovals: intp(1)}}, 1},
		{"a coverage without a count does not override", 2, []approval.Coverage{
			{LineOfBusiness: "net", Approvers: []string{"a"}},
			{Approvers: []string{"b"}}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			levels := []approval.Level{{ID: "1", Position: 1, RequiredApprovals: tt.level, Coverage: tt.coverage}}
			p, ok, err := approval.Next(levels, facts(), approval.Start)
			if err != nil || !ok {
				t.Fatalf("Next: %v %v", ok, err)
			}
			if p.RequiredApprovals != tt.want {
				t.Fatalf("RequiredApprovals = %d, want %d", p.RequiredApprovals, tt.want)
			}
		})
	}
}

// Ensure a plan's step is pending with one pending requirement per
// approver and the plan's rules.
func TestPlanNewStep(t *testing.T) {
	p := approval.Plan{LevelID: "1", Approvers: []string{"a", "b"}, RequiredApprovals: 1, SubmitterApproves: true}
	s := p.NewStep("s")
	if s.Status != approval.StepPending || s.Legacy || s.RequiredApprovals != 1 || !s.SubmitterApproves || s.Submitter != "s" {
		t.Fatalf("step %+v", s)
	}
	if len(s.Requirements) != 2 || s.Requirements[0] != (approval.Requirement{UserID: "a", Status: approval.Pending}) ||
		s.Requirements[1].UserID != "b" {
		t.Fatalf("requirements %+v", s.Requirements)
	}
}
