package httpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the Swagger UI pages render in a real browser from the embedded
// assets: headless Chromium opens / (the v1 reference) and
// /docs/v2/swagger, waits for the operations list, finds the token
// endpoint, merge data and an action among the operations, opens one
// until its responses show, and takes a screenshot (kept in $SCOPEKIT_SCREENSHOT_DIR when set). The tags show
// collapsed; the test opens every one to list the operations.
func TestReferencePagesInBrowser(t *testing.T) {
	skipWithoutChromium(t)
	e := mustEnv(t)
	browser := startChromium(t, 90*time.Second)
	require.NoError(t, chromedp.Do(browser, chromedp.EmulateViewport(1280, 1600)))
	dir := os.Getenv("SCOPEKIT_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, tc := range []struct {
		name, path string
		min        int
		want       []string
	}{
		{"v1", "/", 150, []string{"/oauth/token", "/{slug}/v1/projects/{id}/merge-data", "/{slug}/v1/projects/{id}/submit", "/v1/me"}},
		{"v2", "/docs/v2/swagger", 60, []string{"/oauth/token", "/v2/projects", "/v2/projects/{id}/submit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := chromedp.Run(browser, chromedp.NavigateResponse(e.srv.URL+tc.path))
			require.NoError(t, err)
			require.EqualValues(t, 200, res.Status)
			require.NoError(t, chromedp.Do(browser, chromedp.WaitVisible(".opblock-tag")))
			opened, err := chromedp.Run(browser, chromedp.Evaluate[int](
				`(() => { const tags = document.querySelectorAll(".opblock-tag"); tags.forEach(e => e.click()); return tags.length })()`))
			require.NoError(t, err)
			require.Greater(t, opened, 5, "the tags list renders")
			require.NoError(t, chromedp.Do(browser, chromedp.WaitVisible(".opblock-summary-path")))
			title, err := chromedp.Run(browser, chromedp.Text(".info .title"))
			require.NoError(t, err)
			require.Contains(t, title, "ScopeKit API "+tc.name)
			paths, err := chromedp.Run(browser, chromedp.Evaluate[[]string](
				`Array.from(document.querySelectorAll(".opblock-summary-path")).map(e => e.getAttribute("data-path"))`))
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(paths), tc.min, "the operations list renders")
			for _, w := range tc.want {
				require.Contains(t, paths, w)
			}
			// an operation opens and shows its responses
			require.NoError(t, chromedp.Do(browser, chromedp.Click(`.opblock-summary-control`),
				chromedp.WaitVisible(`.opblock.is-open .responses-table`)))
			shot, err := chromedp.Run(browser, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.Greater(t, len(shot), 10_000)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "reference-"+tc.name+".png"), shot, 0o644))
		})
	}
}

