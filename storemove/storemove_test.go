package storemove_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/storemove"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropSchemas()
	os.Exit(code)
}

func open(t *testing.T, url string) *pgstore.DB {
	t.Helper()
	db, err := pgstore.Open(context.Background(), url, scoping.DefaultSchema())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// Ensure a move copies everything the file holds, ids, times, sequences,
// blobs, auth data and the outbox included, and that moving again once
// complete copies nothing.
func TestMove(t *testing.T) {
	url := freshSchema(t)
	path := fixture(t)
	ctx := context.Background()
	var sets []string
	rep, err := storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{Progress: func(p storemove.Progress) {
		if p.Done {
			sets = append(sets, p.Set)
		}
	}})
	require.NoError(t, err)
	require.False(t, rep.Resumed)
	require.False(t, rep.Already)
	require.Len(t, rep.SHA256, 64)
	require.Contains(t, sets, "records accounts (global)")
	require.Contains(t, sets, "blobs k/text (account 2)")
	require.Contains(t, sets, "auth tokens")
	require.Contains(t, rep.Summary(), "auth tokens: 3")
	require.Contains(t, rep.Summary(), "blobs project-documents/pdf: 2")
	requireSameData(t, path, open(t, url))

	again, err := storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{})
	require.NoError(t, err)
	require.True(t, again.Already)
	require.Zero(t, again.Rows)
	require.Equal(t, rep.Finished, again.Finished)
}

// Ensure a move interrupted after some batches (its context canceled, as
// a kill would end it) finishes when run again, copying each row once.
func TestMoveResumes(t *testing.T) {
	url := pgtest.URL(t)
	path := fixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, err := storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{Batch: 200, BatchBytes: 1 << 10, Progress: func(p storemove.Progress) {
		if p.Rows >= 1000 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	require.GreaterOrEqual(t, first.Rows, 1000)

	var resumed []storemove.Progress
	second, err := storemove.Move(context.Background(), path, url, scoping.DefaultSchema(), storemove.Options{Batch: 200, BatchBytes: 1 << 10, Progress: func(p storemove.Progress) {
		resumed = append(resumed, p)
	}})
	require.NoError(t, err)
	require.True(t, second.Resumed)
	var total int64
	for _, l := range second.Summary() {
		n, err := strconv.ParseInt(l[strings.LastIndex(l, " ")+1:], 10, 64)
		require.NoError(t, err)
		total += n
	}
	require.EqualValues(t, total, first.Rows+second.Rows, "every row copied once over both runs")
	require.Greater(t, resumed[0].Copied, resumed[0].Rows, "the set interrupted continues where it stopped")
	requireSameData(t, path, open(t, url))
}

// Ensure a move refuses a target holding anything but an unfinished copy
// of the same file, and a file a server holds.
func TestMoveRefuses(t *testing.T) {
	ctx := context.Background()
	path := fixture(t)

	t.Run("data of a server", func(t *testing.T) {
		url := pgtest.URL(t)
		db := open(t, url)
		require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
			r := engine.NewRecord(views.TypeAccounts, "")
			r.Attrs[views.NameSlug] = "mine"
			return tx.Insert(r)
		}))
		_, err := storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{})
		require.ErrorIs(t, err, storemove.ErrRefused)
		require.ErrorContains(t, err, "holds ScopeKit data already (rows: 1)")
	})

	t.Run("a copy of another file", func(t *testing.T) {
		url := pgtest.URL(t)
		other := fixture(t)
		_, err := storemove.Move(ctx, other, url, scoping.DefaultSchema(), storemove.Options{})
		require.NoError(t, err)
		_, err = storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{})
		require.ErrorIs(t, err, storemove.ErrRefused)
		require.ErrorContains(t, err, "holds a copy of another file ("+other+", sha256 ")
	})

	t.Run("tables of something else", func(t *testing.T) {
		url := freshSchema(t)
		conn, err := pgx.Connect(ctx, url)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE invoices (id int)")
		require.NoError(t, err)
		_, err = storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{})
		require.ErrorIs(t, err, storemove.ErrRefused)
		require.ErrorContains(t, err, "the schema holds tables of something else ([invoices])")
	})

	t.Run("a file in use", func(t *testing.T) {
		url := pgtest.URL(t)
		bolttest.OpenFile(t, path, scoping.DefaultSchema())
		_, err := storemove.Move(ctx, path, url, scoping.DefaultSchema(), storemove.Options{})
		require.ErrorIs(t, err, boltstore.ErrLocked)
	})

	t.Run("no file", func(t *testing.T) {
		_, err := storemove.Move(ctx, path+".missing", pgtest.URL(t), scoping.DefaultSchema(), storemove.Options{})
		require.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
		_, err = os.Stat(path + ".missing")
		require.ErrorIs(t, err, os.ErrNotExist, "nothing is created")
	})
}

// freshSchema returns a URL whose sessions use a new schema, which
// pgstore has never seen (pgtest hands schemas on from test to test).
func freshSchema(t *testing.T) string {
	base := pgtest.URL(t) // skips without a server
	if !strings.Contains(base, "://") {
		t.Skip(pgtest.EnvVar + " is not a URL")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	require.NoError(t, err)
	defer conn.Close(ctx)
	schema := "storemove_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+schema)
	require.NoError(t, err)
	t.Cleanup(func() {
		if c, err := pgx.Connect(ctx, base); err == nil {
			c.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE") //nolint:errcheck
			c.Close(ctx)
		}
	})
	return regexp.MustCompile(`search_path=[^&]*`).ReplaceAllString(base, "search_path="+schema)
}

func parseUint(t *testing.T, s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	require.NoError(t, err)
	return n
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
