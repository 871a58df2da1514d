package pgstore

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/engine"
)

// Ids taken ahead of a record's row: a record inserted late (deferred.go)
// takes its id at once and its row goes out later; the ids a transaction
// reserves (engine.IDReserver) come in one round trip, and the rows that
// take them go out with the transaction's next round trip.

// insertDeferred inserts r, which takes its id from its type's sequence:
// the id now, the row when a statement names the type or at the COMMIT
// (deferred.go).
func (t *tx) insertDeferred(r *engine.Record, attrs, rels []byte, createdAt, updatedAt string) error {
	var n int64
	q := &query{sql: "SELECT nextval('" + seqName(r.Type) + "')", scan: scanInto(&n)}
	if err := t.roundTrip(q); err != nil {
		return err
	}
	return t.insertReserved(r, n, true, attrs, rels, createdAt, updatedAt)
}

// insertReserved inserts r under the id n its sequence gave already
// (nothing can clash with it, and its values cannot fail: deferrable):
// late, the row is kept until it must go out (deferred.go); otherwise it
// goes with the transaction's next round trip.
func (t *tx) insertReserved(r *engine.Record, n int64, late bool, attrs, rels []byte, createdAt, updatedAt string) error {
	r.ID, r.CreatedAt, r.UpdatedAt = strconv.FormatInt(n, 10), createdAt, updatedAt
	k := engine.Key{Type: r.Type, AccountID: r.AccountID, ID: r.ID}
	stmt := &query{sql: `INSERT INTO ` + t.db.table(r.Type) + ` (type, account_id, id, attrs, rels, created_at, updated_at)
		VALUES (` + quoteLiteral(r.Type) + `, $1, $2, $3, $4, $5, $6)`,
		args: []any{r.AccountID, n, string(attrs), string(rels), createdAt, updatedAt}}
	t.remember(k, &stored{id: n, attrs: attrs, rels: rels, createdAt: createdAt, updatedAt: updatedAt})
	t.wroteType(r.Type)
	if late {
		t.deferInsert(k, stmt)
		return nil
	}
	t.pending = append(t.pending, stmt)
	if len(t.pending) >= maxPending {
		return t.roundTrip() // a batch the server answers without holding up its sender
	}
	return nil
}

// maxPending is how many statements wait for the transaction's next round
// trip before they are sent by themselves.
const maxPending = 256

// maxReserve bounds the ids one ReserveIDs takes.
const maxReserve = 100_000

// ReserveIDs implements engine.IDReserver: the next n ids of typ's
// sequence, in one round trip (that carries what waits to be sent).
func (t *tx) ReserveIDs(typ string, n int) error {
	n = min(n, maxReserve)
	if n <= len(t.reserved[typ]) {
		return nil
	}
	if err := t.db.ensureSeq(t.ctx, typ); err != nil {
		return err
	}
	var ids []int64
	q := &query{sql: "SELECT nextval('" + seqName(typ) + "') FROM generate_series(1, $1)", args: []any{n - len(t.reserved[typ])}}
	q.scan = func(rows pgx.Rows) error {
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	}
	if err := t.roundTrip(q); err != nil {
		return fmt.Errorf("reserve ids of %s: %w", typ, err)
	}
	slices.Sort(ids) // inserted in the order of their ids, as one by one
	if t.reserved == nil {
		t.reserved = map[string][]int64{}
	}
	t.reserved[typ] = append(t.reserved[typ], ids...)
	return nil
}
