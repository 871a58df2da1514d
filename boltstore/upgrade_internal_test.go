package boltstore

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Ensure a file written before long index values were hashed (its keys
// hold the whole lower-cased value) is upgraded at open: an equality
// lookup for such a value finds its record again, a later rename leaves
// no stale key behind, and the file is marked so the walk runs once.
func TestHashLongIndexKeys(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db := openTest(t, path)
	def, _ := db.Schema().Lookup("clients")
	require.True(t, slices.Contains(def.IndexedFields(), "name"))

	long := strings.Repeat("Ärger ", 400) // 2,800 bytes, upper case included
	var id string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		for _, name := range []string{long, "Globex"} {
			r := engine.NewRecord("clients", "1")
			r.Attrs["name"] = name
			if err := tx.Insert(r); err != nil {
				return err
			}
			if name == long {
				id = r.ID
			}
		}
		return nil
	}))
	find := func(db *DB, name string) []string {
		var ids []string
		require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
			recs, _, err := tx.List(&engine.Query{Type: "clients", AccountID: "1", Where: []engine.Cond{engine.Eq("name", name)}})
			for _, r := range recs {
				ids = append(ids, r.ID)
			}
			return err
		}))
		return ids
	}
	require.Equal(t, []string{id}, find(db, long))

	// as an earlier version wrote it: the whole value, and no marker
	k, _ := idKey(id)
	oldKey := append(append([]byte(strings.ToLower(long)), 0), k...)
	nameIndex := func(tx *bolt.Tx) *bolt.Bucket {
		return tx.Bucket(bucketIdx).Bucket([]byte("clients")).Bucket([]byte("1")).Bucket([]byte("name"))
	}
	require.NoError(t, db.Bolt().Update(func(tx *bolt.Tx) error {
		b := nameIndex(tx)
		require.NoError(t, b.Delete(indexKey(long, k)))
		require.NoError(t, b.Put(oldKey, nil))
		return tx.Bucket(bucketMeta).Delete(hashedIndexKeys)
	}))
	require.Empty(t, find(db, long), "the old key is not found: what the upgrade repairs")
	require.NoError(t, db.Close())

	for range 2 { // the upgrade, then an open that skips it
		db = openTest(t, path)
		require.Equal(t, []string{id}, find(db, long))
		require.Len(t, find(db, "globex"), 1)
		require.NoError(t, db.Bolt().View(func(tx *bolt.Tx) error {
			require.Nil(t, nameIndex(tx).Get(oldKey), "old key removed")
			require.NotNil(t, nameIndex(tx).Get(indexKey(long, k)))
			require.NotNil(t, tx.Bucket(bucketMeta).Get(hashedIndexKeys), "marked")
			return nil
		}))
		require.NoError(t, db.Close())
	}

	// a rename after the upgrade leaves nothing under the old value
	db = openTest(t, path)
	defer db.Close()
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		r, err := tx.Get("clients", "1", id)
		if err != nil {
			return err
		}
		r.Attrs["name"] = "Initech"
		return tx.Replace(r)
	}))
	require.Empty(t, find(db, long))
	require.Equal(t, []string{id}, find(db, "initech"))
	require.NoError(t, db.Bolt().View(func(tx *bolt.Tx) error {
		require.Equal(t, 2, nameIndex(tx).Stats().KeyN, "one key per client")
		return nil
	}))
}

// Ensure a file that indexes service credentials as it was written before
// auth_user_creds (one client id per user key) is upgraded at open: the
// user's credential is listed again, and the old bucket is gone.
func TestMoveCredUserIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db := openTest(t, path)
	cred := &auth.ServiceCredential{AccountID: "1", UserID: "7", ClientID: "bot-id"}
	require.NoError(t, db.AuthStore().Update(ctx, func(tx auth.Tx) error { return tx.PutServiceCredential(cred) }))
	// as an earlier version wrote it
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketAuthUserCreds); err != nil {
			return err
		}
		if _, err := tx.CreateBucket(bucketAuthUserCreds); err != nil {
			return err
		}
		old, err := tx.CreateBucket(bucketAuthCredUsers)
		if err != nil {
			return err
		}
		return old.Put([]byte("1\x007"), []byte("bot-id"))
	}))
	require.NoError(t, db.Close())

	db = openTest(t, path)
	defer db.Close()
	require.NoError(t, db.AuthStore().Update(ctx, func(tx auth.Tx) error {
		cs, err := tx.ServiceCredentials("1", "7")
		require.NoError(t, err)
		require.Len(t, cs, 1)
		require.Equal(t, "bot-id", cs[0].ClientID)
		require.Nil(t, tx.(authTx).tx.Bucket(bucketAuthCredUsers))
		return nil
	}))
}
