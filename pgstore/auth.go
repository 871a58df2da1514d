package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
)

// AuthStore returns the auth.Store kept in this database.
func (db *DB) AuthStore() auth.Store { return authStore{db: db} }

// authStore implements auth.Store; a separate type keeps its method names
// out of DB's own API.
type authStore struct{ db *DB }

var _ auth.Store = authStore{}

// queryer is what getJSON reads through: the pool or a transaction.
type queryer interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// getJSON decodes the data column of the one row of query; ENOTFOUND
// (naming what) when there is none.
func getJSON[T any](ctx context.Context, q queryer, what string, query string, args ...any) (*T, error) {
	data, err := rowData(ctx, q, what, query, args...)
	if err != nil {
		return nil, err
	}
	return decodeJSON[T](data, what)
}

// rowData returns the data column of the one row of query; ENOTFOUND
// (naming what) when there is none.
func rowData(ctx context.Context, q queryer, what string, query string, args ...any) ([]byte, error) {
	var data []byte
	err := q.QueryRow(ctx, query, args...).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "%s not found", what)
	}
	return data, err
}

func decodeJSON[T any](data []byte, what string) (*T, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("pgstore: decode %s: %w", what, err)
	}
	return &v, nil
}

const (
	selectApplication = "SELECT data FROM auth_applications WHERE client_id = $1"
	selectCredential  = "SELECT data FROM auth_service_credentials WHERE client_id = $1"
)

// ApplicationByClientID implements auth.Store. Every password, refresh
// and code grant reads its application: it is kept decoded (which also
// spares the token endpoint's refusal of a wrong secret a decode that an
// unknown client id does not cost).
func (s authStore) ApplicationByClientID(ctx context.Context, clientID string) (*auth.Application, error) {
	data, err := rowData(ctx, s.db.pool, "application", selectApplication, clientID)
	if err != nil {
		return nil, err
	}
	a, err := s.db.appCache.Get(clientID, data, func(b []byte) (auth.Application, error) {
		a, err := decodeJSON[auth.Application](b, "application")
		if err != nil {
			return auth.Application{}, err
		}
		return *a, nil
	})
	if err != nil {
		return nil, err
	}
	return &a, nil
}

// ServiceCredentialByClientID implements auth.Store.
func (s authStore) ServiceCredentialByClientID(ctx context.Context, clientID string) (*auth.ServiceCredential, error) {
	return getJSON[auth.ServiceCredential](ctx, s.db.pool, "service credential", selectCredential, clientID)
}

// SetPasswordHash implements auth.Store.
func (s authStore) SetPasswordHash(ctx context.Context, userID string, hash []byte) error {
	return setPasswordHash(ctx, s.db.pool, userID, hash)
}

// execer is what the writes shared by the store and Load run through: the
// pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func setPasswordHash(ctx context.Context, q execer, userID string, hash []byte) error {
	_, err := q.Exec(ctx, `INSERT INTO auth_passwords (user_id, hash) VALUES ($1, $2)
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

// PutToken implements auth.Store. A new token changes nothing a process
// keeps; replacing a stored one notifies every process (versions).
func (s authStore) PutToken(ctx context.Context, t *auth.Token) error {
	replaced, err := putToken(ctx, s.db.pool, s.db.versions.channel, t)
	if replaced {
		s.db.versions.bump(authData)
	}
	return err
}

func putToken(ctx context.Context, q queryer, channel string, t *auth.Token) (replaced bool, err error) {
	data, err := json.Marshal(t)
	if err != nil {
		return false, err
	}
	// xmax is 0 in a row just inserted, not in one updated
	var n int64
	err = q.QueryRow(ctx, `WITH put AS (INSERT INTO auth_tokens (digest, data) VALUES ($1, $2)
			ON CONFLICT (digest) DO UPDATE SET data = excluded.data RETURNING xmax <> 0 AS replaced),
		n AS (SELECT pg_notify($3, $4) FROM put WHERE replaced)
		SELECT (SELECT count(*) FROM n)`, t.Digest, string(data), channel, authData).Scan(&n)
	return n > 0, err
}

// TokenByDigest implements auth.Store.
func (s authStore) TokenByDigest(ctx context.Context, digest []byte) (*auth.Token, error) {
	return getJSON[auth.Token](ctx, s.db.pool, "token", "SELECT data FROM auth_tokens WHERE digest = $1", digest)
}

var _ auth.TokenReader = authStore{}

// TokenWithCredential implements auth.TokenReader in one statement.
func (s authStore) TokenWithCredential(ctx context.Context, digest []byte) (*auth.Token, *auth.ServiceCredential, error) {
	var tok, cred []byte
	err := s.db.pool.QueryRow(ctx, `SELECT t.data, c.data FROM auth_tokens t
		LEFT JOIN auth_service_credentials c ON c.client_id = t.data ->> 'ClientID' WHERE t.digest = $1`, digest).Scan(&tok, &cred)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, scopekit.Errorf(scopekit.ENOTFOUND, "token not found")
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := decodeJSON[auth.Token](tok, "token")
	if err != nil || cred == nil {
		return t, nil, err
	}
	c, err := decodeJSON[auth.ServiceCredential](cred, "service credential")
	return t, c, err
}

// DeleteToken implements auth.Store: of concurrent deletes one removes the
// row, the others find none. Every process is notified (versions).
func (s authStore) DeleteToken(ctx context.Context, digest []byte) error {
	var n int64
	err := s.db.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM auth_tokens WHERE digest = $1 RETURNING 1),
		n AS (SELECT pg_notify($2, $3) FROM gone)
		SELECT (SELECT count(*) FROM n)`, digest, s.db.versions.channel, authData).Scan(&n)
	if err != nil {
		return err
	}
	if n == 0 {
		return scopekit.Errorf(scopekit.ENOTFOUND, "token not found")
	}
	s.db.versions.bump(authData)
	return nil
}

