package documents_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// now is the fixed clock of the tests: records' timestamps and printed_on.
var now = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// env is a scoping service over a real bbolt file in a temp dir, with one
// account (acme, USD) and its system actor.
type env struct {
	tb    testing.TB
	db    *boltstore.DB
	svc   *scoping.Service
	acct  string
	actor *scoping.Actor
}

func mustEnv(tb testing.TB) *env {
	tb.Helper()
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "scopekit.db"))
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	e := &env{tb: tb, db: db, svc: scoping.NewService(db)}
	e.svc.Now = func() time.Time { return now }
	ctx := context.Background()
	require.NoError(tb, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme Consulting", "USD")
		if err != nil {
			return err
		}
		e.acct = acct.ID
		return nil
	}))
	e.actor, err = e.svc.SystemActor(ctx, e.acct)
	require.NoError(tb, err)
	return e
}

// member creates a user of the account and returns its id.
func (e *env) member(email, name string) string {
	e.tb.Helper()
	var id string
	require.NoError(e.tb, e.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(e.acct, scoping.Member{Email: email, Name: name, Role: "Account Admin"})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	return id
}

// demo is the snapshot of the worked example project of pricing.md.
func (e *env) demo() *scoping.Snapshot {
	e.tb.Helper()
	s, err := demodata.Seed(context.Background(), e.svc, e.actor, e.member("ada@acme.test", "Ada Admin"))
	require.NoError(e.tb, err)
	return e.snapshot(s.ProjectID)
}

// large is the snapshot of pricing.md's large project: 25 locations, 1,000
// services, 3,000 subservices.
func (e *env) large() *scoping.Snapshot {
	e.tb.Helper()
	var users []string
	for i := range 3 {
		users = append(users, e.member(fmt.Sprintf("user%d@acme.test", i), fmt.Sprintf("User %d", i)))
	}
	var pid string
	require.NoError(e.tb, e.db.Update(context.Background(), func(tx scoping.Tx) error {
		client := scoping.NewRecord("clients", e.acct)
		client.Attrs["name"] = "Initech"
		if err := tx.Insert(client); err != nil {
			return err
		}
		var err error
		pid, err = demodata.SeedLarge(tx, e.acct, client.ID, users)
		return err
	}))
	return e.snapshot(pid)
}

func (e *env) snapshot(projectID string) *scoping.Snapshot {
	e.tb.Helper()
	snap, err := e.svc.Snapshot(context.Background(), e.actor, projectID, "documents")
	require.NoError(e.tb, err)
	return snap
}
