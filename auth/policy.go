package auth

import (
	"context"
	"fmt"
	"slices"
)

// Each account's sign-in policy governs every token acting in it, a
// refresh included (docs/auth.md "Accounts are walls", rule 2). A refresh
// token records how the person proved who they are (Token.Proof); a
// refresh is refused once the account's policy asks for more than that:
// a second factor the token's sign-in did not give (the person has set
// one up since, or the account turned mfa-required on), or no password
// at all (an identity provider of the account covering the person's
// email with passwords-allowed false). Tightening the policy also revokes
// the refresh tokens that no longer qualify (RevokeRefreshTokens), so
// that loosening it again does not bring them back. Service accounts
// (client credentials) get no refresh tokens and are outside both rules.

// How a person proved who they are, as Token.Proof records it.
const (
	ProofPassword    = "password"
	ProofPasswordMFA = "password+mfa"
	// ProofSSO is a sign-in through an identity provider, which asks
	// for the person's proof itself (no second factor of ScopeKit's).
	ProofSSO = "sso"
)

// ProofWithoutMFA reports whether a sign-in of proof gave no second
// factor though the person could have: a password alone (or an older
// token that did not record its proof).
func ProofWithoutMFA(proof string) bool { return slices.Contains(proofsWithoutMFA, proof) }

// SessionEnder is implemented by a Directory whose people also hold
// sessions of their own (the web workspace's): enrolling a second factor
// ends those opened without one, as it revokes such refresh tokens
// (docs/auth.md "Accounts are walls", rule 2).
type SessionEnder interface {
	EndSessionsWithoutMFA(ctx context.Context, userID string) error
}

// Proofs that give no second factor ("" is a token older than
// Token.Proof), and every proof of a password sign-in.
var (
	proofsWithoutMFA = []string{"", ProofPassword}
	proofsOfPassword = []string{"", ProofPassword, ProofPasswordMFA}
)

// RefreshFilter selects the refresh tokens DeleteRefreshTokens removes:
// those of AccountID (every account when ""), of the users in UserIDs
// (every user when AnyUser; none when neither), whose Proof is one of
// Proofs.
type RefreshFilter struct {
	AccountID string
	UserIDs   []string
	AnyUser   bool
	Proofs    []string
}

// Selects reports whether f selects the token t.
func (f *RefreshFilter) Selects(t *Token) bool {
	if t.Kind != KindRefresh || (f.AccountID != "" && t.AccountID != f.AccountID) {
		return false
	}
	userOK := f.AnyUser
	for _, id := range f.UserIDs {
		userOK = userOK || id == t.UserID
	}
	proofOK := false
	for _, p := range f.Proofs {
		proofOK = proofOK || p == t.Proof
	}
	return userOK && proofOK
}

// errPolicyTightened is the refusal of a refresh token whose sign-in the
// account's policy no longer admits.
func errPolicyTightened() error {
	return NewOAuthError(InvalidGrant, "the account's sign-in policy now asks for more than the sign-in this refresh token comes from: sign in again")
}

// refreshAdmitted checks the refresh token t of membership m against the
// policy of its account as it is now.
func (s *Service) refreshAdmitted(ctx context.Context, t *Token, m *Membership) error {
	if t.Proof != ProofPasswordMFA {
		enrolled, required, err := s.mfaStatus(ctx, t.UserID, t.AccountID)
		if err != nil {
			return err
		}
		if enrolled || required {
			return errPolicyTightened()
		}
	}
	off, err := s.passwordRefused(ctx, t.AccountID, m.Email, m)
	if err != nil {
		return err
	}
	if off {
		return errPolicyTightened()
	}
	return nil
}

// RevokeRefreshTokens removes the refresh tokens that a tightened
// sign-in policy no longer admits: those of the account (every account
// when accountID is ""), of the users listed (every user of it when
// userIDs is nil; none when it is empty), from a sign-in without a second
// factor, or, when passwordsOff, from any password sign-in. It returns
// how many it removed.
func (s *Service) RevokeRefreshTokens(ctx context.Context, accountID string, userIDs []string, passwordsOff bool) (int, error) {
	if userIDs != nil && len(userIDs) == 0 {
		return 0, nil
	}
	f := RefreshFilter{AccountID: accountID, UserIDs: userIDs, AnyUser: userIDs == nil, Proofs: proofsWithoutMFA}
	if passwordsOff {
		f.Proofs = proofsOfPassword
	}
	n, err := s.Store.DeleteRefreshTokens(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("auth: revoke refresh tokens: %w", err)
	}
	return n, nil
}
