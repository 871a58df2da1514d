// Package pgtest gives tests their own empty pgstore database: a schema
// on the PostgreSQL server that SCOPEKIT_TEST_DATABASE names. Without that
// variable the tests skip.
//
// Migrating a schema (tables, functions, a hundred indexes) costs far more
// than emptying one, so a schema is emptied when its test ends and handed
// to the next test of the process; DropSchemas, called from TestMain,
// removes them when the package's tests are done.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
)

// EnvVar names the server tests use, as a postgres:// URL or a key=value
// connection string.
const EnvVar = "SCOPEKIT_TEST_DATABASE"

var (
	mu      sync.Mutex
	free    []string // emptied schemas, ready for another test
	created []string // every schema of this process
)

// URL returns a connection string whose sessions use an empty schema of
// their own until tb ends. It skips tb when SCOPEKIT_TEST_DATABASE is
// unset.
func URL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		tb.Skip(EnvVar + " is not set: no PostgreSQL server to test pgstore against (see .ci/run for a throwaway one)")
	}
	ctx := context.Background()
	mu.Lock()
	var schema string
	if n := len(free); n > 0 {
		schema, free = free[n-1], free[:n-1]
	}
	mu.Unlock()
	if schema == "" {
		raw := make([]byte, 6)
		rand.Read(raw)
		schema = "scopekit_test_" + hex.EncodeToString(raw)
		if err := exec(ctx, base, "CREATE SCHEMA "+schema); err != nil {
			tb.Fatalf("%s: create schema: %v", EnvVar, err)
		}
		mu.Lock()
		created = append(created, schema)
		mu.Unlock()
	}
	url := withSchema(base, schema)
	tb.Cleanup(func() {
		// empty every table but the migrations' and restart the sequences
		// A connection the test left behind (a listener closing, a
		// server's last statement) may still hold a row lock: a
		// deadlock it makes is retried rather than failing the test.
		if err := execRetryingDeadlock(ctx, url, `DO $$ DECLARE r record; BEGIN
			FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'scopekit_migrations' LOOP
				EXECUTE format('DELETE FROM %I', r.tablename); -- cheaper than TRUNCATE for a test's few rows
			END LOOP;
			FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema() LOOP
				EXECUTE format('ALTER SEQUENCE %I RESTART', r.sequencename);
			END LOOP; END $$`); err != nil {
			tb.Errorf("empty schema %s: %v", schema, err)
			return
		}
		mu.Lock()
		free = append(free, schema)
		mu.Unlock()
	})
	return url
}

// DropSchemas drops the schemas this process created; call it from
// TestMain after m.Run.
func DropSchemas() {
	base := os.Getenv(EnvVar)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range created {
		_ = exec(context.Background(), base, "DROP SCHEMA "+s+" CASCADE")
	}
	created, free = nil, nil
}

// execRetryingDeadlock runs sql, again after a deadlock (SQLSTATE 40P01), up
// to five times.
func execRetryingDeadlock(ctx context.Context, url, sql string) error {
	var err error
	for range 5 {
		var pgErr *pgconn.PgError
		if err = exec(ctx, url, sql); !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

func exec(ctx context.Context, url, sql string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func withSchema(base, schema string) string {
	switch {
	case !strings.Contains(base, "://"):
		return base + " search_path=" + schema
	case strings.Contains(base, "?"):
		return base + "&search_path=" + schema
	default:
		return base + "?search_path=" + schema
	}
}

// Open returns a store for the types of schema (scoping.DefaultSchema()
// for ScopeKit's) on an empty PostgreSQL schema; it is closed when tb ends
// (before the PostgreSQL schema is emptied).
func Open(tb testing.TB, schema *engine.Schema) *pgstore.DB {
	tb.Helper()
	url := URL(tb)
	db, err := pgstore.Open(context.Background(), url, schema)
	if err != nil {
		tb.Fatalf("pgstore.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