// BenchmarkReferencePageUsable measures how long the v1 reference at /
// takes to become usable in Chromium: from the navigation until its
// tags list shows (Swagger UI has fetched, parsed and rendered the
// OpenAPI document and shows its tags). "first" is a first visit (the
// browser's cache off), "again" a visit with the document in the cache; each
// on the loopback and on an emulated link of 20 Mbit/s with 40 ms of
// latency (a server across a network). ms-usable is the wall time of a
// visit, main-thread-cpu-ms the page's main-thread CPU time (which the
// machine's other work inflates less), ms-operation-open the time a
// reader then waits for an operation to open (its tag and its first
// operation clicked, until its responses show; not in ns/op).
//
//	go test -run XXX -bench BenchmarkReferencePageUsable -benchtime 5x ./httpadapter/
//
// With SCOPEKIT_BENCH_JSPROFILE set to a folder, one more visit of each
// runs under Chromium's JavaScript profiler, written there as a
// .cpuprofile file (Chromium's DevTools open it).
func BenchmarkReferencePageUsable(b *testing.B) {
	skipWithoutChromium(b)
	const usable = ".opblock-tag"
	db := bolttest.Open(b, scoping.DefaultSchema())
	svc := scoping.NewService(db)
	s := &httpadapter.Server{Svc: svc, Auth: &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db)},
		Logger: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	browser := startChromium(b, 10*time.Minute)
	require.NoError(b, chromedp.Do(browser, chromedp.EmulateViewport(1280, 1600)))
	for _, link := range []struct {
		name       string
		conditions *network.Conditions
	}{
		{"loopback", nil},
		{"20Mbit", &network.Conditions{Latency: 40, DownloadThroughput: 20e6 / 8, UploadThroughput: 20e6 / 8}},
	} {
		for _, visit := range []string{"first", "again"} {
			b.Run(link.name+"/"+visit, func(b *testing.B) {
				tab, cancel := chromedp.NewContext(browser)
				defer cancel()
				require.NoError(b, chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					if _, err := cdp.Call(ctx, t, network.Enable, network.EnableParams{}); err != nil {
						return err
					}
					if _, err := cdp.Call(ctx, t, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: visit == "first"}); err != nil {
						return err
					}
					if link.conditions == nil {
						return nil
					}
					_, err := cdp.Call(ctx, t, network.EmulateNetworkConditionsByRule,
						network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: []*network.Conditions{link.conditions}})
					return err
				})))
				// the page's main-thread time: CPU time (thread ticks), which
				// the machine's other work does not inflate as it does the
				// wall time
				taskTime := func() float64 {
					m, err := chromedp.Run(tab, func(ctx context.Context, t *chromedp.Target) (float64, error) {
						res, err := cdp.Call(ctx, t, performance.GetMetrics, cdp.Empty{})
						if err != nil {
							return 0, err
						}
						for _, m := range res.Metrics {
							if m.Name == "TaskDuration" {
								return m.Value, nil
							}
						}
						return 0, errors.New("no TaskDuration metric")
					})
					require.NoError(b, err)
					return m
				}
				require.NoError(b, chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, performance.Enable, performance.EnableParams{TimeDomain: performance.EnableTimeDomainThreadTicks})
					return err
				})))
				open := func() (wall time.Duration, cpu float64) {
					before, start := taskTime(), time.Now()
					require.NoError(b, chromedp.Do(tab, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(usable)))
					wall, after := time.Since(start), taskTime()
					if after < before { // a new document counts from zero
						before = 0
					}
					return wall, after - before
				}
				// then a reader opens the projects tag and its first
				// operation, until the operation's responses show
				operation := func() time.Duration {
					start := time.Now()
					require.NoError(b, chromedp.Do(tab, chromedp.Click(`.opblock-tag[data-tag="projects"]`),
						chromedp.Click(`.opblock-tag-section.is-open .opblock-summary-control`),
						chromedp.WaitVisible(`.opblock.is-open .responses-table`)))
					return time.Since(start)
				}
				open() // the server builds its documents; "again" fills the cache
				var wall, op time.Duration
				var cpu float64
				for b.Loop() {
					w, c := open()
					wall, cpu = wall+w, cpu+c
					b.StopTimer()
					op += operation()
					b.StartTimer()
				}
				b.ReportMetric(float64(wall.Milliseconds())/float64(b.N), "ms-usable/op")
				b.ReportMetric(cpu*1000/float64(b.N), "main-thread-cpu-ms/op")
				b.ReportMetric(float64(op.Milliseconds())/float64(b.N), "ms-operation-open/op")
				if dir := os.Getenv("SCOPEKIT_BENCH_JSPROFILE"); dir != "" {
					profileVisit(b, tab, srv.URL+"/", usable, filepath.Join(dir, "reference-"+link.name+"-"+visit+".cpuprofile"))
				}
			})
		}
	}
}

// profileVisit opens url in tab until usable shows under Chromium's
// JavaScript sampling profiler (every 0.2 ms) and writes the profile to
// file.
func profileVisit(b *testing.B, tab context.Context, url, usable, file string) {
	require.NoError(b, chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
		return err
	}), chromedp.Navigate(url), chromedp.WaitVisible(usable)))
	prof, err := chromedp.Run(tab, func(ctx context.Context, t *chromedp.Target) (*profiler.Profile, error) {
		res, err := cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
		return res.Profile, err
	})
	require.NoError(b, err)
	out, err := json.Marshal(prof)
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(file, out, 0o644))
}
