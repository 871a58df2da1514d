package scoping

import (
	"context"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Over a store that is engine.Versioned the Service keeps the actors it
// resolved (the account, user and role records every request starts
// from, types declared Versioned) while the counts of those three types
// have not moved, and the Directory reports the count of users to auth
// (auth.Versioned).

// The types an actor is resolved from.
const (
	typeAccounts = views.TypeAccounts
	typeUsers    = views.TypeUsers
	typeRoles    = views.TypeRoles
)

// actorKey is how an actor was addressed.
type actorKey struct {
	userID string
	acct   string // account id
}

type actorVersions [3]uint64 // accounts, users, roles

// actorEntry is a resolved actor with the versions of the types it was
// resolved from.
type actorEntry struct {
	v actorVersions
	a engine.Actor // without the assigned projects, which are loaded per actor
}

// actorVersionsOf returns the current versions; ok is false when the
// store cannot tell.
func (s *Service) actorVersionsOf(ctx context.Context) (v actorVersions, ok bool) {
	vs, ok := s.eng.Store().(engine.Versioned)
	if !ok || !auth.Synced(ctx, vs) {
		return v, false
	}
	return actorVersions{vs.TypeVersion(typeAccounts), vs.TypeVersion(typeUsers), vs.TypeVersion(typeRoles)}, true
}

// cachedActor resolves the actor addressed by k with resolve, through the
// cache when the store is engine.Versioned. Each call returns an Actor of
// its own; the records in it are shared and must not be modified.
func (s *Service) cachedActor(ctx context.Context, k actorKey, resolve func() (*engine.Actor, error)) (*engine.Actor, error) {
	v, ok := s.actorVersionsOf(ctx) // first: what resolve reads is at least as new
	if !ok {
		return resolve()
	}
	if e, hit := s.actors.Get(k); hit && e.v == v {
		a := e.a
		return &a, nil
	}
	a, err := resolve()
	if err != nil {
		return nil, err
	}
	s.actors.Put(k, actorEntry{v: v, a: engine.Actor{UserID: a.UserID, Account: a.Account, User: a.User, Role: a.Role, AllScopes: a.AllScopes}})
	return a, nil
}
