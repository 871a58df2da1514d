package boltstore

import (
	"sync"
	"sync/atomic"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
)

// versions counts, per record type, the committed transactions that wrote
// a record of that type, and under authData those that wrote the auth
// buckets. Only this process writes the file (bbolt's lock), and every
// write goes through Update or the auth store, so an unchanged count
// means unchanged data: callers keep what they derived from it (the
// caller of a token, its account and role) for as long as the count
// stays, and read again after any change (engine.Versioned,
// auth.Versioned). A count moves after the commit, so whatever a reader
// derived under a count is at least as new as that count. Writes made
// through Bolt() are not counted.
//
// The counts of each opened DB start at a base of their own, so that a
// cache kept across a close and an open (of this file or another) cannot
// take one file's count for another's.
type versions struct {
	base uint64
	m    sync.Map // name → *atomic.Uint64
}

// authData names the auth buckets' count; no record type has this name.
const authData = "\x00auth"

// opened numbers the DBs opened by this process, for their bases.
var opened atomic.Uint64

func newVersions() versions { return versions{base: opened.Add(1) << 40} }

func (v *versions) get(name string) uint64 {
	if c, ok := v.m.Load(name); ok {
		return v.base + c.(*atomic.Uint64).Load()
	}
	return v.base
}

func (v *versions) bump(name string) {
	c, ok := v.m.Load(name)
	if !ok {
		c, _ = v.m.LoadOrStore(name, new(atomic.Uint64))
	}
	c.(*atomic.Uint64).Add(1)
}

var (
	_ engine.Versioned = (*DB)(nil)
	_ auth.Versioned   = authStore{}
)

// TypeVersion implements engine.Versioned.
func (db *DB) TypeVersion(typ string) uint64 { return db.versions.get(typ) }

// Version implements auth.Versioned: the count of writes to the auth data.
func (s authStore) Version() (uint64, bool) { return s.db.versions.get(authData), true }
