package auth_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// Directory is an in-memory auth.Directory: emails map to subjects, and
// (user, account) pairs to memberships. It is auth.Versioned, as the
// directory over a bbolt store is, so that every test here runs through
// Authenticate's cache of validated tokens.
type Directory struct {
	mu          sync.Mutex
	subjects    map[string]*auth.Subject // by lower-case email
	memberships map[[2]string]*auth.Membership
	mfaRequired map[string]bool // accounts that require a second factor
	version     uint64          // moves with every change
	ended       []string        // users whose sessions without a second factor ended
}

// EndSessionsWithoutMFA implements auth.SessionEnder: it notes the user.
func (d *Directory) EndSessionsWithoutMFA(_ context.Context, userID string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ended = append(d.ended, userID)
	return nil
}

func (d *Directory) Version() (uint64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.version, true
}

func NewDirectory() *Directory {
	return &Directory{subjects: map[string]*auth.Subject{}, memberships: map[[2]string]*auth.Membership{}, mfaRequired: map[string]bool{}}
}

// MFARequired implements auth.MFAPolicy.
func (d *Directory) MFARequired(_ context.Context, accountID string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.mfaRequired[accountID], nil
}

// RequireMFA sets an account's "second factor for every user" setting.
func (d *Directory) RequireMFA(accountID string, required bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.mfaRequired[accountID] = required
}

// AddUser adds a user with one membership per account given.
func (d *Directory) AddUser(userID, email string, service bool, status string, accountIDs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.version++
	d.subjects[strings.ToLower(email)] = &auth.Subject{UserID: userID, Email: email, Service: service}
	for _, a := range accountIDs {
		d.memberships[[2]string{userID, a}] = &auth.Membership{UserID: userID, AccountID: a, Status: status, Service: service, Email: email}
	}
}

// SetSSOOnly marks a membership as made by single sign-on.
func (d *Directory) SetSSOOnly(userID, accountID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.version++
	d.memberships[[2]string{userID, accountID}].SSOOnly = true
}

// SetStatus changes a membership's status.
func (d *Directory) SetStatus(userID, accountID, status string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.version++
	d.memberships[[2]string{userID, accountID}].Status = status
}

func (d *Directory) UserByEmail(_ context.Context, email string) (*auth.Subject, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s, ok := d.subjects[strings.ToLower(email)]
	if !ok {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "user not found")
	}
	c := *s
	return &c, nil
}

func (d *Directory) Membership(_ context.Context, userID, accountID string) (*auth.Membership, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m, ok := d.memberships[[2]string{userID, accountID}]
	if !ok {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "membership not found")
	}
	c := *m
	return &c, nil
}

// Clock is a settable clock for Service.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Fixture is a token service on a real bbolt file with two accounts:
//
//	account 1 (acme): application acme-portal; users ada (active, also a
//	member of account 2), ivy (invited), dan (deactivated), nopw (active,
//	no password), bot (active service account, credentials acme-bot, and a
//	password so that the service check itself is exercised), sleepy
//	(deactivated service account, credentials acme-sleepy), newbot
//	(invited service account, credentials acme-newbot), ghost
//	(credentials acme-ghost but no membership).
//	account 2 (other): application other-portal; ola (active).
type Fixture struct {
	DB    *boltstore.DB
	Dir   *Directory
	Clock *Clock
	Svc   *auth.Service
}

const (
	Password     = "correct horse battery"
	PortalSecret = "portal-secret-value"
	OtherSecret  = "other-portal-secret"
	BotSecret    = "bot-secret-value"
)

// MustOpenDB opens a bbolt file in a temp dir and checks its consistency
// when the test ends.
func MustOpenDB(tb testing.TB) *boltstore.DB { return bolttest.Open(tb, scoping.DefaultSchema()) }

