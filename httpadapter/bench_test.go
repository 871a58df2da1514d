package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"golang.org/x/crypto/bcrypt"
)

// benchEnv is an API over a database holding n projects of one account,
// served by the handler directly (no network), and a token for it. The
// database is a bbolt file, or PostgreSQL with SCOPEKIT_TEST_STORE=postgres
// (a schema of the server SCOPEKIT_TEST_DATABASE names). With
// SCOPEKIT_BENCH_METRICS=1 the requests and store transactions are
// measured as the example server measures them with -metrics-addr.
type benchEnv struct {
	h      http.Handler
	svc    *scoping.Service
	token  string
	first  string // id of a project
	db     benchDB
	acct   string
	client string
}

// benchDB is what the benchmarks use of a store.
type benchDB interface {
	engine.Store
	AuthStore() auth.Store
}

func newBenchEnv(b *testing.B, n int) *benchEnv {
	b.Helper()
	ctx := context.Background()
	var db benchDB
	if onPostgres() {
		db = pgtest.Open(b, scoping.DefaultSchema())
	} else {
		bdb := bolttest.Open(b, scoping.DefaultSchema())
		db = bdb
	}
	tel := observe.New(observe.Config{Metrics: os.Getenv("SCOPEKIT_BENCH_METRICS") == "1"})
	svc := scoping.NewService(tel.Store(db))
	au := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
	var acct, uid string
	if err := svc.Setup(ctx, func(a *scoping.Admin) error {
		ac, err := a.EnsureAccount("acme", "Acme", "USD")
		if err != nil {
			return err
		}
		acct = ac.ID
		u, err := a.EnsureMember(acct, scoping.Member{Email: "bot@acme.test", Name: "Bot", UserType: "service", Role: "Account Admin"})
		uid = u.ID
		return err
	}); err != nil {
		b.Fatal(err)
	}
	if err := au.SetServiceCredential(ctx, acct, uid, "bot", "bot-secret"); err != nil {
		b.Fatal(err)
	}
	tok, err := au.Token(ctx, &auth.TokenRequest{GrantType: "client_credentials", ClientID: "bot", ClientSecret: "bot-secret"})
	if err != nil {
		b.Fatal(err)
	}
	a, _ := svc.SystemActor(ctx, acct)
	res, err := svc.Create(ctx, a, "clients", &engine.Input{Attrs: map[string]json.RawMessage{"name": json.RawMessage(`"Globex"`)}}, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	client := res.Records[0].ID
	env := &benchEnv{token: tok.AccessToken, db: db, acct: acct, client: client}
	// Insert the projects in a few large transactions: the benchmark is
	// about reads, and one fsync per project would only slow the setup.
	for start := 0; start < n; start += 2000 {
		if err := db.Update(ctx, func(tx engine.Tx) error {
			for i := start; i < min(start+2000, n); i++ {
				p := engine.NewRecord("projects", acct)
				p.Attrs["project-name"] = fmt.Sprintf("Project %05d network refresh", i)
				p.Attrs["status"], p.Attrs["active"], p.Attrs["mrr-terms"] = "draft", true, int64(12)
				p.Attrs["executive-summary"] = "Replace the core switches and firewalls of the head office."
				p.Attrs["revenue-adjustment"], p.Attrs["cost-adjustment"] = "0", "0"
				p.Attrs["tag-list"] = []any{"network", "security"}
				p.SetRel("client", client)
				if err := tx.Insert(p); err != nil {
					return err
				}
				if env.first == "" {
					env.first = p.ID
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	// as if written through the API: prices stored with the projects
	if err := svc.RefreshAllPrices(ctx); err != nil {
		b.Fatal(err)
	}
	env.svc = svc
	s := &httpadapter.Server{Svc: svc, Auth: au, BaseURL: "http://127.0.0.1:8080", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Metrics: tel.RequestMetrics()}
	env.h = s.Handler()
	return env
}

func (env *benchEnv) run(b *testing.B, path string) {
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		if code := env.get(path); code != http.StatusOK {
			b.Fatalf("%s: %d", path, code)
		}
	}
}

// get serves GET path and returns the status.
func (env *benchEnv) get(path string) int {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Accept", "application/vnd.api+json")
	r.Header.Set("Authorization", "Bearer "+env.token)
	w := &discardWriter{h: http.Header{}}
	env.h.ServeHTTP(w, r)
	return w.code
}

// runParallel is run with 32 requests at a time (wrk's connections in
// readbench); cpu-ms/op is the process's CPU per request.
func (env *benchEnv) runParallel(b *testing.B, path string) {
	b.ReportAllocs()
	b.SetParallelism((32 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ResetTimer()
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if code := env.get(path); code != http.StatusOK {
				b.Errorf("%s: %d", path, code)
				return
			}
		}
	})
}

// BenchmarkListProjectsPage reads a page of 250 projects out of 10,000.
func BenchmarkListProjectsPage(b *testing.B) {
	env := newBenchEnv(b, 10000)
	env.run(b, "/v2/projects?page[size]=250&page[number]=20")
}

// BenchmarkShowProject reads one project.
func BenchmarkShowProject(b *testing.B) {
	env := newBenchEnv(b, 10000)
	env.run(b, "/v2/projects/"+env.first)
}

// BenchmarkShowProjectParallel reads one project from 32 goroutines at
// once, as readbench's wrk does: concurrent requests share what a store
// lets them share (pgstore: the listener's round trip).
func BenchmarkShowProjectParallel(b *testing.B) {
	env := newBenchEnv(b, 10000)
	env.runParallel(b, "/v2/projects/"+env.first)
}

// BenchmarkShowClientParallel reads one client from 32 goroutines at once.
func BenchmarkShowClientParallel(b *testing.B) {
	env := newBenchEnv(b, 0)
	env.runParallel(b, "/v2/clients/"+env.client)
}

// BenchmarkShowClient reads one client: the smallest authenticated read,
// where resolving the caller is most of the work.
func BenchmarkShowClient(b *testing.B) {
	env := newBenchEnv(b, 0)
	env.run(b, "/v2/clients/"+env.client)
}

// BenchmarkMe reads /v1/me: the caller, its account and its privileges.
func BenchmarkMe(b *testing.B) {
	env := newBenchEnv(b, 0)
	env.run(b, "/v1/me")
}

// discardWriter is a ResponseWriter that counts and drops the body, as a
// server writing to a socket through a small buffer would, so that the
// benchmark measures the handler and not a recorder's growing buffer.
type discardWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// seedLargeProject inserts docs/pricing.md's large project into the bench
// database.
func seedLargeProject(b *testing.B, db engine.Store, acct, client string) string {
	b.Helper()
	var pid string
	err := db.Update(context.Background(), func(tx engine.Tx) error {
		var err error
		pid, err = demodata.SeedLarge(tx, acct, client, nil)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	// as if written through the API: prices stored with the project
	if err := scoping.NewService(db).RefreshAllPrices(context.Background()); err != nil {
		b.Fatal(err)
	}
	return pid
}

// BenchmarkShowLargeProject reads the large project with its computed
// price figures: one pricing run over everything the project holds.
func BenchmarkShowLargeProject(b *testing.B) {
	env := newBenchEnv(b, 0)
	pid := seedLargeProject(b, env.db, env.acct, env.client)
	env.run(b, "/v2/projects/"+pid)
}

// BenchmarkCreateProjectService adds a service to the large project (1,000
// services, 4,200 records in all) with POST /v2/project-services: the
// write, the project's new prices and the response.
func BenchmarkCreateProjectService(b *testing.B) {
	env := newBenchEnv(b, 0)
	pid := seedLargeProject(b, env.db, env.acct, env.client)
	env.post(b, "/v2/project-services", fmt.Sprintf(`{"data":{"type":"project-services",
		"attributes":{"name":"Extra","quantity":"2","unit-hours":"3.5"},
		"relationships":{"project":{"data":{"type":"projects","id":%q}}}}}`, pid))
}

// BenchmarkCreateProject creates a project (with the account's defaults)
// in an account of 1,000 projects.
func BenchmarkCreateProject(b *testing.B) {
	env := newBenchEnv(b, 1000)
	env.post(b, "/v2/projects", fmt.Sprintf(`{"data":{"type":"projects","attributes":{"project-name":"New"},
		"relationships":{"client":{"data":{"type":"clients","id":%q}}}}}`, env.client))
}

func (env *benchEnv) post(b *testing.B, path, body string) {
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		r.Header.Set("Accept", "application/vnd.api+json")
		r.Header.Set("Content-Type", "application/vnd.api+json")
		r.Header.Set("Authorization", "Bearer "+env.token)
		w := &discardWriter{h: http.Header{}}
		env.h.ServeHTTP(w, r)
		if w.code != http.StatusCreated {
			b.Fatalf("%s: %d", path, w.code)
		}
	}
}

// reportCPU reports the CPU time the process spent per operation
// (cpu-ms/op, every thread, garbage collection included) when the returned
// function runs. On a machine shared with other work, wall time per
// operation measures the other work too; CPU time much less so.
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
