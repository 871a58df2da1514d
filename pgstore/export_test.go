package pgstore

// What the external tests reach inside the package.

// ErrNotShared is errNotShared.
var ErrNotShared = errNotShared

// SharedRead sends sql in the listener's next round and returns its rows
// as sent.
func SharedRead(db *DB, sql string, args ...any) ([][][]byte, error) {
	sr, err := db.versions.read(sql, args)
	if err != nil {
		return nil, err
	}
	return sr.rows, nil
}

// ListenerState is whether the listener is connected and how many times
// it (re)connected.
func ListenerState(db *DB) (live bool, gen uint64) {
	return db.versions.live.Load(), db.versions.gen.Load()
}

// PageCounts are how many rows lists decoded, and how many came without
// their text because the page cache knew their version.
func PageCounts(db *DB) (decoded, unsent int64) {
	db.pages.mu.Lock()
	defer db.pages.mu.Unlock()
	return db.pages.decoded, db.pages.unsent
}

// ForgetPagesAfterKnown makes the page cache forget everything right
// after a page statement has named the versions it holds (once), as a
// full cache that starts over would.
func ForgetPagesAfterKnown(db *DB) {
	db.pages.afterKnown = func() { // runs under db.pages.mu
		db.pages.sets, db.pages.n = map[[2]string]map[int64]*pageEntry{}, 0
		db.pages.afterKnown = nil
	}
}
