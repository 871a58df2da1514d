package auth_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// totpCode is the authenticator's code for the seed at t.
func totpCode(tb testing.TB, secret string, t time.Time) string {
	tb.Helper()
	c, err := totp.GenerateCode(secret, t)
	require.NoError(tb, err)
	return c
}

// requireSecondFactor asserts err asks for the second step and returns it.
func requireSecondFactor(tb testing.TB, err error, enrol bool, reason string) *auth.SecondFactor {
	tb.Helper()
	var sf *auth.SecondFactor
	require.Truef(tb, errors.As(err, &sf), "want *auth.SecondFactor, got %v", err)
	require.NotEmpty(tb, sf.Ticket)
	require.Equal(tb, enrol, sf.Enrol != nil, "enrolment")
	require.Equal(tb, reason, sf.Reason)
	return sf
}

func requireLoginReason(tb testing.TB, err error, reason string) {
	tb.Helper()
	var le *auth.LoginError
	require.Truef(tb, errors.As(err, &le), "want *auth.LoginError, got %v", err)
	require.Equal(tb, reason, le.Reason)
}

// enrolAda sets up ada's second factor on the login page (as asked on
// its form) and returns the seed and the recovery codes; the clock has
// moved past the step of the code that confirmed it.
func (f *Fixture) enrolAda(t *testing.T) (secret string, recovery []string) {
	t.Helper()
	ctx := context.Background()
	_, err := f.Svc.Authorize(ctx, authorizeReq(func(r *auth.AuthorizeRequest) { r.SetUpMFA = true }), "ada@acme.test", Password)
	sf := requireSecondFactor(t, err, true, "")
	code, err := f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, totpCode(t, sf.Enrol.Secret, f.Clock.Now()))
	require.NoError(t, err)
	f.MustToken(t, codeGrant(code, callback, ""))
	f.Clock.Add(30 * time.Second)
	return sf.Enrol.Secret, sf.Enrol.Recovery
}

// Ensure the enrolment hands out a TOTP seed an authenticator reads and
// ten recovery codes, takes a wrong code without storing anything, and
// stores the second factor once confirmed.
func TestMFA_Enrol(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	_, err := f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	require.NoError(t, err, "no second factor, none required, none asked for: a code at once")

	asked := authorizeReq(func(r *auth.AuthorizeRequest) { r.SetUpMFA = true })
	_, err = f.Svc.Authorize(ctx, asked, "ada@acme.test", "wrong password!")
	requireLoginReason(t, err, auth.LoginBadCredentials)
	_, err = f.Svc.Authorize(ctx, asked, "ada@acme.test", Password)
	sf := requireSecondFactor(t, err, true, "")
	e := sf.Enrol
	require.Regexp(t, `^[A-Z2-7]{32}$`, e.Secret)
	require.True(t, strings.HasPrefix(e.URL, "otpauth://totp/ScopeKit:ada@acme.test?"), e.URL)
	require.Contains(t, e.URL, "secret="+e.Secret)
	require.Len(t, e.Recovery, auth.RecoveryCodes)
	seen := map[string]bool{}
	for _, c := range e.Recovery {
		require.Regexp(t, `^[a-z2-7]{4}(-[a-z2-7]{4}){3}$`, c)
		require.False(t, seen[c])
		seen[c] = true
	}

	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, "000000")
	again := requireSecondFactor(t, err, true, auth.LoginBadCode)
	require.Equal(t, sf.Ticket, again.Ticket)
	require.Equal(t, e, again.Enrol, "the same enrolment is shown again")
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, e.Recovery[0])
	requireSecondFactor(t, err, true, auth.LoginBadCode) // a recovery code confirms nothing
	_, err = f.DB.AuthStore().MFA(ctx, "ada")
	RequireCode(t, err, scopekit.ENOTFOUND)

	code, err := f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, " "+totpCode(t, e.Secret, f.Clock.Now())[:3]+" "+totpCode(t, e.Secret, f.Clock.Now())[3:])
	require.NoError(t, err, "spaces are ignored")
	f.MustToken(t, codeGrant(code, callback, ""))
	m, err := f.DB.AuthStore().MFA(ctx, "ada")
	require.NoError(t, err)
	require.Len(t, m.Recovery, auth.RecoveryCodes)

	// confirming again (a second tab) finds the second factor set up
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, totpCode(t, e.Secret, f.Clock.Now().Add(30*time.Second)))
	requireLoginReason(t, err, auth.LoginExpired)

	// asking again once enrolled: the code step, not a new enrolment
	_, err = f.Svc.Authorize(ctx, asked, "ada@acme.test", Password)
	requireSecondFactor(t, err, false, "")
}

