package bounded

import "hash/maphash"

// shards is how many Maps a Sharded spreads its keys over.
const shards = 16

// Sharded is a Map split into shards by the hash of the key, for caches
// that many goroutines read at once (each lookup of a page of records
// would otherwise queue on one mutex). It holds at most its limit of
// entries in all; a full shard starts over. Make it with NewSharded.
type Sharded[K comparable, V any] struct {
	seed maphash.Seed
	m    [shards]Map[K, V]
}

// NewSharded returns an empty Sharded of at most limit entries (Size when
// limit is not positive).
func NewSharded[K comparable, V any](limit int) *Sharded[K, V] {
	if limit <= 0 {
		limit = Size
	}
	s := &Sharded[K, V]{seed: maphash.MakeSeed()}
	for i := range s.m {
		s.m[i].Limit = max(1, limit/shards)
	}
	return s
}

func (s *Sharded[K, V]) shard(k K) *Map[K, V] {
	return &s.m[maphash.Comparable(s.seed, k)%shards]
}

// Get returns the entry under k.
func (s *Sharded[K, V]) Get(k K) (V, bool) { return s.shard(k).Get(k) }

// Put sets the entry under k.
func (s *Sharded[K, V]) Put(k K, v V) { s.shard(k).Put(k, v) }
