package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/office"
	"github.com/stretchr/testify/require"
)

// Ensure the server says at start whether it found LibreOffice's soffice
// (documents.md), and which converter makes the PDFs.
func TestStartLogsPDFConverter(t *testing.T) {
	if _, err := office.NewLibreOffice(""); err == nil {
		s := startServer(t, "", nil)
		require.Regexp(t, `msg="PDF converter: LibreOffice found; (soffice listeners start with the first PDF|a soffice per PDF)[^"]*" soffice=`, s.Stderr.String())
		s.stop(t)
		s = startServer(t, "", nil, "-pdf-listeners", "0")
		require.Contains(t, s.Stderr.String(), `msg="PDF converter: LibreOffice found; a soffice per PDF (no listeners kept running)"`)
		s.stop(t)
	}
	t.Setenv("PATH", t.TempDir()) // no soffice
	s := startServer(t, "", nil)
	require.Contains(t, s.Stderr.String(), `level=WARN msg="PDF generation unavailable: soffice (LibreOffice) not found; PDF requests will end in error with the DOCX kept"`)
}

// Ensure the server removes at start the converter's work folders a
// killed server left, a customer's document in them, and leaves alone
// the other files of the temp dir.
func TestStartRemovesStaleConverterFolders(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := time.Now().Add(-time.Hour)
	for _, dir := range []string{office.TempPrefix + "1234", office.TempPrefix + "5678"} {
		path := filepath.Join(tmp, dir)
		require.NoError(t, os.MkdirAll(filepath.Join(path, "out"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(path, "document.docx"), []byte("a customer's SOW"), 0o600))
		require.NoError(t, os.Chtimes(path, old, old))
	}
	// one with the lock file of a process that died: stale at once
	require.NoError(t, os.WriteFile(filepath.Join(tmp, office.TempPrefix+"5678", ".lock"), nil, 0o600))
	require.NoError(t, os.Chtimes(filepath.Join(tmp, office.TempPrefix+"5678"), time.Now(), time.Now()))
	require.NoError(t, os.WriteFile(filepath.Join(tmp, "other.txt"), []byte("not ours"), 0o600))

	s := startServer(t, "", nil)
	require.Contains(t, s.Stderr.String(), `msg="removed the PDF converter's work folders a stopped server left" folders=2`)
	left, err := filepath.Glob(filepath.Join(tmp, "*"))
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(tmp, "other.txt")}, left)
}

// Ensure uploads of templates holding 60 MiB of whitespace in their
// document.xml stay in bounded memory in the server binary: the peak
// resident size (VmHWM of /proc/<pid>/status) of a server that validated
// one stays under 300 MB, of one that validated eight at once under 1 GB.
func TestTemplateUploadMemory(t *testing.T) {
	if testing.Short() || runtime.GOOS != "linux" {
		t.Skip("builds and runs the server binary; reads /proc")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "scopekit-server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	file := docxtest.Whitespace(60<<20, "body")
	for _, tc := range []struct {
		uploads int
		limit   int // MB
	}{{1, 300}, {8, 1000}} {
		t.Run(strconv.Itoa(tc.uploads), func(t *testing.T) {
			addr := freeAddr(t)
			base := "http://" + addr
			srv := startBinary(t, bin, addr, filepath.Join(t.TempDir(), "scopekit.db"), "-log-level", "warn")
			tok := passwordToken(t, base)
			ids := make([]string, tc.uploads)
			for i := range ids {
				st, doc := call(t, http.MethodPost, base+"/demo/v1/document-templates", tok,
					fmt.Sprintf(`{"data":{"type":"document-templates","attributes":{"name":"Whitespace %d"}}}`, i))
				require.Equal(t, http.StatusCreated, st, "%v", doc)
				ids[i] = doc["data"].(map[string]any)["id"].(string)
			}
			before := peakRSS(t, srv.Process.Pid)
			start := time.Now()
			var wg sync.WaitGroup
			for _, id := range ids {
				wg.Go(func() {
					req, _ := http.NewRequest(http.MethodPut, base+"/demo/v1/document-templates/"+id+"/file", bytes.NewReader(file))
					req.Header.Set("Authorization", "Bearer "+tok)
					req.Header.Set("Content-Type", documents.ContentTypeDOCX)
					res, err := http.DefaultClient.Do(req)
					if !assertNoError(t, err) {
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						t.Errorf("upload: %d %s", res.StatusCode, b)
					}
				})
			}
			wg.Wait()
			peak := peakRSS(t, srv.Process.Pid)
			t.Logf("%d upload(s) of 60 MiB of whitespace (%d KiB zipped) in %v: peak RSS %d MB (%d MB before)",
				tc.uploads, len(file)>>10, time.Since(start).Round(time.Millisecond), peak, before)
			require.Less(t, peak, tc.limit)
		})
	}
}

// peakRSS is a process's peak resident size in MB.
func peakRSS(t *testing.T, pid int) int {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	require.NotNil(t, m)
	kb, _ := strconv.Atoi(string(m[1]))
	return kb / 1000
}

func assertNoError(t *testing.T, err error) bool {
	if err != nil {
		t.Error(err)
		return false
	}
	return true
}
