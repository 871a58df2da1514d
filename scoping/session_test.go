package scoping_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// sessEnv is a service on a movable clock with the account acme, its
// system actor and a member.
type sessEnv struct {
	svc  *scoping.Service
	now  time.Time
	acme *engine.Record
	sys  *engine.Actor
	ada  *engine.Actor
}

func newSessEnv(t *testing.T) *sessEnv {
	t.Helper()
	e := &sessEnv{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	e.svc, _, _ = hookService(t)
	e.svc.Now = func() time.Time { return e.now }
	e.acme, e.sys = acctAccount(t, e.svc, "acme")
	e.ada = acctMember(t, e.svc, e.acme.ID, "ada@acme.test", "Sales")
	return e
}

func (e *sessEnv) start(t *testing.T) string {
	t.Helper()
	token, sess, err := e.svc.StartSession(context.Background(), e.acme.ID, e.ada.UserID)
	require.NoError(t, err)
	require.Equal(t, e.ada.UserID, sess.UserID)
	require.NotEmpty(t, sess.CSRF)
	return token
}

func (e *sessEnv) requireOpen(t *testing.T, token string) *scoping.Session {
	t.Helper()
	sess, a, err := e.svc.Session(context.Background(), token)
	require.NoError(t, err)
	require.Equal(t, e.acme.ID, a.AccountID())
	require.Equal(t, e.ada.UserID, a.UserID)
	return sess
}

func (e *sessEnv) requireClosed(t *testing.T, token string) {
	t.Helper()
	_, _, err := e.svc.Session(context.Background(), token)
	require.Equal(t, scopekit.EUNAUTHORIZED, scopekit.ErrorCode(err), "%v", err)
}

// Ensure a session opens for an active person, is found by its token
// only, and answers the same CSRF token on every request.
func TestSessionStart(t *testing.T) {
	e := newSessEnv(t)
	token := e.start(t)
	first := e.requireOpen(t, token)
	require.Equal(t, first.CSRF, e.requireOpen(t, token).CSRF)

	// the stored record holds a digest, not the secret
	secret := token[strings.LastIndex(token, ".")+1:]
	for _, r := range hookStored(t, e.svc, "workspace-sessions") {
		for _, v := range r.Attrs {
			require.NotContains(t, v, secret)
		}
	}

	forged := token[:len(token)-2] + "AA"
	if forged == token {
		forged = token[:len(token)-2] + "BB"
	}
	parts := strings.Split(token, ".")
	for _, bad := range []string{"", "x", forged, parts[0] + ".99." + secret, "0." + parts[1] + "." + secret,
		strings.Replace(token, ".", "..", 1), token + "A"} {
		e.requireClosed(t, bad)
	}
	// another account's id with this session's id and secret
	globex, _ := acctAccount(t, e.svc, "globex")
	e.requireClosed(t, globex.ID+token[strings.Index(token, "."):])
	e.requireOpen(t, token)
}

// Ensure service accounts and people who are not active members get no
// session.
func TestSessionRefused(t *testing.T) {
	e := newSessEnv(t)
	ctx := context.Background()
	var bot, invited *engine.Record
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		if bot, err = a.EnsureMember(e.acme.ID, scoping.Member{Email: "bot@acme.test", Name: "Bot", UserType: "service", Role: "Account Admin"}); err != nil {
			return err
		}
		invited, err = a.EnsureMember(e.acme.ID, scoping.Member{Email: "new@acme.test", Name: "New", Role: "Sales", Status: "invited"})
		return err
	}))
	for _, id := range []string{bot.ID, invited.ID, "999999"} {
		_, _, err := e.svc.StartSession(ctx, e.acme.ID, id)
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err), "user %s: %v", id, err)
	}
	// a member of acme has no session in globex
	globex, _ := acctAccount(t, e.svc, "globex")
	_, _, err := e.svc.StartSession(ctx, globex.ID, e.ada.UserID)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure the idle deadline moves with use but never past the absolute
// one, and a session unused for SessionIdle is over.
func TestSessionDeadlines(t *testing.T) {
	e := newSessEnv(t)
	token := e.start(t)
	e.now = e.now.Add(scoping.SessionIdle - time.Minute)
	sess := e.requireOpen(t, token)
	require.True(t, sess.ExpiresAt.Equal(e.now.Add(scoping.SessionIdle)), "%v", sess.ExpiresAt)

	// used every 11 hours, it still ends SessionMax after the sign-in
	start := sess.SignedIn
	for e.now.Add(11 * time.Hour).Before(start.Add(scoping.SessionMax)) {
		e.now = e.now.Add(11 * time.Hour)
		e.requireOpen(t, token)
	}
	e.now = start.Add(scoping.SessionMax)
	e.requireClosed(t, token)

	idle := e.start(t)
	e.now = e.now.Add(scoping.SessionIdle)
	e.requireClosed(t, idle)
	require.Empty(t, hookStored(t, e.svc, "workspace-sessions"), "ended sessions are removed")
}

