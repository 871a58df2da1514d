package httpadapter_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Ensure the Swagger UI pages render in a real browser from the embedded
// assets: headless Chromium opens / (the v1 reference) and
// /docs/v2/swagger, waits for the operations list, finds the token
// endpoint, merge data and an action among the operations, and takes a
// screenshot (kept in $SCOPEKIT_SCREENSHOT_DIR when set).
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
			shot, err := chromedp.Run(browser, chromedp.CaptureScreenshot())
			require.NoError(t, err)
			require.Greater(t, len(shot), 10_000)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "reference-"+tc.name+".png"), shot, 0o644))
		})
	}
}
