package boltstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure TypeVersion moves after every committed write of a record of the
// type (insert, replace, delete), only then (not while the transaction
// runs, not for reads), and only for the types written; and that the
// auth store's Version moves after auth writes and only for them.
func TestVersions(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	av := func() uint64 {
		v, ok := db.AuthStore().(auth.Versioned).Version()
		require.True(t, ok)
		return v
	}
	users, clients, authV := db.TypeVersion("users"), db.TypeVersion("clients"), av()

	var id string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		u := engine.NewRecord("users", "1")
		u.Attrs["status"] = "active"
		if err := tx.Insert(u); err != nil {
			return err
		}
		id = u.ID
		require.Equal(t, users, db.TypeVersion("users"), "moved before the commit")
		return nil
	}))
	require.Greater(t, db.TypeVersion("users"), users, "insert")
	require.Equal(t, clients, db.TypeVersion("clients"), "a type not written")
	require.Equal(t, authV, av(), "auth data not written")

	steps := []struct {
		name string
		fn   func(tx engine.Tx) error
	}{
		{"replace", func(tx engine.Tx) error {
			u, err := tx.Get("users", "1", id)
			if err != nil {
				return err
			}
			u.Attrs["status"] = "deactivated"
			return tx.Replace(u)
		}},
		{"delete", func(tx engine.Tx) error { return tx.Delete("users", "1", id) }},
	}
	for _, s := range steps {
		before := db.TypeVersion("users")
		require.NoError(t, db.Update(ctx, s.fn), s.name)
		require.Greater(t, db.TypeVersion("users"), before, s.name)
	}

	before := db.TypeVersion("users")
	require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
		_, _, err := tx.List(&engine.Query{Type: "users", AccountID: "1"})
		return err
	}))
	require.Equal(t, before, db.TypeVersion("users"), "a read")
	require.Error(t, db.Update(ctx, func(tx engine.Tx) error { return errors.New("rolled back") }))
	require.Equal(t, before, db.TypeVersion("users"), "a transaction that wrote nothing")

	authV = av()
	require.NoError(t, db.AuthStore().PutToken(ctx, &auth.Token{Digest: auth.HashSecret("t"), Kind: auth.KindAccess,
		UserID: "1", AccountID: "1", ExpiresAt: time.Now().Add(time.Hour)}))
	require.Greater(t, av(), authV, "an auth write")
	require.Equal(t, before, db.TypeVersion("users"), "auth writes leave record types")

	// another open DB never reports the same count for an unwritten type
	require.NotEqual(t, db.TypeVersion("roles"), mustOpenDB(t).TypeVersion("roles"))
}
