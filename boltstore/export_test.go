package boltstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Ensure a file opened read-only is read as it is: nothing is created or
// written, readers share it, writes fail, and a writer's lock makes the
// open fail fast with ErrLocked.
func TestOpenReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	_, err := boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "no file is created")

	db := bolttest.OpenFile(t, path, scoping.DefaultSchema())
	ctx := context.Background()
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error { return tx.Insert(engine.NewRecord("things", "1")) }))
	_, err = boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.ErrorIs(t, err, boltstore.ErrLocked)
	require.NoError(t, db.Close())

	before, err := os.ReadFile(path)
	require.NoError(t, err)
	a, err := boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.NoError(t, err)
	b, err := boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.NoError(t, err, "readers share the file")
	require.NoError(t, a.View(ctx, func(tx engine.Tx) error {
		_, err := tx.Get("things", "1", "1")
		return err
	}))
	require.Error(t, b.Update(ctx, func(tx engine.Tx) error { return tx.Insert(engine.NewRecord("things", "1")) }))
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, before, after, "the file is unchanged")
}

// Ensure Export walks every set in key order from any id on, with counts,
// the sequences (past deleted ids), blobs under numeric and text ids, the
// auth data as stored, and names buckets it does not know.
func TestExport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db := bolttest.OpenFile(t, path, scoping.DefaultSchema())
	ctx := context.Background()
	t0 := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		for _, acct := range []string{"", "1", "1", "1", "2"} {
			r := engine.NewRecord("things", acct)
			r.Attrs["n"] = acct
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		if err := tx.Delete("things", "2", "5"); err != nil {
			return err
		}
		for _, id := range []string{"2", "10", "abc", "abcdefgh"} {
			if err := tx.PutBlob("1", "k/file", id, []byte("file "+id)); err != nil {
				return err
			}
		}
		return tx.PutBlob("1", "k/pdf", "2", []byte{})
	}))
	as := db.AuthStore()
	require.NoError(t, as.SetPasswordHash(ctx, "7", []byte("bcrypt hash")))
	require.NoError(t, as.PutToken(ctx, &auth.Token{Digest: auth.HashSecret("t"), Kind: auth.KindAccess, UserID: "7", CreatedAt: t0}))
	require.NoError(t, as.Update(ctx, func(tx auth.Tx) error {
		if err := tx.PutMFA(&auth.MFA{UserID: "7", SealedSecret: []byte("sealed seed"), EnrolledAt: t0}); err != nil {
			return err
		}
		return tx.PutApplication(&auth.Application{AccountID: "1", ClientID: "app", SecretDigest: auth.HashSecret("s"), CreatedAt: t0})
	}))
	require.NoError(t, db.Bolt().Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte("later-version"))
		return err
	}))
	require.NoError(t, db.Close())

	db, err := boltstore.OpenReadOnly(path, scoping.DefaultSchema())
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Export(ctx, func(e *boltstore.Export) error {
		require.Equal(t, []string{"later-version"}, e.Unknown())
		require.Equal(t, []boltstore.RecordSet{{Type: "things", AccountID: "1", Count: 3}, {Type: "things", AccountID: "2", Count: 0},
			{Type: "things", AccountID: "", Count: 1}}, e.RecordSets(), `"_" (global) sorts after the digits`)
		require.Equal(t, map[string]uint64{"things": 5}, e.Sequences())
		var ids []string
		require.NoError(t, e.Records(boltstore.RecordSet{Type: "things", AccountID: "1"}, "2", func(r *engine.Record) error {
			require.Equal(t, "1", r.Attrs["n"])
			require.NotEmpty(t, r.CreatedAt)
			ids = append(ids, r.ID)
			return nil
		}))
		require.Equal(t, []string{"3", "4"}, ids)

		require.Equal(t, []boltstore.BlobSet{{Kind: "k/file", AccountID: "1", Count: 4}, {Kind: "k/pdf", AccountID: "1", Count: 1}}, e.BlobSets())
		blobs := map[string]string{}
		collect := func(id string, data []byte) error {
			blobs[id] = string(data)
			return nil
		}
		require.NoError(t, e.Blobs(boltstore.BlobSet{Kind: "k/file", AccountID: "1"}, "", collect))
		require.Equal(t, map[string]string{"2": "file 2", "10": "file 10", "abc": "file abc", "abcdefgh": "file abcdefgh"}, blobs)
		clear(blobs)
		require.NoError(t, e.Blobs(boltstore.BlobSet{Kind: "k/file", AccountID: "1"}, "10", collect))
		require.Equal(t, map[string]string{"abc": "file abc", "abcdefgh": "file abcdefgh"}, blobs, "numeric ids first")
		clear(blobs)
		require.NoError(t, e.Blobs(boltstore.BlobSet{Kind: "k/pdf", AccountID: "1"}, "", collect))
		require.Equal(t, map[string]string{"2": ""}, blobs, "an empty file is a file")

		apps, creds, passwords, tokens, codes, mfa := e.AuthCounts()
		require.Equal(t, []int{1, 0, 1, 1, 0, 1}, []int{apps, creds, passwords, tokens, codes, mfa})
		require.NoError(t, e.SecondFactors(func(m *auth.MFA) error {
			require.Equal(t, &auth.MFA{UserID: "7", SealedSecret: []byte("sealed seed"), EnrolledAt: t0}, m)
			return nil
		}))
		require.NoError(t, e.Applications(func(a *auth.Application) error {
			require.Equal(t, &auth.Application{AccountID: "1", ClientID: "app", SecretDigest: auth.HashSecret("s"), CreatedAt: t0}, a)
			return nil
		}))
		require.NoError(t, e.Tokens(func(tok *auth.Token) error {
			require.Equal(t, auth.HashSecret("t"), tok.Digest)
			return nil
		}))
		return e.Passwords(func(user string, hash []byte) error {
			require.Equal(t, "7", user)
			require.Equal(t, "bcrypt hash", string(hash))
			return nil
		})
	}))
}
