// Package pgstore implements the Store interfaces of scoping, auth and
// webhook on PostgreSQL (github.com/jackc/pgx/v5), so that several
// ScopeKit processes can serve one database.
//
// Records live in one table with their attributes and relationships as
// JSONB; every filter, sort and page of a list is one SQL query, served by
// the partial expression indexes derived from the type declarations.
// Versioned SQL migrations (embedded) are applied at Open, under an
// advisory lock so that instances starting together apply them once.
//
// Each store transaction is one SQL transaction. Reads run at REPEATABLE
// READ (one snapshot). Writes run at READ COMMITTED and lock the accounts
// they touch: the first read or write of an account in a write transaction
// takes a transaction-scoped advisory lock on it, so the engine's
// read-check-write steps (uniqueness, counters, approval signatures) of one
// account run one after another whatever the process, while accounts
// proceed in parallel. Global records (accounts) are read under a shared
// lock and written under an exclusive one, and a list across all accounts
// in a write transaction locks that type's all-accounts scan. Ids come from
// one PostgreSQL sequence per type. A transaction that deadlocks or fails
// to serialize is retried.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/bounded"
	"github.com/scopekit/scopekit/scoping"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DefaultClaim is how long a claim on a delivery keeps it from other
// processes (webhook.ClaimRenewer).
const DefaultClaim = time.Minute

// DB is an open ScopeKit database on PostgreSQL.
type DB struct {
	pool   *pgxpool.Pool
	schema *engine.Schema
	// Now is the clock used for timestamps; tests may replace it.
	Now func() time.Time
	// Claim is how long a delivery claimed by a dispatcher stays away from
	// other processes' dispatchers unless renewed (the dispatcher renews
	// the claims it holds, webhook.ClaimRenewer); DefaultClaim when zero.
	Claim time.Duration

	created bool // this Open applied the first migration

	mu   sync.Mutex
	seqs map[string]bool // types whose id sequence exists

	appCache bounded.Decoded[auth.Application] // auth.go
}

// Created reports whether this Open created the database's tables (it
// found none): of several instances starting on an empty database
// together, exactly one sees true.
func (db *DB) Created() bool { return db.created }

// An Option configures Open.
type Option func(*DB)

// WithSchema makes the store index and list the types of schema (by
// default scoping.DefaultSchema()). A scoping.Service created over the
// store serves the same schema unless given another.
func WithSchema(schema *engine.Schema) Option { return func(db *DB) { db.schema = schema } }

// Open connects to the database at url (a postgres:// URL or key=value
// string, as pgx accepts; pool_max_conns and search_path may be set in
// it), applies the migrations it lacks, and creates the indexes and id
// sequences of the types of its schema (WithSchema).
func Open(ctx context.Context, url string, opts ...Option) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	db := &DB{pool: pool, Now: func() time.Time { return time.Now().UTC() }, seqs: map[string]bool{}}
	for _, o := range opts {
		o(db)
	}
	if db.schema == nil {
		db.schema = scoping.DefaultSchema()
	}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	return db, nil
}

// Schema returns the types the store indexes.
func (db *DB) Schema() *engine.Schema { return db.schema }

// Close closes the connections.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Pool exposes the connection pool (for tests and operations tools).
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// migrationLock is the advisory lock key held while migrating.
const migrationLock = 0x5c09e_0001

// migrate applies the embedded migrations not yet applied, in version
// order, each in its own transaction, then syncs indexes and sequences.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(migrationLock)) //nolint:errcheck
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS scopekit_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := conn.Query(ctx, "SELECT version FROM scopekit_migrations")
	if err != nil {
		return err
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return err
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with its version number", base)
		}
		if applied[v] {
			continue
		}
		sql, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		if len(applied) == 0 {
			db.created = true
		}
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO scopekit_migrations (version, name) VALUES ($1, $2)", v, base)
			return err
		}); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return db.syncSchema(ctx, conn.Conn())
}

// syncSchema creates the id sequence of every declared type and the
// indexes its declarations ask for (indexed fields for filters, sortable
// fields for sorts), and drops derived indexes no declaration asks for any
// more. Index names carry a digest of their definition, so a changed
// declaration gets a new index.
func (db *DB) syncSchema(ctx context.Context, conn *pgx.Conn) error {
	want := map[string]string{}
	var stmts []string
	for _, def := range db.schema.Types() {
		stmts = append(stmts, "CREATE SEQUENCE IF NOT EXISTS "+seqName(def.Name))
		for _, expr := range indexExprs(def) {
			def := fmt.Sprintf("ON records (account_id, %s, id) WHERE type = %s", expr, quoteLiteral(def.Name))
			name := fmt.Sprintf("ix_%016x", hash64(def))
			want[name] = def
		}
	}
	existing := map[string]bool{}
	rows, err := conn.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'records' AND indexname LIKE 'ix\_%'`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		existing[n] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for name, def := range want {
		if !existing[name] {
			stmts = append(stmts, "CREATE INDEX "+name+" "+def)
		}
	}
	for name := range existing {
		if _, ok := want[name]; !ok {
			stmts = append(stmts, "DROP INDEX "+name)
		}
	}
	if len(stmts) == 0 {
		return nil
	}
	_, err = conn.Exec(ctx, strings.Join(stmts, ";\n"))
	if err == nil {
		db.mu.Lock()
		for _, def := range db.schema.Types() {
			db.seqs[def.Name] = true
		}
		db.mu.Unlock()
	}
	return err
}

// indexExprs lists the index expressions of a type: one per indexed field
// (equality filters compare lower-cased text) and one per sortable
// attribute. Long values (text kinds, bounded in bytes rather than as
// short strings) are left unindexed: a btree entry holds about 2.7 KB.
func indexExprs(def *engine.TypeDef) []string {
	var out []string
	for _, f := range def.IndexedFields() {
		if rd, ok := def.Rel(f); ok && rd.ToMany {
			continue // to-many lists are matched element by element
		}
		if a, ok := def.Attr(f); ok && !short(a) {
			continue
		}
		out = append(out, "lower("+fieldExpr(def, f)+")")
	}
	for _, a := range def.Attrs {
		sk, ok := def.Sortable(a.Name)
		if !ok || !short(&a) {
			continue
		}
		out = append(out, sortExpr(def, sk))
	}
	return out
}

// short reports whether an attribute's values fit an index entry.
func short(a *engine.AttrDef) bool {
	n, unit := a.MaxLength()
	return unit != "bytes" && n <= 255
}

func seqName(typ string) string { return pgx.Identifier{"id:" + typ}.Sanitize() }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// ensureSeq creates the id sequence of a type declared after Open (tests
// may store undeclared types).
func (db *DB) ensureSeq(ctx context.Context, typ string) error {
	db.mu.Lock()
	ok := db.seqs[typ]
	db.mu.Unlock()
	if ok {
		return nil
	}
	_, err := db.pool.Exec(ctx, "CREATE SEQUENCE IF NOT EXISTS "+seqName(typ))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // created concurrently
		err = nil
	}
	if err == nil {
		db.mu.Lock()
		db.seqs[typ] = true
		db.mu.Unlock()
	}
	return err
}
