package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Directory returns the auth.Directory over the users records of s: an
// email is one identity across accounts, and the users record of an
// account is that identity's membership there. Every store serves it the
// same way.
func Directory(s engine.Store) auth.Directory { return directory{s} }

var _ auth.MFAPolicy = directory{}

type directory struct{ s engine.Store }

func (d directory) UserByEmail(ctx context.Context, email string) (*auth.Subject, error) {
	var subj *auth.Subject
	err := engine.ViewRerun(ctx, d.s, func(tx engine.Tx) error {
		// no Limit: a page filled to its limit costs a count besides (in
		// pgstore), which would make a known email slower to answer than
		// an unknown one; an email has one membership per account at most
		recs, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return scopekit.Errorf(scopekit.ENOTFOUND, "users %s not found", email)
		}
		u := views.User{Record: recs[0]}
		subj = &auth.Subject{UserID: u.ID, Email: u.Email(), Service: u.UserType() == "service"}
		return nil
	})
	return subj, err
}

// Version implements auth.Versioned: memberships are users records, so
// their count is the store's count of users, when the store keeps one.
func (d directory) Version() (uint64, bool) {
	if vs, ok := d.s.(engine.Versioned); ok {
		return vs.TypeVersion(typeUsers), true
	}
	return 0, false
}

func (d directory) Membership(ctx context.Context, userID, accountID string) (*auth.Membership, error) {
	var m *auth.Membership
	err := engine.ViewRerun(ctx, d.s, func(tx engine.Tx) error {
		rec, err := engine.GetShared(tx, typeUsers, accountID, userID)
		if err != nil {
			return err
		}
		u := views.User{Record: rec}
		m = &auth.Membership{UserID: u.ID, AccountID: accountID, Status: u.Status(), Service: u.UserType() == "service",
			RevokedAt: SignInsRevokedAt(rec), Email: u.Email(), SSOOnly: rec.Bool(ssoOnlyAttr)}
		return nil
	})
	return m, err
}

// MFARequired implements auth.MFAPolicy: the account's mfa-required.
func (d directory) MFARequired(ctx context.Context, accountID string) (bool, error) {
	var required bool
	err := d.s.View(ctx, func(tx engine.Tx) error {
		acct, err := tx.Get(views.TypeAccounts, "", accountID)
		required = err == nil && views.Account{Record: acct}.MfaRequired()
		return err
	})
	return required, err
}
