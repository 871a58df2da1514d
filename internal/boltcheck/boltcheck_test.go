package boltcheck_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/internal/boltcheck"
	bolt "go.etcd.io/bbolt"
)

// writeDB writes a bbolt file with one bucket of many keys and returns
// its path and the database, open.
func writeDB(t *testing.T) (string, *bolt.DB) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := b.Put([]byte{byte(i >> 8), byte(i)}, bytes.Repeat([]byte("v"), 100)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return path, db
}

// Ensure a consistent file passes, open or closed, a missing one is
// skipped only by Closed, and a damaged one fails.
func TestCheck(t *testing.T) {
	path, db := writeDB(t)
	var root, size int
	if err := db.View(func(tx *bolt.Tx) error {
		root, size = int(tx.Bucket([]byte("b")).Root()), db.Info().PageSize
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := boltcheck.Closed(db, path); err != nil {
		t.Fatalf("open database: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := boltcheck.Closed(db, path); err != nil {
		t.Fatalf("closed database: %v", err)
	}
	if err := boltcheck.File(path); err != nil {
		t.Fatalf("file: %v", err)
	}

	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clear(raw[root*size : (root+1)*size]) // the bucket's root, now of no type
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if boltcheck.File(path) == nil || boltcheck.Closed(db, path) == nil {
		t.Error("a damaged page passes the check")
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := boltcheck.Closed(db, path); err != nil {
		t.Errorf("removed file: %v", err)
	}
	if boltcheck.File(path) == nil {
		t.Error("File passes a missing file")
	}
}
