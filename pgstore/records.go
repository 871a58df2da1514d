package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
)

var _ engine.Store = (*DB)(nil)

// maxAttempts bounds the retries of a transaction that deadlocked or
// failed to serialize.
const maxAttempts = 8

// View implements engine.Store: one REPEATABLE READ, READ ONLY
// transaction, so every read of fn sees one snapshot.
func (db *DB) View(ctx context.Context, fn func(engine.Tx) error) error {
	return db.run(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, false, fn)
}

// Update implements engine.Store: one READ COMMITTED transaction that
// locks each account it touches (see the package comment); retried from
// the start when PostgreSQL reports a deadlock or a serialization failure.
func (db *DB) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return db.run(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, true, fn)
}

func (db *DB) run(ctx context.Context, opts pgx.TxOptions, write bool, fn func(engine.Tx) error) error {
	return mapError(db.retry(ctx, opts, func(ptx pgx.Tx) error {
		return fn(&tx{db: db, ctx: ctx, ptx: ptx, write: write})
	}))
}

// retry runs fn in one SQL transaction, again from the start when
// PostgreSQL reports a deadlock or a serialization failure.
func (db *DB) retry(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, db.pool, opts, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) || ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Duration(rand.IntN(10*attempt)+1) * time.Millisecond)
	}
}

// retryable reports a deadlock or serialization failure.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

// mapError turns what PostgreSQL refuses of the input into EINVALID: JSONB
// holds no NUL characters, and text must be valid in the encoding.
func mapError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "22P05" || pgErr.Code == "22021") {
		return scopekit.Errorf(scopekit.EINVALID, "text must not contain NUL characters or invalid UTF-8")
	}
	return err
}

// tx is a store transaction; write transactions lock the accounts they
// touch.
type tx struct {
	db     *DB
	ctx    context.Context
	ptx    pgx.Tx
	write  bool
	locked map[string]int // lock key -> 1 shared, 2 exclusive
}

const (
	lockShared    = 1
	lockExclusive = 2
)

// lock takes the advisory lock of key at least at mode, once per
// transaction (a shared lock is upgraded by taking the exclusive one).
func (t *tx) lock(key string, mode int) error {
	if !t.write || t.locked[key] >= mode {
		return nil
	}
	if t.locked == nil {
		t.locked = map[string]int{}
	}
	fn := "pg_advisory_xact_lock"
	if mode == lockShared {
		fn = "pg_advisory_xact_lock_shared"
	}
	if _, err := t.ptx.Exec(t.ctx, "SELECT "+fn+"($1)", int64(hash64("scopekit:"+key))); err != nil {
		return err
	}
	t.locked[key] = mode
	return nil
}

// lockAccount locks an account before a read (write=false) or a write of
// its records: accounts exclusively at the first touch, the global scope
// shared for reads and exclusively for writes.
func (t *tx) lockAccount(accountID string, write bool) error {
	if accountID == "" && !write {
		return t.lock("account:", lockShared)
	}
	return t.lock("account:"+accountID, lockExclusive)
}

func notFound(typ, id string) error {
	return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s not found", typ, id)
}

// parseID returns a stored id's number; false for anything no record has.
func parseID(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == id
}

// Get implements engine.Tx.
func (t *tx) Get(typ, accountID, id string) (*engine.Record, error) {
	n, ok := parseID(id)
	if !ok {
		return nil, notFound(typ, id)
	}
	if err := t.lockAccount(accountID, false); err != nil {
		return nil, err
	}
	var attrs, rels []byte
	r := &engine.Record{Type: typ, ID: id, AccountID: accountID}
	err := t.ptx.QueryRow(t.ctx, `SELECT attrs, rels, created_at, updated_at FROM records WHERE type = $1 AND id = $2 AND account_id = $3`,
		typ, n, accountID).Scan(&attrs, &rels, &r.CreatedAt, &r.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound(typ, id)
	}
	if err != nil {
		return nil, err
	}
	return r, decodeInto(r, attrs, rels)
}

