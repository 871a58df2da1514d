package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/scopekit/scopekit/engine"
)

// A store transaction sends its statements in as few round trips as the
// data allows: every statement goes out in a pgx.Batch (one round trip)
// together with what the transaction has queued before it (its BEGIN,
// the advisory locks of the accounts it touches, the writes whose result
// it already knows), and its COMMIT goes out with the last queued writes.
//
// A read that the caller can run again (ViewRerun) starts with no
// transaction at all: its first round trip is one statement, or a
// batch that begins and commits a REPEATABLE READ transaction of its own,
// so that a record read, or a list page with its count, costs one round
// trip and no BEGIN or COMMIT (and, when that statement is cheap, a share
// of the listener's round trip rather than a connection: shared.go). Should the read need another round trip
// (an include, a price that must be computed), that round trip runs in a
// transaction of its own again, which first checks that what the earlier
// round trips read is still what they returned (the id and row version,
// xmin, of every row; the counts): then everything the read saw is one
// snapshot. When a write came in between, the caller's function runs
// again in one REPEATABLE READ transaction.

// txMode is how a transaction begins.
type txMode uint8

const (
	modeWrite      txMode = iota // READ COMMITTED, begun with the first round trip
	modeView                     // REPEATABLE READ READ ONLY, begun with the first round trip
	modeOptimistic               // no transaction while its round trips check each other
)

const (
	beginWrite = "BEGIN ISOLATION LEVEL READ COMMITTED"
	beginView  = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
	// maxChecked is how many round trips an optimistic read sends, each
	// re-checking the earlier ones, before it holds one transaction open
	// instead (the checks grow with every round trip).
	maxChecked = 3
)

// errStale ends a read whose earlier round trips read data that a write
// has since changed: its function runs again in one transaction.
var errStale = errors.New("pgstore: read changed meanwhile, running it again")

// maxAttempts bounds the retries of a transaction that deadlocked or
// failed to serialize.
const maxAttempts = 8

// query is one statement of a round trip.
type query struct {
	sql  string
	args []any
	// scan reads the rows; nil for a statement whose command tag is all
	// its result (tag).
	scan func(pgx.Rows) error
	tag  pgconn.CommandTag
	// check, for reads: a statement with the same arguments whose rows
	// (int8 columns) identify what scan read; fp is what they were.
	check string
	fp    []int64
	// merges: a list of this type, in a write transaction, that adds the
	// rows the transaction keeps (deferred.go) to what it reads
	merges string
	// byKey: a read of records by their primary key, whose cost is
	// bounded (it may ride on the listener's round trip, shared.go);
	// page: the type and account of a list page, which may ride on it
	// too unless that account holds many records of that type
	byKey bool
	page  string
}

// tx is a store transaction; write transactions lock the accounts they
// touch.
type tx struct {
	db   *DB
	ctx  context.Context
	mode txMode
	conn *pgxpool.Conn
	open bool // a transaction is open on conn
	// trips counts the round trips sent; sent holds the reads of an
	// optimistic transaction, for the checks of its next round trips.
	trips int
	sent  []*query
	stale bool // optimistic: what was read changed; fn runs again
	// pending is sent before the next statement: locks, known writes.
	pending []*query
	locked  map[string]int // lock key -> 1 shared, 2 exclusive
	// cache holds, in a write transaction, the records read or written
	// under its locks (nil: known missing); in a read, the records read
	// ahead (Prefetch) and not yet taken.
	cache map[engine.Key]*stored
	// read ahead (ahead.go): records and lists to read with the next
	// statement, and lists read and not yet taken
	ahead      []engine.Key
	aheadVias  []engine.Via
	aheadLists []*aheadList
	lists      map[string]*listed
	viaDone    map[engine.Via]bool
	wrote      map[string]bool
	// inserts are rows inserted with ids already taken, kept until a
	// statement names their type or the COMMIT (deferred.go)
	inserts []*deferredInsert
	// reserved are ids taken ahead for the type's next inserts
	// (engine.IDReserver), in order
	reserved map[string][]int64
	// unlocked: a write transaction that takes no account locks (the
	// outbox claims)
	unlocked bool
}

func (t *tx) write() bool { return t.mode == modeWrite }

// roundTrip sends qs, after whatever the transaction must send first, in
// one round trip, and runs their scan functions.
func (t *tx) roundTrip(qs ...*query) error {
	if t.stale {
		return errStale
	}
	extra, keep := t.takeAhead()
	qs = append(qs, extra...)
	t.flushInserts(qs, false)
	if t.shareable(qs) {
		if err := t.sendShared(qs[0]); err != errNotShared {
			t.trips++
			if err == nil {
				keep()
				t.sent = append(t.sent, qs...)
			}
			return err
		}
	}
	if t.conn == nil {
		conn, err := t.db.pool.Acquire(t.ctx)
		if err != nil {
			return err
		}
		t.conn = conn
	}
	var begin string // opens a transaction before the statements
	var checks []*query
	closes := false
	switch {
	case t.open:
	case t.mode == modeWrite:
		begin, t.open = beginWrite, true
	case t.mode == modeView:
		begin, t.open = beginView, true
	case t.trips == 0:
		if len(t.pending)+len(qs) > 1 {
			begin, closes = beginView, true
		}
	default:
		if slices.ContainsFunc(t.sent, func(q *query) bool { return q.check == "" }) {
			t.stale = true // a read that cannot be checked: run again
			return errStale
		}
		begin, checks = beginView, t.sent
		if t.trips < maxChecked {
			closes = true
		} else {
			t.mode, t.open = modeView, true
		}
	}
	all := append(t.pending, qs...)
	t.pending = nil
	t.trips++
	var err error
	if begin == "" && len(all) == 1 {
		err = t.send(all[0].sql, all[0].args, all[0]) // no batch to build
	} else {
		err = t.conn.SendBatch(t.ctx, t.batch(begin, checks, all, closes)).Close()
	}
	if err == nil {
		keep()
		if t.mode == modeOptimistic {
			t.sent = append(t.sent, qs...)
		}
	}
	if err != nil && !t.open {
		t.rollback() // a batch of its own transaction failed half way
	}
	return err
}

