package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure `server import` imports the demo's exported catalog (a dry run
// and an import that change nothing), reports a bad file's rows and exits
// 1 with one line, and refuses a database a server holds.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "scopekit.db")
	s := startServer(t, data, nil)
	tok := token(t, s.URL, demoBotClientID, demoBotSecret)
	req, err := http.NewRequest(http.MethodGet, s.URL+"/v1/catalog-export", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	export, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", export)
	catalog := filepath.Join(dir, "catalog.xlsx")
	require.NoError(t, os.WriteFile(catalog, export, 0o600))

	locked := runMain(t, 30*time.Second, nil, "import", "-data", data, "-account", "demo", "-file", catalog)
	assert.Equal(t, 1, locked.Code)
	assert.Contains(t, locked.Stderr, "a server using the file must be stopped first")
	s.stop(t)

	for _, args := range [][]string{{"-dry-run"}, {}} {
		r := runMain(t, 30*time.Second, []string{"SCOPEKIT_DATA=" + data}, append([]string{"import", "-account", "demo", "-file", catalog}, args...)...)
		require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
		assert.Contains(t, r.Stdout, "services: 2 rows, 0 created, 0 updated, 2 unchanged, 0 refused\n")
		assert.Contains(t, r.Stdout, "rates: 3 rows, 0 created, 0 updated, 3 unchanged, 0 refused\n")
	}

	bad := filepath.Join(dir, "services.csv")
	require.NoError(t, os.WriteFile(bad, []byte("Name,Hours\nAssessment,eight\n"), 0o600))
	r := runMain(t, 30*time.Second, nil, "import", "-data", data, "-account", "demo", "-file", bad)
	assert.Equal(t, 1, r.Code)
	assert.Contains(t, r.Stdout, `services row 2, Hours (B2): "eight" is not a number`)
	assert.Equal(t, []string{"scopekit: import: " + bad + ": the file has 1 error; nothing was written"}, lines(r.Stderr))

	for _, tc := range []struct{ args, want []string }{
		{[]string{"-account", "nobody", "-file", catalog}, []string{`scopekit: import: no account with the slug "nobody"`}},
		{[]string{"-account", "demo", "-file", filepath.Join(dir, "notes.txt")}, []string{"scopekit: import: -file " + filepath.Join(dir, "notes.txt") + ": the file must be .xlsx, .csv or .zip"}},
		{[]string{"-account", "demo"}, []string{"scopekit: import: -account and -file are required (see import -h)"}},
	} {
		r := runMain(t, 30*time.Second, nil, append([]string{"import", "-data", data}, tc.args...)...)
		assert.Equal(t, 1, r.Code)
		assert.Equal(t, tc.want, lines(r.Stderr))
	}
	missing := runMain(t, 30*time.Second, nil, "import", "-data", filepath.Join(dir, "none.db"), "-account", "demo", "-file", catalog)
	assert.Equal(t, 1, missing.Code)
	assert.Contains(t, missing.Stderr, "does not exist")
	assert.NoFileExists(t, filepath.Join(dir, "none.db"))
}
