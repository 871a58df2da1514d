// Package pgtest gives tests their own empty pgstore database: a fresh
// schema on the PostgreSQL server that SCOPEKIT_TEST_DATABASE names,
// dropped when the test ends. Without that variable the tests skip.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/pgstore"
)

// EnvVar names the server tests use, as a postgres:// URL or a key=value
// connection string.
const EnvVar = "SCOPEKIT_TEST_DATABASE"

// Available reports whether tests can reach a PostgreSQL server.
func Available() bool { return os.Getenv(EnvVar) != "" }

// URL creates an empty schema for tb and returns a connection string whose
// sessions use it. It skips tb when SCOPEKIT_TEST_DATABASE is unset.
func URL(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		tb.Skip(EnvVar + " is not set: no PostgreSQL server to test pgstore against (see .ci/run for a throwaway one)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		tb.Fatalf("%s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	raw := make([]byte, 6)
	rand.Read(raw)
	schema := "t_" + hex.EncodeToString(raw)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatalf("create schema: %v", err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Errorf("drop schema %s: %v", schema, err)
		}
	})
	switch {
	case !strings.Contains(base, "://"):
		return base + " search_path=" + schema
	case strings.Contains(base, "?"):
		return base + "&search_path=" + schema
	default:
		return base + "?search_path=" + schema
	}
}

// Open returns a store on a fresh schema; it is closed when tb ends
// (before the schema is dropped).
func Open(tb testing.TB) *pgstore.DB {
	tb.Helper()
	url := URL(tb)
	db, err := pgstore.Open(context.Background(), url)
	if err != nil {
		tb.Fatalf("pgstore.Open: %v", err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
