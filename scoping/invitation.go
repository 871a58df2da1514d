package scoping

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/scopekit/scopekit/engine"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping/views"
)

// Invitations (docs/resources.md "users", docs/auth.md "Invitations"). Creating a
// standard user invites it: the create response's top-level meta carries
// the invitation token once, and the users record keeps only the token's
// SHA-256 digest, in an attribute that is not declared and therefore never
// served nor writable through the API. The token is
// "<account id>.<user id>.<secret>": the ids locate the membership
// without a scan, the secret (32 random bytes) is what proves possession.
// Accepting the invitation (docs/auth.md) makes the membership active; the
// password that goes with it is auth's business: every adapter accepts
// through AcceptInvitationWithPassword, which checks the token, has auth
// establish the password, then accepts.

const (
	// InvitationMeta is the top-level meta member of the create-user
	// response that carries the invitation token.
	InvitationMeta = "invitation-token"
	// invitationDigestAttr is the hidden attribute holding the digest of
	// the pending invitation's token.
	invitationDigestAttr = "invitation-digest"
	// acceptedAttr is the hidden attribute marking a membership whose
	// invitation was accepted (restoring it then makes it active again,
	// not invited).
	acceptedAttr = "accepted"
	// ssoOnlyAttr is the hidden attribute marking a membership made by
	// single sign-on (just-in-time provisioning): it signs in by single
	// sign-on only (provision).
	ssoOnlyAttr = "sso-only"
	// maxInvitationToken bounds what is parsed from a URL.
	maxInvitationToken = 256
	// revokedAtAttr is the hidden attribute holding when the membership
	// was last deactivated (TimeFormat).
	revokedAtAttr = "tokens-revoked-at"
)

// revokeSignIns stamps the membership as deactivated now, unless it
// already was: the tokens issued until then stay void even if it is
// restored later (auth.Membership.RevokedAt).
func revokeSignIns(c *engine.Call, rec, old *engine.Record) {
	if old != nil && (views.User{Record: old}).Status() == "deactivated" {
		return
	}
	rec.Attrs[revokedAtAttr] = engine.FormatTime(svcOf(c).Now())
}

// SignInsRevokedAt returns when the membership u was last deactivated,
// zero if never: tokens and codes issued until then must not work, even
// once the membership is active again.
func SignInsRevokedAt(u *engine.Record) time.Time {
	t, err := time.Parse(engine.TimeFormat, u.Str(revokedAtAttr))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Invitee is the membership a pending invitation token names.
type Invitee struct {
	UserID    string
	AccountID string
	// What the invitee's page says: who is invited, to which account.
	Email       string
	AccountName string
	AccountSlug string
}

// PasswordEstablisher gives an invited user its password, or checks the
// one an identity already has, in two steps (auth.Service's
// PreparePassword and SetPassword): the check writes nothing, so that a
// password is stored only by the accept that consumes the invitation.
type PasswordEstablisher interface {
	PreparePassword(ctx context.Context, userID, password string) (set bool, err error)
	SetPassword(ctx context.Context, userID, password string) error
}

// AcceptInvitationWithPassword is how a person accepts an invitation,
// whichever adapter they use: the token must name a pending invitation,
// the password is checked (a new one by the password rules, or the one
// the email already has), the invitation is consumed (one accept of
// several at once wins; the others are ENOTFOUND and store nothing), and
// then the winner's new password is stored. Errors: ENOTFOUND for a token
// that names no pending invitation (the same for unknown, used and
// revoked: no oracle), EINVALID on field password for a password refused,
// ECONFLICT for a person without a password who already signs in to
// another account (nothing is stored; the invitation stays pending).
func (s *Service) AcceptInvitationWithPassword(ctx context.Context, passwords PasswordEstablisher, token, password string) (*Invitee, error) {
	inv, err := s.Invitation(ctx, token)
	if err != nil {
		return nil, err
	}
	set, err := passwords.PreparePassword(ctx, inv.UserID, password)
	if err != nil {
		return nil, err
	}
	if set {
		// a new password is the person's (docs/auth.md "Accounts are
		// walls", rule 4): not one for a person of another account
		// (passwordFromHere)
		if err := s.passwordFromHere(ctx, inv.UserID, inv.Email, inv.AccountID); err != nil {
			return nil, err
		}
	}
	accepted, err := s.AcceptInvitation(ctx, token)
	if err != nil {
		return nil, err
	}
	if set {
		// the membership is active and the invitation used: a failure here
		// (the store) leaves the person to reset their password
		if err := passwords.SetPassword(ctx, inv.UserID, password); err != nil {
			return nil, err
		}
	}
	accepted.Email, accepted.AccountName, accepted.AccountSlug = inv.Email, inv.AccountName, inv.AccountSlug
	return accepted, nil
}

// invite gives a new standard user its invitation token: the digest goes
// on the record (stored again), the token into the response's meta.
func invite(c *engine.Call, rec *engine.Record) error {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := rec.AccountID + "." + rec.ID + "." + base64.RawURLEncoding.EncodeToString(b[:])
	rec.Attrs[invitationDigestAttr] = invitationDigest(token)
	if err := c.Tx.Replace(rec); err != nil {
		return err
	}
	if c.RespMeta != nil {
		c.RespMeta[InvitationMeta] = token
	}
	return nil
}

func invitationDigest(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Invitation returns the membership whose pending invitation the token
// names. ENOTFOUND when the token is malformed or unknown, or the
// invitation was accepted, or the membership is deactivated or no longer
// invited (a service account is never invited).
func (s *Service) Invitation(ctx context.Context, token string) (*Invitee, error) {
	var inv *Invitee
	err := s.eng.Store().View(ctx, func(tx engine.Tx) error {
		u, err := pendingInvitation(tx, token)
		if err != nil {
			return err
		}
		acct, err := tx.Get(views.TypeAccounts, "", u.AccountID)
		if err != nil {
			return err
		}
		a := views.Account{Record: acct}
		inv = &Invitee{UserID: u.ID, AccountID: u.AccountID, Email: views.User{Record: u}.Email(), AccountName: a.Name(), AccountSlug: a.Slug()}
		return nil
	})
	return inv, err
}

// AcceptInvitation accepts the pending invitation the token names: the
// membership becomes active and the token stops working. Errors as
// Invitation; of two requests accepting the same token, one wins and the
// other gets ENOTFOUND.
func (s *Service) AcceptInvitation(ctx context.Context, token string) (*Invitee, error) {
	var inv *Invitee
	err := s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		u, err := pendingInvitation(tx, token)
		if err != nil {
			return err
		}
		delete(u.Attrs, invitationDigestAttr)
		u.Attrs[acceptedAttr] = true
		u.Attrs[views.NameStatus] = "active"
		inv = &Invitee{UserID: u.ID, AccountID: u.AccountID}
		return tx.Replace(u)
	})
	return inv, err
}

func pendingInvitation(tx engine.Tx, token string) (*engine.Record, error) {
	missing := scopekit.Errorf(scopekit.ENOTFOUND, "no pending invitation has this token (unknown, already accepted or revoked)")
	if len(token) > maxInvitationToken {
		return nil, missing
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return nil, missing
	}
	u, err := tx.Get(views.TypeUsers, parts[0], parts[1])
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	stored, _ := u.Attrs[invitationDigestAttr].(string)
	if stored == "" || !u.Active() || (views.User{Record: u}).Status() != "invited" ||
		subtle.ConstantTimeCompare([]byte(stored), []byte(invitationDigest(token))) != 1 {
		return nil, missing
	}
	return u, nil
}
