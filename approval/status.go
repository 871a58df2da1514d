package approval

import (
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
)

// Project statuses.
const (
	StatusDraft           = "draft"
	StatusPendingApproval = "pending_approval"
	StatusApproved        = "approved"
	StatusWon             = "won"
	StatusLost            = "lost"
	StatusCanceled        = "canceled"
)

// Statuses lists the project statuses in workflow order.
var Statuses = []string{StatusDraft, StatusPendingApproval, StatusApproved, StatusWon, StatusLost, StatusCanceled}

var labels = map[string]string{
	StatusDraft:           "Draft",
	StatusPendingApproval: "Pending Approval",
	StatusApproved:        "Approved",
	StatusWon:             "Won",
	StatusLost:            "Lost",
	StatusCanceled:        "Canceled",
}

// Label returns the human label of a project status ("Pending Approval"),
// or status itself when it is not one of Statuses.
func Label(status string) string {
	if l, ok := labels[status]; ok {
		return l
	}
	return status
}

// Transition checks a direct change of a project's status from from to to
// by a user with project_approvals manage (docs/approval.md): to approved from
// draft or pending_approval; to won or lost from approved; to canceled
// from any status; to draft from pending_approval, canceled or lost.
// pending_approval is entered only by submitting. cancelSteps is true when
// the project leaves pending_approval: its pending steps must be canceled.
// from == to is no change: nil error, cancelSteps false, and the caller
// records no status change and no event.
//
// Errors: EINVALID (Field "status") when either value is not one of
// Statuses; ECONFLICT (Field "status") for any other change.
func Transition(from, to string) (cancelSteps bool, err error) {
	for _, s := range []string{to, from} {
		if !slices.Contains(Statuses, s) {
			return false, invalid("status", "status %q must be one of %s", s, strings.Join(Statuses, ", "))
		}
	}
	if from == to {
		return false, nil
	}
	var allowed bool
	switch to {
	case StatusApproved:
		allowed = from == StatusDraft || from == StatusPendingApproval
	case StatusWon, StatusLost:
		allowed = from == StatusApproved
	case StatusCanceled:
		allowed = true
	case StatusDraft:
		allowed = from == StatusPendingApproval || from == StatusCanceled || from == StatusLost
	}
	if !allowed {
		return false, scopekit.FieldErrorf(scopekit.ECONFLICT, "status", "a project cannot go from %s to %s", Label(from), Label(to))
	}
	return from == StatusPendingApproval, nil
}

// CheckSubmit checks that a project in status can be submitted for
// approval: only a draft can (ECONFLICT otherwise).
func CheckSubmit(status string) error {
	if status != StatusDraft {
		return scopekit.Errorf(scopekit.ECONFLICT, "only a draft project can be submitted, this one is %s", Label(status))
	}
	return nil
}
