package webapp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure every page of the workspace renders for an admin.
func TestPagesRender(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid := e.seeded["acme"].ProjectID
	for _, path := range []string{"/app/acme/projects", "/app/acme/projects/new", "/app/acme/approvals",
		"/app/acme/projects/" + pid, "/app/acme/projects/" + pid + "/pricing", "/app/acme/projects/" + pid + "/review",
		"/app/acme/projects/" + pid + "/approval", "/app/acme/projects/" + pid + "/documents",
		"/app/acme/projects/" + pid + "/merge-data", "/app/acme/projects/" + pid + "/merge-data?version=2",
		"/app/acme/catalog?q=fire&project=" + pid} {
		p := b.get(path)
		require.Equal(t, http.StatusOK, p.Status, "%s: %s", path, p.Body)
	}
}
