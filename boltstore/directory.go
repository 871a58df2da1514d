package boltstore

import (
	"context"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
)

// Directory returns the auth.Directory over the users records of this
// database: an email is one identity across accounts, and the users
// record of an account is that identity's membership there.
func (db *DB) Directory() auth.Directory { return directory{db} }

type directory struct{ db *DB }

func (d directory) UserByEmail(ctx context.Context, email string) (*auth.Subject, error) {
	var s *auth.Subject
	err := d.db.View(ctx, func(tx scoping.Tx) error {
		recs, _, err := tx.List(&scoping.Query{Type: "users", AllAccounts: true, Where: []scoping.Cond{scoping.Eq("email", email)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return notFound("users", email)
		}
		s = &auth.Subject{UserID: recs[0].ID, Email: recs[0].Str("email"), Service: recs[0].Str("user-type") == "service"}
		return nil
	})
	return s, err
}

func (d directory) Membership(ctx context.Context, userID, accountID string) (*auth.Membership, error) {
	var m *auth.Membership
	err := d.db.View(ctx, func(tx scoping.Tx) error {
		u, err := tx.Get("users", accountID, userID)
		if err != nil {
			return err
		}
		m = &auth.Membership{UserID: u.ID, AccountID: accountID, Status: u.Str("status"), Service: u.Str("user-type") == "service",
			RevokedAt: scoping.SignInsRevokedAt(u)}
		return nil
	})
	return m, err
}
