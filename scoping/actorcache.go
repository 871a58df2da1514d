package scoping

import (
	"sync"
)

// Versioned is implemented by a Store that can tell cheaply whether the
// records of a type may have changed: TypeVersion returns a count that
// moves after every committed transaction that wrote a record of typ, by
// any writer. A store that other processes write as well (PostgreSQL)
// does not implement it. Over a Versioned store the Service keeps the
// actors it resolved (the account, user and role records every request
// starts from) while the counts of those three types have not moved, and
// the Directory reports the count of users to auth (auth.Versioned).
type Versioned interface {
	TypeVersion(typ string) uint64
}

// The types an actor is resolved from.
const (
	typeAccounts = "accounts"
	typeUsers    = "users"
	typeRoles    = "roles"
)

// actorCache holds resolved actors by how they were addressed, with the
// versions of the types they were resolved from.
type actorCache struct {
	mu sync.Mutex
	m  map[actorKey]actorEntry
}

type actorKey struct {
	userID string
	acct   string // account id, or slug when bySlug
	bySlug bool
}

type actorVersions [3]uint64 // accounts, users, roles

type actorEntry struct {
	v actorVersions
	a Actor // without the assigned projects, which are loaded per actor
}

// actorCacheMax bounds the cache; a full one starts over.
const actorCacheMax = 4096

// actorVersionsOf returns the current versions; ok is false when the
// store cannot tell.
func (s *Service) actorVersionsOf() (v actorVersions, ok bool) {
	vs, ok := s.store.(Versioned)
	if !ok {
		return v, false
	}
	return actorVersions{vs.TypeVersion(typeAccounts), vs.TypeVersion(typeUsers), vs.TypeVersion(typeRoles)}, true
}

// cachedActor resolves the actor addressed by k with resolve, through the
// cache when the store is Versioned. Each call returns an Actor of its
// own; the records in it are shared and must not be modified.
func (s *Service) cachedActor(k actorKey, resolve func() (*Actor, error)) (*Actor, error) {
	v, ok := s.actorVersionsOf() // first: what resolve reads is at least as new
	if !ok {
		return resolve()
	}
	s.actors.mu.Lock()
	e, hit := s.actors.m[k]
	s.actors.mu.Unlock()
	if hit && e.v == v {
		a := e.a
		return &a, nil
	}
	a, err := resolve()
	if err != nil {
		return nil, err
	}
	s.actors.mu.Lock()
	if s.actors.m == nil || len(s.actors.m) >= actorCacheMax {
		s.actors.m = map[actorKey]actorEntry{}
	}
	s.actors.m[k] = actorEntry{v: v, a: Actor{UserID: a.UserID, Account: a.Account, User: a.User, Role: a.Role, AllProjects: a.AllProjects}}
	s.actors.mu.Unlock()
	return a, nil
}
