package pgstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Shared reads. A read that the caller can run again (ViewRerun) and
// that starts with one statement reading records by primary key (GET of
// one record) or one list page (with its count) needs no transaction and
// no connection of its own: it rides
// on the listener's next round trip (versions.go), which concurrent
// requests already share for their Sync. The statement runs after the
// request asked for it, on a snapshot of its own, as it would on a
// pooled connection; a round's statements go out as one batch, so a
// request pays a share of one round trip (one write to the socket and
// one read for the whole round) rather than a round trip of its own.
//
// The listener copies each statement's rows; the request decodes them
// itself once the round is over, so nothing of a failed round reaches
// it. A read that finds the round full (maxSharedReads), the listener
// down, or whose statement did not complete in the round (a statement
// of the batch failed, the connection broke) runs on a pooled
// connection as before: an error is always the read's own.
//
// A statement on the listener holds up every request's Sync behind it,
// and the listener's statements run one after another on one server
// process, so only statements whose cost is small ride on it: reads by
// primary key, and pages of at most maxSharedPage records of an account and
// type whose matches were never found above maxSharedMatches (the page
// counts them). The listener's statements end after sharedTimeout
// (statement_timeout of its session); a list page that took that long
// is not shared again for its account and type, and runs on its own.

const (
	maxSharedReads   = 64                     // reads of one listener round
	maxSharedPage    = 100                    // records of a page that may be shared
	maxSharedMatches = 2000                   // matches of a list whose pages are not shared
	sharedTimeout    = 250 * time.Millisecond // statement_timeout of the listener's session
)

// errNotShared: the read must go out on a connection of its own.
var errNotShared = errors.New("pgstore: read not shared")

// sharedRead is a read waiting for a round of the listener; the
// listener fills in its result.
type sharedRead struct {
	sql    string
	args   []any
	done   bool // its rows were all read
	slow   bool // its statement was cancelled (statement_timeout)
	fields []pgconn.FieldDescription
	rows   [][][]byte
	tag    pgconn.CommandTag
}

// read sends sql in the listener's next round trip and returns its rows,
// or errNotShared when the statement must go out on its own. It waits
// for the round even when its request is cancelled: a round ends within
// syncWait.
func (v *versions) read(sql string, args []any) (*sharedRead, error) {
	if !v.live.Load() {
		return nil, errNotShared
	}
	sr := &sharedRead{sql: sql, args: args}
	v.mu.Lock()
	r := v.next
	if r == nil {
		r = &round{ch: make(chan struct{})}
		v.next = r
	}
	if len(r.reads) >= maxSharedReads {
		v.mu.Unlock()
		return nil, errNotShared
	}
	r.reads = append(r.reads, sr)
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
	<-r.ch
	if !r.ok || !sr.done {
		return sr, errNotShared
	}
	return sr, nil
}

// sendReads is the round trip of a round with reads: their statements in
// one batch, each one's rows copied.
func sendReads(conn *pgx.Conn, reads []*sharedRead) error {
	b := &pgx.Batch{}
	for _, sr := range reads {
		b.Queue(sr.sql, sr.args...).Query(func(rows pgx.Rows) error {
			if err := rows.Err(); err != nil {
				// a statement that failed has no fields; 57014:
				// query_canceled (statement_timeout)
				var pe *pgconn.PgError
				sr.slow = errors.As(err, &pe) && pe.Code == "57014"
				return err
			}
			sr.fields = append([]pgconn.FieldDescription(nil), rows.FieldDescriptions()...)
			for rows.Next() {
				raw := rows.RawValues()
				n := 0
				for _, v := range raw {
					n += len(v)
				}
				buf := make([]byte, 0, n) // a row's values: one allocation
				row := make([][]byte, len(raw))
				for i, v := range raw {
					if v != nil {
						start := len(buf)
						buf = append(buf, v...)
						row[i] = buf[start:len(buf):len(buf)]
					}
				}
				sr.rows = append(sr.rows, row)
			}
			if err := rows.Err(); err != nil {
				return err
			}
			sr.tag, sr.done = rows.CommandTag(), true
			return nil
		})
	}
	return conn.SendBatch(context.Background(), b).Close()
}

