package webapp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/scopekit/scopekit/internal/chromiumtest"
	"github.com/stretchr/testify/require"
)

func skipWithoutChromium(t *testing.T) {
	t.Helper()
	chromiumtest.Skip(t)
}

// startChromium starts headless Chromium with a fresh profile
// (internal/chromiumtest, as httpadapter's browser tests do) and returns a
// browser context that ends after timeout or with the test.
func startChromium(t *testing.T, timeout time.Duration) context.Context {
	t.Helper()
	return chromiumtest.Start(t, timeout)
}

// visit opens a path of the server and fails on an error status.
func (e *env) visit(t *testing.T, browser context.Context, path string) {
	t.Helper()
	res, err := chromedp.Run(browser, chromedp.NavigateResponse(e.srv.URL+path))
	require.NoError(t, err)
	require.Less(t, res.Status, int64(400), "%s answered %d", path, res.Status)
}

// viewport sets the window's size (CSS pixels).
func viewport(t *testing.T, browser context.Context, w, h int64) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if w < 600 {
		opts = append(opts, chromedp.EmulateMobile)
	}
	require.NoError(t, chromedp.Do(browser, chromedp.EmulateViewport(w, h, opts...)))
}

// browserSignIn signs in through the login page in Chromium.
func (e *env) browserSignIn(t *testing.T, browser context.Context, slug, email string) {
	t.Helper()
	e.visit(t, browser, "/app/")
	require.NoError(t, chromedp.Do(browser, chromedp.SetValue(chromedp.ID("account"), slug)))
	_, err := chromedp.RunResponse(browser, chromedp.Click(chromedp.ID("continue")))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(browser,
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password)))
	_, err = chromedp.RunResponse(browser, chromedp.Click(chromedp.ID("submit")))
	require.NoError(t, err)
	loc, err := chromedp.Run(browser, chromedp.Location())
	require.NoError(t, err)
	require.True(t, strings.Contains(loc, "/app/"+slug+"/"), "signed in to %s", loc)
}
