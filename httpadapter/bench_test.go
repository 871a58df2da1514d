package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"golang.org/x/crypto/bcrypt"
)

// benchEnv is an API over a database holding n projects of one account,
// served by the handler directly (no network), and a token for it.
type benchEnv struct {
	h      http.Handler
	token  string
	first  string // id of a project
	db     *boltstore.DB
	acct   string
	client string
}

func newBenchEnv(b *testing.B, n int) *benchEnv {
	b.Helper()
	ctx := context.Background()
	db, err := boltstore.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	svc := scoping.NewService(db)
	au := &auth.Service{Store: db.AuthStore(), Directory: db.Directory(), BcryptCost: bcrypt.MinCost}
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
	res, err := svc.Create(ctx, a, "clients", &scoping.Input{Attrs: map[string]json.RawMessage{"name": json.RawMessage(`"Globex"`)}}, false)
	if err != nil {
		b.Fatal(err)
	}
	client := res.Records[0].ID
	env := &benchEnv{token: tok.AccessToken, db: db, acct: acct, client: client}
	// Insert the projects in a few large transactions: the benchmark is
	// about reads, and one fsync per project would only slow the setup.
	for start := 0; start < n; start += 2000 {
		if err := db.Update(ctx, func(tx scoping.Tx) error {
			for i := start; i < min(start+2000, n); i++ {
				p := scoping.NewRecord("projects", acct)
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
	s := &httpadapter.Server{Svc: svc, Auth: au, BaseURL: "http://127.0.0.1:8080", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	env.h = s.Handler()
	return env
}

func (env *benchEnv) run(b *testing.B, path string) {
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		r.Header.Set("Accept", "application/vnd.api+json")
		r.Header.Set("Authorization", "Bearer "+env.token)
		w := &discardWriter{h: http.Header{}}
		env.h.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("%s: %d", path, w.code)
		}
	}
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

// seedLargeProject inserts pricing.md's large project into the bench
// database: 25 locations × 40 services × 3 subservices (4,000 labor
// lines), 12 resources, 6 governance items, 50 expenses and 50 products.
func seedLargeProject(b *testing.B, db *boltstore.DB, acct, client string) string {
	b.Helper()
	var pid string
	err := db.Update(context.Background(), func(tx scoping.Tx) error {
		ins := func(typ string, attrs map[string]any, rels map[string]string) string {
			r := scoping.NewRecord(typ, acct)
			for k, v := range attrs {
				r.Attrs[k] = v
			}
			for k, v := range rels {
				r.SetRel(k, v)
			}
			if err := tx.Insert(r); err != nil {
				b.Fatal(err)
			}
			return r.ID
		}
		pid = ins("projects", map[string]any{"project-name": "Large", "active": true, "status": "draft", "mrr-terms": int64(12),
			"revenue-adjustment": "-250", "cost-adjustment": "100"}, map[string]string{"client": client})
		p := map[string]string{"project": pid}
		var resources, phases, locations []string
		for i := 0; i < 12; i++ {
			resources = append(resources, ins("project-resources", map[string]any{"name": fmt.Sprintf("Resource %02d", i),
				"hourly-rate": fmt.Sprintf("%d.50", 150+i*10), "hourly-cost": fmt.Sprintf("%d.25", 70+i*5)}, p))
		}
		for i := 0; i < 3; i++ {
			phases = append(phases, ins("project-phases", map[string]any{"name": fmt.Sprintf("Phase %d", i), "position": int64(i)}, p))
		}
		for i := 0; i < 25; i++ {
			locations = append(locations, ins("project-locations", map[string]any{"name": fmt.Sprintf("Site %02d", i)}, p))
		}
		for l := 0; l < 25; l++ {
			for s := 0; s < 40; s++ {
				svc := ins("project-services", map[string]any{"name": fmt.Sprintf("Service %d-%d", l, s), "quantity": "2",
					"unit-hours": "7.25", "service-type": "professional_services", "position": int64(s)},
					map[string]string{"project": pid, "project-location": locations[l], "project-phase": phases[s%3],
						"project-resource": resources[s%12]})
				for u := 0; u < 3; u++ {
					ins("project-subservices", map[string]any{"name": fmt.Sprintf("Sub %d", u), "quantity": "3", "unit-hours": "1.35"},
						map[string]string{"project": pid, "project-service": svc, "project-resource": resources[(s+u)%12]})
				}
			}
		}
		for g := 0; g < 6; g++ {
			attrs := map[string]any{"name": fmt.Sprintf("Governance %d", g), "calculation-type": "percent_of_total", "rate": "0.05",
				"filter-type": "all_services", "allocation-method": "prorate_phases_by_effort"}
			if g%2 == 1 {
				attrs["calculation-type"], attrs["fixed-hours"] = "fixed_hours", "12.5"
			}
			ins("project-governances", attrs, map[string]string{"project": pid, "project-resource": resources[g]})
		}
		for i := 0; i < 50; i++ {
			ins("project-expenses", map[string]any{"description": fmt.Sprintf("Expense %d", i), "quantity": "2", "rate": "99.99", "unit-cost": "80"}, p)
			ins("project-products", map[string]any{"name": fmt.Sprintf("Product %d", i), "quantity": "3", "unit-price": "1999.99", "unit-cost": "1500"}, p)
		}
		return nil
	})
	if err != nil {
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
