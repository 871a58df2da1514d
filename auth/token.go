package auth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// grantParams lists the parameters each grant requires, in the order they
// are reported when missing.
var grantParams = map[string][]string{
	GrantClientCredentials: {"client_id", "client_secret"},
	GrantPassword:          {"client_id", "client_secret", "username", "password"},
	GrantRefreshToken:      {"client_id", "client_secret", "refresh_token"},
	GrantAuthorizationCode: {"client_id", "client_secret", "code", "redirect_uri"},
}

// Token answers one POST /oauth/token. It returns an *OAuthError for every
// failure of docs/auth.md's error table, checked in this order:
//
//   - invalid_request: grant_type missing;
//   - unsupported_grant_type: grant_type not one of the four;
//   - invalid_request: a required parameter of the grant missing (or
//     empty), redirect_uri sent with the password grant;
//   - invalid_client (401): client_id unknown or client_secret wrong (one
//     description for both);
//   - unauthorized_client: an application on client_credentials, or
//     service-account credentials on any other grant;
//   - invalid_resource_owner (password): username is no user's email
//     (invalid_grant with UniformTokenErrors);
//   - mfa_required (password): the password is right, the user has a
//     second factor and mfa_code is missing;
//   - invalid_grant: the user's authentication failed (wrong password, not
//     a member of the client's account, invited, deactivated, a service
//     account on the password grant, a wrong, replayed or used mfa_code, a
//     second factor locked after MaxMFAFailures wrong codes, an account
//     that requires a second factor the user has not set up, an email
//     whose sign-ins the account's identity provider takes from passwords
//     (with UniformTokenErrors before any other check of the user)), or the
//     refresh token is unknown,
//     expired, used, of another client or not from a password grant, or the
//     authorization code is unknown, expired, used, of another client, or
//     sent with another redirect_uri or without the PKCE verifier its
//     authorize request called for (or with a wrong one, or with one when
//     none was called for).
//
// Any other error is internal (the store or directory failed).
func (s *Service) Token(ctx context.Context, r *TokenRequest) (*TokenResponse, error) {
	if r.GrantType == "" {
		return nil, NewOAuthError(InvalidRequest, "grant_type is required")
	}
	required, ok := grantParams[r.GrantType]
	if !ok {
		return nil, NewOAuthError(UnsupportedGrantType,
			"grant_type must be one of client_credentials, password, authorization_code, refresh_token")
	}
	var missing []string
	for _, name := range required {
		if r.value(name) == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, NewOAuthError(InvalidRequest, "missing required parameter: "+strings.Join(missing, ", "))
	}
	if r.GrantType == GrantPassword && (r.Present["redirect_uri"] || r.RedirectURI != "") {
		return nil, NewOAuthError(InvalidRequest, "redirect_uri must not be sent with the password grant")
	}

	c, err := s.authenticateClient(ctx, r.ClientID, r.ClientSecret)
	if err != nil {
		return nil, err
	}
	if r.GrantType == GrantClientCredentials && c.cred == nil {
		return nil, NewOAuthError(UnauthorizedClient,
			"an account-level application cannot use the client_credentials grant; use service-account credentials")
	}
	if r.GrantType != GrantClientCredentials && c.app == nil {
		return nil, NewOAuthError(UnauthorizedClient,
			"service-account credentials can only use the client_credentials grant")
	}

	switch r.GrantType {
	case GrantClientCredentials:
		return s.clientCredentialsGrant(ctx, c)
	case GrantPassword:
		return s.passwordGrant(ctx, c, r)
	case GrantRefreshToken:
		return s.refreshTokenGrant(ctx, c, r.RefreshToken)
	default: // GrantAuthorizationCode
		return s.authorizationCodeGrant(ctx, c, r)
	}
}

// value returns the parameter of the request with the given form name.
func (r *TokenRequest) value(name string) string {
	switch name {
	case "client_id":
		return r.ClientID
	case "client_secret":
		return r.ClientSecret
	case "username":
		return r.Username
	case "password":
		return r.Password
	case "refresh_token":
		return r.RefreshToken
	case "code":
		return r.Code
	case "redirect_uri":
		return r.RedirectURI
	case "code_verifier":
		return r.CodeVerifier
	}
	return ""
}

