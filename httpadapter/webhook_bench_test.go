package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
)

// BenchmarkWebhookDelivery measures the dispatcher against a local
// receiver (both on 127.0.0.1, real bbolt file):
//
//   - backlog: events queued while no dispatcher runs, then delivered;
//     deliveries/s is the drain rate.
//   - live: status changes made as fast as the engine commits them with
//     the dispatcher running; p99 is from the change (the event's
//     occurred-at, set just before the commit) to the receiver's arrival.
//
// Run: go test ./httpadapter -run '^$' -bench WebhookDelivery -benchtime 1x
func BenchmarkWebhookDelivery(b *testing.B) {
	const events, subs = 2000, 5
	for range b.N {
		env := newHookBench(b, subs)
		// Backlog: queue first, deliver after.
		env.changes(events)
		start := time.Now()
		stop := env.dispatch()
		env.wait(b, events*subs)
		drain := time.Since(start)
		stop()
		b.ReportMetric(float64(events*subs)/drain.Seconds(), "backlog-deliveries/s")

		// Live: dispatcher running while changes commit.
		env.reset()
		stop = env.dispatch()
		start = time.Now()
		env.changes(events)
		env.wait(b, events*subs)
		took := time.Since(start)
		stop()
		lat := env.latencies()
		b.ReportMetric(float64(events*subs)/took.Seconds(), "live-deliveries/s")
		b.ReportMetric(float64(events)/took.Seconds(), "changes/s")
		b.ReportMetric(float64(pct(lat, 50).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(pct(lat, 99).Microseconds())/1000, "p99-ms")
	}
}

type hookBench struct {
	db      *boltstore.DB
	svc     *scoping.Service
	actor   *engine.Actor
	service string
	rc      *httptest.Server
	mu      sync.Mutex
	got     int
	lat     []time.Duration
	notify  func()
	n       int
}

func newHookBench(b *testing.B, subs int) *hookBench {
	ctx := context.Background()
	db := bolttest.Open(b, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	sealer, _ := seal.New(testKey)
	h := &hookBench{db: db, svc: svc}
	svc.Webhooks = scoping.WebhookConfig{Sealer: sealer, CheckDestination: webhook.CheckDestination(true),
		Notify: func() {
			if h.notify != nil {
				h.notify()
			}
		}}
	var acct string
	must(b, svc.Setup(ctx, func(a *scoping.Admin) error {
		r, err := a.EnsureAccount("acme", "Acme", "USD")
		acct = r.ID
		return err
	}))
	var err error
	if h.actor, err = svc.SystemActor(ctx, acct); err != nil {
		b.Fatal(err)
	}
	h.rc = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		now := time.Now()
		var d struct {
			Data struct {
				Attributes struct {
					OccurredAt string `json:"occurred-at"`
				}
			}
		}
		_ = json.Unmarshal(body, &d)
		at, _ := time.Parse(engine.TimeFormat, d.Data.Attributes.OccurredAt)
		h.mu.Lock()
		h.got++
		h.lat = append(h.lat, now.Sub(at))
		h.mu.Unlock()
	}))
	b.Cleanup(h.rc.Close)
	client := h.create(b, "clients", `{"name":"Globex"}`, nil)
	proj := h.create(b, "projects", `{"project-name":"Bench"}`, map[string]string{"client": client})
	h.service = h.create(b, "project-services", `{"name":"Work"}`, map[string]string{"project": proj})
	for range subs {
		h.create(b, "webhook-subscriptions", fmt.Sprintf(`{"event-type":"service_status_changed","destination-url":%q}`, h.rc.URL), nil)
	}
	return h
}

func must(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

func (h *hookBench) create(b *testing.B, typ, attrs string, rels map[string]string) string {
	in := &engine.Input{Rels: map[string]engine.RelInput{}}
	must(b, json.Unmarshal([]byte(attrs), &in.Attrs))
	for name, id := range rels {
		in.Rels[name] = engine.RelInput{Refs: []engine.Ref{{Type: map[string]string{"client": "clients", "project": "projects"}[name], ID: id}}}
	}
	res, err := h.svc.Create(context.Background(), h.actor, typ, in, engine.Options{Strict: true})
	must(b, err)
	return res.Records[0].ID
}

// changes makes n delivery-status changes of the project service.
func (h *hookBench) changes(n int) {
	for range n {
		h.n++
		st := []string{`"in_progress"`, `"on_hold"`}[h.n%2]
		_, err := h.svc.Update(context.Background(), h.actor, "project-services", h.service,
			&engine.Input{Attrs: map[string]json.RawMessage{"status": json.RawMessage(st)}}, engine.Options{Strict: true})
		if err != nil {
			panic(err)
		}
	}
}

func (h *hookBench) dispatch() (stop func()) {
	d := &webhook.Dispatcher{Store: h.db, Secrets: h.svc.Webhooks.Sealer, AllowPrivate: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h.notify = d.Notify
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	return func() { h.notify = nil; cancel(); <-done }
}

func (h *hookBench) wait(b *testing.B, n int) {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		got := h.got
		h.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	b.Fatalf("not all %d deliveries arrived", n)
}

func (h *hookBench) reset() {
	h.mu.Lock()
	h.got, h.lat = 0, nil
	h.mu.Unlock()
}

func (h *hookBench) latencies() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := slices.Clone(h.lat)
	slices.Sort(out)
	return out
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}
