package approval

import (
	"strings"
	"time"

	"github.com/scopekit/scopekit"
)

// Requirement states.
const (
	Pending    = "pending"    // the user must (or may) still sign
	Signed     = "signed"     // the user signed at SignedAt
	Downgraded = "downgraded" // the user was removed while pending (rule 5); it no longer counts
)

// Requirement is one required approver of a step.
type Requirement struct {
	UserID   string
	Status   string // Pending, Signed or Downgraded
	SignedAt time.Time
}

// Step states.
const (
	StepPending  = "pending"
	StepApproved = "approved"
	StepDeclined = "declined"
	StepRescoped = "rescoped"
	StepCanceled = "canceled"
)

// Step is one approval step of a project: the level's required approvers,
// fixed when the step was created (rule 6), and their signatures. A Legacy
// step (imported from a previous system, rule 2) behaves the same; when it
// completes the caller approves the project rather than walking on.
//
// Counting: the step needs RequiredApprovals signatures (0 or less: one of
// every requirement that is not downgraded), but never more than the
// requirements that can still sign: downgraded requirements do not count,
// nor does the submitter's own pending requirement unless
// SubmitterApproves. When none of those remains and nobody signed, a user
// who can manage project approvals may complete the step alone (rule 5).
type Step struct {
	Status            string
	Legacy            bool
	Requirements      []Requirement
	RequiredApprovals int
	SubmitterApproves bool
	Submitter         string // user id of who submitted the project
	Comment           string
	CompletedAt       time.Time // when the step left pending (any end state)
}

// LegacyStep returns a pending legacy step requiring every one of
// approvers (docs/approval.md rule 2).
func LegacyStep(approvers []string, submitter string) *Step {
	s := Plan{Approvers: approvers}.NewStep(submitter)
	s.Legacy = true
	return s
}

// Actor is who acts on a step. CanManage is true for a user with
// project_approvals manage: such a user may act on a step that no
// approver can sign any more (rule 5).
type Actor struct {
	UserID    string
	CanManage bool
}

// Outcome tells the caller what an action did.
type Outcome int

// Outcomes.
const (
	Unchanged      Outcome = iota // nothing changed (the action failed)
	SignatureAdded                // a signature was recorded; the step is still pending
	Completed                     // the step is approved: walk on (or, for a legacy step, approve the project)
	Declined                      // the step is declined: the project returns to draft
	Rescoped                      // the step is rescoped: the project returns to draft
)

var outcomeNames = [...]string{"unchanged", "signature added", "completed", "declined", "rescoped"}

// String returns the outcome's name.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "unknown"
	}
	return outcomeNames[o]
}

// Approve signs the step for a at now; a non-blank comment becomes the
// step's comment. When the signatures reach the required count the step is
// approved (Completed, CompletedAt = now), otherwise SignatureAdded. A user
// with CanManage completes a step no approver can sign any more; that
// signature is recorded as a new signed requirement of a.
//
// Errors: ECONFLICT when the step is not pending or a has already signed;
// EFORBIDDEN when a is neither a pending required approver nor, for a step
// no approver can sign, a manager, and when a is the submitter of a level
// that does not let the submitter approve.
func (s *Step) Approve(a Actor, now time.Time, comment string) (Outcome, error) {
	i, err := s.authorize(a)
	if err != nil {
		return Unchanged, err
	}
	if strings.TrimSpace(comment) != "" {
		s.Comment = comment
	}
	if i < 0 {
		s.Requirements = append(s.Requirements, Requirement{UserID: a.UserID, Status: Signed, SignedAt: now})
		s.end(StepApproved, now)
		return Completed, nil
	}
	s.Requirements[i].Status = Signed
	s.Requirements[i].SignedAt = now
	if s.complete() {
		s.end(StepApproved, now)
		return Completed, nil
	}
	return SignatureAdded, nil
}

// Decline ends the step as declined with comment, which must not be blank
// (EINVALID naming "comment"); a must be allowed as for Approve (the same
// ECONFLICT and EFORBIDDEN).
func (s *Step) Decline(a Actor, now time.Time, comment string) (Outcome, error) {
	return s.reject(a, now, comment, "decline", StepDeclined, Declined)
}

