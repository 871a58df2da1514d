package scoping

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Each account's sign-in policy governs every token acting in it
// (docs/auth.md "Accounts are walls", rule 2). auth refuses, at each
// refresh, a refresh token whose sign-in the policy no longer admits;
// tightening the policy here also revokes those tokens, so that they
// stay void if it is loosened again: turning mfa-required on revokes the
// account's refresh tokens of sign-ins without a second factor, and an
// identity provider with passwords-allowed false revokes those of
// password sign-ins of the people whose email it covers.

// RefreshRevoker removes the refresh tokens a tightened sign-in policy
// no longer admits; auth.Service implements it.
type RefreshRevoker interface {
	RevokeRefreshTokens(ctx context.Context, accountID string, userIDs []string, passwordsOff bool) (int, error)
}

var _ RefreshRevoker = (*auth.Service)(nil)

// revokeAfterCommit revokes, once the call has committed, the refresh
// tokens of the account's users listed (nil: all of them) that the
// tightened policy no longer admits. Without Service.SignIns nothing is
// revoked, and auth still refuses those tokens while the policy stands.
func revokeAfterCommit(c *engine.Call, accountID string, userIDs []string, passwordsOff bool) {
	svc := svcOf(c)
	if svc.SignIns == nil {
		return
	}
	c.AfterCommit(func(ctx context.Context) {
		ctx = context.WithoutCancel(ctx)
		if _, err := svc.SignIns.RevokeRefreshTokens(ctx, accountID, userIDs, passwordsOff); err != nil {
			svc.log().Error("refresh tokens not revoked after a sign-in policy change", "account", accountID, "err", err)
		}
	})
}

// revokeOnPasswordsOff is the identity providers' AfterWrite: a provider
// that now takes people of its domains away from passwords (active, with
// passwords-allowed false, newly so or with new domains) revokes their
// refresh tokens of password sign-ins.
func revokeOnPasswordsOff(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	p := views.IdentityProvider{Record: rec}
	if !rec.Active() || p.PasswordsAllowed() {
		return nil
	}
	domains := p.EmailDomains()
	if old != nil && old.Active() && !(views.IdentityProvider{Record: old}).PasswordsAllowed() {
		before := (views.IdentityProvider{Record: old}).EmailDomains()
		domains = slices.DeleteFunc(slices.Clone(domains), func(d string) bool { return slices.Contains(before, d) })
	}
	if len(domains) == 0 {
		return nil
	}
	users, err := c.Find(views.TypeUsers)
	if err != nil {
		return err
	}
	ids := []string{}
	for _, u := range users {
		if slices.Contains(domains, auth.EmailDomain(views.User{Record: u}.Email())) {
			ids = append(ids, u.ID)
		}
	}
	if len(ids) > 0 {
		revokeAfterCommit(c, rec.AccountID, ids, true)
	}
	return nil
}