// client is an authenticated OAuth client: exactly one of app and cred is
// set.
type client struct {
	id        string
	accountID string
	app       *Application
	cred      *ServiceCredential
}

// authenticateClient finds the client by id among applications and
// service credentials and compares the secret's digest in constant time.
// An unknown id and a wrong secret are one refusal, in body and in time:
// both lookups always run (ids are one namespace, so at most one
// matches), and an unknown id is compared with a digest nothing matches.
func (s *Service) authenticateClient(ctx context.Context, id, secret string) (*client, error) {
	app, err := orNone(s.Store.ApplicationByClientID(ctx, id))
	if err != nil {
		return nil, fmt.Errorf("auth: look up application: %w", err)
	}
	cred, err := orNone(s.Store.ServiceCredentialByClientID(ctx, id))
	if err != nil {
		return nil, fmt.Errorf("auth: look up service credential: %w", err)
	}
	c, digest := &client{id: id}, noClientDigest[:]
	switch {
	case app != nil:
		c.app, c.accountID, digest = app, app.AccountID, app.SecretDigest
	case cred != nil:
		c.cred, c.accountID, digest = cred, cred.AccountID, cred.SecretDigest
	}
	if !SecretMatches(digest, secret) || (app == nil && cred == nil) {
		return nil, NewOAuthError(InvalidClient, "client authentication failed: unknown client_id or wrong client_secret")
	}
	return c, nil
}

// noClientDigest is what the secret of an unknown client is compared
// with: the work of a real comparison, and no secret matches it.
var noClientDigest = sha256.Sum256([]byte("scopekit: no such client"))

func (s *Service) clientCredentialsGrant(ctx context.Context, c *client) (*TokenResponse, error) {
	m, err := s.Directory.Membership(ctx, c.cred.UserID, c.accountID)
	if isNotFound(err) {
		return nil, NewOAuthError(InvalidGrant, "the service account is not a member of the account")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: membership: %w", err)
	}
	if err := statusGrantError(m.Status); err != nil {
		return nil, err
	}
	return s.issue(ctx, c, c.cred.UserID, GrantClientCredentials, "", false)
}

// passwordGrant authenticates the user by password (and second factor).
// An unknown email costs the lookup and check of a password (nobody's),
// so that its answer comes as late as a wrong password's; with
// UniformTokenErrors it is a wrong password's answer too, as is a
// service account's unless the password is right, and an email whose
// domain the account's identity provider takes from passwords is told
// so whether or not it is a user's.
func (s *Service) passwordGrant(ctx context.Context, c *client, r *TokenRequest) (*TokenResponse, error) {
	incorrect := NewOAuthError(InvalidGrant, "username or password is incorrect")
	subj, known, err := s.subject(ctx, r.Username)
	if err != nil {
		return nil, err
	}
	refused, ok, _, err := s.passwordCheck(ctx, c.accountID, subj, r.Username, r.Password)
	switch {
	case err != nil:
		return nil, err
	case refused && s.UniformTokenErrors:
		return nil, errSSORequired()
	case !known && s.UniformTokenErrors:
		return nil, incorrect
	case !known:
		return nil, NewOAuthError(InvalidResourceOwner, "username is not the email of any user")
	case subj.Service && (ok || !s.UniformTokenErrors):
		return nil, errServicePassword()
	case refused:
		return nil, errSSORequired()
	case !ok:
		return nil, incorrect
	}
	if _, err := s.signInMembership(ctx, subj.UserID, c.accountID); err != nil {
		return nil, err
	}
	withMFA, err := s.passwordSecondFactor(ctx, subj.UserID, c.accountID, r.MFACode)
	if err != nil {
		return nil, err
	}
	proof := ProofPassword
	if withMFA {
		proof = ProofPasswordMFA
	}
	return s.issue(ctx, c, subj.UserID, GrantPassword, proof, true)
}

