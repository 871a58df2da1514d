package auth

import (
	"sync"
)

// Versioned is implemented by a Store or a Directory that can tell cheaply
// whether what it serves may have changed: Version returns a count that
// moves after every committed write to its data, by any writer, and ok is
// false when it cannot tell (a store that other processes write as well).
// When both the Store and the Directory are Versioned, Authenticate keeps
// the principal of a token it validated and answers a repeat of the token
// from memory while neither count has moved, checking only the token's
// expiry: a request then costs no store read to authenticate. Revoking the
// token, replacing the service credential, or changing the user's
// membership writes the store, and the next request validates afresh.
type Versioned interface {
	Version() (v uint64, ok bool)
}

// bearerCache holds validated tokens by digest, with the versions of the
// Store and the Directory they were validated under.
type bearerCache struct {
	mu sync.Mutex
	m  map[[32]byte]bearerEntry
}

type bearerEntry struct {
	store, dir uint64
	p          Principal
}

// bearerCacheMax bounds the cache; a full one starts over.
const bearerCacheMax = 4096

func (c *bearerCache) get(digest [32]byte, store, dir uint64) (Principal, bool) {
	c.mu.Lock()
	e, ok := c.m[digest]
	c.mu.Unlock()
	if !ok || e.store != store || e.dir != dir {
		return Principal{}, false
	}
	return e.p, true
}

func (c *bearerCache) put(digest [32]byte, store, dir uint64, p Principal) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= bearerCacheMax {
		c.m = map[[32]byte]bearerEntry{}
	}
	c.m[digest] = bearerEntry{store: store, dir: dir, p: p}
	c.mu.Unlock()
}

// versions returns the versions of the Store and the Directory; ok is
// false unless both can tell.
func (s *Service) versions() (store, dir uint64, ok bool) {
	sv, ok1 := s.Store.(Versioned)
	dv, ok2 := s.Directory.(Versioned)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	store, ok1 = sv.Version()
	dir, ok2 = dv.Version()
	return store, dir, ok1 && ok2
}
