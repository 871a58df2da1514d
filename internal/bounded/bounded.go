// Package bounded is the map the in-memory caches of ScopeKit keep their
// entries in: safe for concurrent use, and limited in size. A full map
// starts over, so a cache never grows without bound and needs no
// eviction bookkeeping; the entries it drops are read again.
package bounded

import "sync"

// Size is the number of entries a Map holds before it starts over.
const Size = 4096

// Map is a concurrent map of at most Size entries (Limit, when set). The
// zero Map is empty and ready to use; it must not be copied after first
// use.
type Map[K comparable, V any] struct {
	// Limit, when positive, replaces Size; set it before first use.
	Limit int
	mu    sync.Mutex
	m     map[K]V
}

// Get returns the entry under k.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	return v, ok
}

// Put sets the entry under k, first emptying the map when it is full.
func (c *Map[K, V]) Put(k K, v V) {
	c.mu.Lock()
	if limit := c.Limit; c.m == nil || len(c.m) >= Size && limit <= 0 || limit > 0 && len(c.m) >= limit {
		c.m = make(map[K]V)
	}
	c.m[k] = v
	c.mu.Unlock()
}
