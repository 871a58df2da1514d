package pgstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/scopekit/scopekit/auth"
)

// Sign-ins in progress (auth.PendingSignIn), as the codes are kept: the
// table auth_signins (migration 0007).

// TakeSignIn implements auth.Store: the DELETE ... RETURNING hands the
// sign-in to one caller only.
func (s authStore) TakeSignIn(ctx context.Context, digest []byte) (*auth.PendingSignIn, error) {
	p, err := getJSON[auth.PendingSignIn](ctx, s.db.pool, "sign-in", "DELETE FROM auth_signins WHERE digest = $1 RETURNING data", digest)
	if err != nil {
		return nil, err
	}
	p.Digest = digest
	return p, nil
}

// PutSignIn implements auth.Tx.
func (t *authTx) PutSignIn(p *auth.PendingSignIn) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = t.ptx.Exec(t.ctx, `INSERT INTO auth_signins (digest, expires_at, data) VALUES ($1, $2, $3)
		ON CONFLICT (digest) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data`, p.Digest, p.ExpiresAt, string(data))
	return err
}

// DeleteSignInsExpiredBefore implements auth.Tx, by the index on
// expires_at.
func (t *authTx) DeleteSignInsExpiredBefore(before time.Time) error {
	_, err := t.ptx.Exec(t.ctx, "DELETE FROM auth_signins WHERE expires_at < $1", before)
	return err
}
