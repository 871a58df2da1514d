// Command readbench measures the example server's throughput with wrk, as
// a ratio to a bare net/http handler that writes the same bytes, and
// compares stores in one run: the same routes on a bbolt file and on
// PostgreSQL, side by side, round after round (medians reported with the
// load average), so that a loaded machine disturbs both alike.
//
// From the project root:
//
//	go run ./internal/cmd/readbench                        # bbolt and, with -database, PostgreSQL
//	go run ./internal/cmd/readbench -database postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable -rounds 5
//	go run ./internal/cmd/readbench -url http://10.0.0.5:8080   # a server already running (demo-bot's token)
//	go run ./internal/cmd/readbench -database ... -instances 3  # one instance against three on one database
//	go run ./internal/cmd/readbench -database ... -creates      # POST /v2/projects per second
//	go run ./internal/cmd/readbench -database ... -soak 10m     # one route for 10 minutes, the rate every -d
//
// PostgreSQL runs get a schema of their own in -database (dropped at the
// end unless -keep), so each starts from the demo data as a new bbolt file
// does. Each store then gets -projects projects (300 by default; none
// for -url unless asked), so that the list route reads a real page of 250
// as ../shared/tools/readbench does. Needs wrk (apt-get install -y wrk).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"time"
)

// options are the flags.
type options struct {
	url, database, clientID, secret string
	routes                          []string
	dur                             time.Duration
	conns, rounds, instances        int
	creates, keep, noBbolt          bool
	soak                            time.Duration
	poolConns                       int
	projects                        int // to create on each store first; -1: the default of the mode
}

// defaultRoutes are the reads of docs/scale-out.md and BENCHMARKS.md.
var defaultRoutes = []string{"/v2/projects/1", "/v2/clients/1", "/v1/me", "/v2/projects?page[size]=250"}

func main() {
	var o options
	routes := strings.Join(defaultRoutes, ",")
	flag.StringVar(&o.url, "url", "", "measure the server already running at this base `URL` (no stores started)")
	flag.StringVar(&o.database, "database", os.Getenv("SCOPEKIT_TEST_DATABASE"), "PostgreSQL `URL` to compare with bbolt (a schema of its own is created in it)")
	flag.StringVar(&o.clientID, "client-id", "demo-bot", "client_credentials `id` of the token the requests carry")
	flag.StringVar(&o.secret, "client-secret", "demo-bot-secret", "its `secret`")
	flag.StringVar(&routes, "routes", routes, "comma-separated `paths` to read")
	flag.DurationVar(&o.dur, "d", 8*time.Second, "length of each wrk run")
	flag.IntVar(&o.conns, "c", 32, "wrk connections")
	flag.IntVar(&o.rounds, "rounds", 1, "rounds of every measurement (medians reported)")
	flag.IntVar(&o.instances, "instances", 0, "with -database: also measure this many instances on one database, wrk spread over them")
	flag.IntVar(&o.poolConns, "pool", 0, "with -database: pool_max_conns of each instance (0: the store's default)")
	flag.BoolVar(&o.creates, "creates", false, "measure POST /v2/projects per second instead of reads")
	flag.DurationVar(&o.soak, "soak", 0, "read the first route for this long on the first store, printing the rate of each -d")
	flag.BoolVar(&o.keep, "keep", false, "keep the PostgreSQL schema (its name is printed)")
	flag.BoolVar(&o.noBbolt, "no-bbolt", false, "skip the bbolt store")
	flag.IntVar(&o.projects, "projects", -1, "`projects` to create on each store before reading, for a real list page (default 300; 0 with -url)")
	flag.Parse()
	o.routes = strings.Split(routes, ",")
	if _, err := exec.LookPath("wrk"); err != nil {
		fatal("wrk is not installed (apt-get install -y wrk)")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, &o); err != nil {
		fatal(err.Error())
	}
}

func fatal(msg string) {
	fmt.Fprintln(os.Stderr, "readbench:", msg)
	os.Exit(1)
}

func run(ctx context.Context, o *options) error {
	fmt.Printf("load average at start: %s\n", loadAvg())
	defer func() { fmt.Printf("load average at end: %s\n", loadAvg()) }()
	if o.url != "" {
		t, err := newTarget(ctx, "server", []string{strings.TrimRight(o.url, "/")}, o)
		if err == nil {
			err = seedProjects(ctx, t, max(o.projects, 0))
		}
		if err != nil {
			return err
		}
		return measure(ctx, o, []*target{t})
	}
	if o.projects < 0 {
		o.projects = defaultProjects
	}
	w, err := newWorkspace(ctx)
	if err != nil {
		return err
	}
	defer w.close()
	var ts []*target
	if !o.noBbolt {
		t, err := w.bbolt(ctx, o)
		if err == nil {
			err = seedProjects(ctx, t, o.projects)
		}
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	if o.database != "" {
		url, err := w.schema(ctx, o.database, o.keep)
		if err != nil {
			return err
		}
		n := 1
		if o.instances > 1 {
			n = o.instances
		}
		bases, err := w.postgres(ctx, url, n, o.poolConns)
		if err != nil {
			return err
		}
		t, err := newTarget(ctx, "pgstore", bases[:1], o)
		if err == nil {
			err = seedProjects(ctx, t, o.projects) // the instances share the database
		}
		if err != nil {
			return err
		}
		ts = append(ts, t)
		if n > 1 {
			t, err := newTarget(ctx, fmt.Sprintf("pgstore x%d", n), bases, o)
			if err != nil {
				return err
			}
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return fmt.Errorf("nothing to measure: give -database, or leave out -no-bbolt")
	}
	return measure(ctx, o, ts)
}

// measure runs what o asks for against the targets.
func measure(ctx context.Context, o *options, ts []*target) error {
	switch {
	case o.soak > 0:
		return soak(ctx, o, ts[0])
	case o.creates:
		return createRates(ctx, o, ts)
	}
	return readRatios(ctx, o, ts)
}

// loadAvg is the machine's load average (1, 5 and 15 minutes) and cores.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	return fmt.Sprintf("%s %s %s (%d cores)", f[0], f[1], f[2], numCPU())
}
