package scoping_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// viewCounter is a bbolt store that counts read transactions; embedding
// keeps its TypeVersion (engine.Versioned) unless hidden.
type viewCounter struct {
	*boltstore.DB
	views atomic.Int64
}

func (v *viewCounter) View(ctx context.Context, fn func(engine.Tx) error) error {
	v.views.Add(1)
	return v.DB.View(ctx, fn)
}

// unversioned hides TypeVersion.
type unversioned struct{ engine.Store }

// seedAuditor creates the account acme, the role Auditor (projects: view)
// and its active member Ann, and returns them with a system actor.
func seedAuditor(t *testing.T, svc *scoping.Service) (acct, role, user *engine.Record, sys *engine.Actor) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		if acct, err = a.EnsureAccount("acme", "Acme", "USD"); err != nil {
			return err
		}
		if role, err = a.EnsureRole(acct.ID, "Auditor", map[string]string{"projects": "view"}, "all"); err != nil {
			return err
		}
		user, err = a.EnsureMember(acct.ID, scoping.Member{Email: "ann@acme.test", Name: "Ann", Role: "Auditor"})
		return err
	}))
	sys, err := svc.SystemActor(ctx, acct.ID)
	require.NoError(t, err)
	return acct, role, user, sys
}

// Ensure a resolved actor is kept while the accounts, users and roles are
// unchanged (no read at all), and that a change to any of them is seen at
// the next resolution: a role's new permissions, a deactivated user, a
// renamed account slug. Each resolution returns an actor of its own. A
// store that cannot tell its versions is read every time.
func TestActorCache(t *testing.T) {
	ctx := context.Background()
	for _, versioned := range []bool{true, false} {
		db := bolttest.Open(t, scoping.DefaultSchema())
		vc := &viewCounter{DB: db}
		var store engine.Store = vc
		if !versioned {
			store = unversioned{vc}
		}
		svc := scoping.NewService(store)
		acct, role, user, sys := seedAuditor(t, svc)

		a1, err := svc.ActorForAccount(ctx, user.ID, acct.ID)
		require.NoError(t, err)
		require.Equal(t, engine.AccessView, a1.Level("projects"))
		n := vc.views.Load()
		a2, err := svc.ActorForAccount(ctx, user.ID, acct.ID)
		require.NoError(t, err)
		b, err := svc.ActorFor(ctx, user.ID, acct.ID, "acme")
		require.NoError(t, err)
		b2, err := svc.ActorFor(ctx, user.ID, acct.ID, "acme")
		require.NoError(t, err)
		require.NotSame(t, a1, a2, "an actor of its own")
		require.NotSame(t, b, b2)
		require.Equal(t, a1.User.ID, b2.User.ID)
		if versioned {
			require.Equal(t, n, vc.views.Load(), "repeats resolved from memory, by slug too")
		} else {
			require.Equal(t, n+3, vc.views.Load(), "read every time")
		}

		// a client write leaves the actor; a role's permissions change it
		_, err = svc.Create(ctx, sys, "clients", &engine.Input{Attrs: attrs("name", `"Globex"`)}, engine.Options{})
		require.NoError(t, err)
		_, err = svc.Update(ctx, sys, "roles", role.ID, &engine.Input{Attrs: attrs("permissions", `{"projects":"manage"}`)}, engine.Options{})
		require.NoError(t, err)
		for _, resolve := range []func() (*engine.Actor, error){
			func() (*engine.Actor, error) { return svc.ActorForAccount(ctx, user.ID, acct.ID) },
			func() (*engine.Actor, error) { return svc.ActorFor(ctx, user.ID, acct.ID, "acme") },
		} {
			a, err := resolve()
			require.NoError(t, err)
			require.Equal(t, engine.AccessManage, a.Level("projects"), "new permissions")
		}

		// a renamed slug: the old one is gone at once
		require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
			r, err := tx.Get("accounts", "", acct.ID)
			if err != nil {
				return err
			}
			r.Attrs["slug"] = "acme-2"
			return tx.Replace(r)
		}))
		_, err = svc.ActorFor(ctx, user.ID, acct.ID, "acme")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%v", err)
		_, err = svc.ActorFor(ctx, user.ID, acct.ID, "acme-2")
		require.NoError(t, err)

		// a deactivated user: refused at the next resolution
		require.NoError(t, svc.Delete(ctx, sys, "users", user.ID, engine.Options{}))
		_, err = svc.ActorForAccount(ctx, user.ID, acct.ID)
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err), "%v", err)
	}
}

// Ensure that once a write has returned, every resolution sees it, even
// with resolutions running all the while (they fill the cache between a
// commit and the count moving): a role's permission flips back and forth,
// and after each flip the actor resolved next has the new level.
func TestActorCache_ConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	acct, role, user, sys := seedAuditor(t, svc)

	stop := make(chan struct{})
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = svc.ActorForAccount(ctx, user.ID, acct.ID)
			}
		}()
	}
	for i := range 60 {
		level := []string{engine.AccessManage, engine.AccessView}[i%2]
		_, err := svc.Update(ctx, sys, "roles", role.ID, &engine.Input{Attrs: attrs("permissions", `{"projects":"`+level+`"}`)}, engine.Options{})
		require.NoError(t, err)
		a, err := svc.ActorForAccount(ctx, user.ID, acct.ID)
		require.NoError(t, err)
		require.Equal(t, level, a.Level("projects"), "after write %d", i)
	}
	close(stop)
	for range 4 {
		<-done
	}
}
