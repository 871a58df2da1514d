package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
)

// versions counts, per Versioned record type (engine.TypeDef.Versioned)
// and for the auth data, the committed writes of every process, so that
// readers may keep what they derived from those records in memory
// (engine.Versioned, auth.Versioned: the actor cache, the token cache).
//
// A transaction that writes them notifies the database's channel of this
// schema (pg_notify, inside the transaction: PostgreSQL delivers it only
// once the commit is visible to every new snapshot), and each process
// listens on the channel on a connection of its own. Before a request
// compares a count (auth.Syncer), the process runs one round trip on that
// connection that started after the request did: PostgreSQL sends a
// listening session the notifications it has been signalled of before it
// answers, and the writer's commit signals every listener before it
// returns, so every write committed before the request is counted by then.
// Concurrent requests share the round trip (auth.WithSyncScope: a request
// syncs once). A process also moves its own counts as soon as its commit
// returns.
//
// A notification missed cannot be told from none sent: while the
// listening connection is down (not yet connected, lost, or failing a
// round trip), nothing is compared (Sync fails, every count answered is
// new), and once it is back every count moves.
type versions struct {
	channel string
	gen     atomic.Uint64 // moves at each (re)connection of the listener
	live    atomic.Bool   // the listener is connected and listening
	miss    atomic.Uint64 // counts answered while not live
	m       sync.Map      // name → *atomic.Uint64

	mu   sync.Mutex
	next *round        // the round trip the next Sync waits for
	wake chan struct{} // a Sync is waiting

	cancel context.CancelFunc
	done   chan struct{}
}

// round is one round trip of the listener; ch closes when it is done.
type round struct {
	ch    chan struct{}
	ok    bool
	reads []*sharedRead // statements that ride on it (shared.go)
}

// Payloads of the notifications besides type names.
const (
	authData = ":auth" // the auth data (tokens, credentials)
	allData  = "*"     // anything: a bulk load
)

// listenerName is the application_name of the listening connection.
const listenerName = "scopekit listener"

// heartbeat is how often the listener checks its connection when no
// request asks it to; syncWait bounds a round trip (a request waiting for
// it then uses nothing kept).
const (
	heartbeat = time.Second
	syncWait  = 2 * time.Second
)

func (v *versions) get(name string) uint64 {
	if !v.live.Load() {
		return 1<<63 | v.miss.Add(1)
	}
	n := uint64(0)
	if c, ok := v.m.Load(name); ok {
		n = c.(*atomic.Uint64).Load()
	}
	return v.gen.Load()<<40 + n
}

func (v *versions) bump(name string) {
	c, ok := v.m.Load(name)
	if !ok {
		c, _ = v.m.LoadOrStore(name, new(atomic.Uint64))
	}
	c.(*atomic.Uint64).Add(1)
}

// wrote moves the counts of names.
func (v *versions) wrote(names map[string]bool) {
	for n := range names {
		v.bump(n)
	}
}

// apply moves the counts a notification names.
func (v *versions) apply(payload string) {
	for _, n := range strings.Split(payload, ",") {
		if n == allData {
			v.gen.Add(1)
			continue
		}
		v.bump(n)
	}
}

// notifyQuery is the statement that notifies every process of the writes
// of names, at the commit of the transaction that sends it.
func (v *versions) notifyQuery(names map[string]bool) *query {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	slices.Sort(list)
	return &query{sql: "SELECT pg_notify($1, $2)", args: []any{v.channel, strings.Join(list, ",")}}
}

// start connects the listener (waiting for it at most until ctx ends or
// five seconds: until it listens, nothing is cached) and keeps it
// connected until stop.
func (v *versions) start(ctx context.Context, cfg *pgx.ConnConfig) {
	cfg.OnNotification = func(_ *pgconn.PgConn, n *pgconn.Notification) { v.apply(n.Payload) }
	cfg.RuntimeParams["application_name"] = listenerName
	lctx, cancel := context.WithCancel(context.Background())
	v.cancel, v.done, v.wake = cancel, make(chan struct{}), make(chan struct{}, 1)
	ready := make(chan struct{})
	go v.listen(lctx, cfg, ready)
	select {
	case <-ready:
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
	}
}

func (v *versions) stop() {
	if v.cancel != nil {
		v.cancel()
		<-v.done
	}
}