// Ensure an enrolled user signs in on the login page with a code, that a
// wrong code and a replayed one are refused (the form again), that each
// recovery code works once, and that a ticket serves its own request
// only, until it expires.
func TestMFA_LoginPage(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	secret, recovery := f.enrolAda(t)

	signIn := func() string {
		t.Helper()
		_, err := f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
		return requireSecondFactor(t, err, false, "").Ticket
	}
	tk := signIn()
	_, err := f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, "123456")
	requireSecondFactor(t, err, false, auth.LoginBadCode)
	now := totpCode(t, secret, f.Clock.Now())
	code, err := f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, now)
	require.NoError(t, err)
	f.MustToken(t, codeGrant(code, callback, ""))

	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), now)
	requireSecondFactor(t, err, false, auth.LoginBadCode) // replayed
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), totpCode(t, secret, f.Clock.Now().Add(-30*time.Second)))
	requireSecondFactor(t, err, false, auth.LoginBadCode) // older than the last one used
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), totpCode(t, secret, f.Clock.Now().Add(30*time.Second)))
	require.NoError(t, err, "the next step is within the drift allowed")

	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), strings.ToUpper(recovery[3]))
	require.NoError(t, err, "a recovery code, whatever its case")
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), recovery[3])
	requireSecondFactor(t, err, false, auth.LoginBadCode) // used up
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), signIn(), strings.ReplaceAll(recovery[4], "-", ""))
	require.NoError(t, err, "without the dashes")
	m, err := f.DB.AuthStore().MFA(ctx, "ada")
	require.NoError(t, err)
	require.Len(t, m.Recovery, auth.RecoveryCodes-2)

	f.Clock.Add(time.Minute)
	tk = signIn()
	fresh := totpCode(t, secret, f.Clock.Now())
	for _, r := range []*auth.AuthorizeRequest{
		authorizeReq(func(r *auth.AuthorizeRequest) { r.State = "other" }),
		authorizeReq(withPKCE),
	} {
		_, err = f.Svc.AuthorizeSecondFactor(ctx, r, tk, fresh)
		requireLoginReason(t, err, auth.LoginExpired) // a ticket of another request
	}
	for _, bad := range []string{"", "not a ticket", tk[:len(tk)-2] + "AA", strings.Repeat("A", len(tk))} {
		_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), bad, fresh)
		requireLoginReason(t, err, auth.LoginExpired)
	}
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(func(r *auth.AuthorizeRequest) { r.RedirectURI = "https://evil.test/cb" }), tk, fresh)
	var ae *auth.AuthorizeError
	require.True(t, errors.As(err, &ae), "the request is checked first: %v", err)

	f.Clock.Add(auth.CodeTTL)
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, totpCode(t, secret, f.Clock.Now()))
	requireLoginReason(t, err, auth.LoginExpired)
}

// Ensure the password grant asks for the second factor (mfa_required)
// only once the password is right, then takes the code in mfa_code: a
// wrong, replayed or used one is invalid_grant.
func TestMFA_PasswordGrant(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	secret, recovery := f.enrolAda(t)
	grant := func(password, code string) (*auth.TokenResponse, error) {
		r := PasswordGrant("ada@acme.test", password)
		r.MFACode = code
		return f.Svc.Token(ctx, r)
	}
	_, err := grant("wrong password!", "")
	RequireOAuthError(t, err, auth.InvalidGrant)
	_, err = grant("wrong password!", totpCode(t, secret, f.Clock.Now()))
	RequireOAuthError(t, err, auth.InvalidGrant)
	_, err = grant(Password, "")
	RequireOAuthError(t, err, auth.MFARequired)
	require.Contains(t, err.(*auth.OAuthError).Description, "mfa_code")

	_, err = grant(Password, "999999x")
	RequireOAuthError(t, err, auth.InvalidGrant)
	code := totpCode(t, secret, f.Clock.Now())
	tok, err := grant(Password, code)
	require.NoError(t, err)
	require.NotEmpty(t, tok.RefreshToken)
	_, err = grant(Password, code)
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Contains(t, err.(*auth.OAuthError).Description, "used already")

	_, err = grant(Password, recovery[0])
	require.NoError(t, err)
	_, err = grant(Password, recovery[0])
	RequireOAuthError(t, err, auth.InvalidGrant)

	// a refresh needs no second factor: the grant it comes from had one
	f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
		ClientSecret: PortalSecret, RefreshToken: tok.RefreshToken})
	// users without a second factor are not asked, an mfa_code is ignored
	_, err = f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
		Username: "ola@other.test", Password: Password, MFACode: "123456"})
	require.NoError(t, err)
}

// Ensure of concurrent grants sending the same code only one gets a
// token: the step is used in the same transaction that accepts it.
func TestMFA_ConcurrentReplay(t *testing.T) {
	f := NewFixture(t)
	secret, _ := f.enrolAda(t)
	r := PasswordGrant("ada@acme.test", Password)
	r.MFACode = totpCode(t, secret, f.Clock.Now())
	RequireOneWins(t, 6, func(int) error {
		_, err := f.Svc.Token(context.Background(), r)
		return err
	}, func(err error) { RequireOAuthError(t, err, auth.InvalidGrant) })
}

