package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
)

var (
	_ engine.Store        = (*DB)(nil)
	_ engine.Rerunner     = (*DB)(nil)
	_ engine.Prefetcher   = (*tx)(nil)
	_ engine.LateInserter = (*tx)(nil)
	_ engine.IDReserver   = (*tx)(nil)
)

// View implements engine.Store: one REPEATABLE READ, READ ONLY
// transaction, so every read of fn sees one snapshot.
func (db *DB) View(ctx context.Context, fn func(engine.Tx) error) error {
	return db.run(ctx, modeView, func(t *tx) error { return fn(t) })
}

// ViewRerun implements engine.Rerunner: fn's first round trip runs without
// a transaction, later ones check that the earlier reads still hold, and
// fn runs again in one REPEATABLE READ transaction when they do not.
func (db *DB) ViewRerun(ctx context.Context, fn func(engine.Tx) error) error {
	return db.run(ctx, modeOptimistic, func(t *tx) error { return fn(t) })
}

// Update implements engine.Store: one READ COMMITTED transaction that
// locks each account it touches (see the package comment); retried from
// the start when PostgreSQL reports a deadlock or a serialization failure.
func (db *DB) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return db.run(ctx, modeWrite, func(t *tx) error { return fn(t) })
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

const (
	lockShared    = 1
	lockExclusive = 2
)

// lock queues the advisory lock of key at least at mode, once per
// transaction (a shared lock is upgraded by taking the exclusive one); it
// is taken before the next statement runs.
func (t *tx) lock(key string, mode int) {
	if !t.write() || t.unlocked || t.locked[key] >= mode {
		return
	}
	if t.locked == nil {
		t.locked = map[string]int{}
	}
	fn := "pg_advisory_xact_lock"
	if mode == lockShared {
		fn = "pg_advisory_xact_lock_shared"
	}
	t.pending = append(t.pending, &query{sql: "SELECT " + fn + "($1)", args: []any{int64(hash64("scopekit:" + key))}})
	t.locked[key] = mode
}

// lockAccount locks an account before a read (write=false) or a write of
// its records: accounts exclusively at the first touch, the global scope
// shared for reads and exclusively for writes.
func (t *tx) lockAccount(accountID string, write bool) {
	if accountID == "" && !write {
		t.lock("account:", lockShared)
		return
	}
	t.lock("account:"+accountID, lockExclusive)
}

func notFound(typ, id string) error {
	return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s not found", typ, id)
}

// parseID returns a stored id's number; false for anything no record has.
func parseID(id string) (int64, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil && n > 0 && strconv.FormatInt(n, 10) == id
}

// Record rows: every query that returns records selects recordCols, and
// its check selects checkCols (the row's id and version).
const (
	recordCols = "type, account_id, id, xmin::text::int8, attrs, rels, created_at, updated_at"
	checkCols  = "id, xmin::text::int8"
)

// stored is a record row as read, decoded when it is taken.
type stored struct {
	id                   int64
	attrs, rels          []byte
	createdAt, updatedAt string
}

func (s *stored) record(typ, accountID string) (*engine.Record, error) {
	r := &engine.Record{Type: typ, AccountID: accountID, ID: strconv.FormatInt(s.id, 10), CreatedAt: s.createdAt, UpdatedAt: s.updatedAt}
	return r, decodeInto(r, s.attrs, s.rels)
}

// scanStored reads one row of recordCols followed by extra columns; in an
// optimistic read it adds the row's identity (and extra) to q's
// fingerprint.
func (t *tx) scanStored(rows pgx.Rows, q *query, extra ...*int64) (engine.Key, *stored, error) {
	var k engine.Key
	var s stored
	var xmin int64
	dest := append([]any{&k.Type, &k.AccountID, &s.id, &xmin, &s.attrs, &s.rels, &s.createdAt, &s.updatedAt}, anys(extra)...)
	if err := rows.Scan(dest...); err != nil {
		return k, nil, err
	}
	k.ID = strconv.FormatInt(s.id, 10)
	if t.mode == modeOptimistic {
		q.fp = append(q.fp, s.id, xmin)
		for _, e := range extra {
			q.fp = append(q.fp, *e)
		}
	}
	return k, &s, nil
}

