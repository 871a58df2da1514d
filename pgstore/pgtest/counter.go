package pgtest

import (
	"context"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Counter is a pgx tracer (pgstore.WithTracer) that counts the round
// trips and statements sent under the contexts it marked (Mark), and
// keeps their SQL for the messages of failed tests. A batch is one round
// trip of several statements; the Parse round trip of a statement's first
// use on a connection is not counted.
type Counter struct {
	mu    sync.Mutex
	trips int
	stmts []string
}

var (
	_ pgx.QueryTracer = (*Counter)(nil)
	_ pgx.BatchTracer = (*Counter)(nil)
)

type counterKey struct{}

// Mark returns ctx marked for c: what the store sends under it is counted.
func (c *Counter) Mark(ctx context.Context) context.Context {
	return context.WithValue(ctx, counterKey{}, c)
}

func (c *Counter) marked(ctx context.Context) bool { return ctx.Value(counterKey{}) == c }

// Reset forgets what was counted.
func (c *Counter) Reset() {
	c.mu.Lock()
	c.trips, c.stmts = 0, nil
	c.mu.Unlock()
}

// Counts returns the round trips and the statements counted since the
// last Reset.
func (c *Counter) Counts() (trips int, stmts []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.trips, append([]string(nil), c.stmts...)
}

func (c *Counter) add(trip bool, sql string) {
	c.mu.Lock()
	if trip {
		c.trips++
	}
	if sql != "" {
		c.stmts = append(c.stmts, strings.Join(strings.Fields(sql), " "))
	}
	c.mu.Unlock()
}

// TraceQueryStart implements pgx.QueryTracer: a statement sent alone.
func (c *Counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if c.marked(ctx) {
		c.add(true, data.SQL)
	}
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (c *Counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer: one round trip.
func (c *Counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	if c.marked(ctx) {
		c.add(true, "")
	}
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer: a statement of the batch.
func (c *Counter) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchQueryData) {
	if c.marked(ctx) {
		c.add(false, data.SQL)
	}
}

// TraceBatchEnd implements pgx.BatchTracer.
func (c *Counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}