// Ensure an account that requires a second factor sets one up at the
// next sign-in on the login page, refuses the password grant until then
// (and asks for the code after), and leaves other accounts alone.
func TestMFA_RequiredForAll(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	f.Dir.RequireMFA("1", true)
	_, err := f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Contains(t, err.(*auth.OAuthError).Description, "login page")
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", "wrong password!"))
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Equal(t, "username or password is incorrect", err.(*auth.OAuthError).Description)
	_, err = f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
		Username: "ada@acme.test", Password: Password})
	require.NoError(t, err, "account 2 requires nothing")

	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	sf := requireSecondFactor(t, err, true, "")
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, totpCode(t, sf.Enrol.Secret, f.Clock.Now()))
	require.NoError(t, err)
	f.Clock.Add(30 * time.Second)
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.MFARequired)
	r := PasswordGrant("ada@acme.test", Password)
	r.MFACode = totpCode(t, sf.Enrol.Secret, f.Clock.Now())
	f.MustToken(t, r)

	// once enrolled, the second factor holds in every account
	_, err = f.Svc.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
		Username: "ada@acme.test", Password: Password})
	RequireOAuthError(t, err, auth.MFARequired)
}

// Ensure MaxMFAFailures wrong codes in a row lock the second step for
// MFALockout, the right code included, and that a right code resets the
// count.
func TestMFA_Lockout(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	secret, _ := f.enrolAda(t)
	grant := func(code string) error {
		r := PasswordGrant("ada@acme.test", Password)
		r.MFACode = code
		_, err := f.Svc.Token(ctx, r)
		return err
	}
	for range auth.MaxMFAFailures - 1 {
		RequireOAuthError(t, grant("000000"), auth.InvalidGrant)
	}
	require.NoError(t, grant(totpCode(t, secret, f.Clock.Now())), "the count starts again")
	f.Clock.Add(30 * time.Second)
	for range auth.MaxMFAFailures {
		RequireOAuthError(t, grant("000000"), auth.InvalidGrant)
	}
	err := grant(totpCode(t, secret, f.Clock.Now()))
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Contains(t, err.(*auth.OAuthError).Description, "too many")
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	tk := requireSecondFactor(t, err, false, "").Ticket
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, totpCode(t, secret, f.Clock.Now()))
	requireLoginReason(t, err, auth.LoginMFALocked)

	f.Clock.Add(auth.MFALockout)
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, totpCode(t, secret, f.Clock.Now()))
	requireLoginReason(t, err, auth.LoginExpired) // the ticket did not wait
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	tk = requireSecondFactor(t, err, false, "").Ticket
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), tk, totpCode(t, secret, f.Clock.Now()))
	require.NoError(t, err)
}

// Ensure an administrator's reset removes the second factor (the next
// sign-in needs none, or sets one up where the account requires it), and
// only for a member of the administrator's account.
func TestMFA_Reset(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	f.enrolAda(t)
	RequireCode(t, f.Svc.ResetMFA(ctx, "1", "ola"), scopekit.ENOTFOUND)
	RequireCode(t, f.Svc.ResetMFA(ctx, "1", "nobody"), scopekit.ENOTFOUND)
	_, err := f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.MFARequired)

	require.NoError(t, f.Svc.ResetMFA(ctx, "2", "ada"), "ada is a member of account 2 too")
	f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	require.NoError(t, f.Svc.ResetMFA(ctx, "1", "ada"), "nothing to reset is no error")

	f.Dir.RequireMFA("1", true)
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	requireSecondFactor(t, err, true, "")
}

// Ensure a service without a Sealer refuses to set up a second factor
// rather than keep a seed in clear.
func TestMFA_NeedsSealer(t *testing.T) {
	f := NewFixture(t)
	f.Svc.Sealer = nil
	_, err := f.Svc.Authorize(context.Background(), authorizeReq(func(r *auth.AuthorizeRequest) { r.SetUpMFA = true }), "ada@acme.test", Password)
	RequireCode(t, err, scopekit.EINTERNAL)
	require.True(t, regexp.MustCompile(`Sealer`).MatchString(err.Error()))
}

// Ensure a token of a code exchange keeps how the person signed in (a
// password alone, or with a second factor), and that enrolling a second
// factor ends the person's sessions opened without one (the directory's
// SessionEnder), as it revokes such refresh tokens.
func TestMFA_ProofAndSessions(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	code, err := f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	require.NoError(t, err)
	p, err := f.Svc.Authenticate(ctx, f.MustToken(t, codeGrant(code, callback, "")).AccessToken)
	require.NoError(t, err)
	require.Equal(t, auth.ProofPassword, p.Proof)
	require.True(t, auth.ProofWithoutMFA(p.Proof))
	require.Empty(t, f.Dir.ended)

	secret, _ := f.enrolAda(t)
	require.Equal(t, []string{"ada"}, f.Dir.ended, "the enrolment ends the sessions without a second factor")
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	sf := requireSecondFactor(t, err, false, "")
	code, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), sf.Ticket, totpCode(t, secret, f.Clock.Now()))
	require.NoError(t, err)
	p, err = f.Svc.Authenticate(ctx, f.MustToken(t, codeGrant(code, callback, "")).AccessToken)
	require.NoError(t, err)
	require.Equal(t, auth.ProofPasswordMFA, p.Proof)
	require.False(t, auth.ProofWithoutMFA(p.Proof))
	require.False(t, auth.ProofWithoutMFA(auth.ProofSSO))
}
