package office_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/office"
	"github.com/stretchr/testify/require"
)

// Ensure a real LibreOffice turns a DOCX into a PDF (skipped without
// soffice; CI installs libreoffice-writer-nogui).
func TestLibreOfficePDF(t *testing.T) {
	lo, err := office.NewLibreOffice("")
	if err != nil {
		t.Skipf("LibreOffice not installed (Debian: libreoffice-writer-nogui): %v", err)
	}
	pdf, err := lo.ToPDF(t.Context(), docxtest.Build("Hello PDF"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(pdf), "%PDF"), "starts with %q", pdf[:min(8, len(pdf))])
}

// Ensure a missing program is ErrNoConverter.
func TestNoConverter(t *testing.T) {
	_, err := office.NewLibreOffice(filepath.Join(t.TempDir(), "no-soffice"))
	require.ErrorIs(t, err, office.ErrNoConverter)
	t.Setenv("PATH", t.TempDir())
	_, err = office.NewLibreOffice("")
	require.ErrorIs(t, err, office.ErrNoConverter)
	require.Contains(t, err.Error(), "libreoffice-writer-nogui")
}

// fakeSoffice writes a script that behaves as soffice for ToPDF: it
// records itself in dir while it runs, starts a child that outlives it
// unless its process group is killed, sleeps, then writes the PDF (or
// fails when its input says "fail").
func fakeSoffice(t *testing.T, dir string, sleep string) string {
	t.Helper()
	script := `#!/bin/sh
for a; do
  case "$prev" in --outdir) out="$a";; esac
  case "$a" in -env:UserInstallation=file://*) profile="${a#-env:UserInstallation=file://}";; esac
  prev="$a"; in="$a"
done
[ -n "$profile" ] || { echo "no private profile" >&2; exit 3; }
touch "` + dir + `/running.$$"
ls "` + dir + `" | grep -c '^running\.' >> "` + dir + `/seen"
sleep 60 & echo $! > "` + dir + `/child.$$"
sleep ` + sleep + `
rm -f "` + dir + `/running.$$"
if grep -q fail "$in"; then echo "source file could not be loaded" >&2; exit 1; fi
mkdir -p "$out" && printf '%%PDF-1.7 fake' > "$out/document.pdf"
`
	path := filepath.Join(t.TempDir(), "soffice")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// Ensure conversions run at most MaxConcurrent at once, each with its own
// profile, and a failure says why.
func TestLibreOfficeConcurrencyAndErrors(t *testing.T) {
	dir := t.TempDir()
	lo, err := office.NewLibreOffice(fakeSoffice(t, dir, "0.3"))
	require.NoError(t, err)
	lo.MaxConcurrent = 2
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for range 6 {
		wg.Go(func() {
			pdf, err := lo.ToPDF(context.Background(), []byte("docx"))
			if err == nil && !strings.HasPrefix(string(pdf), "%PDF") {
				err = errors.New("not a PDF")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	seen, err := os.ReadFile(filepath.Join(dir, "seen"))
	require.NoError(t, err)
	counts := strings.Fields(string(seen))
	require.Len(t, counts, 6)
	for _, c := range counts {
		n, _ := strconv.Atoi(c)
		require.LessOrEqual(t, n, 2, "more than MaxConcurrent conversions at once")
	}

	_, err = lo.ToPDF(context.Background(), []byte("fail"))
	require.ErrorContains(t, err, "PDF conversion failed")
	require.ErrorContains(t, err, "source file could not be loaded")
}

// Ensure a conversion past its timeout is stopped, the whole process group
// with it, and says it timed out.
func TestLibreOfficeTimeout(t *testing.T) {
	dir := t.TempDir()
	lo, err := office.NewLibreOffice(fakeSoffice(t, dir, "30"))
	require.NoError(t, err)
	lo.Timeout = 500 * time.Millisecond
	start := time.Now()
	_, err = lo.ToPDF(context.Background(), []byte("docx"))
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "timed out")
	require.Less(t, time.Since(start), 10*time.Second)
	children, _ := filepath.Glob(filepath.Join(dir, "child.*"))
	require.Len(t, children, 1)
	b, err := os.ReadFile(children[0])
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return syscall.Kill(pid, 0) != nil
	}, 5*time.Second, 50*time.Millisecond, "the converter's child process survived the timeout")

	// A canceled context stops a conversion waiting for its turn.
	lo.MaxConcurrent = 1
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = lo.ToPDF(ctx, []byte("docx"))
	require.ErrorIs(t, err, context.Canceled)
}
