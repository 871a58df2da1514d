package pgstore

import (
	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit"
)

// Blobs (engine.BlobTx) live in the blobs table, one row per account,
// kind and id; writes take the account's lock like the records they
// belong to, and go out with the transaction's next round trip.

// PutBlob implements engine.BlobTx.
func (t *tx) PutBlob(accountID, kind, id string, data []byte) error {
	t.lockAccount(accountID, true)
	if data == nil {
		data = []byte{}
	}
	t.pending = append(t.pending, &query{sql: `INSERT INTO blobs (account_id, kind, id, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, kind, id) DO UPDATE SET data = EXCLUDED.data`, args: []any{accountID, kind, id, data}})
	return nil
}

// Blob implements engine.BlobTx.
func (t *tx) Blob(accountID, kind, id string) ([]byte, error) {
	t.lockAccount(accountID, false)
	var data []byte
	found := false
	const where = ` FROM blobs WHERE account_id = $1 AND kind = $2 AND id = $3`
	q := &query{sql: "SELECT data, xmin::text::int8" + where, check: "SELECT xmin::text::int8" + where, args: []any{accountID, kind, id}}
	q.scan = func(rows pgx.Rows) error {
		for rows.Next() {
			var xmin int64
			if err := rows.Scan(&data, &xmin); err != nil {
				return err
			}
			found = true
			if t.mode == modeOptimistic {
				q.fp = append(q.fp, xmin)
			}
		}
		return rows.Err()
	}
	if err := t.roundTrip(q); err != nil {
		return nil, err
	}
	if !found {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no %s file for %s", kind, id)
	}
	return data, nil
}

// DeleteBlob implements engine.BlobTx.
func (t *tx) DeleteBlob(accountID, kind, id string) error {
	t.lockAccount(accountID, true)
	t.pending = append(t.pending, &query{sql: `DELETE FROM blobs WHERE account_id = $1 AND kind = $2 AND id = $3`, args: []any{accountID, kind, id}})
	return nil
}
