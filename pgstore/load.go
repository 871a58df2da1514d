package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
)

// Loader writes what a copy from another store brings (package
// storemove): records with the ids, accounts and times they already have,
// blobs, the auth data as stored (secrets as digests) and the types' id
// sequences. Every write is idempotent, so a copy run again after an
// interruption leaves one row per thing.
type Loader struct {
	db  *DB
	ctx context.Context
	ptx pgx.Tx
}

// Load runs fn in one SQL transaction (READ COMMITTED, not retried):
// everything fn loads commits together, or nothing does when fn returns an
// error or ctx ends first.
func (db *DB) Load(ctx context.Context, fn func(*Loader) error) error {
	return mapError(pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(ptx pgx.Tx) error {
		return fn(&Loader{db: db, ctx: ctx, ptx: ptx})
	}))
}

// Tx is the transaction of the load, for the caller's own bookkeeping
// (what it has copied) to commit with the copy.
func (l *Loader) Tx() pgx.Tx { return l.ptx }

// Records inserts recs in one statement, keeping their ids and times; a
// record already stored (same type, account and id) is left as it is. It
// returns how many rows it inserted. Ids must be the store's own (positive
// numbers): the sequences are moved past them by AdvanceSequence.
func (l *Loader) Records(recs []*engine.Record) (int64, error) {
	n := len(recs)
	types, accts, attrs, rels := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created, updated, ids := make([]string, n), make([]string, n), make([]int64, n)
	for i, r := range recs {
		id, ok := parseID(r.ID)
		if !ok {
			return 0, fmt.Errorf("load %s: bad id %q", r.Type, r.ID)
		}
		a, rl, err := encode(r)
		if err != nil {
			return 0, err
		}
		types[i], accts[i], ids[i], attrs[i], rels[i], created[i], updated[i] = r.Type, r.AccountID, id, string(a), string(rl), r.CreatedAt, r.UpdatedAt
	}
	tag, err := l.ptx.Exec(l.ctx, `INSERT INTO records (type, account_id, id, attrs, rels, created_at, updated_at)
		SELECT t, a, i, at::jsonb, rl::jsonb, c, u
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(t, a, i, at, rl, c, u)
		ON CONFLICT DO NOTHING`, types, accts, ids, attrs, rels, created, updated)
	if err != nil {
		return 0, mapError(err)
	}
	return tag.RowsAffected(), nil
}

// AdvanceSequence moves the id sequence of typ (created if missing) so that
// the next id it gives is above last and above every stored id of typ: a
// deleted record's id is not given again.
func (l *Loader) AdvanceSequence(typ string, last int64) error {
	if err := l.db.ensureSeq(l.ctx, typ); err != nil {
		return err
	}
	seq := seqName(typ)
	_, err := l.ptx.Exec(l.ctx, `SELECT setval('`+seq+`', v) FROM (SELECT GREATEST($1::bigint,
			(SELECT coalesce(max(id), 0) FROM records WHERE type = $2),
			(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM `+seq+`)) AS v) AS x
		WHERE v > 0`, last, typ)
	return err
}

// Blob stores a blob, replacing one stored under the same account, kind
// and id.
func (l *Loader) Blob(accountID, kind, id string, data []byte) error {
	return l.records().PutBlob(accountID, kind, id, data)
}

// Application stores an OAuth application (its secret's digest).
func (l *Loader) Application(a *auth.Application) error { return l.auth().PutApplication(a) }

// ServiceCredential stores a service credential (its secret's digest).
func (l *Loader) ServiceCredential(c *auth.ServiceCredential) error {
	return l.auth().PutServiceCredential(c)
}

// AuthCode stores an authorization code (its digest).
func (l *Loader) AuthCode(c *auth.AuthCode) error { return l.auth().PutAuthCode(c) }

// Token stores a token (its digest).
func (l *Loader) Token(t *auth.Token) error { return putToken(l.ctx, l.ptx, t) }

// SecondFactor stores a user's second factor (its seed sealed).
func (l *Loader) SecondFactor(m *auth.MFA) error { return l.auth().PutMFA(m) }

// Password stores a user's password hash (bcrypt).
func (l *Loader) Password(userID string, hash []byte) error {
	return setPasswordHash(l.ctx, l.ptx, userID, hash)
}

func (l *Loader) records() *tx { return &tx{db: l.db, ctx: l.ctx, ptx: l.ptx, write: true} }

func (l *Loader) auth() *authTx { return &authTx{ctx: l.ctx, ptx: l.ptx, locked: map[string]bool{}} }

// Counts is how much a database holds, by kind: what a copy is checked
// against.
type Counts struct {
	Records map[string]int64 // by type
	Blobs   map[string]int64 // by kind
	// the auth data
	Applications, ServiceCredentials, Passwords, Tokens, AuthCodes, SecondFactors int64
}

// Counts counts the rows of every table of the database.
func (db *DB) Counts(ctx context.Context) (*Counts, error) {
	c := &Counts{Records: map[string]int64{}, Blobs: map[string]int64{}}
	err := pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(ptx pgx.Tx) error {
		for sql, into := range map[string]map[string]int64{
			"SELECT type, count(*) FROM records GROUP BY type": c.Records,
			"SELECT kind, count(*) FROM blobs GROUP BY kind":   c.Blobs,
		} {
			rows, err := ptx.Query(ctx, sql)
			if err != nil {
				return err
			}
			var name string
			var n int64
			if _, err := pgx.ForEachRow(rows, []any{&name, &n}, func() error {
				into[name] = n
				return nil
			}); err != nil {
				return err
			}
		}
		return ptx.QueryRow(ctx, `SELECT (SELECT count(*) FROM auth_applications), (SELECT count(*) FROM auth_service_credentials),
			(SELECT count(*) FROM auth_passwords), (SELECT count(*) FROM auth_tokens), (SELECT count(*) FROM auth_codes),
			(SELECT count(*) FROM auth_mfa)`).
			Scan(&c.Applications, &c.ServiceCredentials, &c.Passwords, &c.Tokens, &c.AuthCodes, &c.SecondFactors)
	})
	return c, err
}
