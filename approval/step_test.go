package approval_test

import (
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
)

// Ensure a step completes when its signatures reach the required count:
// every approver for 0, N for N, and a line's own count from its coverage.
func TestStepRequiredApprovals(t *testing.T) {
	perLine, _, _ := approval.Next([]approval.Level{{ID: "1", Position: 1, RequiredApprovals: 0,
		Coverage: []approval.Coverage{{LineOfBusiness: "net", Approvers: []string{"a", "b", "c"}, RequiredApprovals: intp(2)}}}},
		facts(), approval.Start)
	tests := []struct {
		name  string
		step  *approval.Step
		signs int // the signature that completes the step (1-based)
	}{
		{"0 = every approver", step(0, false, "a", "b", "c"), 3},
		{"one of three", step(1, false, "a", "b", "c"), 1},
		{"two of three", step(2, false, "a", "b", "c"), 2},
		{"more than the approvers: every approver", step(5, false, "a", "b"), 2},
		{"a line's own count", perLine.NewStep("s"), 2},
		{"the submitter, who may not sign, is not waited for", step(0, false, "a", "s", "b"), 2},
		{"the submitter who may sign is waited for", step(0, true, "a", "b", "s"), 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signers := []string{}
			for _, r := range tt.step.Requirements {
				if r.UserID != "s" || tt.step.SubmitterApproves {
					signers = append(signers, r.UserID)
				}
			}
			for i, u := range signers {
				now := t0.Add(time.Duration(i) * time.Minute)
				o, err := tt.step.Approve(approval.Actor{UserID: u}, now, "")
				wantCode(t, err, "")
				switch {
				case i+1 < tt.signs && o != approval.SignatureAdded:
					t.Fatalf("signature %d: %v, want %v", i+1, o, approval.SignatureAdded)
				case i+1 == tt.signs:
					if o != approval.Completed || tt.step.Status != approval.StepApproved || !tt.step.CompletedAt.Equal(now) {
						t.Fatalf("signature %d: %v, step %+v", i+1, o, tt.step)
					}
					if got := tt.step.Signatures(); got != tt.signs {
						t.Fatalf("Signatures = %d, want %d", got, tt.signs)
					}
					return
				}
				if r := tt.step.Requirements; statuses(tt.step)[u] != approval.Signed || !r[slicesIndex(r, u)].SignedAt.Equal(now) {
					t.Fatalf("signature %d not recorded: %+v", i+1, r)
				}
			}
			t.Fatalf("the step did not complete: %+v", tt.step)
		})
	}
}

func slicesIndex(rs []approval.Requirement, user string) int {
	for i, r := range rs {
		if r.UserID == user {
			return i
		}
	}
	return -1
}

// Ensure who may act on a step: a pending required approver; not a user
// who is not required (403), nor one who already signed (409); the
// submitter only when the level lets it; and nobody once the step is no
// longer pending (409).
func TestStepPermissions(t *testing.T) {
	type act func(*approval.Step, approval.Actor) (approval.Outcome, error)
	approve := func(s *approval.Step, a approval.Actor) (approval.Outcome, error) { return s.Approve(a, t1, "") }
	decline := func(s *approval.Step, a approval.Actor) (approval.Outcome, error) {
		return s.Decline(a, t1, "too expensive")
	}
	rescope := func(s *approval.Step, a approval.Actor) (approval.Outcome, error) {
		return s.Rescope(a, t1, "split phase 2")
	}
	acts := map[string]act{"approve": approve, "decline": decline, "rescope": rescope}
	wants := map[string]approval.Outcome{"approve": approval.SignatureAdded, "decline": approval.Declined, "rescope": approval.Rescoped}

	tests := []struct {
		name  string
		setup func() *approval.Step
		actor approval.Actor
		code  string // "" = allowed
	}{
		{"a required approver", func() *approval.Step { return step(0, false, "a", "b") }, approval.Actor{UserID: "a"}, ""},
		{"a user who is not required", func() *approval.Step { return step(0, false, "a", "b") }, approval.Actor{UserID: "x"}, scopekit.EFORBIDDEN},
		{"a manager while approvers remain", func() *approval.Step { return step(0, false, "a", "b") },
			approval.Actor{UserID: "m", CanManage: true}, scopekit.EFORBIDDEN},
		{"an approver who already signed", func() *approval.Step {
			s := step(0, false, "a", "b")
			s.Approve(approval.Actor{UserID: "a"}, t0, "")
			return s
		}, approval.Actor{UserID: "a"}, scopekit.ECONFLICT},
		{"the submitter when the level does not allow it", func() *approval.Step { return step(0, false, "s", "b") },
			approval.Actor{UserID: "s"}, scopekit.EFORBIDDEN},
		{"the submitter when the level allows it", func() *approval.Step { return step(0, true, "s", "b") },
			approval.Actor{UserID: "s"}, ""},
		{"the submitter as the only approver", func() *approval.Step { return step(0, false, "s") },
			approval.Actor{UserID: "s", CanManage: true}, scopekit.EFORBIDDEN},
		{"a manager when only the submitter, who may not sign, is required", func() *approval.Step { return step(0, false, "s") },
			approval.Actor{UserID: "m", CanManage: true}, ""},
		{"a user without a user id", func() *approval.Step {
			s := step(0, false, "a")
			s.RemoveUser("a", t0)
			return s
		}, approval.Actor{CanManage: true}, scopekit.EFORBIDDEN},
	}
	for _, tt := range tests {
		for name, do := range acts {
			t.Run(tt.name+" "+name, func(t *testing.T) {
				s := tt.setup()
				before := *s
				o, err := do(s, tt.actor)
				wantCode(t, err, tt.code)
				if tt.code != "" {
					if o != approval.Unchanged || s.Status != before.Status || s.Comment != before.Comment || len(s.Requirements) != len(before.Requirements) {
						t.Fatalf("a refused action changed the step: %v, %+v", o, s)
					}
					return
				}
				want := wants[name]
				if tt.actor.CanManage && name == "approve" {
					want = approval.Completed // alone, for a step no approver can sign
				}
				if o != want {
					t.Fatalf("%s: %v, want %v", name, o, want)
				}
			})
		}
	}
}

