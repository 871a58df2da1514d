package boltstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/boltcheck"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// newAccount creates an account on db and returns the service over it and
// the account's system actor.
func newAccount(t *testing.T, db *boltstore.DB) (*scoping.Service, *engine.Actor) {
	t.Helper()
	ctx := context.Background()
	svc := scoping.NewService(db)
	var acctID string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme", "USD")
		if err == nil {
			acctID = acct.ID
		}
		return err
	}))
	sys, err := svc.SystemActor(ctx, acctID)
	require.NoError(t, err)
	return svc, sys
}

// createClient creates a client named name and returns its id.
func createClient(ctx context.Context, svc *scoping.Service, sys *engine.Actor, name string) (string, error) {
	raw, _ := json.Marshal(name)
	res, err := svc.Create(ctx, sys, views.TypeClients, &engine.Input{Attrs: map[string]json.RawMessage{views.NameName: raw}}, engine.Options{})
	if err != nil {
		return "", err
	}
	return res.Records[0].ID, nil
}

// checkFile runs bbolt's consistency check on the database file at path.
func checkFile(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, boltcheck.File(path))
}

// slowWriter lets writers run while a backup is under way: before the
// backup's first byte it waits (at most 5 s) until 20 more creates are
// acknowledged, then writes in small sleeps.
type slowWriter struct {
	w       io.Writer
	started bool
	acked   func() int64
}

func (s *slowWriter) Write(p []byte) (int, error) {
	if !s.started {
		s.started = true
		want := s.acked() + 20
		for deadline := time.Now().Add(5 * time.Second); s.acked() < want && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
	}
	time.Sleep(100 * time.Microsecond)
	return s.w.Write(p)
}

// Ensure a backup taken while writers go on is a consistent database file
// holding every record acknowledged before the backup began.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	svc, sys := newAccount(t, db)

	var (
		mu    sync.Mutex
		acked []string // ids of the creates that returned, in order
		count atomic.Int64
		stop  = make(chan struct{})
		wg    sync.WaitGroup
	)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id, err := createClient(ctx, svc, sys, fmt.Sprintf("Client %d-%d", g, i))
				if err != nil {
					t.Errorf("create: %v", err)
					return
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
				count.Add(1)
			}
		}()
	}
	for count.Load() < 50 {
		time.Sleep(time.Millisecond)
	}

	mu.Lock()
	before := append([]string(nil), acked...) // acknowledged before the backup began
	mu.Unlock()
	copyPath := filepath.Join(t.TempDir(), "backup.db")
	f, err := os.Create(copyPath)
	require.NoError(t, err)
	started := count.Load()
	n, err := db.Backup(ctx, &slowWriter{w: f, acked: count.Load})
	during := count.Load() - started
	require.NoError(t, err)
	require.NoError(t, f.Close())
	close(stop)
	wg.Wait()
	t.Logf("backup of %d bytes; %d records before it, %d acknowledged while it ran", n, len(before), during)
	require.GreaterOrEqual(t, during, int64(20), "writers go on during a backup")

	fi, err := os.Stat(copyPath)
	require.NoError(t, err)
	require.Equal(t, n, fi.Size())
	checkFile(t, copyPath)

	cp := bolttest.OpenFile(t, copyPath, scoping.DefaultSchema())
	var inCopy int
	require.NoError(t, cp.View(ctx, func(tx engine.Tx) error {
		for _, id := range before {
			rec, err := tx.Get(views.TypeClients, sys.Account.ID, id)
			if err != nil {
				return fmt.Errorf("client %s, acknowledged before the backup: %w", id, err)
			}
			require.Contains(t, rec.Attrs[views.NameName], "Client ")
		}
		_, total, err := tx.List(&engine.Query{Type: views.TypeClients, AccountID: sys.Account.ID, Limit: 1})
		inCopy = total
		return err
	}))
	require.GreaterOrEqual(t, inCopy, len(before))
	require.LessOrEqual(t, inCopy, int(count.Load()))
}

// Ensure a canceled context stops a backup.
func TestBackupCanceled(t *testing.T) {
	db := bolttest.Open(t, scoping.DefaultSchema())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n, err := db.Backup(ctx, io.Discard)
	require.ErrorIs(t, err, context.Canceled)
	require.Zero(t, n)
}

// backupOf writes a backup of a database holding one client to a file and
// returns its path, the client's id and the account's.
func backupOf(t *testing.T) (path, clientID, accountID string) {
	t.Helper()
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	svc, sys := newAccount(t, db)
	id, err := createClient(ctx, svc, sys, "Globex")
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = db.Backup(ctx, &buf)
	require.NoError(t, err)
	path = filepath.Join(t.TempDir(), "backup.db")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	return path, id, sys.Account.ID
}

// Ensure Restore installs a backup as a new database file.
func TestRestore(t *testing.T) {
	ctx := context.Background()
	backup, id, acct := backupOf(t)
	to := filepath.Join(t.TempDir(), "restored.db")
	n, err := boltstore.Restore(ctx, backup, to)
	require.NoError(t, err)
	fi, err := os.Stat(backup)
	require.NoError(t, err)
	require.Equal(t, fi.Size(), n)
	requireOnlyFile(t, to)
	requireGlobex(t, to, acct, id)
}

