package webapp_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// htmxSHA256 is the digest of dist/htmx.min.js in npm's htmx.org 2.0.11.
const htmxSHA256 = "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"

// Ensure the vendored htmx is the published file, unedited, with its
// licence beside it.
func TestVendoredHTMX(t *testing.T) {
	b, err := os.ReadFile("static/htmx-2.0.11.min.js")
	require.NoError(t, err)
	sum := sha256.Sum256(b)
	require.Equal(t, htmxSHA256, hex.EncodeToString(sum[:]))
	lic, err := os.ReadFile("static/htmx-LICENSE.txt")
	require.NoError(t, err)
	require.Contains(t, string(lic), "Zero-Clause BSD")
}

// Ensure the static files are served with an immutable cache header under
// their content's version, and nothing else is.
func TestStaticFiles(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	p := b.get("/app/")
	require.Equal(t, http.StatusOK, p.Status)
	srcs := regexp.MustCompile(`(?:src|href)="(/app/static/[^"]+)"`).FindAllStringSubmatch(p.Body, -1)
	require.Len(t, srcs, 3, "htmx, the script and the stylesheet")
	for _, m := range srcs {
		f := b.get(m[1])
		require.Equal(t, http.StatusOK, f.Status, m[1])
		require.Equal(t, "public, max-age=31536000, immutable", f.Header.Get("Cache-Control"))
		require.Equal(t, "nosniff", f.Header.Get("X-Content-Type-Options"))
	}
	for _, bad := range []string{"/app/static/0000/app.css", "/app/static/app.css", "/app/static/" + "x/../app.css"} {
		require.Equal(t, http.StatusNotFound, b.get(bad).Status, bad)
	}
}
