package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The second step of a sign-in, after the password: on the login page a
// ticket carries the sign-in from the password form to the code form; on
// the password grant the client repeats the request with mfa_code.

// MFARequired is the token endpoint's error for a password grant whose
// user has a second factor and sent no mfa_code: the client asks the
// person for the code and repeats the request with it.
const MFARequired = "mfa_required"

// Reasons of a LoginError of the second step.
const (
	LoginMFALocked = "mfa_locked" // too many wrong codes in a row: wait MFALockout
	LoginExpired   = "expired"    // the ticket is too old or not of this request: sign in again
	LoginBadCode   = "bad_code"   // a SecondFactor's Reason after a wrong, replayed or used code
)

// SecondFactor is Authorize's answer when the password was right and the
// user must also give a code: the login page shows the code form (or,
// with Enrol, the enrolment page first) and posts the code back with the
// Ticket to AuthorizeSecondFactor, which answers a SecondFactor again
// after a wrong code (Reason LoginBadCode).
type SecondFactor struct {
	Ticket string     // opaque, sealed; lives CodeTTL
	Enrol  *Enrolment // set when the user sets up a second factor first
	Reason string     // "" or LoginBadCode
}

// Error implements the error interface (the sign-in is not done yet).
func (e *SecondFactor) Error() string { return "sign-in needs a second factor" }

// ticket is what a SecondFactor's Ticket seals: who passed the password
// for which authorization request, until when, and the enrolment in
// progress. Sealed, it cannot be read or forged without the key.
type ticket struct {
	UserID, AccountID, ClientID, RedirectURI, State, CodeChallenge string
	ExpiresAt                                                      int64 // Unix seconds
	Enrol                                                          *Enrolment
}

// ticketContext keeps a sealed ticket from passing for any other sealed
// value of the same key.
const ticketContext = "scopekit sign-in ticket\x00"

func (s *Service) sealTicket(t *ticket) (string, error) {
	sealer, err := s.sealer()
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return "", err
	}
	sealed, err := sealer.Seal(append([]byte(ticketContext), b...))
	if err != nil {
		return "", fmt.Errorf("auth: seal ticket: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(sealed), nil
}

// openTicket returns the ticket sealed in v if it is one of r and has
// not expired; nil otherwise.
func (s *Service) openTicket(v string, r *AuthorizeRequest) (*ticket, error) {
	sealer, err := s.sealer()
	if err != nil {
		return nil, err
	}
	raw, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return nil, nil
	}
	plain, err := sealer.Open(raw)
	if err != nil || !strings.HasPrefix(string(plain), ticketContext) {
		return nil, nil
	}
	var t ticket
	if err := json.Unmarshal(plain[len(ticketContext):], &t); err != nil {
		return nil, nil
	}
	if t.ClientID != r.ClientID || t.RedirectURI != r.RedirectURI || t.State != r.State ||
		t.CodeChallenge != r.CodeChallenge || s.now().Unix() >= t.ExpiresAt {
		return nil, nil
	}
	return &t, nil
}

// secondStep returns the SecondFactor of a user who passed the password
// on the login page when one is due: the user has a second factor, or
// the account requires one (then it is set up first), or the person
// asked to set one up. nil when the sign-in is complete.
func (s *Service) secondStep(ctx context.Context, app *Application, r *AuthorizeRequest, subj *Subject) error {
	enrolled, required, err := s.mfaStatus(ctx, subj.UserID, app.AccountID)
	if err != nil || (!enrolled && !required && !r.SetUpMFA) {
		return err
	}
	t := &ticket{UserID: subj.UserID, AccountID: app.AccountID, ClientID: app.ClientID, RedirectURI: r.RedirectURI,
		State: r.State, CodeChallenge: r.CodeChallenge, ExpiresAt: s.now().Add(CodeTTL).Unix()}
	if !enrolled {
		if t.Enrol, err = s.newEnrolment(subj.Email); err != nil {
			return err
		}
	}
	v, err := s.sealTicket(t)
	if err != nil {
		return err
	}
	return &SecondFactor{Ticket: v, Enrol: t.Enrol}
}

// AuthorizeSecondFactor completes a sign-in that Authorize answered with
// a SecondFactor: with a TOTP code (or, unless enrolling, a recovery
// code) it returns a new authorization code as Authorize does; confirming
// an enrolment stores the second factor. It returns CheckAuthorize's
// errors, a *SecondFactor with Reason LoginBadCode after a wrong,
// replayed or used code, and a *LoginError: LoginExpired when the ticket
// is not one of this request or has expired (or the second factor
// changed meanwhile), LoginMFALocked after MaxMFAFailures wrong codes in
// a row. Any other error is internal.
func (s *Service) AuthorizeSecondFactor(ctx context.Context, r *AuthorizeRequest, ticketValue, code string) (string, error) {
	app, err := s.CheckAuthorize(ctx, r)
	if err != nil {
		return "", err
	}
	t, err := s.openTicket(ticketValue, r)
	if err != nil {
		return "", err
	}
	if t == nil {
		return "", &LoginError{Reason: LoginExpired}
	}
	again := &SecondFactor{Ticket: ticketValue, Enrol: t.Enrol, Reason: LoginBadCode}
	if normalizeCode(code) == "" {
		return "", again // nothing to count as a wrong guess
	}
	if t.Enrol != nil {
		step, ok := matchTOTP(t.Enrol.Secret, normalizeCode(code), s.now(), -1)
		if !ok {
			return "", again
		}
		stored, err := s.enrol(ctx, t.UserID, t.Enrol, step)
		if err != nil {
			return "", err
		}
		if !stored {
			return "", &LoginError{Reason: LoginExpired}
		}
		return s.issueCode(ctx, app, r, t.UserID, ProofPasswordMFA)
	}
	switch check, err := s.checkCode(ctx, t.UserID, code); {
	case err != nil:
		return "", err
	case check == codeWrong:
		return "", again
	case check == codeLocked:
		return "", &LoginError{Reason: LoginMFALocked}
	case check == codeNotEnrolled:
		return "", &LoginError{Reason: LoginExpired}
	}
	return s.issueCode(ctx, app, r, t.UserID, ProofPasswordMFA)
}

// passwordSecondFactor is the second step of the password grant, once
// the password and the membership are good: nil when the user has no
// second factor and the account requires none (withMFA false), or when
// mfaCode is right (withMFA true).
func (s *Service) passwordSecondFactor(ctx context.Context, userID, accountID, mfaCode string) (withMFA bool, err error) {
	enrolled, required, err := s.mfaStatus(ctx, userID, accountID)
	switch {
	case err != nil:
		return false, err
	case !enrolled && required:
		return false, NewOAuthError(InvalidGrant,
			"the account requires two-step verification: set it up by signing in on the login page first")
	case !enrolled:
		return false, nil
	case mfaCode == "":
		return false, NewOAuthError(MFARequired,
			"this user signs in with a second factor: repeat the request with the authenticator code (or a recovery code) in mfa_code")
	}
	check, err := s.checkCode(ctx, userID, mfaCode)
	switch {
	case err != nil:
		return false, err
	case check == codeLocked:
		return false, NewOAuthError(InvalidGrant, "too many wrong mfa_code values in a row: wait a quarter of an hour")
	case check != codeOK:
		return false, NewOAuthError(InvalidGrant, "mfa_code is incorrect, or was used already")
	}
	return true, nil
}