// nobodyID is the user id of nobody: a well-formed id (decimal, as
// docs/resources.md has them), so that the stores look it up as they look
// up a user's, and past any they give out (the largest int64).
const nobodyID = "9223372036854775807"

// subject returns the user whose email it is; for an unknown email it
// returns nobody (nobodyID): the lookups of its membership and password
// find nothing, cost what a user's cost, and no password matches it.
func (s *Service) subject(ctx context.Context, email string) (subj *Subject, known bool, err error) {
	subj, err = s.Directory.UserByEmail(ctx, email)
	switch {
	case isNotFound(err):
		return &Subject{UserID: nobodyID}, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("auth: user by email: %w", err)
	}
	return subj, true, nil
}

func errServicePassword() error {
	return NewOAuthError(InvalidGrant, "a service account cannot use the password grant")
}

func errSSORequired() error {
	return NewOAuthError(InvalidGrant, "this user signs in through the account's identity provider (single sign-on), not with a password")
}

// passwordCheck checks the password of subj (email's user, or nobody)
// for a sign-in to the account, unless the account's identity provider
// covering email takes it from passwords (refused): then it spends the
// work of a check instead, so that the answer comes as late.
func (s *Service) passwordCheck(ctx context.Context, accountID string, subj *Subject, email, password string) (refused, ok, hasPassword bool, err error) {
	m, err := s.Directory.Membership(ctx, subj.UserID, accountID)
	switch {
	case isNotFound(err):
		m = nil // no member: the answer comes later, as for any
	case err != nil:
		return false, false, false, fmt.Errorf("auth: membership: %w", err)
	}
	refused, err = s.passwordRefused(ctx, accountID, email, m)
	if err != nil {
		return false, false, false, err
	}
	if refused {
		s.burnBcrypt(password)
		return true, false, false, nil
	}
	ok, hasPassword, err = s.verifyPassword(ctx, subj.UserID, password)
	return false, ok, hasPassword, err
}

// checkPassword compares password with the user's bcrypt hash. A user
// without a password costs the same bcrypt work, so timing does not tell
// whether a password is set.
func (s *Service) checkPassword(ctx context.Context, userID, password string) (bool, error) {
	ok, _, err := s.verifyPassword(ctx, userID, password)
	return ok, err
}

// verifyPassword is checkPassword that also reports whether the user has
// a password at all.
func (s *Service) verifyPassword(ctx context.Context, userID, password string) (ok, hasPassword bool, err error) {
	hash, err := s.Store.PasswordHash(ctx, userID)
	if isNotFound(err) {
		s.burnBcrypt(password)
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("auth: password hash: %w", err)
	}
	err = bcrypt.CompareHashAndPassword(hash, []byte(password))
	switch {
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return false, true, nil
	case err != nil:
		return false, true, fmt.Errorf("auth: compare password: %w", err)
	}
	// bcrypt ignores bytes past the 72nd; SetPassword refuses such
	// passwords, so a longer one can never be the right one.
	return len(password) <= maxPasswordBytes, true, nil
}

// burnBcrypt spends the work of one password check, so that a refusal
// that needs none takes as long as one that does: it compares password
// with a digest of the cost new passwords get, which nothing matches.
func (s *Service) burnBcrypt(password string) {
	s.dummyOnce.Do(func() {
		s.dummyHash, _ = bcrypt.GenerateFromPassword([]byte("scopekit: no password set"), s.bcryptCost())
	})
	_ = bcrypt.CompareHashAndPassword(s.dummyHash, []byte(password))
}

