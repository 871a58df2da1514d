package boltstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure GetShared decodes a record once while it is unchanged, and that
// every change (replaced, deleted, a rolled-back write) shows at the next
// read: it never serves a record other than the stored one.
func TestGetShared(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	shared := func(typ, acct, id string) (*engine.Record, error) {
		var r *engine.Record
		err := db.View(ctx, func(tx engine.Tx) (err error) {
			r, err = tx.(engine.SharedReader).GetShared(typ, acct, id)
			return err
		})
		return r, err
	}
	var id string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		for _, acct := range []string{"1", "2"} { // the same bytes in two accounts
			u := engine.NewRecord("users", acct)
			u.ID = "7"
			u.Attrs["status"] = "active"
			u.CreatedAt, u.UpdatedAt = "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"
			if err := tx.Insert(u); err != nil {
				return err
			}
			id = u.ID
		}
		return nil
	}))
	first, err := shared("users", "1", id)
	require.NoError(t, err)
	again, err := shared("users", "1", id)
	require.NoError(t, err)
	require.Same(t, first, again, "unchanged: decoded once")
	other, err := shared("users", "2", id)
	require.NoError(t, err)
	require.NotSame(t, first, other)
	require.Equal(t, "2", other.AccountID)

	setStatus := func(status string, fail bool) error {
		return db.Update(ctx, func(tx engine.Tx) error {
			u, err := tx.Get("users", "1", id)
			if err != nil {
				return err
			}
			u.Attrs["status"] = status
			if err := tx.Replace(u); err != nil {
				return err
			}
			if _, err := tx.(engine.SharedReader).GetShared("users", "1", id); err != nil {
				return err
			}
			if fail {
				return errors.New("rolled back")
			}
			return nil
		})
	}
	require.Error(t, setStatus("invited", true))
	got, err := shared("users", "1", id)
	require.NoError(t, err)
	require.Equal(t, "active", got.Str("status"), "a rolled-back write is not served")

	require.NoError(t, setStatus("deactivated", false))
	got, err = shared("users", "1", id)
	require.NoError(t, err)
	require.Equal(t, "deactivated", got.Str("status"))
	require.Equal(t, "active", first.Str("status"), "a record handed out is never modified")

	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error { return tx.Delete("users", "1", id) }))
	_, err = shared("users", "1", id)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = shared("users", "1", "not-an-id")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}
