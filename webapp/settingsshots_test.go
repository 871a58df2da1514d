package webapp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Ensure every settings page can be looked at, in both designs: with
// SCOPEKIT_SCREENSHOTS set to a folder, this writes a PNG of each at
// 1440x900 and 390x844 there (settings-{page}-{design}-{width}.png),
// with a modern list's record open for editing, a secret shown once and
// an import's check:
//
//	SCOPEKIT_SCREENSHOTS=$PWD/docs/workspace go test ./webapp -run TestSettingsScreenshots
func TestSettingsScreenshots(t *testing.T) {
	dir := os.Getenv("SCOPEKIT_SCREENSHOTS")
	if dir == "" {
		t.Skip("set SCOPEKIT_SCREENSHOTS to a folder to write the settings' screenshots")
	}
	skipWithoutChromium(t)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	e := newEnv(t)
	pages := e.settingsState(t)
	csv := filepath.Join(t.TempDir(), "Services.csv")
	require.NoError(t, os.WriteFile(csv, []byte("Name,Phase,Hours\nCabling,Plan,4\nSurvey,Nowhere,x\n"), 0o644))
	w := &walker{t: t, e: e, b: startChromium(t, 10*time.Minute)}
	e.browserSignIn(t, w.b, "acme", "amy@acme.test")
	for _, design := range []string{"classic", "modern"} {
		e.setDesign(t, "amy@acme.test", design)
		for _, size := range [][2]int64{{1440, 900}, {390, 844}} {
			viewport(t, w.b, size[0], size[1])
			name := func(page string) string { return fmt.Sprintf("settings-%s-%s-%d", page, design, size[0]) }
			for _, p := range pages {
				e.visit(t, w.b, p.path)
				if p.name == "template-preview" { // the PDF in the page
					require.NoError(t, chromedp.Do(w.b, chromedp.ScrollIntoView(chromedp.ID("preview"))))
					time.Sleep(2 * time.Second)
				}
				shoot(t, w.b, dir, name(p.name))
			}
			if design == "modern" { // a record edited where it is listed
				e.visit(t, w.b, "/app/acme/settings/services")
				require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.CSS(`.records details.editor summary`))))
				shoot(t, w.b, dir, name("services-editing"))
			}
			e.visit(t, w.b, "/app/acme/settings/import")
			require.NoError(t, chromedp.Do(w.b, chromedp.SetUploadFiles(chromedp.ID("i-file"), []string{csv})))
			require.NoError(t, chromedp.Do(w.b, chromedp.Click(chromedp.ID("import-check")))) // htmx: no page is left
			w.waitFor(`!!document.getElementById("refused")`, "the check's refused rows")
			shoot(t, w.b, dir, name("import-checked"))
			e.visit(t, w.b, "/app/acme/settings/webhooks/new")
			w.fill("#f-destination-url", "https://hooks.acme.test/"+design)
			w.click("#f-form button[type=submit]")
			shoot(t, w.b, dir, name("secret-once"))
		}
	}
}
