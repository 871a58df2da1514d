package observe

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"go.opentelemetry.io/otel/trace"
)

// Store wraps s so that every View and Update is timed
// (scopekit_store_transaction_duration_seconds) and, inside a traced
// request or job, spanned (store.view, store.update). The transactions
// are s's own: fn gets s's Tx, so what a Tx offers beyond engine.Tx
// (engine.SharedReader, engine.Prefetcher) keeps working. The wrapper
// reports s's schema (Schema), runs s's ViewRerun when s has one
// (engine.Rerunner, timed as a view), and is an engine.Versioned exactly
// when s is one, syncing through s when s is an auth.Syncer, so that the
// service's actor cache works over the wrapper as over s. With metrics and
// tracing off it returns s itself.
func (t *Telemetry) Store(s engine.Store) engine.Store {
	if t.m == nil && t.tracer == nil {
		return s
	}
	ts := &timedStore{inner: s, tracer: t.tracer}
	if t.m != nil {
		ts.view, ts.update = t.m.storeView, t.m.storeWrite
	}
	if vs, ok := s.(engine.Versioned); ok {
		return versionedStore{ts, vs}
	}
	return ts
}

type timedStore struct {
	inner        engine.Store
	view, update prometheus.Observer // nil: metrics off
	tracer       trace.Tracer        // nil: tracing off
}

// ViewRerun implements engine.Rerunner: s's own when it has one, else a
// View.
func (s *timedStore) ViewRerun(ctx context.Context, fn func(engine.Tx) error) error {
	return s.run(ctx, "store.view", s.view, false, fn, true)
}

// View implements engine.Store.
func (s *timedStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	return s.run(ctx, "store.view", s.view, false, fn, false)
}

// Update implements engine.Store.
func (s *timedStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return s.run(ctx, "store.update", s.update, true, fn, false)
}

func (s *timedStore) run(ctx context.Context, name string, obs prometheus.Observer, write bool, fn func(engine.Tx) error, rerun bool) error {
	var span trace.Span
	// only under a span: the workers' idle polls would each be a trace
	if s.tracer != nil && trace.SpanFromContext(ctx).IsRecording() {
		ctx, span = s.tracer.Start(ctx, name)
		defer span.End()
	}
	start := time.Now()
	var err error
	switch {
	case write:
		err = s.inner.Update(ctx, fn)
	case rerun:
		err = engine.ViewRerun(ctx, s.inner, fn)
	default:
		err = s.inner.View(ctx, fn)
	}
	if obs != nil {
		obs.Observe(time.Since(start).Seconds())
	}
	if span != nil && err != nil {
		markError(span, err)
	}
	return err
}

// Schema reports the wrapped store's schema (nil when it reports none),
// which scoping.NewService serves by default.
func (s *timedStore) Schema() *engine.Schema {
	if st, ok := s.inner.(engine.SchemaReporter); ok {
		return st.Schema()
	}
	return nil
}

// Unwrap returns the wrapped store.
func (s *timedStore) Unwrap() engine.Store { return s.inner }

// versionedStore is a timedStore over an engine.Versioned store.
type versionedStore struct {
	*timedStore
	vs engine.Versioned
}

// TypeVersion implements engine.Versioned.
func (s versionedStore) TypeVersion(typ string) uint64 { return s.vs.TypeVersion(typ) }

// Sync implements auth.Syncer: the wrapped store's sync, when it has one
// (a store whose counts move only by its own writes needs none).
func (s versionedStore) Sync(ctx context.Context) error {
	if sy, ok := s.vs.(auth.Syncer); ok {
		return sy.Sync(ctx)
	}
	return nil
}
