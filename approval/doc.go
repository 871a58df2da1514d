// Package approval is ScopeKit's approval workflow as a pure state machine
// (docs/approval.md). Given an account's approval levels, a project's facts and
// the approvers that cover each level, Next decides which level gets the
// next step and who must sign it; a Step's methods apply approve, decline,
// rescope, cancel and the removal of a user, and tell the caller what
// happened; Transition checks a direct change of a project's status.
//
// The package owns no storage, clock or ids: the caller (scoping) loads the
// levels, converts money facts into the account's default currency, passes
// the time of each action, stores the resulting steps and turns outcomes
// into project status changes and events. Errors are *scopekit.Error values
// whose codes the HTTP adapter maps: EINVALID (a bad condition, a missing
// comment, an unknown status), EFORBIDDEN (not an approver of the step),
// ECONFLICT (the step or project is in a state that forbids the action).
package approval
