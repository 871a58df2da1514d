package httpadapter_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const operatorToken = "operator-token-0123456789abcdef0123456789abcdef"

// backupServer serves the env's API with the backup download of b mounted
// (as the example server mounts it with -admin-token).
func backupServer(t *testing.T, e *testEnv, b httpadapter.Backuper, timeout time.Duration) string {
	t.Helper()
	s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Timeout: timeout,
		Mounts: map[string]http.Handler{httpadapter.BackupPath: httpadapter.BackupHandler(b, operatorToken)}}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// Ensure the backup download is absent unless mounted, refuses every
// token but the operator's, and streams a database file holding every
// account.
func TestBackupDownload(t *testing.T) {
	e := mustEnv(t)
	db, ok := e.db.(*boltstore.DB)
	if !ok {
		t.Skip("the backup download is bbolt's")
	}
	require.Equal(t, http.StatusNotFound, e.get(httpadapter.BackupPath, operatorToken).Status, "absent unless mounted")
	client := e.create("/v2/clients", e.admin(), "clients", `{"name":"Globex"}`)
	base := backupServer(t, e, db, 0)

	r := e.send(e.newRequest(base, http.MethodGet, httpadapter.BackupPath, "", ""))
	require.Equal(t, http.StatusUnauthorized, r.Status)
	assert.Equal(t, `Bearer realm="scopekit-admin"`, r.Header.Get("WWW-Authenticate"))
	for _, tok := range []string{operatorToken + "x", "operator", e.admin()} { // an account admin's token too
		r = e.send(e.newRequest(base, http.MethodGet, httpadapter.BackupPath, tok, ""))
		require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
		assert.Contains(t, r.firstError()["detail"], "operator token")
	}
	r = e.send(e.newRequest(base, http.MethodPost, httpadapter.BackupPath, operatorToken, ""))
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	assert.Equal(t, "GET, HEAD, OPTIONS", r.Header.Get("Allow"))
	r = e.send(e.newRequest(base, http.MethodHead, httpadapter.BackupPath, operatorToken, ""))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Empty(t, r.Body)

	r = e.send(e.newRequest(base, http.MethodGet, httpadapter.BackupPath, operatorToken, ""))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "application/octet-stream", r.Header.Get("Content-Type"))
	assert.Regexp(t, `^attachment; filename="scopekit-backup-\d{8}T\d{6}Z\.db"; filename\*=UTF-8''scopekit-backup-\d{8}T\d{6}Z\.db$`,
		r.Header.Get("Content-Disposition"))
	assert.Equal(t, "no-store", r.Header.Get("Cache-Control"))
	assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"))

	path := filepath.Join(t.TempDir(), "downloaded.db")
	require.NoError(t, os.WriteFile(path, r.Body, 0o600))
	restored := filepath.Join(t.TempDir(), "restored.db")
	_, err := boltstore.Restore(context.Background(), path, restored) // opens and checks it
	require.NoError(t, err)
	cp := bolttest.OpenFile(t, restored, scoping.DefaultSchema())
	require.NoError(t, cp.View(context.Background(), func(tx engine.Tx) error {
		for _, id := range e.accts {
			if _, err := tx.Get(views.TypeAccounts, "", id); err != nil {
				return err
			}
		}
		rec, err := tx.Get(views.TypeClients, e.accts["acme"], client)
		if err == nil {
			assert.Equal(t, "Globex", rec.Attrs[views.NameName])
		}
		return err
	}))

	ref := e.send(e.newRequest(base, http.MethodGet, "/docs/v1/openapi.json", "", "", "Accept", "application/json"))
	assert.Contains(t, string(ref.Body), `"`+httpadapter.BackupPath+`"`, "the reference lists it where mounted")
}

// fakeBackup writes size bytes in chunks, pausing between them, then
// answers err.
type fakeBackup struct {
	size  int
	pause time.Duration
	err   error
}

func (f fakeBackup) Backup(ctx context.Context, w io.Writer) (int64, error) {
	chunk := make([]byte, 32<<10)
	var n int64
	for int(n) < f.size {
		time.Sleep(f.pause)
		m, err := w.Write(chunk[:min(len(chunk), f.size-int(n))])
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, f.err
}

// download GETs the backup and reads the whole body.
func download(t *testing.T, base string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+httpadapter.BackupPath, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+operatorToken)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// Ensure a backup streams past the request timeout, that a copy failing
// midway reaches the client as a cut transfer (not a short file that
// looks whole), and that one failing before its first byte is a 500.
func TestBackupDownloadStreams(t *testing.T) {
	e := mustEnv(t)

	base := backupServer(t, e, fakeBackup{size: 1 << 20, pause: 10 * time.Millisecond}, 100*time.Millisecond)
	res, body, err := download(t, base)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Len(t, body, 1<<20, "32 writes of 10 ms each outlast the 100 ms timeout")

	base = backupServer(t, e, fakeBackup{size: 300 << 10, err: errors.New("disk on fire")}, 0)
	res, body, err = download(t, base)
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.ErrorIs(t, err, io.ErrUnexpectedEOF, "the client sees the cut")
	require.Less(t, len(body), 300<<10+1)

	base = backupServer(t, e, fakeBackup{err: errors.New("database not open")}, 0)
	res, body, err = download(t, base)
	require.NoError(t, err)
	require.Equal(t, http.StatusInternalServerError, res.StatusCode)
	assert.Empty(t, res.Header.Get("Content-Disposition"))
	assert.Contains(t, string(body), `"errors":[`)
}
