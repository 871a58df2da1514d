package observe

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/scopekit/scopekit/engine"
)

// Health answers the probes of load balancers and orchestrators
// (docs/operations.md, "Monitoring"): Live (/healthz) says the process
// answers; Ready (/readyz) runs every check and says whether the server
// can do its work. Add the checks before serving.
type Health struct {
	// Timeout bounds one readiness probe, all checks together; default
	// DefaultProbeTimeout.
	Timeout time.Duration
	// Logger receives why a check failed (the probe's answer only names
	// the check: /readyz may be public).
	Logger *slog.Logger

	checks []healthCheck
}

// DefaultProbeTimeout is Health.Timeout's default.
const DefaultProbeTimeout = 2 * time.Second

type healthCheck struct {
	name  string
	check func(context.Context) error
}

// Add adds a readiness check: check returns nil when the condition named
// name holds.
func (h *Health) Add(name string, check func(context.Context) error) {
	h.checks = append(h.checks, healthCheck{name, check})
}

// Live answers 200 "ok" to GET and HEAD while the process serves.
func (h *Health) Live() http.Handler {
	return probe(func(ctx context.Context) (int, string) { return http.StatusOK, "ok\n" })
}

// Ready answers 200 when every check passes and 503 when one fails; the
// body names each check with "ok" or "failing".
func (h *Health) Ready() http.Handler {
	return probe(func(ctx context.Context) (int, string) {
		timeout := h.Timeout
		if timeout <= 0 {
			timeout = DefaultProbeTimeout
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var b strings.Builder
		status := http.StatusOK
		for _, c := range h.checks {
			err := c.check(ctx)
			if err == nil {
				b.WriteString(c.name + ": ok\n")
				continue
			}
			status = http.StatusServiceUnavailable
			b.WriteString(c.name + ": failing\n")
			if h.Logger != nil {
				h.Logger.Warn("not ready", "check", c.name, "err", err)
			}
		}
		if status == http.StatusOK {
			return status, "ready\n" + b.String()
		}
		return status, "not ready\n" + b.String()
	})
}

// probe serves the answer of fn as plain text, never cached, to GET and
// HEAD (405 otherwise).
func probe(fn func(context.Context) (int, string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "use GET", http.StatusMethodNotAllowed)
			return
		}
		status, body := fn(r.Context())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// StoreReachable is the readiness check of a store: a read transaction
// opens and closes (a closed bbolt file, an unreachable PostgreSQL fail).
func StoreReachable(s engine.Store) func(context.Context) error {
	return func(ctx context.Context) error {
		return s.View(ctx, func(engine.Tx) error { return nil })
	}
}

// Flag is a readiness check that holds while the flag is set: a server
// sets it once its startup work is done and clears it when it begins to
// shut down, so that load balancers stop sending it requests first.
type Flag struct {
	on  atomic.Bool
	msg string
}

// NewFlag returns a cleared flag whose check fails with msg.
func NewFlag(msg string) *Flag { return &Flag{msg: msg} }

// Set sets (on) or clears the flag.
func (f *Flag) Set(on bool) { f.on.Store(on) }

// Check implements a readiness check (Health.Add).
func (f *Flag) Check(context.Context) error {
	if f.on.Load() {
		return nil
	}
	return errors.New(f.msg)
}
