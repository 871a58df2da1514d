package webapp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Ensure every page can be looked at: with SCOPEKIT_SCREENSHOTS set to a
// folder, this writes a PNG of each page at 1440x900 and 390x844 there:
//
//	SCOPEKIT_SCREENSHOTS=$PWD/docs/workspace go test ./webapp -run TestScreenshots
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("SCOPEKIT_SCREENSHOTS")
	if dir == "" {
		t.Skip("set SCOPEKIT_SCREENSHOTS to a folder to write the workspace's screenshots")
	}
	skipWithoutChromium(t)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	e := newEnv(t)
	pid := e.screenshotState(t)
	browser := startChromium(t, 4*time.Minute)
	sizes := [][2]int64{{1440, 900}, {390, 844}}
	for _, size := range sizes {
		viewport(t, browser, size[0], size[1])
		e.visit(t, browser, "/app/?account=acme")
		shoot(t, browser, dir, fmt.Sprintf("signin-%d", size[0]))
	}
	pages := []struct{ name, path string }{
		{"projects", "/app/acme/projects"}, {"new-project", "/app/acme/projects/new"},
		{"scope", "/app/acme/projects/" + pid}, {"pricing", "/app/acme/projects/" + pid + "/pricing"},
		{"review", "/app/acme/projects/" + pid + "/review"}, {"approval", "/app/acme/projects/" + pid + "/approval"},
		{"documents", "/app/acme/projects/" + pid + "/documents"}, {"merge-data", "/app/acme/projects/" + pid + "/merge-data"},
		{"approvals", "/app/acme/approvals"},
	}
	e.browserSignIn(t, browser, "acme", "amy@acme.test")
	for _, size := range sizes {
		viewport(t, browser, size[0], size[1])
		for _, p := range pages {
			e.visit(t, browser, p.path)
			shoot(t, browser, dir, fmt.Sprintf("%s-%d", p.name, size[0]))
		}
	}
}

// shoot writes the visible part of the page to dir/name.png.
func shoot(t *testing.T, browser context.Context, dir, name string) {
	t.Helper()
	buf, err := chromedp.Run(browser, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644))
}