// Ensure decline and rescope need a comment, end the step with it, and
// leave the signatures given; approve keeps an optional comment.
func TestStepDeclineRescope(t *testing.T) {
	for _, tt := range []struct {
		name   string
		do     func(*approval.Step, string) (approval.Outcome, error)
		status string
		want   approval.Outcome
	}{
		{"decline", func(s *approval.Step, c string) (approval.Outcome, error) {
			return s.Decline(approval.Actor{UserID: "b"}, t2, c)
		}, approval.StepDeclined, approval.Declined},
		{"rescope", func(s *approval.Step, c string) (approval.Outcome, error) {
			return s.Rescope(approval.Actor{UserID: "b"}, t2, c)
		}, approval.StepRescoped, approval.Rescoped},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := step(0, false, "a", "b")
			s.Approve(approval.Actor{UserID: "a"}, t1, "fine by me")
			for _, blank := range []string{"", "  \n\t"} {
				o, err := tt.do(s, blank)
				wantCode(t, err, scopekit.EINVALID)
				if e := err.(*scopekit.Error); e.Field != "comment" || o != approval.Unchanged || s.Status != approval.StepPending {
					t.Fatalf("blank comment: %v (field %q), %+v", o, e.Field, s)
				}
			}
			o, err := tt.do(s, "needs work")
			wantCode(t, err, "")
			if o != tt.want || s.Status != tt.status || s.Comment != "needs work" || !s.CompletedAt.Equal(t2) ||
				statuses(s)["a"] != approval.Signed || statuses(s)["b"] != approval.Pending {
				t.Fatalf("%v, %+v", o, s)
			}
		})
	}
	t.Run("approve keeps the last non-blank comment", func(t *testing.T) {
		s := step(0, false, "a", "b")
		s.Approve(approval.Actor{UserID: "a"}, t1, "first")
		s.Approve(approval.Actor{UserID: "b"}, t2, " ")
		if s.Comment != "first" {
			t.Fatalf("comment %q", s.Comment)
		}
	})
}

// Ensure no action applies to a step that is not pending (409), whoever
// acts, and that Cancel ends only a pending step.
func TestStepNotPending(t *testing.T) {
	ended := map[string]func() *approval.Step{
		approval.StepApproved: func() *approval.Step {
			s := step(1, false, "a", "b")
			s.Approve(approval.Actor{UserID: "a"}, t0, "")
			return s
		},
		approval.StepDeclined: func() *approval.Step {
			s := step(0, false, "a", "b")
			s.Decline(approval.Actor{UserID: "a"}, t0, "no")
			return s
		},
		approval.StepRescoped: func() *approval.Step {
			s := step(0, false, "a", "b")
			s.Rescope(approval.Actor{UserID: "a"}, t0, "again")
			return s
		},
		approval.StepCanceled: func() *approval.Step {
			s := step(0, false, "a", "b")
			s.Cancel(t0)
			return s
		},
	}
	for status, build := range ended {
		for _, a := range []approval.Actor{{UserID: "b"}, {UserID: "x"}, {UserID: "m", CanManage: true}} {
			t.Run(status+" "+a.UserID, func(t *testing.T) {
				s := build()
				if s.Status != status || !s.CompletedAt.Equal(t0) {
					t.Fatalf("setup: %+v", s)
				}
				_, err := s.Approve(a, t1, "")
				wantCode(t, err, scopekit.ECONFLICT)
				_, err = s.Decline(a, t1, "no")
				wantCode(t, err, scopekit.ECONFLICT)
				_, err = s.Rescope(a, t1, "")
				wantCode(t, err, scopekit.ECONFLICT)
				s.Cancel(t1)
				if s.Status != status || !s.CompletedAt.Equal(t0) {
					t.Fatalf("an ended step changed: %+v", s)
				}
			})
		}
	}
}

// Ensure outcomes print their names.
func TestOutcomeString(t *testing.T) {
	for o, want := range map[approval.Outcome]string{approval.Unchanged: "unchanged", approval.SignatureAdded: "signature added",
		approval.Completed: "completed", approval.Declined: "declined", approval.Rescoped: "rescoped", approval.Outcome(9): "unknown"} {
		if o.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(o), o.String(), want)
		}
	}
}
