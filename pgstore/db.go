// Package pgstore implements the Store interfaces of the engine, auth and
// webhook on PostgreSQL (github.com/jackc/pgx/v5), so that several
// ScopeKit processes can serve one database.
//
// Records live in one table partitioned by type, with their attributes and
// relationships as JSONB; every filter, sort and page of a list is one SQL
// query, served by the expression indexes derived from the type
// declarations on the type's partition. Versioned SQL migrations
// (embedded) are applied at Open, under an advisory lock so that instances
// starting together apply them once.
//
// Each store transaction is one SQL transaction, sent in as few round
// trips as the data allows (tx.go): statements are prepared once per
// connection, each round trip is one batch carrying the BEGIN, the locks
// and the writes whose outcome is known before the statement that needs
// an answer, and a caller may read ahead (engine.Prefetcher). Reads run at
// REPEATABLE READ (one snapshot); a read that may run again
// (engine.Rerunner) starts without a transaction and checks its later
// round trips against the first. Writes run at READ COMMITTED and lock
// the accounts they touch: the first read or write of an account in a
// write transaction takes a transaction-scoped advisory lock on it, so the
// engine's read-check-write steps (uniqueness, counters, approval
// signatures) of one account run one after another whatever the process,
// while accounts proceed in parallel. Global records (accounts) are read
// under a shared lock and written under an exclusive one, and a list
// across all accounts in a write transaction locks that type's
// all-accounts scan. Ids come from one PostgreSQL sequence per type. A
// transaction that deadlocks or fails to serialize is retried.
//
// Writes of the types readers keep in memory (engine.TypeDef.Versioned)
// and of tokens and credentials notify every process sharing the database
// (versions.go), so that their caches are never older than a request.
package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/bounded"
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

	created  bool // this Open applied the first migration
	tracer   pgx.QueryTracer
	versions versions
	noShare  bool     // WithoutSharedReads
	bigPages sync.Map // list pages not to share (shared.go): type "\x00" account → true

	mu   sync.Mutex
	seqs map[string]bool // types whose id sequence exists

	appCache bounded.Decoded[auth.Application] // auth.go
	gets     map[string]getStatement           // by type of the schema; read only after Open
}

// Created reports whether this Open created the database's tables (it
// found none): of several instances starting on an empty database
// together, exactly one sees true.
func (db *DB) Created() bool { return db.created }

// An Option configures Open.
type Option func(*DB)

// WithTracer traces every statement the store's connections send (tests
// count them; it may also implement pgx.BatchTracer).
func WithTracer(t pgx.QueryTracer) Option { return func(db *DB) { db.tracer = t } }

// WithoutSharedReads makes every read use a pooled connection of its own
// rather than ride on the listener's round trip (shared.go), to compare
// the two or to keep the listener's connection to its notifications.
func WithoutSharedReads() Option { return func(db *DB) { db.noShare = true } }

// ErrNoSchema is returned by Open without a schema.
var ErrNoSchema = errors.New("pgstore: no schema given (ScopeKit's is scoping.DefaultSchema())")

// Open connects to the database at url (a postgres:// URL or key=value
// string, as pgx accepts; pool_max_conns and search_path may be set in
// it), applies the migrations it lacks, and creates the indexes and id
// sequences of the types of schema (scoping.DefaultSchema() for
// ScopeKit's own; a scoping.Service created over the store serves the
// same schema unless given another).
func Open(ctx context.Context, url string, schema *engine.Schema, opts ...Option) (*DB, error) {
	if schema == nil {
		return nil, ErrNoSchema
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16
	}
	if !strings.Contains(url, "statement_cache_capacity") {
		// a statement per type and shape of query: more than pgx's 512
		cfg.ConnConfig.StatementCacheCapacity = 2048
	}
	// a request that ends early cancels its query with a cancel request:
	// the connection survives for the next one (closing it, pgx's
	// default, made every cut-off request cost a new connection)
	cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 5 * time.Second}
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		// statements are prepared once per connection (pgx's cache) and
		// planned once: planning a query of the records table weighs
		// every partial index of every type, which costs more than most
		// of the queries themselves
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_generic_plan"
	}
	db := &DB{schema: schema, Now: func() time.Time { return time.Now().UTC() }, seqs: map[string]bool{}}
	for _, o := range opts {
		o(db)
	}
	cfg.ConnConfig.Tracer = db.tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	db.pool = pool
	db.gets = map[string]getStatement{}
	for _, def := range db.schema.Types() {
		db.gets[def.Name] = newGetStatement(def.Name)
	}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	var sqlSchema string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&sqlSchema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	db.versions.channel = channelName(sqlSchema)
	lcfg := cfg.ConnConfig.Copy()
	lcfg.Tracer = nil
	// the listener's round trips are short: a shared read that is not
	// ends (and runs again on its own) rather than hold up every Sync
	lcfg.RuntimeParams["statement_timeout"] = strconv.Itoa(int(sharedTimeout / time.Millisecond))
	db.versions.start(ctx, lcfg)
	return db, nil
}

// Schema returns the types the store indexes.
func (db *DB) Schema() *engine.Schema { return db.schema }

// Close closes the connections.
func (db *DB) Close() error {
	db.versions.stop()
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
