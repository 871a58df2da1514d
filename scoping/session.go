package scoping

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Sessions of the web workspace (docs/workspace.md "Sign-in and
// sessions"). A session belongs to one person in one account, as a token
// does (auth.md "Accounts are walls"). Its secret travels in a cookie
// and only its SHA-256 digest is stored, as a record of an internal type,
// so that every instance on one database knows it. A session ends after
// SessionIdle without use, SessionMax after the sign-in whatever its use,
// at sign-out, when the membership is deactivated (or was, after the
// sign-in), when the person becomes a service account, and when the
// account's sign-in policy (mfa-required, its identity providers and
// whether they allow passwords) changes: a session records the policy it
// was opened under.

// Session lifetimes.
const (
	SessionIdle = 12 * time.Hour
	SessionMax  = 7 * 24 * time.Hour
	// sessionTouchEvery is how stale a session's idle deadline may get
	// before a request moves it: one write every few minutes of use,
	// not one per request.
	sessionTouchEvery = 5 * time.Minute
)

func declareSessions(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "workspace-sessions", Internal: true,
		Attrs: []engine.AttrDef{str("digest"), str("policy"), str("proof"),
			{Name: "signed-in-at", Kind: engine.KindTime}, {Name: "expires-at", Kind: engine.KindTime}},
		Rels: []engine.RelDef{to1("user", "users")}})
}

// Session is a signed-in person's session of the workspace.
type Session struct {
	ID        string
	AccountID string
	UserID    string
	// CSRF is the token every change made in the session carries: it is
	// derived from the session's secret, so it is bound to the session
	// and a page of another session (or none) cannot forge it.
	CSRF      string
	SignedIn  time.Time
	ExpiresAt time.Time // the idle deadline, never after SignedIn+SessionMax
}

// errNoSession is the one answer to a session that is missing, wrong,
// expired or revoked: it tells nothing about which.
func errNoSession() error {
	return scopekit.Errorf(scopekit.EUNAUTHORIZED, "not signed in, or the session has ended")
}

// StartSession opens a session for the user in the account, after the
// person signed in there (the workspace's OAuth sign-in) by proof (how
// they proved who they are: auth.ProofPassword, ProofPasswordMFA,
// ProofSSO). It returns the session's token, the cookie's value, which
// is not kept. EFORBIDDEN when the user is not an active member of the
// account or is a service account (service accounts cannot sign in to
// the workspace). Expired sessions of the person in the account are
// removed on the way.
func (s *Service) StartSession(ctx context.Context, accountID, userID, proof string) (token string, sess *Session, err error) {
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return "", nil, fmt.Errorf("scoping: session secret: %w", err)
	}
	secretStr := base64.RawURLEncoding.EncodeToString(secret)
	now := s.Now().UTC()
	rec := engine.NewRecord(views.TypeWorkspaceSessions, accountID)
	err = s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		u, err := tx.Get(typeUsers, accountID, userID)
		if err != nil || !sessionMember(u) {
			return scopekit.Errorf(scopekit.EFORBIDDEN, "only active members who are people (not service accounts) can sign in to the workspace")
		}
		policy, err := signInPolicy(tx, accountID)
		if err != nil {
			return err
		}
		old, _, err := tx.List(&engine.Query{Type: views.TypeWorkspaceSessions, AccountID: accountID, Where: []engine.Cond{engine.Eq(views.NameUser, userID)}})
		if err != nil {
			return err
		}
		for _, o := range old {
			if !sessionOpen(o, now) {
				if err := tx.Delete(o.Type, accountID, o.ID); err != nil {
					return err
				}
			}
		}
		rec.ID = ""
		rec.Attrs = map[string]any{views.NameDigest: sessionDigest(secretStr), views.NamePolicy: policy, views.NameProof: proof,
			views.NameSignedInAt: engine.FormatTime(now), views.NameExpiresAt: engine.FormatTime(now.Add(SessionIdle))}
		rec.SetRel(views.NameUser, userID)
		return tx.Insert(rec)
	})
	if err != nil {
		return "", nil, err
	}
	token = accountID + "." + rec.ID + "." + secretStr
	return token, sessionOf(rec, secretStr), nil
}

