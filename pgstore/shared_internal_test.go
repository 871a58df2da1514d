package pgstore

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Ensure a statement of a round that fails leaves the reads after it
// undone (they run on their own again), and the reads before it with
// their rows.
func TestSendReadsMarksWhatCompleted(t *testing.T) {
	url := os.Getenv("SCOPEKIT_TEST_DATABASE") // pgtest.EnvVar (pgtest imports this package)
	if url == "" {
		t.Skip("SCOPEKIT_TEST_DATABASE is not set: no PostgreSQL server to test against")
	}
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	reads := []*sharedRead{
		{sql: "SELECT g, 'x' || g FROM generate_series(1, $1::int) g", args: []any{3}},
		{sql: "SELECT 1 / $1::int", args: []any{0}},
		{sql: "SELECT 2"},
	}
	require.Error(t, sendReads(conn, reads))
	require.True(t, reads[0].done)
	require.False(t, reads[1].done)
	require.False(t, reads[2].done)

	rows := &copiedRows{sharedRead: reads[0], tm: conn.TypeMap()}
	var got []string
	for rows.Next() {
		var n int64
		var s string
		require.NoError(t, rows.Scan(&n, &s))
		vals, err := rows.Values()
		require.NoError(t, err)
		require.Equal(t, []any{int32(n), s}, vals)
		got = append(got, s)
	}
	require.Equal(t, []string{"x1", "x2", "x3"}, got)
	require.Equal(t, "SELECT 3", rows.CommandTag().String())

	// the connection is usable for the next round
	next := []*sharedRead{{sql: "SELECT 2"}}
	require.NoError(t, sendReads(conn, next))
	require.True(t, next[0].done)
	require.Len(t, next[0].rows, 1)
}