// DeleteRefreshTokens implements auth.Store, in one statement that
// notifies every process when it removed any (versions).
func (s authStore) DeleteRefreshTokens(ctx context.Context, f auth.RefreshFilter) (int, error) {
	if !f.AnyUser && len(f.UserIDs) == 0 {
		return 0, nil
	}
	users := f.UserIDs
	if users == nil {
		users = []string{}
	}
	var n, notified int64
	err := s.db.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM auth_tokens WHERE data ->> 'Kind' = $1
			AND ($2 = '' OR data ->> 'AccountID' = $2) AND ($3 OR data ->> 'UserID' = ANY($4))
			AND coalesce(data ->> 'Proof', '') = ANY($5) RETURNING 1),
		n AS (SELECT pg_notify($6, $7) WHERE EXISTS (SELECT 1 FROM gone))
		SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM n)`, auth.KindRefresh, f.AccountID, f.AnyUser, users, f.Proofs,
		s.db.versions.channel, authData).Scan(&n, &notified)
	if err != nil {
		return 0, err
	}
	if n > 0 {
		s.db.versions.bump(authData)
	}
	return int(n), nil
}

// TakeAuthCode implements auth.Store: the DELETE ... RETURNING hands the
// code to one caller only.
func (s authStore) TakeAuthCode(ctx context.Context, digest []byte) (*auth.AuthCode, error) {
	return getJSON[auth.AuthCode](ctx, s.db.pool, "code", "DELETE FROM auth_codes WHERE digest = $1 RETURNING data", digest)
}

const selectMFA = "SELECT data FROM auth_mfa WHERE user_id = $1"

// MFA implements auth.Store.
func (s authStore) MFA(ctx context.Context, userID string) (*auth.MFA, error) {
	return getJSON[auth.MFA](ctx, s.db.pool, "second factor", selectMFA, userID)
}

// Update implements auth.Store: one READ COMMITTED transaction that takes
// a transaction-scoped advisory lock on each client id, on each user's
// credentials in an account, and on each user's second factor, that it
// reads or writes, so that the
// transactions touching one of them run one after the other whatever the
// process; retried when PostgreSQL reports a deadlock.
func (s authStore) Update(ctx context.Context, fn func(auth.Tx) error) error {
	notified := false
	err := s.db.retry(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(ptx pgx.Tx) error {
		t := &authTx{ctx: ctx, ptx: ptx, locked: map[string]bool{}}
		if err := fn(t); err != nil {
			return err
		}
		notified = t.credentials
		if !notified {
			return nil
		}
		_, err := ptx.Exec(ctx, "SELECT pg_notify($1, $2)", s.db.versions.channel, authData)
		return err
	})
	if err == nil && notified {
		s.db.versions.bump(authData)
	}
	return err
}

// retry runs fn in one SQL transaction, again from the start when
// PostgreSQL reports a deadlock or a serialization failure.
func (db *DB) retry(ctx context.Context, opts pgx.TxOptions, fn func(pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := pgx.BeginTxFunc(ctx, db.pool, opts, fn)
		if err == nil || attempt == maxAttempts || !retryable(err) || ctx.Err() != nil {
			return withContext(ctx, err)
		}
		time.Sleep(time.Duration(rand.IntN(10*attempt)+1) * time.Millisecond)
	}
}

// authTx implements auth.Tx.
type authTx struct {
	ctx    context.Context
	ptx    pgx.Tx
	locked map[string]bool // advisory lock keys held
	// credentials: service credentials were written (tokens minted with
	// them may no longer authenticate)
	credentials bool
}

// lock takes the advisory lock on key, once per transaction.
func (t *authTx) lock(key string) error {
	if t.locked[key] {
		return nil
	}
	if _, err := t.ptx.Exec(t.ctx, "SELECT pg_advisory_xact_lock($1)", int64(hash64("scopekit:"+key))); err != nil {
		return err
	}
	t.locked[key] = true
	return nil
}

func (t *authTx) lockClientID(clientID string) error { return t.lock("client:" + clientID) }

func (t *authTx) lockUser(accountID, userID string) error {
	return t.lock("credential:" + accountID + "\x00" + userID)
}

// ApplicationByClientID implements auth.Tx.
func (t *authTx) ApplicationByClientID(clientID string) (*auth.Application, error) {
	if err := t.lockClientID(clientID); err != nil {
		return nil, err
	}
	return getJSON[auth.Application](t.ctx, t.ptx, "application", selectApplication, clientID)
}

// ServiceCredentialByClientID implements auth.Tx.
func (t *authTx) ServiceCredentialByClientID(clientID string) (*auth.ServiceCredential, error) {
	if err := t.lockClientID(clientID); err != nil {
		return nil, err
	}
	return getJSON[auth.ServiceCredential](t.ctx, t.ptx, "service credential", selectCredential, clientID)
}

// ServiceCredentials implements auth.Tx.
func (t *authTx) ServiceCredentials(accountID, userID string) ([]*auth.ServiceCredential, error) {
	if err := t.lockUser(accountID, userID); err != nil {
		return nil, err
	}
	rows, err := t.ptx.Query(t.ctx, `SELECT data FROM auth_service_credentials WHERE account_id = $1 AND user_id = $2
		ORDER BY client_id COLLATE "C"`, accountID, userID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*auth.ServiceCredential, error) {
		var data []byte
		if err := row.Scan(&data); err != nil {
			return nil, err
		}
		return decodeJSON[auth.ServiceCredential](data, "service credential")
	})
}

// PutApplication implements auth.Tx.
func (t *authTx) PutApplication(a *auth.Application) error {
	if err := t.lockClientID(a.ClientID); err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	_, err = t.ptx.Exec(t.ctx, `INSERT INTO auth_applications (client_id, account_id, data) VALUES ($1, $2, $3)
		ON CONFLICT (client_id) DO UPDATE SET account_id = excluded.account_id, data = excluded.data`,
		a.ClientID, a.AccountID, string(data))
	return err
}

// PutServiceCredential implements auth.Tx. It locks the user before the
// client id, the order auth.Service reads them in.
func (t *authTx) PutServiceCredential(c *auth.ServiceCredential) error {
	if err := t.lockUser(c.AccountID, c.UserID); err != nil {
		return err
	}
	if err := t.lockClientID(c.ClientID); err != nil {
		return err
	}
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	t.credentials = true
	_, err = t.ptx.Exec(t.ctx, `INSERT INTO auth_service_credentials (client_id, account_id, user_id, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (client_id) DO UPDATE SET account_id = excluded.account_id, user_id = excluded.user_id, data = excluded.data`,
		c.ClientID, c.AccountID, c.UserID, string(data))
	return err
}

// DeleteServiceCredential implements auth.Tx.
func (t *authTx) DeleteServiceCredential(clientID string) error {
	if err := t.lockClientID(clientID); err != nil {
		return err
	}
	t.credentials = true
	_, err := t.ptx.Exec(t.ctx, "DELETE FROM auth_service_credentials WHERE client_id = $1", clientID)
	return err
}

// PutAuthCode implements auth.Tx.
func (t *authTx) PutAuthCode(c *auth.AuthCode) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = t.ptx.Exec(t.ctx, `INSERT INTO auth_codes (digest, expires_at, data) VALUES ($1, $2, $3)
		ON CONFLICT (digest) DO UPDATE SET expires_at = excluded.expires_at, data = excluded.data`, c.Digest, c.ExpiresAt, string(data))
	return err
}

// DeleteAuthCodesExpiredBefore implements auth.Tx, by the index on
// expires_at.
func (t *authTx) DeleteAuthCodesExpiredBefore(before time.Time) error {
	_, err := t.ptx.Exec(t.ctx, "DELETE FROM auth_codes WHERE expires_at < $1", before)
	return err
}

func (t *authTx) lockMFA(userID string) error { return t.lock("mfa:" + userID) }

// MFA implements auth.Tx.
func (t *authTx) MFA(userID string) (*auth.MFA, error) {
	if err := t.lockMFA(userID); err != nil {
		return nil, err
	}
	return getJSON[auth.MFA](t.ctx, t.ptx, "second factor", selectMFA, userID)
}

// PutMFA implements auth.Tx.
func (t *authTx) PutMFA(m *auth.MFA) error {
	if err := t.lockMFA(m.UserID); err != nil {
		return err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = t.ptx.Exec(t.ctx, `INSERT INTO auth_mfa (user_id, data) VALUES ($1, $2)
		ON CONFLICT (user_id) DO UPDATE SET data = excluded.data`, m.UserID, string(data))
	return err
}

// DeleteMFA implements auth.Tx.
func (t *authTx) DeleteMFA(userID string) error {
	if err := t.lockMFA(userID); err != nil {
		return err
	}
	_, err := t.ptx.Exec(t.ctx, "DELETE FROM auth_mfa WHERE user_id = $1", userID)
	return err
}