// Session returns the open session of token and the actor it acts as (as
// ActorForAccount resolves it). EUNAUTHORIZED for a malformed, unknown,
// expired or revoked session; a session found expired or revoked is
// removed. A session used after more than sessionTouchEvery has its idle
// deadline moved.
func (s *Service) Session(ctx context.Context, token string) (*Session, *engine.Actor, error) {
	accountID, id, secret, ok := parseSessionToken(token)
	if !ok {
		return nil, nil, errNoSession()
	}
	now := s.Now().UTC()
	var rec *engine.Record
	valid := false
	err := engine.ViewRerun(ctx, s.eng.Store(), func(tx engine.Tx) error {
		var err error
		valid = false
		if rec, err = tx.Get(views.TypeWorkspaceSessions, accountID, id); err != nil {
			return err
		}
		if subtle.ConstantTimeCompare([]byte(rec.Str(views.NameDigest)), []byte(sessionDigest(secret))) != 1 {
			rec = nil // not the session's secret: as if there were none
			return nil
		}
		valid, err = s.sessionHolds(tx, rec, now)
		return err
	})
	switch {
	case scopekit.ErrorCode(err) == scopekit.ENOTFOUND || (err == nil && rec == nil):
		return nil, nil, errNoSession()
	case err != nil:
		return nil, nil, err
	case !valid:
		s.dropSession(ctx, accountID, id)
		return nil, nil, errNoSession()
	}
	a, err := s.ActorForAccount(ctx, rec.Rel(views.NameUser), accountID)
	if scopekit.ErrorCode(err) == scopekit.EFORBIDDEN || scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		s.dropSession(ctx, accountID, id)
		return nil, nil, errNoSession()
	}
	if err != nil {
		return nil, nil, err
	}
	sess := sessionOf(rec, secret)
	if next := sessionDeadline(sess.SignedIn, now); next.Sub(sess.ExpiresAt) > sessionTouchEvery {
		if err := s.touchSession(ctx, rec, next); err != nil {
			return nil, nil, err
		}
		sess.ExpiresAt = next
	}
	return sess, a, nil
}

// EndSession signs the session of token out: its record is removed. An
// unknown or wrong token is no error (signing out twice is harmless).
func (s *Service) EndSession(ctx context.Context, token string) error {
	accountID, id, secret, ok := parseSessionToken(token)
	if !ok {
		return nil
	}
	return s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		rec, err := tx.Get(views.TypeWorkspaceSessions, accountID, id)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return nil
		}
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare([]byte(rec.Str(views.NameDigest)), []byte(sessionDigest(secret))) != 1 {
			return nil
		}
		return tx.Delete(rec.Type, accountID, id)
	})
}

// EndSessionsWithoutMFA ends the person's sessions, in every account,
// that were opened without a second factor (a password alone): the
// person has enrolled one, and such sign-ins no longer qualify, as their
// refresh tokens do not (auth.SessionEnder).
func (d directory) EndSessionsWithoutMFA(ctx context.Context, userID string) error {
	return d.s.Update(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeWorkspaceSessions, AllAccounts: true,
			Where: []engine.Cond{engine.Eq(views.NameUser, userID)}})
		if err != nil {
			return err
		}
		for _, r := range recs {
			if auth.ProofWithoutMFA(r.Str(views.NameProof)) {
				if err := tx.Delete(r.Type, r.AccountID, r.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

var _ auth.SessionEnder = directory{}

// sessionHolds checks what may have changed since the sign-in: the
// deadlines, the membership and the account's sign-in policy.
func (s *Service) sessionHolds(tx engine.Tx, rec *engine.Record, now time.Time) (bool, error) {
	if !sessionOpen(rec, now) {
		return false, nil
	}
	u, err := engine.GetShared(tx, typeUsers, rec.AccountID, rec.Rel(views.NameUser))
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	signedIn, _ := time.Parse(engine.TimeFormat, rec.Str(views.NameSignedInAt))
	if revoked := SignInsRevokedAt(u); !sessionMember(u) || (!revoked.IsZero() && !signedIn.After(revoked)) {
		return false, nil
	}
	policy, err := signInPolicy(tx, rec.AccountID)
	if err != nil {
		return false, err
	}
	return policy == rec.Str(views.NamePolicy), nil
}

// touchSession moves the session's idle deadline.
func (s *Service) touchSession(ctx context.Context, rec *engine.Record, deadline time.Time) error {
	return s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		cur, err := tx.Get(rec.Type, rec.AccountID, rec.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return errNoSession() // signed out meanwhile
		}
		if err != nil {
			return err
		}
		cur.Attrs[views.NameExpiresAt] = engine.FormatTime(deadline)
		return tx.Replace(cur)
	})
}

// dropSession removes a session found expired or revoked; a failure only
// leaves a record that no request accepts, so it is logged.
func (s *Service) dropSession(ctx context.Context, accountID, id string) {
	err := s.eng.Store().Update(context.WithoutCancel(ctx), func(tx engine.Tx) error {
		err := tx.Delete(views.TypeWorkspaceSessions, accountID, id)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return nil
		}
		return err
	})
	if err != nil {
		s.log().Warn("ended session not removed", "account", accountID, "session", id, "err", err)
	}
}

// sessionMember reports whether the users record may hold a session: an
// active membership of a person.
func sessionMember(u *engine.Record) bool {
	v := views.User{Record: u}
	return v.Status() == "active" && v.UserType() != "service"
}

