package observe

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"go.opentelemetry.io/otel/trace"
)

// Store wraps s so that every View and Update is timed
// (scopekit_store_transaction_duration_seconds) and, inside a traced
// request or job, spanned (store.view, store.update). The transactions
// are s's own: fn gets s's Tx, so what a Tx offers beyond engine.Tx
// (engine.SharedReader) keeps working. The wrapper reports s's schema
// (Schema) and is a scoping.Versioned exactly when s is one, so that the
// service's actor cache stays on over bbolt and off over PostgreSQL. With
// metrics and tracing off it returns s itself.
func (t *Telemetry) Store(s engine.Store) engine.Store {
	if t.m == nil && t.tracer == nil {
		return s
	}
	ts := &timedStore{inner: s, tracer: t.tracer}
	if t.m != nil {
		ts.view, ts.update = t.m.storeView, t.m.storeWrite
	}
	if vs, ok := s.(scoping.Versioned); ok {
		return versionedStore{ts, vs}
	}
	return ts
}

type timedStore struct {
	inner        engine.Store
	view, update prometheus.Observer // nil: metrics off
	tracer       trace.Tracer        // nil: tracing off
}

// View implements engine.Store.
func (s *timedStore) View(ctx context.Context, fn func(engine.Tx) error) error {
	return s.run(ctx, "store.view", s.view, false, fn)
}

// Update implements engine.Store.
func (s *timedStore) Update(ctx context.Context, fn func(engine.Tx) error) error {
	return s.run(ctx, "store.update", s.update, true, fn)
}

func (s *timedStore) run(ctx context.Context, name string, obs prometheus.Observer, write bool, fn func(engine.Tx) error) error {
	var span trace.Span
	// only under a span: the workers' idle polls would each be a trace
	if s.tracer != nil && trace.SpanFromContext(ctx).IsRecording() {
		ctx, span = s.tracer.Start(ctx, name)
		defer span.End()
	}
	start := time.Now()
	var err error
	if write {
		err = s.inner.Update(ctx, fn)
	} else {
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
	if st, ok := s.inner.(interface{ Schema() *engine.Schema }); ok {
		return st.Schema()
	}
	return nil
}

// Unwrap returns the wrapped store.
func (s *timedStore) Unwrap() engine.Store { return s.inner }

// versionedStore is a timedStore over a scoping.Versioned store.
type versionedStore struct {
	*timedStore
	vs scoping.Versioned
}

// TypeVersion implements scoping.Versioned.
func (s versionedStore) TypeVersion(typ string) uint64 { return s.vs.TypeVersion(typ) }
