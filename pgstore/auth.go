package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
)

// AuthStore returns the auth.Store kept in this database.
func (db *DB) AuthStore() auth.Store { return authStore{db: db} }

// authStore implements auth.Store; a separate type keeps its method names
// out of DB's own API.
type authStore struct{ db *DB }

var _ auth.Store = authStore{}

func (s authStore) update(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginTxFunc(ctx, s.db.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, fn)
}

// getJSON decodes the data column of the one row of query into v;
// ENOTFOUND (naming what) when there is none.
func (s authStore) getJSON(ctx context.Context, what string, v any, query string, args ...any) error {
	var data []byte
	err := s.db.pool.QueryRow(ctx, query, args...).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return scopekit.Errorf(scopekit.ENOTFOUND, "%s not found", what)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("pgstore: decode %s: %w", what, err)
	}
	return nil
}

func clientIDTaken() error {
	return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "client id is already in use")
}

// lockClientID serializes the writers of one client id: applications and
// service credentials share the namespace across two tables.
func lockClientID(ctx context.Context, tx pgx.Tx, clientID string) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(hash64("scopekit:client:"+clientID)))
	return err
}

// PutApplication implements auth.Store.
func (s authStore) PutApplication(ctx context.Context, a *auth.Application) error {
	if a.ClientID == "" || a.AccountID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "an application needs a client id and an account")
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx pgx.Tx) error {
		if err := lockClientID(ctx, tx, a.ClientID); err != nil {
			return err
		}
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth_service_credentials WHERE client_id = $1)
			OR EXISTS (SELECT 1 FROM auth_applications WHERE client_id = $1 AND account_id <> $2)`, a.ClientID, a.AccountID).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return clientIDTaken()
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth_applications (client_id, account_id, data) VALUES ($1, $2, $3)
			ON CONFLICT (client_id) DO UPDATE SET data = excluded.data`, a.ClientID, a.AccountID, string(data))
		return err
	})
}

// ApplicationByClientID implements auth.Store.
func (s authStore) ApplicationByClientID(ctx context.Context, clientID string) (*auth.Application, error) {
	var a auth.Application
	if err := s.getJSON(ctx, "application", &a, "SELECT data FROM auth_applications WHERE client_id = $1", clientID); err != nil {
		return nil, err
	}
	return &a, nil
}

// PutServiceCredential implements auth.Store.
func (s authStore) PutServiceCredential(ctx context.Context, c *auth.ServiceCredential) error {
	if c.ClientID == "" || c.AccountID == "" || c.UserID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "a service credential needs a client id, an account and a user")
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx pgx.Tx) error {
		if err := lockClientID(ctx, tx, c.ClientID); err != nil {
			return err
		}
		// one credential per user and account: the user's lock orders its
		// replacements
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(hash64("scopekit:credential:"+c.AccountID+"\x00"+c.UserID))); err != nil {
			return err
		}
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth_applications WHERE client_id = $1)
			OR EXISTS (SELECT 1 FROM auth_service_credentials WHERE client_id = $1 AND (account_id <> $2 OR user_id <> $3))`,
			c.ClientID, c.AccountID, c.UserID).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return clientIDTaken()
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth_service_credentials WHERE account_id = $1 AND user_id = $2 AND client_id <> $3`,
			c.AccountID, c.UserID, c.ClientID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth_service_credentials (client_id, account_id, user_id, data) VALUES ($1, $2, $3, $4)
			ON CONFLICT (client_id) DO UPDATE SET data = excluded.data`, c.ClientID, c.AccountID, c.UserID, string(data))
		return err
	})
}

// ServiceCredentialByClientID implements auth.Store.
func (s authStore) ServiceCredentialByClientID(ctx context.Context, clientID string) (*auth.ServiceCredential, error) {
	var c auth.ServiceCredential
	if err := s.getJSON(ctx, "service credential", &c, "SELECT data FROM auth_service_credentials WHERE client_id = $1", clientID); err != nil {
		return nil, err
	}
	return &c, nil
}

// SetPasswordHash implements auth.Store.
func (s authStore) SetPasswordHash(ctx context.Context, userID string, hash []byte) error {
	if userID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "user", "a password needs a user")
	}
	_, err := s.db.pool.Exec(ctx, `INSERT INTO auth_passwords (user_id, hash) VALUES ($1, $2)
		ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash`, userID, hash)
	return err
}

// PasswordHash implements auth.Store.
func (s authStore) PasswordHash(ctx context.Context, userID string) ([]byte, error) {
	var h []byte
	err := s.db.pool.QueryRow(ctx, "SELECT hash FROM auth_passwords WHERE user_id = $1", userID).Scan(&h)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "password not found")
	}
	return h, err
}

// PutToken implements auth.Store.
func (s authStore) PutToken(ctx context.Context, t *auth.Token) error {
	if len(t.Digest) == 0 {
		return fmt.Errorf("pgstore: token without digest")
	}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	_, err = s.db.pool.Exec(ctx, `INSERT INTO auth_tokens (digest, data) VALUES ($1, $2)
		ON CONFLICT (digest) DO UPDATE SET data = excluded.data`, t.Digest, string(data))
	return err
}

// TokenByDigest implements auth.Store.
func (s authStore) TokenByDigest(ctx context.Context, digest []byte) (*auth.Token, error) {
	var t auth.Token
	if err := s.getJSON(ctx, "token", &t, "SELECT data FROM auth_tokens WHERE digest = $1", digest); err != nil {
		return nil, err
	}
	return &t, nil
}

// DeleteToken implements auth.Store: of concurrent deletes one removes the
// row, the others find none.
func (s authStore) DeleteToken(ctx context.Context, digest []byte) error {
	tag, err := s.db.pool.Exec(ctx, "DELETE FROM auth_tokens WHERE digest = $1", digest)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return scopekit.Errorf(scopekit.ENOTFOUND, "token not found")
	}
	return nil
}

// PutAuthCode implements auth.Store.
func (s authStore) PutAuthCode(ctx context.Context, c *auth.AuthCode) error {
	if len(c.Digest) == 0 {
		return fmt.Errorf("pgstore: code without digest")
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM auth_codes WHERE expires_at < $1", c.CreatedAt); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO auth_codes (digest, expires_at, data) VALUES ($1, $2, $3)
			ON CONFLICT (digest) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data`, c.Digest, c.ExpiresAt, string(data))
		return err
	})
}

// TakeAuthCode implements auth.Store: the DELETE ... RETURNING hands the
// code to one caller only.
func (s authStore) TakeAuthCode(ctx context.Context, digest []byte) (*auth.AuthCode, error) {
	var c auth.AuthCode
	if err := s.getJSON(ctx, "code", &c, "DELETE FROM auth_codes WHERE digest = $1 RETURNING data", digest); err != nil {
		return nil, err
	}
	return &c, nil
}