func NewFixture(tb testing.TB) *Fixture {
	tb.Helper()
	ctx := context.Background()
	f := &Fixture{
		DB:    MustOpenDB(tb),
		Dir:   NewDirectory(),
		Clock: &Clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)},
	}
	sealer, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	require.NoError(tb, err)
	f.Svc = &auth.Service{
		Store:      f.DB.AuthStore(),
		Directory:  f.Dir,
		Now:        f.Clock.Now,
		BcryptCost: bcrypt.MinCost,
		Sealer:     sealer,
	}
	d := f.Dir
	d.AddUser("ada", "ada@acme.test", false, auth.StatusActive, "1", "2")
	d.AddUser("ivy", "ivy@acme.test", false, auth.StatusInvited, "1")
	d.AddUser("dan", "dan@acme.test", false, auth.StatusDeactivated, "1")
	d.AddUser("nopw", "nopw@acme.test", false, auth.StatusActive, "1")
	d.AddUser("bot", "bot@acme.test", true, auth.StatusActive, "1")
	d.AddUser("sleepy", "sleepy@acme.test", true, auth.StatusDeactivated, "1")
	d.AddUser("newbot", "newbot@acme.test", true, auth.StatusInvited, "1")
	d.AddUser("ghost", "ghost@acme.test", true, auth.StatusActive)
	d.AddUser("ola", "ola@other.test", false, auth.StatusActive, "2")
	for _, u := range []string{"ada", "ivy", "dan", "bot", "ola"} {
		require.NoError(tb, f.Svc.SetPassword(ctx, u, Password))
	}
	require.NoError(tb, f.Svc.RegisterApplication(ctx, "1", "Portal", "acme-portal", PortalSecret, []string{"http://127.0.0.1:9999/callback"}))
	require.NoError(tb, f.Svc.RegisterApplication(ctx, "2", "Other", "other-portal", OtherSecret, nil))
	require.NoError(tb, f.Svc.SetServiceCredential(ctx, "1", "bot", "acme-bot", BotSecret))
	require.NoError(tb, f.Svc.SetServiceCredential(ctx, "1", "sleepy", "acme-sleepy", BotSecret))
	require.NoError(tb, f.Svc.SetServiceCredential(ctx, "1", "newbot", "acme-newbot", BotSecret))
	require.NoError(tb, f.Svc.SetServiceCredential(ctx, "1", "ghost", "acme-ghost", BotSecret))
	return f
}

// ClientCredentials asks for a client_credentials token.
func ClientCredentials(id, secret string) *auth.TokenRequest {
	return &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: id, ClientSecret: secret}
}

// PasswordGrant asks for a password token through acme-portal.
func PasswordGrant(username, password string) *auth.TokenRequest {
	return &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "acme-portal", ClientSecret: PortalSecret,
		Username: username, Password: password}
}

// MustToken runs a request that must succeed.
func (f *Fixture) MustToken(tb testing.TB, r *auth.TokenRequest) *auth.TokenResponse {
	tb.Helper()
	resp, err := f.Svc.Token(context.Background(), r)
	require.NoError(tb, err)
	return resp
}

// RequireOAuthError asserts err is an *auth.OAuthError with the code and
// the status RFC 6749 gives it.
func RequireOAuthError(tb testing.TB, err error, code string) {
	tb.Helper()
	require.Error(tb, err)
	oe, ok := err.(*auth.OAuthError)
	require.Truef(tb, ok, "error %v (%T) is not an *auth.OAuthError", err, err)
	require.Equal(tb, code, oe.Code, oe.Description)
	want := 400
	if code == auth.InvalidClient {
		want = 401
	}
	require.Equal(tb, want, oe.Status)
	require.NotEmpty(tb, oe.Description)
}

func RequireCode(tb testing.TB, err error, code string) {
	tb.Helper()
	require.Error(tb, err)
	require.Equal(tb, code, scopekit.ErrorCode(err), err.Error())
}

// RequireOneWins runs fn(0) to fn(n-1) concurrently and requires that
// exactly one returns nil; refused checks the errors of the others.
func RequireOneWins(tb testing.TB, n int, fn func(i int) error, refused func(error)) {
	tb.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { errs[i] = fn(i) })
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		if err == nil {
			wins++
		} else {
			refused(err)
		}
	}
	require.Equal(tb, 1, wins)
}