// sessionOpen reports whether neither deadline of the session has passed.
func sessionOpen(rec *engine.Record, now time.Time) bool {
	signedIn, err1 := time.Parse(engine.TimeFormat, rec.Str(views.NameSignedInAt))
	expires, err2 := time.Parse(engine.TimeFormat, rec.Str(views.NameExpiresAt))
	return err1 == nil && err2 == nil && now.Before(expires) && now.Before(signedIn.Add(SessionMax))
}

// sessionDeadline is the idle deadline of a session used now.
func sessionDeadline(signedIn, now time.Time) time.Time {
	next := now.Add(SessionIdle)
	if limit := signedIn.Add(SessionMax); next.After(limit) {
		return limit
	}
	return next
}

func sessionOf(rec *engine.Record, secret string) *Session {
	signedIn, _ := time.Parse(engine.TimeFormat, rec.Str(views.NameSignedInAt))
	expires, _ := time.Parse(engine.TimeFormat, rec.Str(views.NameExpiresAt))
	sum := sha256.Sum256([]byte("scopekit workspace csrf\x00" + secret))
	return &Session{ID: rec.ID, AccountID: rec.AccountID, UserID: rec.Rel(views.NameUser),
		CSRF: base64.RawURLEncoding.EncodeToString(sum[:]), SignedIn: signedIn, ExpiresAt: expires}
}

// sessionDigest is how a session's secret is stored.
func sessionDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// parseSessionToken splits "<account id>.<session id>.<secret>"; ids are
// decimal and the secret 32 bytes of base64url.
func parseSessionToken(token string) (accountID, id, secret string, ok bool) {
	parts := strings.Split(token, ".")
	if len(token) > 128 || len(parts) != 3 || !decimalID(parts[0]) || !decimalID(parts[1]) || len(parts[2]) != 43 {
		return "", "", "", false
	}
	if _, err := base64.RawURLEncoding.DecodeString(parts[2]); err != nil {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func decimalID(s string) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && n > 0 && strconv.FormatUint(n, 10) == s
}

// signInPolicy is a digest of what decides how people of the account
// sign in: mfa-required and each identity provider's state, domains and
// whether it allows passwords. A session opened under another digest is
// over.
func signInPolicy(tx engine.Tx, accountID string) (string, error) {
	acct, err := engine.GetShared(tx, typeAccounts, "", accountID)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "mfa-required=%t\n", views.Account{Record: acct}.MfaRequired())
	idps, _, err := tx.List(&engine.Query{Type: views.TypeIdentityProviders, AccountID: accountID})
	if err != nil {
		return "", err
	}
	slices.SortFunc(idps, func(a, b *engine.Record) int { return engine.CompareIDs(a.ID, b.ID) })
	for _, r := range idps {
		p := views.IdentityProvider{Record: r}
		domains := slices.Clone(p.EmailDomains())
		slices.Sort(domains)
		fmt.Fprintf(h, "idp %s active=%t passwords=%t domains=%s\n", r.ID, r.Active(), p.PasswordsAllowed(), strings.Join(domains, ","))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// maxFormOnces is how many form tokens a session remembers (ClaimOnce).
const maxFormOnces = 64

// ClaimOnce records that the session submitted the form carrying once (a
// random token each create form holds), in one transaction: ECONFLICT when
// the session submitted it before, so that a double submit creates nothing
// twice, whatever instance each copy reaches. EBADREQUEST for a token that
// is not 16 to 64 base64url characters; EUNAUTHORIZED when the session is
// gone.
func (s *Service) ClaimOnce(ctx context.Context, sess *Session, once string) error {
	if len(once) < 16 || len(once) > 64 || strings.Trim(once, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return scopekit.ParamErrorf(scopekit.EBADREQUEST, "once", "the form's once token is malformed; reload the page")
	}
	return s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		rec, err := tx.Get(views.TypeWorkspaceSessions, sess.AccountID, sess.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return errNoSession()
		}
		if err != nil {
			return err
		}
		seen := rec.Strings(nameSessionOnces)
		if slices.Contains(seen, once) {
			return scopekit.Errorf(scopekit.ECONFLICT, "this form was already submitted")
		}
		seen = append(seen, once)
		if len(seen) > maxFormOnces {
			seen = seen[len(seen)-maxFormOnces:]
		}
		list := make([]any, len(seen))
		for i, v := range seen {
			list[i] = v
		}
		rec.Attrs[nameSessionOnces] = list
		return tx.Replace(rec)
	})
}

// nameSessionOnces is the undeclared attribute of a session's claimed
// form tokens.
const nameSessionOnces = "form-onces"

// SignInAccount returns the id and name of the account with slug, for a
// sign-in to it; ENOTFOUND when there is none.
func (s *Service) SignInAccount(ctx context.Context, slug string) (id, name string, err error) {
	err = engine.ViewRerun(ctx, s.eng.Store(), func(tx engine.Tx) error {
		acct, err := accountBySlug(tx, slug)
		if err != nil {
			return err
		}
		id, name = acct.ID, views.Account{Record: acct}.Name()
		return nil
	})
	return id, name, err
}