func (s *Service) refreshTokenGrant(ctx context.Context, c *client, refreshToken string) (*TokenResponse, error) {
	invalid := NewOAuthError(InvalidGrant, "refresh_token is invalid, expired or revoked")
	digest := HashSecret(refreshToken)
	t, err := s.Store.TokenByDigest(ctx, digest)
	if isNotFound(err) {
		return nil, invalid
	}
	if err != nil {
		return nil, fmt.Errorf("auth: look up token: %w", err)
	}
	switch {
	case t.Kind != KindRefresh:
		return nil, invalid
	case t.Grant != GrantPassword:
		return nil, NewOAuthError(InvalidGrant, "refresh_token was not issued by a password grant")
	case t.ClientID != c.id:
		return nil, NewOAuthError(InvalidGrant, "refresh_token was issued to another client")
	case !s.now().Before(t.ExpiresAt):
		return nil, invalid
	}
	m, err := s.Directory.Membership(ctx, t.UserID, t.AccountID)
	if isNotFound(err) {
		return nil, NewOAuthError(InvalidGrant, "the user is not a member of the application's account")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: membership: %w", err)
	}
	if err := statusGrantError(m.Status); err != nil {
		return nil, err
	}
	if m.revokes(t.CreatedAt) {
		return nil, invalid
	}
	if err := s.refreshAdmitted(ctx, t, m); err != nil {
		return nil, err
	}
	// Rotation: the refresh token is consumed; if a concurrent request
	// consumed it first, this one loses.
	if err := s.Store.DeleteToken(ctx, digest); isNotFound(err) {
		return nil, invalid
	} else if err != nil {
		return nil, fmt.Errorf("auth: consume refresh token: %w", err)
	}
	return s.issue(ctx, c, t.UserID, t.Grant, t.Proof, true)
}

// statusGrantError returns the invalid_grant error for a membership that
// is not active, nil for an active one.
func statusGrantError(status string) error {
	switch status {
	case StatusActive:
		return nil
	case StatusInvited:
		return NewOAuthError(InvalidGrant, "the user has not accepted the invitation")
	case StatusDeactivated:
		return NewOAuthError(InvalidGrant, "the user is deactivated")
	}
	return NewOAuthError(InvalidGrant, "the user is not active")
}

// issue mints an access token (and a refresh token when asked) for the user,
// scoped to the client's account; proof is how the person proved who they
// are (Token.Proof).
func (s *Service) issue(ctx context.Context, c *client, userID, grant, proof string, withRefresh bool) (*TokenResponse, error) {
	now := s.now()
	ttl := s.tokenTTL()
	access, err := s.mint(ctx, KindAccess, grant, proof, userID, c, now, ttl)
	if err != nil {
		return nil, err
	}
	resp := &TokenResponse{
		AccessToken: access,
		TokenType:   "Bearer",
		ExpiresIn:   int(ttl / time.Second),
		CreatedAt:   now.Unix(),
	}
	if withRefresh {
		if resp.RefreshToken, err = s.mint(ctx, KindRefresh, grant, proof, userID, c, now, s.refreshTTL()); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// mint stores the digest of a new random token and returns the token.
func (s *Service) mint(ctx context.Context, kind, grant, proof, userID string, c *client, now time.Time, ttl time.Duration) (string, error) {
	v, err := randomString(tokenBytes)
	if err != nil {
		return "", err
	}
	t := &Token{
		Digest:    HashSecret(v),
		Kind:      kind,
		Grant:     grant,
		Proof:     proof,
		UserID:    userID,
		AccountID: c.accountID,
		ClientID:  c.id,
		CreatedAt: now,
		ExpiresAt: now.Add(ttl),
	}
	if err := s.Store.PutToken(ctx, t); err != nil {
		return "", fmt.Errorf("auth: store token: %w", err)
	}
	return v, nil
}

// signInMembership returns the user's membership in the account when it
// may sign in there (an active member that is not a service account), and
// the OAuth error of the password and authorization code grants otherwise.
func (s *Service) signInMembership(ctx context.Context, userID, accountID string) (*Membership, error) {
	m, err := s.Directory.Membership(ctx, userID, accountID)
	if isNotFound(err) {
		return nil, NewOAuthError(InvalidGrant, "the user is not a member of the application's account")
	}
	if err != nil {
		return nil, fmt.Errorf("auth: membership: %w", err)
	}
	if m.Service {
		return nil, errServicePassword()
	}
	if err := statusGrantError(m.Status); err != nil {
		return nil, err
	}
	return m, nil
}
