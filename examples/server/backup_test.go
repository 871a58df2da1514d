package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

const testAdminToken = "0123456789abcdef0123456789abcdef-operator"

// runCommand runs `server args...` in-process and returns its stdout.
func runCommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, env(), &out, io.Discard, nil)
	return out.String(), err
}

// fetchBackup GETs the backup download with the bearer token tok.
func fetchBackup(t *testing.T, base, tok string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+httpadapter.BackupPath, nil)
	require.NoError(t, err)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, body
}

// Ensure a running server's backup is downloaded with the operator token
// only, that `server backup` says in one line to use that download while
// the server holds the file, and that `server restore` installs the
// download as a new database that serves the demo.
func TestBackupAndRestore(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, "", env("SCOPEKIT_ADMIN_TOKEN="+testAdminToken))
	require.Contains(t, s.Stdout.String(), "Backup download for operators: "+s.URL+httpadapter.BackupPath+" with the -admin-token")

	status, _ := fetchBackup(t, s.URL, "")
	require.Equal(t, http.StatusUnauthorized, status)
	status, _ = fetchBackup(t, s.URL, token(t, s.URL, demoBotClientID, demoBotSecret)) // the demo's Account Admin bot
	require.Equal(t, http.StatusForbidden, status)
	status, body := fetchBackup(t, s.URL, testAdminToken)
	require.Equal(t, http.StatusOK, status)
	download := filepath.Join(dir, "download.db")
	require.NoError(t, os.WriteFile(download, body, 0o600))

	// the command, on the file the server holds
	out := filepath.Join(dir, "copy.db")
	r := runMain(t, 20*time.Second, nil, "backup", "-data", s.Data, "-o", out)
	require.Equal(t, 1, r.Code)
	require.Less(t, r.Took, 3*time.Second)
	require.Equal(t, []string{"scopekit: backup: " + s.Data + " is in use by a running server: " + inUseHint}, lines(r.Stderr))
	require.NoFileExists(t, out)

	// restore the download
	restored := filepath.Join(dir, "restored.db")
	stdout, err := runCommand(t, "restore", "-from", download, "-data", restored)
	require.NoError(t, err)
	require.Contains(t, stdout, restored+": restored from "+download)
	require.Contains(t, stdout, "to "+restored+".key")
	_, err = runCommand(t, "restore", "-from", download, "-data", restored)
	require.EqualError(t, err, "restore: "+restored+" already exists: restore into a new file and start the server with it (nothing was written)")
	_, err = runCommand(t, "restore", "-from", download, "-data", s.Data)
	require.ErrorContains(t, err, "already exists", "never over the live database")
	cut := filepath.Join(dir, "cut.db")
	require.NoError(t, os.WriteFile(cut, body[:len(body)/2], 0o600))
	_, err = runCommand(t, "restore", "-from", cut, "-data", filepath.Join(dir, "never.db"))
	require.ErrorContains(t, err, "restore: "+cut+": not a ScopeKit database file: cut short")
	require.NoFileExists(t, filepath.Join(dir, "never.db"))
	_, err = runCommand(t, "restore", "-from", s.Data, "-data", filepath.Join(dir, "never.db"))
	require.ErrorContains(t, err, "is in use by a running server, so it is no backup")

	// the restored file serves the demo
	r2 := startServer(t, restored, nil)
	require.Contains(t, r2.Stdout.String(), `Demo account "demo"`)
	code, doc := getDoc(t, r2.URL+"/v2/projects", token(t, r2.URL, demoBotClientID, demoBotSecret))
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, demoProjectName, doc["data"].([]any)[0].(map[string]any)["attributes"].(map[string]any)["project-name"])

	// once the server has stopped, the command copies its file
	s.stop(t)
	stdout, err = runCommand(t, "backup", "-data", s.Data, "-o", out)
	require.NoError(t, err)
	require.Contains(t, stdout, out+": a consistent copy of "+s.Data)
	require.NoError(t, bolttest.OpenFile(t, out, scoping.DefaultSchema()).Close())
}

// Ensure the commands' flags fail in one line, and -h shows them.
func TestBackupCommandFlags(t *testing.T) {
	_, err := runCommand(t, "backup", "-data", filepath.Join(t.TempDir(), "x.db"))
	require.EqualError(t, err, "backup: -o is required: the new file to write, e.g. -o backup.db")
	_, err = runCommand(t, "restore", "-data", filepath.Join(t.TempDir(), "x.db"))
	require.EqualError(t, err, "restore: -from is required: the backup file, e.g. -from backup.db")
	_, err = runCommand(t, "backup", "-o")
	require.EqualError(t, err, "backup: flag needs an argument: -o")
	_, err = runCommand(t, "restore", "-from", "a.db", "extra")
	require.EqualError(t, err, `restore: unexpected argument "extra" (flags only; see -h)`)
	_, err = runCommand(t, "backup", "-data", filepath.Join(t.TempDir(), "missing.db"), "-o", filepath.Join(t.TempDir(), "x.db"))
	require.ErrorContains(t, err, "no such file or directory")
	out, err := runCommand(t, "backup", "-h")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(out, "Usage: server backup -data scopekit.db -o backup.db\n"), out)
	require.Contains(t, out, "-o file")
	require.Regexp(t, `\n  backup +copy the bbolt file`, usage())

	// without -admin-token there is no such route
	s := startServer(t, "", nil)
	status, _ := fetchBackup(t, s.URL, testAdminToken)
	require.Equal(t, http.StatusNotFound, status)
	require.NotContains(t, s.Stdout.String(), "Backup download")
}

// Ensure -admin-token on PostgreSQL mounts nothing and says why: the
// download is the bbolt file's.
func TestBackupNotOnPostgres(t *testing.T) {
	s := startServer(t, "", env("SCOPEKIT_ADMIN_TOKEN="+testAdminToken), "-database", pgtest.URL(t))
	status, _ := fetchBackup(t, s.URL, testAdminToken)
	require.Equal(t, http.StatusNotFound, status)
	require.Contains(t, s.Stderr.String(), "admin token: no backup download on PostgreSQL; back it up with pg_dump")
}
