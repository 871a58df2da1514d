package approval_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
)

// Ensure every one of the 36 direct status changes is allowed or refused
// as docs/approval.md's table says, and which cancel the pending steps.
func TestTransition(t *testing.T) {
	const (
		no     = iota // 409
		yes           // allowed
		cancel        // allowed; pending steps are canceled
		same          // no change
	)
	// rows: from; columns: to, in the order of approval.Statuses
	// (draft, pending_approval, approved, won, lost, canceled).
	table := map[string][6]int{
		"draft":            {same, no, yes, no, no, yes},
		"pending_approval": {cancel, same, cancel, no, no, cancel},
		"approved":         {no, no, same, yes, yes, yes},
		"won":              {no, no, no, same, no, yes},
		"lost":             {yes, no, no, no, same, yes},
		"canceled":         {yes, no, no, no, no, same},
	}
	if len(table) != len(approval.Statuses) {
		t.Fatalf("the table has %d rows for %d statuses", len(table), len(approval.Statuses))
	}
	for from, row := range table {
		for i, to := range approval.Statuses {
			t.Run(from+" to "+to, func(t *testing.T) {
				cancelSteps, err := approval.Transition(from, to)
				switch row[i] {
				case no:
					wantCode(t, err, scopekit.ECONFLICT)
					if cancelSteps {
						t.Fatal("a refused change cancels steps")
					}
				case yes, same:
					wantCode(t, err, "")
					if cancelSteps {
						t.Fatal("cancelSteps = true, want false")
					}
				case cancel:
					wantCode(t, err, "")
					if !cancelSteps {
						t.Fatal("cancelSteps = false, want true")
					}
				}
			})
		}
	}
}

// Ensure an unknown status is EINVALID, to or from.
func TestTransitionUnknownStatus(t *testing.T) {
	for _, tt := range []struct{ from, to string }{
		{"draft", "submitted"}, {"draft", ""}, {"draft", "Approved"}, {"archived", "draft"}, {"", "canceled"},
	} {
		t.Run(tt.from+" to "+tt.to, func(t *testing.T) {
			_, err := approval.Transition(tt.from, tt.to)
			wantCode(t, err, scopekit.EINVALID)
			if e := err.(*scopekit.Error); e.Field != "status" {
				t.Fatalf("error names %q, want status", e.Field)
			}
		})
	}
}

// Ensure only a draft can be submitted.
func TestCheckSubmit(t *testing.T) {
	for _, s := range approval.Statuses {
		want := scopekit.ECONFLICT
		if s == "draft" {
			want = ""
		}
		wantCode(t, approval.CheckSubmit(s), want)
	}
}

// Ensure every status has its label, and an unknown one shows as it is.
func TestLabel(t *testing.T) {
	want := map[string]string{"draft": "Draft", "pending_approval": "Pending Approval", "approved": "Approved",
		"won": "Won", "lost": "Lost", "canceled": "Canceled", "other": "other"}
	for s, l := range want {
		if got := approval.Label(s); got != l {
			t.Errorf("Label(%q) = %q, want %q", s, got, l)
		}
	}
}