// Ensure sign-out, deactivation (even once reactivated), becoming a
// service account and a change of the account's sign-in policy end the
// session.
func TestSessionRevoked(t *testing.T) {
	ctx := context.Background()
	update := func(t *testing.T, e *sessEnv, typ, id string, kv ...string) {
		t.Helper()
		_, err := e.svc.Update(ctx, e.sys, typ, id, &engine.Input{Attrs: attrs(kv...)}, engine.Options{})
		require.NoError(t, err)
	}
	cases := map[string]func(t *testing.T, e *sessEnv, token string){
		"sign-out": func(t *testing.T, e *sessEnv, token string) {
			require.NoError(t, e.svc.EndSession(ctx, token))
			require.NoError(t, e.svc.EndSession(ctx, token), "twice is harmless")
		},
		"deactivated and reactivated": func(t *testing.T, e *sessEnv, token string) {
			update(t, e, "users", e.ada.UserID, "active", "false")
			e.now = e.now.Add(time.Second)
			update(t, e, "users", e.ada.UserID, "active", "true")
		},
		"mfa-required": func(t *testing.T, e *sessEnv, token string) {
			_, err := e.svc.UpdateAccount(ctx, e.sys, &engine.Input{Attrs: attrs("mfa-required", "true")})
			require.NoError(t, err)
		},
		"identity provider added": func(t *testing.T, e *sessEnv, token string) {
			acctCreate(t, e.svc, e.sys, "identity-providers", idpAttrs(), nil)
		},
	}
	for name, revoke := range cases {
		t.Run(name, func(t *testing.T) {
			e := newSessEnv(t)
			token := e.start(t)
			e.requireOpen(t, token)
			revoke(t, e, token)
			e.requireClosed(t, token)
			e.start(t) // a new sign-in is open under the new state
		})
	}

	t.Run("passwords turned off", func(t *testing.T) {
		e := newSessEnv(t)
		idp := acctCreate(t, e.svc, e.sys, "identity-providers", idpAttrs("passwords-allowed", "true"), nil)
		token := e.start(t)
		update(t, e, "identity-providers", idp.ID, "name", `"Renamed"`)
		e.requireOpen(t, token) // a name is no policy
		update(t, e, "identity-providers", idp.ID, "passwords-allowed", "false")
		e.requireClosed(t, token)
	})
}

// Ensure a form's once token is taken once per session, a malformed one
// is refused, and an ended session claims nothing.
func TestSessionClaimOnce(t *testing.T) {
	e := newSessEnv(t)
	ctx := context.Background()
	token := e.start(t)
	sess := e.requireOpen(t, token)
	once := strings.Repeat("o", 22)
	require.NoError(t, e.svc.ClaimOnce(ctx, sess, once))
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(e.svc.ClaimOnce(ctx, sess, once)))
	require.NoError(t, e.svc.ClaimOnce(ctx, sess, once+"x"), "another form")
	for _, bad := range []string{"", "short", strings.Repeat("z", 65), strings.Repeat("é", 20)} {
		require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(e.svc.ClaimOnce(ctx, sess, bad)), bad)
	}
	// a session remembers its last forms, not every form
	for i := range 70 {
		require.NoError(t, e.svc.ClaimOnce(ctx, sess, strings.Repeat("n", 20)+strconv.Itoa(i)))
	}
	require.NoError(t, e.svc.ClaimOnce(ctx, sess, once), "long forgotten")
	// another session has its own
	other := e.requireOpen(t, e.start(t))
	require.NoError(t, e.svc.ClaimOnce(ctx, other, strings.Repeat("n", 20)+"69"))

	require.NoError(t, e.svc.EndSession(ctx, token))
	require.Equal(t, scopekit.EUNAUTHORIZED, scopekit.ErrorCode(e.svc.ClaimOnce(ctx, sess, strings.Repeat("q", 20))))
}

// Ensure the account of a sign-in is found by its slug.
func TestSignInAccount(t *testing.T) {
	e := newSessEnv(t)
	id, name, err := e.svc.SignInAccount(context.Background(), "acme")
	require.NoError(t, err)
	require.Equal(t, e.acme.ID, id)
	require.Equal(t, "Acme", name)
	_, _, err = e.svc.SignInAccount(context.Background(), "nobody")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}
