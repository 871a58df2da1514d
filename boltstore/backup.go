package boltstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Errors of Restore and BackupFile.
var (
	// ErrExists is returned when the file to write already exists: a copy
	// never replaces a file, least of all a live database.
	ErrExists = errors.New("the file already exists; give a new path")
	// ErrNotDatabase is returned for a source that is not a whole,
	// consistent ScopeKit database file.
	ErrNotDatabase = errors.New("not a ScopeKit database file")
)

// Backup writes a consistent copy of the whole database to w and returns
// its length: the file as of one read transaction. Writers go on
// meanwhile (bbolt keeps the pages the transaction reads until it ends);
// only a write that needs a larger memory map of the file (it doubles up
// to 1 GB, then grows by 1 GB) waits for the copy to end. ctx is checked
// before each write to w; a writer that blocks is the caller's to bound.
// The copy is a database file in its own right: open it with Open, or
// install it with Restore.
func (db *DB) Backup(ctx context.Context, w io.Writer) (n int64, err error) {
	err = db.bolt.View(func(tx *bolt.Tx) error {
		n, err = tx.WriteTo(ctxWriter{ctx: ctx, w: w})
		return err
	})
	if err != nil && ctx.Err() != nil {
		return n, ctx.Err() // bbolt keeps only the text of some write errors
	}
	return n, err
}

// ctxWriter fails once its context is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Restore copies the backup at from into a new database file at to, ready
// for a server started with -data to. See copyFile.
func Restore(ctx context.Context, from, to string) (int64, error) { return copyFile(ctx, from, to) }

// BackupFile copies the database file at path, which no process may hold
// open (a stopped server's), into a new file at to. A database that is
// being served is copied with DB.Backup instead (the server's HTTP
// download); BackupFile fails with ErrLocked on it. See copyFile.
func BackupFile(ctx context.Context, path, to string) (int64, error) {
	return copyFile(ctx, path, to)
}

// copyFile copies the database file from into the new file to: it opens
// from read-only (a shared lock, which a running server's exclusive lock
// refuses: ErrLocked), writes one read transaction's copy to a temporary
// file beside to, syncs it, opens it and runs bbolt's consistency check,
// and only then links it in place. It never replaces a file (ErrExists)
// and leaves nothing behind when it fails. from's contents are checked on
// the way: a file that is not bbolt, or cut short, or inconsistent fails
// with ErrNotDatabase. It returns the length of the copy.
func copyFile(ctx context.Context, from, to string) (int64, error) {
	if err := absent(to); err != nil {
		return 0, err
	}
	src, err := openReadOnly(from)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), "."+filepath.Base(to)+".part-*")
	if err != nil {
		return 0, err
	}
	installed := false
	defer func() {
		if !installed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var n int64
	err = src.View(func(tx *bolt.Tx) error {
		if size, have := tx.Size(), fileSize(src); have < size {
			return fmt.Errorf("%s: %w: cut short (%d bytes of the %d its header announces)", from, ErrNotDatabase, have, size)
		}
		if n, err = tx.WriteTo(ctxWriter{ctx: ctx, w: tmp}); err != nil {
			return fmt.Errorf("copy %s: %w", from, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := tmp.Sync(); err != nil {
		return 0, err
	}
	if err := tmp.Close(); err != nil {
		return 0, err
	}
	if err := verify(tmp.Name()); err != nil {
		return 0, fmt.Errorf("%s: %w", from, err)
	}
	if err := linkNew(tmp.Name(), to); err != nil {
		return 0, err
	}
	installed = true
	return n, syncDir(filepath.Dir(to)) // the new name survives a crash
}

// absent fails with ErrExists when path exists.
func absent(path string) error {
	_, err := os.Lstat(path)
	if err == nil {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// openReadOnly opens a database file for copying, under a shared lock.
func openReadOnly(path string) (*bolt.DB, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrNotDatabase)
	}
	if fi.Size() == 0 { // bbolt would try to initialize it
		return nil, fmt.Errorf("%s: %w: the file is empty", path, ErrNotDatabase)
	}
	db, err := bolt.Open(path, 0, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("%s: %w", path, ErrLocked)
	case err != nil:
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrNotDatabase, err)
	}
	return db, nil
}

func fileSize(db *bolt.DB) int64 {
	fi, err := os.Stat(db.Path())
	if err != nil {
		return 0
	}
	return fi.Size()
}

// verify opens the database file at path and runs bbolt's consistency
// check on it; the file must hold ScopeKit's record buckets.
func verify(path string) error {
	db, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		var problems []error
		for err := range tx.Check() {
			if len(problems) < 3 {
				problems = append(problems, err)
			}
		}
		if len(problems) > 0 {
			return fmt.Errorf("%w: bbolt's check fails: %w", ErrNotDatabase, errors.Join(problems...))
		}
		if tx.Bucket(bucketRec) == nil || tx.Bucket(bucketIdx) == nil {
			return fmt.Errorf("%w: a bbolt file without ScopeKit's records", ErrNotDatabase)
		}
		return nil
	})
}

// linkNew gives the file tmp the name to instead, failing with ErrExists
// when to appeared meanwhile: a hard link never replaces a file. Where
// hard links are not supported it renames, after checking again that to
// is absent.
func linkNew(tmp, to string) error {
	err := os.Link(tmp, to)
	switch {
	case err == nil:
		os.Remove(tmp) // the file is in place; a leftover name is only clutter
		return nil
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w", to, ErrExists)
	}
	if err := absent(to); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}
