package pgstore

import (
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit"
)

// Blobs (engine.BlobTx) live in the blobs table, one row per account,
// kind and id; writes take the account's lock like the records they
// belong to.

// PutBlob implements engine.BlobTx.
func (t *tx) PutBlob(accountID, kind, id string, data []byte) error {
	if err := t.lockAccount(accountID, true); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	_, err := t.ptx.Exec(t.ctx, `INSERT INTO blobs (account_id, kind, id, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, kind, id) DO UPDATE SET data = EXCLUDED.data`, accountID, kind, id, data)
	return err
}

// Blob implements engine.BlobTx.
func (t *tx) Blob(accountID, kind, id string) ([]byte, error) {
	if err := t.lockAccount(accountID, false); err != nil {
		return nil, err
	}
	var data []byte
	err := t.ptx.QueryRow(t.ctx, `SELECT data FROM blobs WHERE account_id = $1 AND kind = $2 AND id = $3`,
		accountID, kind, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no %s file for %s", kind, id)
	}
	return data, err
}

// DeleteBlob implements engine.BlobTx.
func (t *tx) DeleteBlob(accountID, kind, id string) error {
	if err := t.lockAccount(accountID, true); err != nil {
		return err
	}
	_, err := t.ptx.Exec(t.ctx, `DELETE FROM blobs WHERE account_id = $1 AND kind = $2 AND id = $3`, accountID, kind, id)
	return err
}