func anys(ps []*int64) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// cached returns a record of the transaction's cache: a copy of its own in
// a write transaction, the record read ahead (once) in a read.
func (t *tx) cached(k engine.Key) (r *engine.Record, ok bool, err error) {
	s, ok := t.cache[k]
	if !ok {
		return nil, false, nil
	}
	if !t.write() {
		delete(t.cache, k)
	}
	if s == nil {
		return nil, true, notFound(k.Type, k.ID)
	}
	r, err = s.record(k.Type, k.AccountID)
	return r, true, err
}

// remember keeps a record of a write transaction, read or written under
// its locks, for the transaction's next reads of it (nil: missing).
func (t *tx) remember(k engine.Key, s *stored) {
	if !t.write() {
		return
	}
	if t.cache == nil {
		t.cache = map[engine.Key]*stored{}
	}
	t.cache[k] = s
}

// Get implements engine.Tx; records read ahead come with it.
func (t *tx) Get(typ, accountID, id string) (*engine.Record, error) {
	n, ok := parseID(id)
	if !ok {
		return nil, notFound(typ, id)
	}
	k := engine.Key{Type: typ, AccountID: accountID, ID: id}
	if r, ok, err := t.cached(k); ok {
		return r, err
	}
	t.lockAccount(accountID, false)
	if len(t.ahead) > 0 {
		q, done := t.getMany(append([]engine.Key{k}, t.ahead...))
		t.ahead = nil
		if err := t.roundTrip(q); err != nil {
			return nil, err
		}
		done()
		if r, ok, err := t.cached(k); ok {
			return r, err
		}
		return nil, notFound(typ, id)
	}
	var found *stored
	st := t.db.getStatement(typ)
	q := &query{sql: st.sql, check: st.check, args: []any{n, accountID}, byKey: true}
	q.scan = func(rows pgx.Rows) error {
		for rows.Next() {
			var err error
			if _, found, err = t.scanStored(rows, q); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if err := t.roundTrip(q); err != nil {
		return nil, err
	}
	t.remember(k, found)
	if found == nil {
		return nil, notFound(typ, id)
	}
	return found.record(typ, accountID)
}

// getStatement is the statement of Get and its check: made once per type
// of the schema (Open), for any other type at each call.
type getStatement struct{ sql, check string }

func newGetStatement(typ string) getStatement {
	where := " FROM records WHERE type = " + quoteLiteral(typ) + " AND id = $1 AND account_id = $2"
	return getStatement{sql: "SELECT " + recordCols + where, check: "SELECT " + checkCols + where}
}

func (db *DB) getStatement(typ string) getStatement {
	if st, ok := db.gets[typ]; ok {
		return st
	}
	return newGetStatement(typ)
}

// getMany returns the statement that reads the records keys (with valid
// ids) and what puts them in the transaction's cache once it has run,
// missing ones as missing. Each type's keys read its own partition: a few
// by their primary key each, more in one join.
func (t *tx) getMany(keys []engine.Key) (*query, func()) {
	byType := map[string][]engine.Key{}
	var types []string
	for _, k := range keys {
		if _, ok := parseID(k.ID); ok {
			if byType[k.Type] == nil {
				types = append(types, k.Type)
			}
			byType[k.Type] = append(byType[k.Type], k)
			t.lockAccount(k.AccountID, false)
		}
	}
	var args []any
	var u strings.Builder
	ord := 0
	for _, typ := range types {
		ks := byType[typ]
		if u.Len() > 0 {
			u.WriteString(" UNION ALL ")
		}
		if len(ks) <= maxLookups {
			for i, k := range ks {
				if i > 0 {
					u.WriteString(" UNION ALL ")
				}
				n, _ := parseID(k.ID)
				args = append(args, k.AccountID, n)
				fmt.Fprintf(&u, `SELECT %d AS i, type, account_id, id, xmin::text::int8 AS x, attrs, rels, created_at, updated_at
					FROM records WHERE type = %s AND account_id = $%d AND id = $%d`, ord, quoteLiteral(typ), len(args)-1, len(args))
				ord++
			}
			continue
		}
		accts, ids := make([]string, len(ks)), make([]int64, len(ks))
		for i, k := range ks {
			accts[i] = k.AccountID
			ids[i], _ = parseID(k.ID)
		}
		args = append(args, accts, ids)
		fmt.Fprintf(&u, `SELECT %d + k.i AS i, r.type, r.account_id, r.id, r.xmin::text::int8 AS x, r.attrs, r.rels, r.created_at, r.updated_at
			FROM unnest($%d::text[], $%d::int8[]) WITH ORDINALITY AS k(a, id, i)
			JOIN records r ON r.type = %s AND r.account_id = k.a AND r.id = k.id`, ord, len(args)-1, len(args), quoteLiteral(typ))
		ord += len(ks)
	}
	if u.Len() == 0 {
		u.WriteString("SELECT 0 AS i, type, account_id, id, xmin::text::int8 AS x, attrs, rels, created_at, updated_at FROM records WHERE false")
	}
	q, found := t.unionQuery(u.String(), args)
	q.byKey = len(keys) <= maxLookups // a few keys: cheap enough to share
	return q, func() {
		if t.cache == nil {
			t.cache = map[engine.Key]*stored{}
		}
		for _, k := range keys {
			t.cache[k] = found[k]
		}
	}
}

// unionQuery is the statement that reads the rows of u (a union of
// selects of an order i and the columns of a record, x its row version)
// in order, and the records it found once it has run.
func (t *tx) unionQuery(u string, args []any) (*query, map[engine.Key]*stored) {
	q := &query{sql: "SELECT type, account_id, id, x, attrs, rels, created_at, updated_at FROM (" + u + ") u ORDER BY i",
		check: "SELECT id, x FROM (" + u + ") u ORDER BY i", args: args}
	found := map[engine.Key]*stored{}
	q.scan = func(rows pgx.Rows) error {
		for rows.Next() {
			k, s, err := t.scanStored(rows, q)
			if err != nil {
				return err
			}
			found[k] = s
		}
		return rows.Err()
	}
	return q, found
}

// maxLookups is the most keys of one type getMany reads by their primary
// key each.
const maxLookups = 8

// decodeInto decodes stored attributes and relationships; numbers stay
// json.Number, as in every store.
func decodeInto(r *engine.Record, attrs, rels []byte) error {
	var err error
	if r.Attrs, err = decodeObject(attrs); err != nil {
		dec := json.NewDecoder(bytes.NewReader(attrs))
		dec.UseNumber()
		if err := dec.Decode(&r.Attrs); err != nil {
			return fmt.Errorf("decode %s %s: %w", r.Type, r.ID, err)
		}
	}
	if r.Rels, err = decodeRels(rels); err != nil {
		if err := json.Unmarshal(rels, &r.Rels); err != nil {
			return fmt.Errorf("decode %s %s: %w", r.Type, r.ID, err)
		}
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

// deferrable reports whether a write of these encoded values cannot fail
// for its input (JSONB refuses a NUL character, which encoding/json
// writes as \u0000): it may then wait for the transaction's next round
// trip.
func deferrable(attrs, rels []byte) bool {
	return !bytes.Contains(attrs, []byte(`\u0000`)) && !bytes.Contains(rels, []byte(`\u0000`))
}

// wroteType notes a write of typ: the lists of typ read ahead are
// stale, and a Versioned type is notified at commit.
func (t *tx) wroteType(typ string) {
	t.forgetLists(typ)
	if !t.db.versioned(typ) {
		return
	}
	if t.wrote == nil {
		t.wrote = map[string]bool{}
	}
	t.wrote[typ] = true
}

// Insert implements engine.Tx: one statement, which takes the id from the
// type's sequence.
func (t *tx) Insert(r *engine.Record) error { return t.insert(r, false) }

// InsertLate implements engine.LateInserter: the id now, the row later
// (deferred.go).
func (t *tx) InsertLate(r *engine.Record) error { return t.insert(r, true) }

func (t *tx) insert(r *engine.Record, late bool) error {
	t.lockAccount(r.AccountID, true)
	if err := t.db.ensureSeq(t.ctx, r.Type); err != nil {
		return err
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
	seq := seqName(r.Type)
	var n int64
	if ids := t.reserved[r.Type]; r.ID == "" && len(ids) > 0 && deferrable(attrs, rels) {
		t.reserved[r.Type] = ids[1:]
		return t.insertReserved(r, ids[0], late, attrs, rels, createdAt, updatedAt)
	}
	if late && r.ID == "" && deferrable(attrs, rels) {
		return t.insertDeferred(r, attrs, rels, createdAt, updatedAt)
	}
	idExpr := "nextval('" + seq + "')"
	if r.ID != "" {
		var ok bool
		if n, ok = parseID(r.ID); !ok {
			return fmt.Errorf("insert %s: bad id %q", r.Type, r.ID)
		}
		t.pending = append(t.pending, &query{sql: "SELECT setval('" + seq + "', $1) FROM " + seq + " WHERE last_value < $1 OR NOT is_called", args: []any{n}})
		idExpr = strconv.FormatInt(n, 10)
	}
	inserted := false
	q := &query{sql: `INSERT INTO ` + t.db.table(r.Type) + ` (type, account_id, id, attrs, rels, created_at, updated_at)
		VALUES (` + quoteLiteral(r.Type) + `, $1, ` + idExpr + `, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING id`,
		args: []any{r.AccountID, string(attrs), string(rels), createdAt, updatedAt}}
	q.scan = func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				return err
			}
			inserted = true
		}
		return rows.Err()
	}
	if err := t.roundTrip(q); err != nil {
		return mapError(err)
	}
	if !inserted {
		return scopekit.Errorf(scopekit.ECONFLICT, "%s %d already exists", r.Type, n)
	}
	r.ID, r.CreatedAt, r.UpdatedAt = strconv.FormatInt(n, 10), createdAt, updatedAt
	t.remember(engine.Key{Type: r.Type, AccountID: r.AccountID, ID: r.ID}, &stored{id: n, attrs: attrs, rels: rels, createdAt: createdAt, updatedAt: updatedAt})
	t.wroteType(r.Type)
	return nil
}

// scanInto is a scan function that reads the columns of each row (at
// most one is expected) into dest.
func scanInto(dest ...any) func(pgx.Rows) error {
	return func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
		}
		return rows.Err()
	}
}

