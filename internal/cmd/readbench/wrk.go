package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	rateRE   = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	non2xxRE = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// wrk runs wrk for d against url with conns connections and returns the
// requests per second; extra are more arguments (headers, a script).
func wrk(ctx context.Context, url string, conns int, d time.Duration, extra ...string) (float64, error) {
	args := append([]string{"-t1", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", int(d.Seconds()))}, extra...)
	out, err := exec.CommandContext(ctx, "wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("wrk %s: %v: %s", url, err, out)
	}
	if m := non2xxRE.FindSubmatch(out); m != nil {
		return 0, fmt.Errorf("wrk %s: %s answers not 2xx", url, m[1])
	}
	m := rateRE.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("wrk %s: no rate in %s", url, out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// rate runs wrk against path on every server of t at once, the
// connections spread over them, and returns the summed rate.
func (t *target) rate(ctx context.Context, path string, conns int, d time.Duration, extra ...string) (float64, error) {
	auth := []string{"-H", "Authorization: Bearer " + t.token, "-H", "Accept: application/vnd.api+json"}
	var mu sync.Mutex
	var sum float64
	var first error
	var wg sync.WaitGroup
	for i, base := range t.bases {
		c := conns / len(t.bases)
		if i < conns%len(t.bases) {
			c++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := wrk(ctx, base+path, c, d, append(auth, extra...)...)
			mu.Lock()
			defer mu.Unlock()
			sum += r
			if err != nil && first == nil {
				first = err
			}
		}()
	}
	wg.Wait()
	return sum, first
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// readRatios reads every route on every target, each beside a bare
// handler serving the same bytes, round after round, and prints each
// round and the medians: the rate, the ratio to the bare handler and, for
// targets after the first, the rate as a share of the first target's.
func readRatios(ctx context.Context, o *options, ts []*target) error {
	type cell struct{ ours, bare, ratio, vsFirst []float64 }
	cells := map[string]map[string]*cell{}
	for _, path := range o.routes {
		cells[path] = map[string]*cell{}
		for _, t := range ts {
			cells[path][t.name] = &cell{}
		}
	}
	for round := 1; round <= o.rounds; round++ {
		fmt.Printf("round %d of %d, load average %s\n", round, o.rounds, loadAvg())
		for _, path := range o.routes {
			var firstRate float64
			for i, t := range ts {
				body, err := t.get(ctx, t.bases[0], path)
				if err != nil {
					return err
				}
				ours, err := t.rate(ctx, path, o.conns, o.dur)
				if err != nil {
					return err
				}
				bareURL, stop, err := bare(body)
				if err != nil {
					return err
				}
				b, err := wrk(ctx, bareURL+"/", o.conns, o.dur)
				stop()
				if err != nil {
					return err
				}
				c := cells[path][t.name]
				c.ours, c.bare, c.ratio = append(c.ours, ours), append(c.bare, b), append(c.ratio, ours/b)
				line := fmt.Sprintf("  %-30s %-12s %9.0f req/s  bare %9.0f  ratio %.3f", path, t.name, ours, b, ours/b)
				if i == 0 {
					firstRate = ours
				} else {
					c.vsFirst = append(c.vsFirst, ours/firstRate)
					line += fmt.Sprintf("  %.2f of %s", ours/firstRate, ts[0].name)
				}
				fmt.Println(line)
			}
		}
	}
	fmt.Printf("medians of %d round(s):\n", o.rounds)
	for _, path := range o.routes {
		for i, t := range ts {
			c := cells[path][t.name]
			line := fmt.Sprintf("  %-30s %-12s %9.0f req/s  bare %9.0f  ratio %.3f", path, t.name, median(c.ours), median(c.bare), median(c.ratio))
			if i > 0 {
				line += fmt.Sprintf("  %.2f of %s", median(c.vsFirst), ts[0].name)
			}
			fmt.Println(line)
		}
	}
	return nil
}

// defaultProjects are the projects created on each store before reading:
// the list route's page of 250 is then a real page (the demo has one
// project).
const defaultProjects = 300

// seedProjects creates n projects on t (with createBody), as
// ../shared/tools/readbench does before it reads.
func seedProjects(ctx context.Context, t *target, n int) error {
	for i := range n {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, t.bases[0]+"/v2/projects", strings.NewReader(createBody))
		req.Header.Set("Authorization", "Bearer "+t.token)
		req.Header.Set("Accept", "application/vnd.api+json")
		req.Header.Set("Content-Type", "application/vnd.api+json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			return fmt.Errorf("%s: creating project %d of %d answered %d %s", t.name, i+1, n, res.StatusCode, b)
		}
	}
	if n > 0 {
		fmt.Printf("%s: %d projects created\n", t.name, n)
	}
	return nil
}

// createBody is the project each create posts (the demo's client 1).
const createBody = `{"data":{"type":"projects","attributes":{"project-name":"readbench"},` +
	`"relationships":{"client":{"data":{"type":"clients","id":"1"}}}}}`

// createRates posts projects on every target, round after round, and
// prints the creates per second.
func createRates(ctx context.Context, o *options, ts []*target) error {
	dir, err := os.MkdirTemp("", "readbench-lua")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "post.lua")
	var lua bytes.Buffer
	fmt.Fprintf(&lua, "wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/vnd.api+json\"\n", createBody)
	if err := os.WriteFile(script, lua.Bytes(), 0o600); err != nil {
		return err
	}
	rates := map[string][]float64{}
	for round := 1; round <= o.rounds; round++ {
		fmt.Printf("round %d of %d, load average %s\n", round, o.rounds, loadAvg())
		for i, t := range ts {
			r, err := t.rate(ctx, "/v2/projects", o.conns, o.dur, "-s", script)
			if err != nil {
				return err
			}
			rates[t.name] = append(rates[t.name], r)
			line := fmt.Sprintf("  POST /v2/projects %-12s %8.1f creates/s", t.name, r)
			if i > 0 {
				line += fmt.Sprintf("  %.2f of %s", r/rates[ts[0].name][round-1], ts[0].name)
			}
			fmt.Println(line)
		}
	}
	fmt.Printf("medians of %d round(s):\n", o.rounds)
	for _, t := range ts {
		fmt.Printf("  POST /v2/projects %-12s %8.1f creates/s\n", t.name, median(rates[t.name]))
	}
	return nil
}

// soak reads the first route for o.soak in runs of o.dur and prints the
// rate of each, with the first and last minute's medians.
func soak(ctx context.Context, o *options, t *target) error {
	path := o.routes[0]
	start := time.Now()
	var rates []float64
	for time.Since(start) < o.soak {
		r, err := t.rate(ctx, path, o.conns, o.dur)
		if err != nil {
			return err
		}
		rates = append(rates, r)
		fmt.Printf("  %6.0fs %s %s %9.0f req/s  load %s\n", time.Since(start).Seconds(), t.name, path, r, loadAvg())
	}
	n := max(1, int(time.Minute/o.dur))
	n = min(n, len(rates))
	fmt.Printf("first minute median %.0f req/s, last minute median %.0f req/s, over %d runs of %s\n",
		median(rates[:n]), median(rates[len(rates)-n:]), len(rates), o.dur)
	return nil
}
