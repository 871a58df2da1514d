package auth

import (
	"context"
	"sync/atomic"
)

// Versioned is implemented by a Store or a Directory that can tell cheaply
// whether what it serves may have changed: Version returns a count that
// moves after every committed write to its data, by any writer (a store
// may leave out the tokens it adds: no principal kept names them), and ok is
// false when it cannot tell (a store shared with other processes whose
// notifications it is not receiving; see Syncer).
// When both the Store and the Directory are Versioned, Authenticate keeps
// the principal of a token it validated and answers a repeat of the token
// from memory while neither count has moved, checking only the token's
// expiry: a request then costs no store read to authenticate. Revoking the
// token, replacing the service credential, or changing the user's
// membership writes the store, and the next request validates afresh.
type Versioned interface {
	Version() (v uint64, ok bool)
}

// Syncer is implemented by a Store whose counts (Versioned) learn of the
// writes of other processes by notification: Sync returns once every
// write committed before the call is counted, so that what a caller keeps
// under an unchanged count is never older than its request. An error
// means the counts cannot tell now: nothing kept is used. A store whose
// counts are moved by its own writes only (one process) need not
// implement it; a store shared by processes that does not would let a
// cache serve what another process changed, so it must not be Versioned
// either.
type Syncer interface {
	Sync(ctx context.Context) error
}

// Synced syncs s when it is a Syncer, and reports whether its counts can
// be compared. Under a context of WithSyncScope, the first Sync serves
// the calls that follow.
func Synced(ctx context.Context, s any) bool {
	sy, ok := s.(Syncer)
	if !ok {
		return true
	}
	scope, _ := ctx.Value(syncScopeKey{}).(*syncScope)
	if scope != nil && scope.done.Load() {
		return true
	}
	if sy.Sync(ctx) != nil {
		return false
	}
	if scope != nil {
		scope.done.Store(true)
	}
	return true
}

// syncScope records that a Syncer was synced under a context.
type syncScope struct{ done atomic.Bool }

type syncScopeKey struct{}

// WithSyncScope returns ctx under which one Sync serves every later step
// (a request resolves its caller in several: the token, then the actor):
// call it when the request starts, so that the sync still starts after
// the request did.
func WithSyncScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, syncScopeKey{}, &syncScope{})
}

// bearerEntry is a validated token's principal with the versions of the
// Store and the Directory it was validated under.
type bearerEntry struct {
	store, dir uint64
	p          Principal
}

// versions returns the versions of the Store and the Directory; ok is
// false unless both can tell.
func (s *Service) versions(ctx context.Context) (store, dir uint64, ok bool) {
	sv, ok1 := s.Store.(Versioned)
	dv, ok2 := s.Directory.(Versioned)
	if !ok1 || !ok2 || !Synced(ctx, s.Store) {
		return 0, 0, false
	}
	store, ok1 = sv.Version()
	dir, ok2 = dv.Version()
	return store, dir, ok1 && ok2
}