// shareable reports whether qs, the statements of a transaction's round
// trip, may ride on the listener's round: the first round trip of a
// read that needs no transaction, one statement that reads records by
// primary key or one page of an account not known to be large. Any other
// statement (a list of all matches, a count, a page of a large account)
// keeps to a pooled connection: its cost grows with the data, and on the
// listener it would hold up every request's Sync behind it.
func (t *tx) shareable(qs []*query) bool {
	if t.db.noShare || t.mode != modeOptimistic || t.trips > 0 || t.open || t.conn != nil ||
		len(t.pending) > 0 || len(qs) != 1 {
		return false
	}
	if q := qs[0]; !q.byKey {
		if _, big := t.db.bigPages.Load(q.page); q.page == "" || big {
			return false
		}
	}
	return true
}

// sendShared sends q in the listener's round and runs its scan function
// on the rows, traced as the request's own statement; errNotShared when
// it must go out on its own.
func (t *tx) sendShared(q *query) error {
	sr, err := t.db.versions.read(q.sql, q.args)
	if err != nil {
		if sr != nil && sr.slow && q.page != "" {
			t.db.bigPages.Store(q.page, true)
		}
		return err
	}
	if tr := t.db.tracer; tr != nil {
		ctx := tr.TraceQueryStart(t.ctx, nil, pgx.TraceQueryStartData{SQL: q.sql, Args: q.args})
		defer tr.TraceQueryEnd(ctx, nil, pgx.TraceQueryEndData{CommandTag: sr.tag})
	}
	tm := typeMaps.Get().(*pgtype.Map)
	defer typeMaps.Put(tm)
	return q.scan(&copiedRows{sharedRead: sr, tm: tm})
}

// typeMaps are the type maps shared reads decode with (a pgtype.Map
// caches its scan plans and is not safe for concurrent use).
var typeMaps = sync.Pool{New: func() any { return pgtype.NewMap() }}

// copiedRows are the rows of a shared read, as pgx.Rows.
type copiedRows struct {
	*sharedRead
	tm *pgtype.Map
	i  int // 1 + the current row
}

var _ pgx.Rows = (*copiedRows)(nil)

func (r *copiedRows) Close()                                       {}
func (r *copiedRows) Err() error                                   { return nil }
func (r *copiedRows) CommandTag() pgconn.CommandTag                { return r.tag }
func (r *copiedRows) FieldDescriptions() []pgconn.FieldDescription { return r.fields }
func (r *copiedRows) RawValues() [][]byte                          { return r.rows[r.i-1] }
func (r *copiedRows) Conn() *pgx.Conn                              { return nil }
func (r *copiedRows) TypeMap() *pgtype.Map                         { return r.tm }

func (r *copiedRows) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}

func (r *copiedRows) Scan(dest ...any) error {
	if ok, err := scanCopied(r.fields, r.RawValues(), dest); ok || err != nil {
		return err
	}
	return pgx.ScanRow(r.tm, r.fields, r.RawValues(), dest...)
}

func (r *copiedRows) Values() ([]any, error) {
	raw := r.RawValues()
	vals := make([]any, len(raw))
	for i, buf := range raw {
		if buf == nil {
			continue
		}
		fd := r.fields[i]
		dt, ok := r.tm.TypeForOID(fd.DataTypeOID)
		if !ok { // as pgx: text as a string, binary as bytes
			if fd.Format == pgx.TextFormatCode {
				vals[i] = string(buf)
			} else {
				vals[i] = buf
			}
			continue
		}
		v, err := dt.Codec.DecodeValue(r.tm, fd.DataTypeOID, fd.Format, buf)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return vals, nil
}
