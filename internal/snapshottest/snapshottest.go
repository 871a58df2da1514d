// Package snapshottest gives the tests of the packages that read project
// snapshots (mergedata, documents) a scoping service over a real bbolt
// file in a temp dir, with one account (acme, USD) and its system actor,
// and the demo and large projects of docs/pricing.md.
package snapshottest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Now is the fixed clock of the service: records' timestamps and
// printed_on.
var Now = time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)

// Env is a scoping service over a real bbolt file with one account.
type Env struct {
	TB    testing.TB
	DB    *boltstore.DB
	Svc   *scoping.Service
	Acct  string
	Actor *engine.Actor
}

// New opens a fresh Env; the file is closed when the test ends.
func New(tb testing.TB) *Env {
	tb.Helper()
	db := bolttest.Open(tb, scoping.DefaultSchema())
	e := &Env{TB: tb, DB: db, Svc: scoping.NewService(db)}
	e.Svc.Now = func() time.Time { return Now }
	ctx := context.Background()
	require.NoError(tb, e.Svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme Consulting", "USD")
		if err != nil {
			return err
		}
		e.Acct = acct.ID
		return nil
	}))
	actor, err := e.Svc.SystemActor(ctx, e.Acct)
	require.NoError(tb, err)
	e.Actor = actor
	return e
}

// Member creates an Account Admin user of the account and returns its id.
func (e *Env) Member(email, name string) string {
	e.TB.Helper()
	var id string
	require.NoError(e.TB, e.Svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(e.Acct, scoping.Member{Email: email, Name: name, Role: "Account Admin"})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	return id
}

// SeedDemo creates the worked example project (internal/demodata) with an
// admin, Ada, as its teammate.
func (e *Env) SeedDemo() *demodata.Seeded {
	e.TB.Helper()
	s, err := demodata.Seed(context.Background(), e.Svc, e.Actor, e.Member("ada@acme.test", "Ada Admin"))
	require.NoError(e.TB, err)
	return s
}

// SeedLarge creates the large project of docs/pricing.md (25 locations,
// 1,000 services, 3,000 subservices) for a new client and returns its id.
func (e *Env) SeedLarge() string {
	e.TB.Helper()
	var users []string
	for i := range 3 {
		users = append(users, e.Member(fmt.Sprintf("user%d@acme.test", i), fmt.Sprintf("User %d", i)))
	}
	var pid string
	require.NoError(e.TB, e.DB.Update(context.Background(), func(tx engine.Tx) error {
		client := engine.NewRecord(views.TypeClients, e.Acct)
		client.Attrs[views.NameName] = "Initech"
		if err := tx.Insert(client); err != nil {
			return err
		}
		var err error
		pid, err = demodata.SeedLarge(tx, e.Acct, client.ID, users)
		return err
	}))
	return pid
}

// Snapshot reads a project's snapshot as the system actor.
func (e *Env) Snapshot(projectID string) *views.Snapshot {
	e.TB.Helper()
	snap, err := e.Svc.Snapshot(context.Background(), e.Actor, projectID)
	require.NoError(e.TB, err)
	return snap
}

// Create creates a record through the engine and returns its id; attrs are
// marshaled to JSON as a client would send them, rels are name, type, id
// triples.
func (e *Env) Create(typ string, attrs map[string]any, rels ...string) string {
	e.TB.Helper()
	in := &engine.Input{Attrs: e.attrs(attrs), Rels: map[string]engine.RelInput{}}
	for i := 0; i+2 < len(rels); i += 3 {
		in.Rels[rels[i]] = engine.RelInput{Refs: []engine.Ref{{Type: rels[i+1], ID: rels[i+2]}}}
	}
	res, err := e.Svc.Create(context.Background(), e.Actor, typ, in, engine.Options{})
	require.NoError(e.TB, err)
	return res.Records[0].ID
}

// Update updates attributes of a record through the engine.
func (e *Env) Update(typ, id string, attrs map[string]any) {
	e.TB.Helper()
	in := &engine.Input{Attrs: e.attrs(attrs), Rels: map[string]engine.RelInput{}}
	_, err := e.Svc.Update(context.Background(), e.Actor, typ, id, in, engine.Options{})
	require.NoError(e.TB, err)
}

func (e *Env) attrs(attrs map[string]any) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(attrs))
	for k, v := range attrs {
		b, err := json.Marshal(v)
		require.NoError(e.TB, err)
		out[k] = b
	}
	return out
}
