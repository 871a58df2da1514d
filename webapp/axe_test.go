package webapp_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// axeEnv names axe-core's axe.min.js (npm axe-core, pinned in .ci/run).
const axeEnv = "SCOPEKIT_AXE"

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// axeSource is axe-core's script, or a skip when SCOPEKIT_AXE is unset.
func axeSource(t *testing.T) []byte {
	t.Helper()
	skipWithoutChromium(t)
	path := os.Getenv(axeEnv)
	if path == "" {
		t.Skipf("skipping the accessibility test: set %s to axe-core's axe.min.js (npm install axe-core@4.10.3; .ci/run does)", axeEnv)
	}
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	return src
}

// axeCheck runs axe-core on the browser's page and fails the test on a
// serious or critical violation.
func axeCheck(t *testing.T, browser context.Context, src []byte, page string) {
	t.Helper()
	require.NoError(t, chromedp.Do(browser, chromedp.Evaluate[chromedp.Void](string(src))))
	raw, err := chromedp.Run(browser, chromedp.Evaluate[[]byte](
		`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	var vs []axeViolation
	require.NoError(t, json.Unmarshal(raw, &vs))
	for _, v := range vs {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: %s (%s): %s, at %v", page, v.ID, v.Impact, v.Help, v.Nodes)
		}
	}
}

// Ensure axe-core finds no serious or critical accessibility violation
// on any page of the workspace, at both sizes, for an editor (every
// control shown) and on the sign-in.
func TestAccessibility(t *testing.T) {
	src := axeSource(t)
	e := newEnv(t)
	pid := e.screenshotState(t)
	browser := startChromium(t, 4*time.Minute)
	check := func(page string) { t.Helper(); axeCheck(t, browser, src, page) }
	pages := []string{"/app/acme/projects", "/app/acme/projects?status=draft", "/app/acme/projects/new", "/app/acme/projects/" + pid,
		"/app/acme/projects/" + pid + "/pricing", "/app/acme/projects/" + pid + "/review", "/app/acme/projects/" + pid + "/approval",
		"/app/acme/projects/" + pid + "/documents", "/app/acme/projects/" + pid + "/merge-data", "/app/acme/approvals",
		"/app/acme/catalog?q=a&project=" + pid}
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		e.visit(t, browser, "/app/?account=acme")
		check("sign-in")
	}
	e.browserSignIn(t, browser, "acme", "amy@acme.test")
	for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
		viewport(t, browser, size[0], size[1])
		for _, p := range pages {
			e.visit(t, browser, p)
			check(p)
		}
	}
}

// axeSourceIfSet is axe-core's source when the accessibility checks run
// (nil when they do not), for a test that goes on without them.
func axeSourceIfSet(t *testing.T) []byte {
	t.Helper()
	path := os.Getenv(axeEnv)
	if path == "" {
		return nil
	}
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	return src
}
