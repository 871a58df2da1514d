// Package boltcheck runs bbolt's consistency check (etcd-io/bbolt's
// Tx.Check) on a database, for the tests that open one: package bolttest
// for most, and the tests inside boltstore, which cannot import bolttest.
package boltcheck

import (
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DB checks the open database db: the first inconsistency found, or nil.
func DB(db *bolt.DB) error {
	return db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("bbolt consistency check of %s: %w", db.Path(), err)
		}
		return nil
	})
}

// File checks the database file at path, which no process holds.
func File(path string) error {
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return fmt.Errorf("bbolt consistency check: %w", err)
	}
	defer db.Close()
	return DB(db)
}

// Closed checks db, open or closed, whose file is at path (bbolt forgets
// the path at Close): the database itself while it is open, else its
// file, unless the file is gone (its test removed it).
func Closed(db *bolt.DB, path string) error {
	err := DB(db)
	if !errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return File(path)
}
