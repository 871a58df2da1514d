package webapp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/stretchr/testify/require"
)

// benchProject inserts a project of 100 services (each with two
// subservices) over 3 phases, 4 resources and 5 locations into acme, and
// returns its id and the id of its first service.
func benchProject(b *testing.B, e *env) (pid, first string) {
	b.Helper()
	require.NoError(b, e.db.Update(context.Background(), func(tx engine.Tx) error {
		in := demodata.NewInserter(tx, e.accts["acme"])
		pid = in.Insert("projects", map[string]any{"project-name": "Hundred", "active": true, "status": "draft", "mrr-terms": int64(12)},
			map[string]string{"client": e.seeded["acme"].ClientID})
		p := map[string]string{"project": pid}
		var phases, resources, locations []string
		for i := range 3 {
			phases = append(phases, in.Insert("project-phases", map[string]any{"name": fmt.Sprintf("Phase %d", i+1), "position": int64(i + 1)}, p))
		}
		for i := range 4 {
			resources = append(resources, in.Insert("project-resources", map[string]any{"name": fmt.Sprintf("Resource %d", i+1),
				"hourly-rate": fmt.Sprintf("%d.50", 150+i*10), "hourly-cost": fmt.Sprintf("%d.25", 70+i*5)}, p))
		}
		for i := range 5 {
			locations = append(locations, in.Insert("project-locations", map[string]any{"name": fmt.Sprintf("Site %d", i+1)}, p))
		}
		for i := range 100 {
			s := in.Insert("project-services", map[string]any{"name": fmt.Sprintf("Service %03d", i+1), "quantity": "2",
				"unit-hours": fmt.Sprintf("%d.5", i%9+1), "position": int64(i + 1), "service-type": "professional_services",
				"payment-frequency": "one_time", "status": "not_started"},
				map[string]string{"project": pid, "project-phase": phases[i%3], "project-resource": resources[i%4], "project-location": locations[i%5]})
			if first == "" {
				first = s
			}
			for j := range 2 {
				in.Insert("project-subservices", map[string]any{"name": fmt.Sprintf("Step %d", j+1), "quantity": "1", "unit-hours": "1.25",
					"position": int64(j + 1)}, map[string]string{"project-service": s, "project": pid, "project-resource": resources[(i+j)%4]})
			}
		}
		return in.Err
	}))
	require.NoError(b, e.svc.RefreshPrices(context.Background(), e.accts["acme"]))
	return pid, first
}

// benchSession is a signed-in session of ada: its cookie and CSRF token.
func benchSession(b *testing.B, e *env) (cookie *http.Cookie, csrf string) {
	b.Helper()
	token, sess, err := e.svc.StartSession(context.Background(), e.accts["acme"], e.users["ada@acme.test"])
	require.NoError(b, err)
	return &http.Cookie{Name: "scopekit_session", Value: token}, sess.CSRF
}

// BenchmarkProjectPage100 measures the server's time for the scope page of
// a project of 100 services (200 subservices): the session, the snapshot
// and its pricing run, and the rendering, through the API host's handler
// (middleware included), without the network.
func BenchmarkProjectPage100(b *testing.B) {
	e := newEnv(b)
	pid, _ := benchProject(b, e)
	cookie, _ := benchSession(b, e)
	h := e.srv.Config.Handler
	path := "/app/acme/projects/" + pid
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte("Service 100")) {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkEditRoundTrip100 measures an edit in place on that project: a
// service's quantity changed through htmx, answered with its rows, the
// header and the pricing panel (the write, its stored prices, a snapshot
// and the fragments).
func BenchmarkEditRoundTrip100(b *testing.B) {
	e := newEnv(b)
	pid, svc := benchProject(b, e)
	cookie, csrf := benchSession(b, e)
	h := e.srv.Config.Handler
	path := "/app/acme/projects/" + pid + "/lines/services/" + svc
	n := 0
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		n++
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(fmt.Sprintf("quantity=%d", n%7+1)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("X-CSRF-Token", csrf)
		req.AddCookie(cookie)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte("panel-box")) {
			b.Fatalf("status %d: %s", rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkEditUseCase100 is the floor under BenchmarkEditRoundTrip100:
// the same change through the use case alone (the REST PATCH's work
// without HTTP), which reprices the project and stores its figures.
func BenchmarkEditUseCase100(b *testing.B) {
	e := newEnv(b)
	_, svc := benchProject(b, e)
	ada := e.actor("acme", "ada@acme.test")
	n := 0
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		n++
		in := &engine.Input{Attrs: map[string]json.RawMessage{"quantity": json.RawMessage(fmt.Sprintf(`"%d"`, n%7+1))}}
		if _, err := e.svc.Update(context.Background(), ada, "project-services", svc, in, engine.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the process's CPU time per operation (cpu-ms/op,
// every thread, garbage collection included) when the returned function
// runs: on a machine shared with other work, wall time measures that
// work too, CPU time much less so (as httpadapter's benchmarks do).
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
