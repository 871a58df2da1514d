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
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
)

// versions counts, per Versioned record type (engine.TypeDef.Versioned)
// and for the auth data, the committed writes of every process, so that
// readers may keep what they derived from those records in memory
// (scoping.Versioned, auth.Versioned: the actor cache, the token cache).
//
// A transaction that writes them notifies the database's channel of this
// schema (pg_notify, inside the transaction: PostgreSQL delivers it only
// once the commit is visible to every new snapshot), and each process
// listens on the channel on a connection of its own and moves its counts
// when a notification arrives. A process also moves its own counts as
// soon as its commit returns, so that it never serves its own write
// stale. A count therefore moves only after the commit it stands for is
// visible; what is stale is bounded by the delivery of a notification
// (the writer's commit and the listeners' notifications are sent at the
// same time).
//
// A notification missed cannot be told from none sent: while the
// listening connection is down (not yet connected, lost, or silent for a
// heartbeat), every count answered is new, so nothing kept is used, and
// once it is back every count moves.
type versions struct {
	channel string
	gen     atomic.Uint64 // moves at each (re)connection of the listener
	live    atomic.Bool   // the listener is connected and listening
	miss    atomic.Uint64 // counts answered while not live
	m       sync.Map      // name → *atomic.Uint64

	cancel context.CancelFunc
	done   chan struct{}
}

// Payloads of the notifications besides type names.
const (
	authData = ":auth" // the auth data (tokens, credentials)
	allData  = "*"     // anything: a bulk load
)

// heartbeat is how long the listener waits for a notification before it
// checks that its connection is alive.
const heartbeat = time.Second

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
// five seconds: until it listens, nothing is cached) and keeps it connected until stop.
func (v *versions) start(ctx context.Context, cfg *pgx.ConnConfig) {
	lctx, cancel := context.WithCancel(context.Background())
	v.cancel, v.done = cancel, make(chan struct{})
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
				err = v.receive(ctx, conn)
				v.live.Store(false)
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

// receive applies notifications until the connection fails or ctx ends;
// a heartbeat query shows a silent connection alive.
func (v *versions) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, heartbeat)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			v.apply(n.Payload)
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed():
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, heartbeat)
		_, err = conn.Exec(pctx, "SELECT 1")
		cancel()
		if err != nil {
			return err
		}
	}
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
	_ scoping.Versioned = (*DB)(nil)
	_ auth.Versioned    = authStore{}
)

// versioned reports whether writes of typ are counted.
func (db *DB) versioned(typ string) bool {
	def, ok := db.schema.Lookup(typ)
	return ok && def.Versioned
}

// TypeVersion implements scoping.Versioned for the types the schema
// declares Versioned; any other type's count is new at every call.
func (db *DB) TypeVersion(typ string) uint64 {
	if !db.versioned(typ) {
		return 1<<63 | db.versions.miss.Add(1)
	}
	return db.versions.get(typ)
}

// Version implements auth.Versioned: the count of writes to the tokens
// and credentials; ok is false while the listener is down.
func (s authStore) Version() (uint64, bool) {
	v := s.db.versions.get(authData)
	return v, v>>63 == 0
}
