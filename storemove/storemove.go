// Package storemove copies a bbolt file (boltstore) into an empty
// PostgreSQL database (pgstore): every record with its type, id, account
// and times, the types' id sequences, the blobs (template and document
// files), the auth data as stored (secrets and tokens as digests, passwords
// as bcrypt hashes) and with the records the webhook subscriptions and the
// pending outbox. The two stores serve the same answers from the same
// data, so a server started on the copy answers as it did on the file.
//
// The file is opened read-only, so the server must be stopped first. The
// copy is resumable: records and blobs go in batches, each committed in
// one transaction together with a progress marker (in the target's
// scopekit_move_progress table), so a copy run again after an
// interruption continues after the last committed batch, and every insert
// is idempotent besides. The target must be empty or hold an unfinished
// copy of the same file (same SHA-256, recorded in scopekit_moved_from);
// anything else is refused. At the end the counts of every record type,
// blob kind and auth table are compared between file and database.
//
// It is its own package so that boltstore and pgstore stay independent of
// each other: each offers its side (boltstore.Export, pgstore.Loader) and
// this package holds the rules of the move.
package storemove

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
)

// DefaultBatch is how many records or blobs one transaction copies when
// Options.Batch is zero.
const DefaultBatch = 500

// DefaultBatchBytes bounds the blob bytes of one transaction when
// Options.BatchBytes is zero; a larger blob goes alone.
const DefaultBatchBytes = 32 << 20

// Options tunes Move.
type Options struct {
	// Batch is how many records or blobs one transaction copies.
	Batch int
	// BatchBytes bounds the blob bytes of one transaction.
	BatchBytes int
	// Progress, when set, is called after each committed batch (from the
	// goroutine of Move; canceling Move's context there interrupts the
	// copy, as a kill would).
	Progress func(Progress)
}

// Progress reports one committed batch.
type Progress struct {
	Set    string // e.g. "records projects (account 1)"
	Done   bool   // the set is complete
	Copied int    // rows of the set copied so far (this run and earlier ones)
	Total  int    // rows of the set in the file
	// Rows is how many rows this run has committed so far, every set
	// together.
	Rows int
}

// Report is the outcome of a move.
type Report struct {
	SHA256 string // of the file
	// Resumed is true when the database held an unfinished copy of the
	// file, which this run completed.
	Resumed bool
	// Finished is when the copy was complete: now, or the earlier run's
	// time when the database held a complete copy already (nothing copied).
	Finished time.Time
	// Already is true when the database held a complete copy already.
	Already bool
	Rows    int             // rows this run committed
	Counts  *pgstore.Counts // what file and database both hold
}

// ErrRefused is wrapped by the error of a target Move will not write to:
// one holding data of something else than this file.
var ErrRefused = errors.New("target refused")

// Move copies the bbolt file at path, holding the types of schema
// (scoping.DefaultSchema() for ScopeKit's), into the PostgreSQL database
// at url (a postgres:// URL or key=value string; search_path in it picks
// a PostgreSQL schema) and checks the counts. See the package comment for
// what it copies and refuses. A file held by a running server fails with
// boltstore.ErrLocked.
func Move(ctx context.Context, path, url string, schema *engine.Schema, opts Options) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	if opts.BatchBytes <= 0 {
		opts.BatchBytes = DefaultBatchBytes
	}
	src, err := boltstore.OpenReadOnly(path, schema)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	sum, err := fileSHA256(path)
	if err != nil {
		return nil, err
	}
	t, err := openTarget(ctx, url)
	if err != nil {
		return nil, err
	}
	defer t.close()
	state, err := t.check(ctx, sum, path)
	if err != nil {
		return nil, err
	}
	rep := &Report{SHA256: sum, Resumed: state.started, Already: !state.finished.IsZero(), Finished: state.finished}
	if rep.Already {
		return rep, nil
	}
	dst, err := pgstore.Open(ctx, url, schema)
	if err != nil {
		return nil, err
	}
	defer dst.Close()
	if !state.started {
		if err := t.start(ctx, dst, sum, path); err != nil {
			return nil, err
		}
	}
	m := &mover{opts: opts, dst: dst, done: state.progress}
	var want *pgstore.Counts
	err = src.Export(ctx, func(e *boltstore.Export) error {
		if unknown := e.Unknown(); len(unknown) > 0 {
			return fmt.Errorf("%s holds data this version does not know (buckets %q): migrate with the version that wrote it", path, unknown)
		}
		want = sourceCounts(e)
		return m.copy(ctx, e)
	})
	rep.Rows = m.rows
	if err != nil {
		return rep, err
	}
	got, err := dst.Counts(ctx)
	if err != nil {
		return rep, err
	}
	if diff := compare(want, got); diff != "" {
		return rep, fmt.Errorf("the copy does not match the file: %s", diff)
	}
	rep.Counts = got
	rep.Finished, err = t.finish(ctx)
	return rep, err
}