// requireGlobex opens the database file at path and fails unless it holds
// the client Globex of backupOf.
func requireGlobex(t *testing.T, path, accountID, id string) {
	t.Helper()
	db := bolttest.OpenFile(t, path, scoping.DefaultSchema())
	defer db.Close()
	require.NoError(t, db.View(context.Background(), func(tx engine.Tx) error {
		rec, err := tx.Get(views.TypeClients, accountID, id)
		if err == nil {
			require.Equal(t, "Globex", rec.Attrs[views.NameName])
		}
		return err
	}))
}

// requireOnlyFile fails unless path's directory holds path alone (no
// temporary file left behind).
func requireOnlyFile(t *testing.T, path string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, []string{filepath.Base(path)}, names)
}

// Ensure Restore refuses a target that exists (the live database above
// all), a source a server holds, and sources that are not whole ScopeKit
// databases, with clear errors and without leaving a file behind.
func TestRestoreRefuses(t *testing.T) {
	ctx := context.Background()
	backup, _, _ := backupOf(t)
	good, err := os.ReadFile(backup)
	require.NoError(t, err)
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o600))
		return p
	}

	t.Run("existing target", func(t *testing.T) {
		to := file("taken.db", []byte("keep me"))
		_, err := boltstore.Restore(ctx, backup, to)
		require.ErrorIs(t, err, boltstore.ErrExists)
		require.EqualError(t, err, to+": the file already exists; give a new path")
		got, _ := os.ReadFile(to)
		require.Equal(t, "keep me", string(got))
	})
	t.Run("the live database", func(t *testing.T) {
		live := bolttest.Open(t, scoping.DefaultSchema())
		_, err := boltstore.Restore(ctx, backup, live.Path())
		require.ErrorIs(t, err, boltstore.ErrExists)
		// and a database being served is no source either
		_, err = boltstore.BackupFile(ctx, live.Path(), filepath.Join(t.TempDir(), "x.db"))
		require.ErrorIs(t, err, boltstore.ErrLocked)
		require.Contains(t, err.Error(), live.Path()+": database file is in use by another process")
	})
	t.Run("missing source", func(t *testing.T) {
		_, err := boltstore.Restore(ctx, filepath.Join(dir, "nope.db"), filepath.Join(t.TempDir(), "x.db"))
		require.ErrorIs(t, err, fs.ErrNotExist)
	})

	bad := []struct {
		name, file string
		message    string
	}{
		{"truncated", file("half.db", good[:len(good)/2]), "cut short (" + strconv.Itoa(len(good)/2) + " bytes of the " + strconv.Itoa(len(good))},
		{"truncated to its first page", file("page.db", good[:4096]), "not a ScopeKit database file (file size too small 4096)"},
		{"truncated inside its first page", file("stub.db", good[:1000]), "not a ScopeKit database file"},
		{"a text file", file("notes.db", []byte("these are not the records you are looking for\n")), "not a ScopeKit database file (invalid database)"},
		{"an empty file", file("empty.db", nil), "not a ScopeKit database file: the file is empty"},
		{"another program's bbolt file", otherBolt(t, dir), "a bbolt file without ScopeKit's records"},
		{"a damaged page", file("damaged.db", damaged(good)), "bbolt's check fails"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			to := filepath.Join(out, "restored.db")
			_, err := boltstore.Restore(ctx, c.file, to)
			require.ErrorIs(t, err, boltstore.ErrNotDatabase)
			require.Contains(t, err.Error(), c.message)
			require.Contains(t, err.Error(), c.file)
			entries, err := os.ReadDir(out)
			require.NoError(t, err)
			require.Empty(t, entries, "nothing is left behind")
		})
	}
}

// otherBolt writes a consistent bbolt file of another program in dir.
func otherBolt(t *testing.T, dir string) string {
	p := filepath.Join(dir, "other.db")
	db, err := bolt.Open(p, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("settings"))
		if err != nil {
			return err
		}
		return b.Put([]byte("theme"), []byte("dark"))
	}))
	require.NoError(t, db.Close())
	return p
}

// damaged returns a copy of a database file whose last page is zeroed: a
// page the tree still points to, now of no known type.
func damaged(file []byte) []byte {
	out := bytes.Clone(file)
	clear(out[len(out)-4096:])
	return out
}

// Ensure BackupFile copies a database no process holds into a new file.
func TestBackupFile(t *testing.T) {
	ctx := context.Background()
	backup, id, acct := backupOf(t) // a database file no one has open
	to := filepath.Join(t.TempDir(), "copy.db")
	_, err := boltstore.BackupFile(ctx, backup, to)
	require.NoError(t, err)
	checkFile(t, to)
	requireGlobex(t, to, acct, id)
	_, err = boltstore.BackupFile(ctx, backup, to)
	require.ErrorIs(t, err, boltstore.ErrExists)
}