// decodeInto decodes stored attributes and relationships; numbers stay
// json.Number, as in every store.
func decodeInto(r *engine.Record, attrs, rels []byte) error {
	dec := json.NewDecoder(bytes.NewReader(attrs))
	dec.UseNumber()
	if err := dec.Decode(&r.Attrs); err != nil {
		return fmt.Errorf("decode %s %s: %w", r.Type, r.ID, err)
	}
	if err := json.Unmarshal(rels, &r.Rels); err != nil {
		return fmt.Errorf("decode %s %s: %w", r.Type, r.ID, err)
	}
	if r.Attrs == nil {
		r.Attrs = map[string]any{}
	}
	if r.Rels == nil {
		r.Rels = map[string][]string{}
	}
	return nil
}

func encode(r *engine.Record) (attrs, rels []byte, err error) {
	a, rl := r.Attrs, r.Rels
	if a == nil {
		a = map[string]any{}
	}
	if rl == nil {
		rl = map[string][]string{}
	}
	if attrs, err = json.Marshal(a); err != nil {
		return nil, nil, fmt.Errorf("encode %s %s: %w", r.Type, r.ID, err)
	}
	if rels, err = json.Marshal(rl); err != nil {
		return nil, nil, fmt.Errorf("encode %s %s: %w", r.Type, r.ID, err)
	}
	return attrs, rels, nil
}

// Insert implements engine.Tx.
func (t *tx) Insert(r *engine.Record) error {
	if err := t.lockAccount(r.AccountID, true); err != nil {
		return err
	}
	if err := t.db.ensureSeq(t.ctx, r.Type); err != nil {
		return err
	}
	seq := seqName(r.Type)
	var n int64
	if r.ID == "" {
		if err := t.ptx.QueryRow(t.ctx, "SELECT nextval('"+seq+"')").Scan(&n); err != nil {
			return err
		}
	} else {
		var ok bool
		if n, ok = parseID(r.ID); !ok {
			return fmt.Errorf("insert %s: bad id %q", r.Type, r.ID)
		}
		if _, err := t.ptx.Exec(t.ctx, "SELECT setval('"+seq+"', $1) FROM "+seq+" WHERE last_value < $1 OR NOT is_called", n); err != nil {
			return err
		}
	}
	now := engine.FormatTime(t.db.Now())
	createdAt, updatedAt := r.CreatedAt, r.UpdatedAt
	if createdAt == "" {
		createdAt = now
	}
	if updatedAt == "" {
		updatedAt = createdAt
	}
	attrs, rels, err := encode(r)
	if err != nil {
		return err
	}
	tag, err := t.ptx.Exec(t.ctx, `INSERT INTO records (type, account_id, id, attrs, rels, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`, r.Type, r.AccountID, n, string(attrs), string(rels), createdAt, updatedAt)
	if err != nil {
		return mapError(err)
	}
	if tag.RowsAffected() == 0 {
		return scopekit.Errorf(scopekit.ECONFLICT, "%s %d already exists", r.Type, n)
	}
	r.ID, r.CreatedAt, r.UpdatedAt = strconv.FormatInt(n, 10), createdAt, updatedAt
	return nil
}

// Replace implements engine.Tx.
func (t *tx) Replace(r *engine.Record) error {
	n, ok := parseID(r.ID)
	if !ok {
		return notFound(r.Type, r.ID)
	}
	if err := t.lockAccount(r.AccountID, true); err != nil {
		return err
	}
	attrs, rels, err := encode(r)
	if err != nil {
		return err
	}
	now := engine.FormatTime(t.db.Now())
	var created string
	err = t.ptx.QueryRow(t.ctx, `UPDATE records SET attrs = $4, rels = $5, updated_at = $6
		WHERE type = $1 AND id = $2 AND account_id = $3 RETURNING created_at`,
		r.Type, n, r.AccountID, string(attrs), string(rels), now).Scan(&created)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound(r.Type, r.ID)
	}
	if err != nil {
		return mapError(err)
	}
	r.CreatedAt, r.UpdatedAt = created, now
	return nil
}

// Delete implements engine.Tx.
func (t *tx) Delete(typ, accountID, id string) error {
	n, ok := parseID(id)
	if !ok {
		return notFound(typ, id)
	}
	if err := t.lockAccount(accountID, true); err != nil {
		return err
	}
	tag, err := t.ptx.Exec(t.ctx, `DELETE FROM records WHERE type = $1 AND id = $2 AND account_id = $3`, typ, n, accountID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return notFound(typ, id)
	}
	return nil
}