// batch is the batch of a round trip: begin (unless empty), the checks
// of earlier round trips, the statements, COMMIT if closes.
func (t *tx) batch(begin string, checks, all []*query, closes bool) *pgx.Batch {
	b := &pgx.Batch{}
	if begin != "" {
		b.Queue(begin)
	}
	for _, c := range checks {
		b.Queue(c.check, c.args...).Query(t.verify(c))
	}
	for _, q := range all {
		qq := b.Queue(q.sql, q.args...)
		if q.scan != nil {
			qq.Query(q.scan)
		} else {
			qq.Exec(func(tag pgconn.CommandTag) error { q.tag = tag; return nil })
		}
	}
	if closes {
		b.Queue("COMMIT")
	}
	return b
}

// send runs one statement alone: what a batch of one does, with less
// bookkeeping.
func (t *tx) send(sql string, args []any, q *query) error {
	if q.scan == nil {
		tag, err := t.conn.Exec(t.ctx, sql, args...)
		q.tag = tag
		return err
	}
	rows, err := t.conn.Query(t.ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if err := q.scan(rows); err != nil {
		return err
	}
	rows.Close()
	return rows.Err()
}

// verify compares the rows of check statement c (int8 columns) with what
// c's own statement read.
func (t *tx) verify(c *query) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		i := 0
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				return err
			}
			for _, v := range vals {
				if n, ok := v.(int64); !ok || i >= len(c.fp) || c.fp[i] != n {
					t.stale = true
					return errStale
				}
				i++
			}
		}
		if i != len(c.fp) {
			t.stale = true
			return errStale
		}
		return rows.Err()
	}
}

// rollback ends an open or failed transaction so that the connection can
// go back to the pool.
func (t *tx) rollback() {
	if t.conn == nil || t.conn.Conn().IsClosed() || t.conn.Conn().PgConn().TxStatus() == 'I' {
		t.open = false
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), 5*time.Second)
	defer cancel()
	_, _ = t.conn.Exec(ctx, "ROLLBACK")
	t.open = false
}

// commit sends what is still queued and the COMMIT, in one round trip.
func (t *tx) commit() error {
	t.flushInserts(nil, true)
	if t.write() && len(t.wrote) > 0 {
		t.pending = append(t.pending, t.db.versions.notifyQuery(t.wrote))
	}
	if !t.open && len(t.pending) == 0 {
		return nil
	}
	if err := t.ctx.Err(); err != nil {
		return err
	}
	if !t.open && t.mode != modeWrite {
		return nil // reads sent nothing that needs ending
	}
	t.ahead, t.aheadLists, t.aheadVias = nil, nil, nil
	commit := &query{sql: "COMMIT"}
	if err := t.roundTrip(commit); err != nil {
		return err
	}
	t.open = false
	// COMMIT of a transaction that failed answers ROLLBACK
	if commit.tag.String() != "COMMIT" {
		return errors.New("pgstore: transaction rolled back at commit")
	}
	return nil
}

// release ends the transaction (rolling back what is not committed) and
// returns the connection to the pool.
func (t *tx) release() {
	if t.conn == nil {
		return
	}
	if t.open || t.conn.Conn().PgConn().TxStatus() != 'I' {
		t.rollback()
	}
	t.conn.Release()
	t.conn = nil
}

// attempt runs fn in one transaction of mode.
func (db *DB) attempt(ctx context.Context, mode txMode, fn func(*tx) error) (t *tx, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t = &tx{db: db, ctx: ctx, mode: mode}
	defer t.release()
	if err := fn(t); err != nil {
		return t, err
	}
	if err := t.commit(); err != nil {
		return t, err
	}
	if len(t.wrote) > 0 {
		db.versions.wrote(t.wrote) // this process sees its own writes at once
	}
	return t, nil
}

// run runs fn in a transaction of mode, again from the start when
// PostgreSQL reports a deadlock or a serialization failure, or when an
// optimistic read finds that what it read changed (then as a view).
func (db *DB) run(ctx context.Context, mode txMode, fn func(*tx) error) error {
	for n := 1; ; n++ {
		t, err := db.attempt(ctx, mode, fn)
		if t != nil && t.stale {
			mode = modeView
			continue
		}
		if err == nil || n == maxAttempts || !retryable(err) || ctx.Err() != nil {
			return mapError(withContext(ctx, err))
		}
		time.Sleep(time.Duration(rand.IntN(10*n)+1) * time.Millisecond)
	}
}

// withContext makes the error of a query that a done ctx canceled (a
// cancel request answers "canceling statement") match ctx.Err().
func withContext(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	return err
}

// retryable reports a deadlock or serialization failure.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}
