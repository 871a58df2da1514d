// Package chromiumtest starts headless Chromium for the tests that look at
// pages as a person's browser does (chromedp), and skips them where
// Chromium is not installed.
package chromiumtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Path is Debian's Chromium, which .ci/run installs.
const Path = "/usr/bin/chromium"

// Skip skips the test when Chromium is not installed, saying how to get it.
func Skip(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(Path); err != nil {
		t.Skipf("skipping the browser test: %s is missing (install it with apt-get install chromium; .ci/run does)", Path)
	}
}

// Start starts headless Chromium with a fresh profile and returns a
// browser context that ends after timeout or with the test.
func Start(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	dir, err := os.MkdirTemp("", "scopekit-chromium")
	require.NoError(t, err)
	t.Cleanup(func() {
		for range 50 { // Chromium's children may still write there for a moment
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(Path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.NoFirstRun,
		chromedp.UserDataDir(dir),
	)
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancel() })
	return browser
}
