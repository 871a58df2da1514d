package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"slices"
	"time"
)

// CodeTTL is how long an authorization code may wait for its exchange
// (docs/auth.md: ten minutes).
const CodeTTL = 10 * time.Minute

// CodeChallengeS256 is the only PKCE method accepted (RFC 7636 4.2); the
// "plain" method protects nothing that TLS does not.
const CodeChallengeS256 = "S256"

// Errors of the authorization endpoint (RFC 6749 4.1.2.1) beyond those of
// the token endpoint.
const (
	UnsupportedResponseType = "unsupported_response_type"
	AccessDenied            = "access_denied"
)

// AuthCode is an issued authorization code as stored: only its digest. It
// remembers what the exchange must match: the client, the redirect URI of
// the authorize request and the PKCE challenge, if one was sent.
type AuthCode struct {
	Digest        []byte // HashSecret of the code
	ClientID      string
	AccountID     string // the application's account
	UserID        string
	RedirectURI   string
	CodeChallenge string // S256 challenge; "" when the authorize request sent none
	// Proof is how the person proved who they are (ProofPassword,
	// ProofPasswordMFA, ProofSSO): the tokens of the exchange keep it.
	Proof     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// AuthorizeRequest is the query of GET /oauth/authorize (the login form
// posts it back unchanged, beside the email and password).
type AuthorizeRequest struct {
	ResponseType        string
	ClientID            string
	RedirectURI         string
	State               string
	CodeChallenge       string
	CodeChallengeMethod string
	// SetUpMFA is the login form's request to set up a second factor
	// after the password (Authorize then answers a SecondFactor).
	SetUpMFA bool
}

// AuthorizeError is a refused authorization request. When Redirect is
// false the client or its redirect URI could not be trusted: the error is
// shown to the user and never sent anywhere (RFC 6749 4.1.2.1). When it is
// true, the client and redirect URI are good and the error may go back to
// the redirect URI with the state. Code is an RFC 6749 error code;
// Description is safe to show.
type AuthorizeError struct {
	Code        string
	Description string
	Redirect    bool
}

// Error implements the error interface.
func (e *AuthorizeError) Error() string {
	return fmt.Sprintf("oauth authorize %s: %s", e.Code, e.Description)
}

// Reasons of a LoginError.
const (
	LoginBadCredentials = "bad_credentials" // unknown email or wrong password
	LoginServiceAccount = "service_account" // service accounts sign in with client credentials only
	LoginInvited        = "invited"         // the invitation to the account is not accepted yet
	LoginDeactivated    = "deactivated"     // the membership is deactivated
	LoginNotMember      = "not_member"      // the user is not a member of the application's account
)

// LoginError is a refused sign-in on the login page; Reason is one of the
// Login* constants, for the page to word. Err, when set, is the detail
// for the log (it quotes nothing the person sent).
type LoginError struct {
	Reason string
	Err    error
}

// Error implements the error interface.
func (e *LoginError) Error() string {
	if e.Err != nil {
		return "login refused: " + e.Reason + ": " + e.Err.Error()
	}
	return "login refused: " + e.Reason
}

// CheckAuthorize validates an authorization request before the login form
// is shown (and again when it is posted) and returns the application. It
// returns an *AuthorizeError:
//
//   - not redirectable: client_id or redirect_uri missing, client_id not an
//     application (unknown, or service-account credentials), redirect_uri
//     not exactly one of the application's registered redirect URIs;
//   - redirectable: response_type other than "code"
//     (unsupported_response_type), a code_challenge without
//     code_challenge_method=S256 or the other way round, another method, or
//     a challenge that is not 43 base64url characters (invalid_request).
//
// Any other error is internal.
func (s *Service) CheckAuthorize(ctx context.Context, r *AuthorizeRequest) (*Application, error) {
	page := func(code, desc string) error { return &AuthorizeError{Code: code, Description: desc} }
	redirect := func(code, desc string) error { return &AuthorizeError{Code: code, Description: desc, Redirect: true} }
	if r.ClientID == "" {
		return nil, page(InvalidRequest, "client_id is required")
	}
	app, err := s.Store.ApplicationByClientID(ctx, r.ClientID)
	if isNotFound(err) {
		return nil, page(InvalidClient, "client_id is not a registered application")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: look up application: %w", err)
	}
	if r.RedirectURI == "" {
		return nil, page(InvalidRequest, "redirect_uri is required")
	}
	if !slices.Contains(app.RedirectURIs, r.RedirectURI) {
		return nil, page(InvalidRequest, "redirect_uri is not registered for this application")
	}
	if r.ResponseType != "code" {
		return app, redirect(UnsupportedResponseType, "response_type must be code")
	}
	switch {
	case r.CodeChallenge == "" && r.CodeChallengeMethod == "":
	case r.CodeChallengeMethod != CodeChallengeS256:
		return app, redirect(InvalidRequest, "code_challenge_method must be S256 when a code_challenge is sent")
	case !validChallenge(r.CodeChallenge):
		return app, redirect(InvalidRequest, "code_challenge must be the 43-character base64url SHA-256 of the code verifier")
	}
	return app, nil
}

// Authorize signs the user in for an authorization request and returns a
// new authorization code, valid once for CodeTTL. It runs CheckAuthorize
// again (the login form's hidden fields come back from the browser) and
// returns its errors, then a *LoginError when the user may not sign in:
// unknown email or wrong password, a service account, a user who is not a
// member of the application's account, or whose membership there is
// invited or deactivated. When the password is right but a second factor
// is due (the user has one, the account requires one, or r.SetUpMFA) it
// returns a *SecondFactor instead of a code: AuthorizeSecondFactor
// completes the sign-in. Any other error is internal.
func (s *Service) Authorize(ctx context.Context, r *AuthorizeRequest, email, password string) (string, error) {
	app, err := s.CheckAuthorize(ctx, r)
	if err != nil {
		return "", err
	}
	subj, err := s.login(ctx, app.AccountID, email, password)
	if err != nil {
		return "", err
	}
	if err := s.secondStep(ctx, app, r, subj); err != nil {
		return "", err
	}
	return s.issueCode(ctx, app, r, subj.UserID, ProofPassword)
}

// issueCode stores a new authorization code for the user signed in for
// the request, by proof, and returns it.
func (s *Service) issueCode(ctx context.Context, app *Application, r *AuthorizeRequest, userID, proof string) (string, error) {
	code, err := randomString(tokenBytes)
	if err != nil {
		return "", err
	}
	now := s.now()
	ac := &AuthCode{
		Digest:        HashSecret(code),
		ClientID:      app.ClientID,
		AccountID:     app.AccountID,
		UserID:        userID,
		RedirectURI:   r.RedirectURI,
		CodeChallenge: r.CodeChallenge,
		Proof:         proof,
		CreatedAt:     now,
		ExpiresAt:     now.Add(CodeTTL),
	}
	if err := s.Store.Update(ctx, func(tx Tx) error {
		// codes that expired unused would pile up: each new one clears
		// those that expired before it was issued
		if err := tx.DeleteAuthCodesExpiredBefore(now); err != nil {
			return err
		}
		return tx.PutAuthCode(ac)
	}); err != nil {
		return "", fmt.Errorf("auth: store code: %w", err)
	}
	return code, nil
}

// login authenticates a person on the login page for the account. The
// checks run in the password grant's order, except that an invited user
// without a password is told about the invitation rather than about a
// wrong password. An unknown email costs the lookups and the check of a
// password (nobody's, see subject), so that its time tells nothing; with
// UniformTokenErrors a wrong password is all any refusal says until the
// password is right, except that an email of a domain the account's
// identity provider takes from passwords is sent there, known or not.
func (s *Service) login(ctx context.Context, accountID, email, password string) (*Subject, error) {
	refuse := func(reason string) (*Subject, error) { return nil, &LoginError{Reason: reason} }
	if email == "" || password == "" {
		return refuse(LoginBadCredentials)
	}
	subj, known, err := s.subject(ctx, email)
	if err != nil {
		return nil, err
	}
	m, err := s.Directory.Membership(ctx, subj.UserID, accountID)
	if isNotFound(err) {
		m = nil
	} else if err != nil {
		return nil, fmt.Errorf("auth: membership: %w", err)
	}
	refused, ok, hasPassword, err := s.passwordCheck(ctx, accountID, subj, email, password)
	if err != nil {
		return nil, err
	}
	switch {
	case refused && s.UniformTokenErrors:
		return refuse(LoginSSORequired)
	case !known || (!ok && s.UniformTokenErrors):
		return refuse(LoginBadCredentials)
	case subj.Service || (m != nil && m.Service):
		return refuse(LoginServiceAccount)
	case refused:
		return refuse(LoginSSORequired)
	case !ok && !hasPassword && m != nil && m.Status == StatusInvited:
		return refuse(LoginInvited)
	case !ok:
		return refuse(LoginBadCredentials)
	}
	if err := loginRefusal(m); err != nil {
		return nil, err
	}
	return subj, nil
}

// loginRefusal returns the *LoginError of a membership (nil: none) that
// may not sign in on the login page, nil for one that may.
func loginRefusal(m *Membership) error {
	switch {
	case m == nil:
		return &LoginError{Reason: LoginNotMember}
	case m.Service:
		return &LoginError{Reason: LoginServiceAccount}
	case m.Status == StatusInvited:
		return &LoginError{Reason: LoginInvited}
	case m.Status != StatusActive:
		return &LoginError{Reason: LoginDeactivated}
	}
	return nil
}

// authorizationCodeGrant exchanges a code. The code is taken out of the
// store first, so that it is consumed by the first exchange naming it,
// whatever the outcome; then the client, expiry, redirect URI, PKCE
// verifier and membership are checked.
func (s *Service) authorizationCodeGrant(ctx context.Context, c *client, r *TokenRequest) (*TokenResponse, error) {
	invalid := NewOAuthError(InvalidGrant, "code is invalid, expired or already used")
	ac, err := s.Store.TakeAuthCode(ctx, HashSecret(r.Code))
	if isNotFound(err) {
		return nil, invalid
	}
	if err != nil {
		return nil, fmt.Errorf("auth: take code: %w", err)
	}
	switch {
	case ac.ClientID != c.id:
		return nil, NewOAuthError(InvalidGrant, "code was issued to another client")
	case !s.now().Before(ac.ExpiresAt):
		return nil, invalid
	case ac.RedirectURI != r.RedirectURI:
		return nil, NewOAuthError(InvalidGrant, "redirect_uri differs from the one of the authorization request")
	case ac.CodeChallenge == "" && r.CodeVerifier != "":
		// OAuth 2.1: a verifier without a challenge may be a downgrade.
		return nil, NewOAuthError(InvalidGrant, "code_verifier sent but the authorization request had no code_challenge")
	case ac.CodeChallenge != "" && r.CodeVerifier == "":
		return nil, NewOAuthError(InvalidGrant, "code_verifier is required: the authorization request sent a code_challenge")
	case ac.CodeChallenge != "" && !verifierMatches(r.CodeVerifier, ac.CodeChallenge):
		return nil, NewOAuthError(InvalidGrant, "code_verifier does not match the code_challenge")
	}
	m, err := s.signInMembership(ctx, ac.UserID, ac.AccountID)
	if err != nil {
		return nil, err
	}
	if m.revokes(ac.CreatedAt) {
		return nil, invalid
	}
	return s.issue(ctx, c, ac.UserID, GrantAuthorizationCode, ac.Proof, false)
}

// validChallenge reports whether v can be an S256 challenge: the unpadded
// base64url encoding of 32 bytes.
func validChallenge(v string) bool {
	if len(v) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil
}

// verifierMatches checks a PKCE code_verifier (RFC 7636 4.1: 43 to 128
// unreserved characters) against an S256 challenge, in constant time.
func verifierMatches(verifier, challenge string) bool {
	if len(verifier) < 43 || len(verifier) > 128 {
		return false
	}
	for i := 0; i < len(verifier); i++ {
		c := verifier[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}