// Rescope ends the step as rescoped; otherwise it is Decline.
func (s *Step) Rescope(a Actor, now time.Time, comment string) (Outcome, error) {
	return s.reject(a, now, comment, "rescope", StepRescoped, Rescoped)
}

func (s *Step) reject(a Actor, now time.Time, comment, verb, status string, o Outcome) (Outcome, error) {
	if _, err := s.authorize(a); err != nil {
		return Unchanged, err
	}
	if strings.TrimSpace(comment) == "" {
		return Unchanged, invalid("comment", "a comment is required to %s", verb)
	}
	s.Comment = comment
	s.end(status, now)
	return o, nil
}

// Cancel ends a pending step as canceled (a direct status change, a reopen,
// a legacy import); a step that is not pending is left as it is.
func (s *Step) Cancel(now time.Time) {
	if s.Status == StepPending {
		s.end(StepCanceled, now)
	}
}

// RemoveUser downgrades the pending requirements of user on a pending step
// (rule 5) and reports whether anything changed. When the signatures
// already given then reach the required count, the step is approved at now
// and completed is true: the caller walks on as after Approve.
func (s *Step) RemoveUser(user string, now time.Time) (changed, completed bool) {
	if s.Status != StepPending {
		return false, false
	}
	for i := range s.Requirements {
		if r := &s.Requirements[i]; r.UserID == user && r.Status == Pending {
			r.Status = Downgraded
			changed = true
		}
	}
	if changed && s.complete() {
		s.end(StepApproved, now)
		completed = true
	}
	return changed, completed
}

// Signatures returns the number of signed requirements.
func (s *Step) Signatures() int {
	n := 0
	for _, r := range s.Requirements {
		if r.Status == Signed {
			n++
		}
	}
	return n
}

// Needed returns the number of signatures that complete the step now: the
// required count, capped by the requirements that can still be signed (0
// when none can: only a manager can complete it then).
func (s *Step) Needed() int {
	able := 0
	for _, r := range s.Requirements {
		if r.Status == Signed || r.Status == Pending && !s.blocked(r.UserID) {
			able++
		}
	}
	if s.RequiredApprovals > 0 {
		return min(s.RequiredApprovals, able)
	}
	return able
}

func (s *Step) complete() bool {
	n := s.Needed()
	return n > 0 && s.Signatures() >= n
}

// blocked reports whether user is the submitter and may not sign.
func (s *Step) blocked(user string) bool {
	return !s.SubmitterApproves && s.Submitter != "" && user == s.Submitter
}

// authorize checks that a may act on s and returns the index of a's
// pending requirement, or -1 when a acts as a manager on a step no
// approver can sign any more.
func (s *Step) authorize(a Actor) (int, error) {
	if s.Status != StepPending {
		return -1, scopekit.Errorf(scopekit.ECONFLICT, "the approval step is %s, not pending", s.Status)
	}
	mine, signed, open := -1, false, false
	for i, r := range s.Requirements {
		switch {
		case r.UserID == a.UserID && r.Status == Pending && mine < 0:
			mine = i
		case r.UserID == a.UserID && r.Status == Signed:
			signed = true
		}
		if r.Status == Pending && !s.blocked(r.UserID) {
			open = true
		}
	}
	manager := !open && a.CanManage && a.UserID != ""
	switch {
	case (mine >= 0 || manager) && s.blocked(a.UserID):
		return -1, scopekit.Errorf(scopekit.EFORBIDDEN, "the submitter of a project cannot approve it at this level")
	case mine >= 0:
		return mine, nil
	case signed:
		return -1, scopekit.Errorf(scopekit.ECONFLICT, "you have already signed this approval step")
	case manager:
		return -1, nil
	}
	return -1, scopekit.Errorf(scopekit.EFORBIDDEN, "you are not an approver of this approval step")
}

func (s *Step) end(status string, now time.Time) {
	s.Status = status
	s.CompletedAt = now
}