// listen keeps a connection listening on the channel, reconnecting with a
// growing pause.
func (v *versions) listen(ctx context.Context, cfg *pgx.ConnConfig, ready chan struct{}) {
	defer close(v.done)
	pause := 50 * time.Millisecond
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			if _, err = conn.Exec(ctx, "LISTEN "+pgx.Identifier{v.channel}.Sanitize()); err == nil {
				v.gen.Add(1) // whatever was written while not listening
				v.live.Store(true)
				if ready != nil {
					close(ready)
					ready = nil
				}
				pause = 50 * time.Millisecond
				err = v.serve(ctx, conn)
				v.live.Store(false)
				v.fail()
			}
			conn.Close(context.Background())
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// serve runs a round trip (an empty statement, whose answer brings the
// notifications pending) whenever a Sync waits, and at least every
// heartbeat, until one fails or ctx ends.
func (v *versions) serve(ctx context.Context, conn *pgx.Conn) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-v.wake:
		case <-time.After(heartbeat):
		}
		v.mu.Lock()
		r := v.next
		v.next = nil // who comes now waits for the next round trip
		v.mu.Unlock()
		// a deadline on the connection rather than a context: no watcher
		// per round trip
		nc := conn.PgConn().Conn()
		nc.SetDeadline(time.Now().Add(syncWait))
		var err error
		if r != nil && len(r.reads) > 0 {
			// a statement that failed leaves the round trip and the
			// connection whole: its read and those after it run on
			// their own (shared.go)
			if err = sendReads(conn, r.reads); errors.As(err, new(*pgconn.PgError)) {
				err = nil
			}
		} else {
			err = conn.PgConn().Exec(context.Background(), "").Close()
		}
		nc.SetDeadline(time.Time{})
		if r != nil {
			r.ok = err == nil
			close(r.ch)
		}
		if err != nil {
			return err
		}
	}
}

// fail ends the wait of the Syncs waiting: the listener is down.
func (v *versions) fail() {
	v.mu.Lock()
	r := v.next
	v.next = nil
	v.mu.Unlock()
	if r != nil {
		close(r.ch)
	}
}

// errNotListening is what Sync answers while the listener is down.
var errNotListening = errors.New("pgstore: not listening for other processes' writes")

// sync returns once a round trip of the listener that started after the
// call has completed: every write committed before the call is counted.
// A round trip ends within syncWait (its connection's deadline), or the
// listener fails it.
func (v *versions) sync(ctx context.Context) error {
	if !v.live.Load() {
		return errNotListening
	}
	v.mu.Lock()
	r := v.next
	if r == nil {
		r = &round{ch: make(chan struct{})}
		v.next = r
	}
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
	select {
	case <-r.ch:
	case <-ctx.Done():
		return ctx.Err()
	}
	if !r.ok {
		return errNotListening
	}
	return nil
}

// channelName is the notification channel of a schema (at most 63 bytes,
// PostgreSQL's limit for an identifier).
func channelName(schema string) string {
	name := "scopekit:" + schema
	if len(name) > 63 {
		name = fmt.Sprintf("scopekit:%016x", hash64(schema))
	}
	return name
}

var (
	_ engine.Versioned = (*DB)(nil)
	_ auth.Versioned   = authStore{}
)

// versioned reports whether writes of typ are counted.
func (db *DB) versioned(typ string) bool {
	def, ok := db.schema.Lookup(typ)
	return ok && def.Versioned
}

// TypeVersion implements engine.Versioned for the types the schema
// declares Versioned; any other type's count is new at every call.
func (db *DB) TypeVersion(typ string) uint64 {
	if !db.versioned(typ) {
		return 1<<63 | db.versions.miss.Add(1)
	}
	return db.versions.get(typ)
}

var _ auth.Syncer = (*DB)(nil)

// Sync implements auth.Syncer: it returns once every write committed
// before the call is counted (see versions).
func (db *DB) Sync(ctx context.Context) error { return db.versions.sync(ctx) }

var _ auth.Syncer = authStore{}

// Sync implements auth.Syncer.
func (s authStore) Sync(ctx context.Context) error { return s.db.versions.sync(ctx) }

// Version implements auth.Versioned: the count of writes to the tokens
// and credentials; ok is false while the listener is down.
func (s authStore) Version() (uint64, bool) {
	v := s.db.versions.get(authData)
	return v, v>>63 == 0
}