// Replace implements engine.Tx. A record this transaction has read or
// written is known to exist (its account is locked): its update goes out
// with the next round trip.
func (t *tx) Replace(r *engine.Record) error {
	n, ok := parseID(r.ID)
	if !ok {
		return notFound(r.Type, r.ID)
	}
	t.lockAccount(r.AccountID, true)
	attrs, rels, err := encode(r)
	if err != nil {
		return err
	}
	now := engine.FormatTime(t.db.Now())
	k := engine.Key{Type: r.Type, AccountID: r.AccountID, ID: r.ID}
	args := []any{n, r.AccountID, string(attrs), string(rels), now}
	update := `UPDATE records SET attrs = $3, rels = $4, updated_at = $5 WHERE type = ` + quoteLiteral(r.Type) + ` AND id = $1 AND account_id = $2`
	created := ""
	d := t.deferred(k)
	if d != nil && !deferrable(attrs, rels) {
		t.pending = append(t.pending, d.stmt) // written now, then updated
		t.dropDeferred(d)
		d = nil
	}
	if d != nil { // the kept row gets the new values
		d.stmt.args[2], d.stmt.args[3], d.stmt.args[5] = string(attrs), string(rels), now
		created = d.stmt.args[4].(string)
	} else if old := t.cache[k]; old != nil && deferrable(attrs, rels) {
		t.pending = append(t.pending, &query{sql: update, args: args})
		created = old.createdAt
	} else {
		q := &query{sql: update + " RETURNING created_at", args: args, scan: scanInto(&created)}
		if err := t.roundTrip(q); err != nil {
			return mapError(err)
		}
		if created == "" {
			return notFound(r.Type, r.ID)
		}
	}
	r.CreatedAt, r.UpdatedAt = created, now
	t.remember(k, &stored{id: n, attrs: attrs, rels: rels, createdAt: created, updatedAt: now})
	t.wroteType(r.Type)
	return nil
}

// Delete implements engine.Tx; like Replace, the removal of a record
// known to exist goes out with the next round trip.
func (t *tx) Delete(typ, accountID, id string) error {
	n, ok := parseID(id)
	if !ok {
		return notFound(typ, id)
	}
	t.lockAccount(accountID, true)
	k := engine.Key{Type: typ, AccountID: accountID, ID: id}
	q := &query{sql: `DELETE FROM records WHERE type = ` + quoteLiteral(typ) + ` AND id = $1 AND account_id = $2`, args: []any{n, accountID}}
	if d := t.deferred(k); d != nil {
		t.dropDeferred(d) // never written
	} else if t.cache[k] != nil {
		t.pending = append(t.pending, q)
	} else {
		if err := t.roundTrip(q); err != nil {
			return err
		}
		if q.tag.RowsAffected() == 0 {
			return notFound(typ, id)
		}
	}
	t.remember(k, nil)
	t.wroteType(typ)
	return nil
}
