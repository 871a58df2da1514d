package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
)

// migrate runs `server migrate args...` in-process and returns its
// stdout, stderr and error.
func migrate(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), append([]string{"migrate"}, args...), env(), &out, &errOut, nil)
	return out.String(), errOut.String(), err
}

// Ensure the demo moved from its bbolt file to PostgreSQL answers every
// request of the golden test byte for byte as the server on the file
// does (reads, errors and the README tour's writes, whose new ids continue
// the file's sequences), and that the file, changed since by the server
// on it, is not copied over the copy.
func TestMigrateServesTheSameAnswers(t *testing.T) {
	dbURL := pgtest.URL(t)
	if !strings.HasPrefix(dbURL, "postgres://") && !strings.HasPrefix(dbURL, "postgresql://") {
		t.Skip(pgtest.EnvVar + " is not a postgres:// URL (migrate -to takes only URLs)")
	}
	data := filepath.Join(t.TempDir(), "scopekit.db")
	startServer(t, data, nil).stop(t) // the first start creates the demo

	out, progress, err := migrate(t, "-data", data, "-to", dbURL)
	require.NoError(t, err)
	require.Contains(t, out, "The counts match:\n  records accounts: 1\n")
	require.Contains(t, out, "auth service credentials: 1\n")
	require.Contains(t, out, "Webhook secrets stay sealed with "+data+".key")
	require.Contains(t, progress, "migrate: records projects (account 1): 1\n")

	// The reads are compared byte for byte. The writes are not: an id
	// PostgreSQL hands out is not given back when a transaction is
	// retried after a serialization failure, so ids may skip (docs/scale-
	// out.md); a write must only succeed, its id after the copied ones
	// (a sequence left behind would clash with a copied id).
	const newClient = `{"data":{"type":"clients","attributes":{"name":"Initech"}}}`
	onFile := startServer(t, data, nil)
	fileAnswers := recordDemoReads(t, onFile.URL)
	want := bytes.Clone(fileAnswers.out.Bytes())
	idOf(t, fileAnswers.write(http.MethodPost, "/v2/clients", newClient)) // the file changes
	onFile.stop(t)
	onDatabase := startServer(t, data, nil, "-database", dbURL)
	dbAnswers := recordDemoReads(t, onDatabase.URL)
	if diff := difference(want, dbAnswers.out.Bytes()); diff != "" {
		t.Fatalf("the server on PostgreSQL answers otherwise than on the file: %s", diff)
	}
	idOf(t, dbAnswers.write(http.MethodPost, "/v2/clients", newClient))
	onDatabase.stop(t)

	_, _, err = migrate(t, "-data", data, "-to", dbURL)
	require.ErrorContains(t, err, "target refused: the database holds a copy of another file ("+data+", sha256 ")
	require.ErrorContains(t, err, "it changed since (was a server started on it?)")
}

// Ensure the command's mistakes end in one clear line: a file a server
// holds, a missing file, a missing or bad -to, a stray argument.
func TestMigrateErrors(t *testing.T) {
	data := filepath.Join(t.TempDir(), "scopekit.db")
	s := startServer(t, data, nil)
	const to = "postgres://scopekit@127.0.0.1:1/scopekit"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-data", data, "-to", to}, "migrate: " + data + " is in use by another process: stop the server before migrating"},
		{[]string{"-data", data + ".missing", "-to", to}, "migrate: stat " + data + ".missing: no such file or directory"},
		{[]string{"-data", data}, "migrate: -to is required: the PostgreSQL URL to copy into (or SCOPEKIT_DATABASE)"},
		{[]string{"-data", data, "-to", "mysql://u:secret@host/db"}, `migrate: invalid value "mysql://u:xxxxx@host/db" for -to: must be a postgres:// URL`},
		{[]string{"-data", data, "-to", to, "now"}, `migrate: unexpected argument "now"`},
		{[]string{"-batch", "0", "-to", to}, "migrate: invalid value 0 for -batch"},
		{[]string{"-nope"}, "migrate: flag provided but not defined: -nope"},
	} {
		_, _, err := migrate(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
		require.NotContains(t, err.Error(), "\n")
	}
	s.stop(t)

	out, _, err := migrate(t, "-h")
	require.NoError(t, err)
	require.Contains(t, out, "Usage: server migrate -data FILE -to URL")
	require.Contains(t, out, "-batch count")
}
