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
