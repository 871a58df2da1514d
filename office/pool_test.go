package office_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/stretchr/testify/require"
)

// recordRestarts has pool report its listeners' restarts and returns
// what reports those so far.
func recordRestarts(pool *office.Pool) func() []string {
	var mu sync.Mutex
	var got []string
	pool.Restarted = func(reason string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, reason)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// longDocument is a DOCX of about forty pages: long enough to be killed
// in the middle of.
func longDocument() []byte {
	paras := make([]string, 1500)
	for i := range paras {
		paras[i] = fmt.Sprintf("Paragraph %d. %s", i, strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6))
	}
	return docxtest.Build(paras...)
}

// customerFiles lists the documents left under dir.
func customerFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".docx") || strings.HasSuffix(path, ".pdf")) {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// Ensure the warm converter converts with its listeners, survives the
// soffice of a listener killed in the middle of a conversion (that
// document is converted by a soffice of its own, the listener restarts and
// the next conversion is warm again), and leaves no document behind.
func TestPoolSurvivesKilledSoffice(t *testing.T) {
	pool := officetest.NewWarm(t, 1)
	reasons := recordRestarts(pool)
	officetest.Ready(t, pool)
	doc := docxtest.Build("Hello PDF")
	pdf, err := pool.ToPDF(t.Context(), doc)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(pdf), "%PDF"))
	warm, cold := pool.Counts()
	require.Equal(t, [2]int64{1, 0}, [2]int64{warm, cold})

	pids := office.PIDs(pool)
	require.Len(t, pids, 1)
	done := make(chan error, 1)
	go func() {
		_, err := pool.ToPDF(context.Background(), longDocument())
		done <- err
	}()
	require.Eventually(t, func() bool { return len(customerFiles(t, pool.Cold.TempDir)) > 0 },
		10*time.Second, 5*time.Millisecond, "the conversion did not start")
	require.NoError(t, syscall.Kill(pids[0], syscall.SIGKILL))
	require.NoError(t, <-done, "the document whose listener died is converted anyway")
	warm, cold = pool.Counts()
	require.Equal(t, [2]int64{1, 1}, [2]int64{warm, cold})

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, pool.Ready(ctx), "the listener restarts")
	require.NotEqual(t, pids, office.PIDs(pool))
	require.Equal(t, []string{office.RestartExited}, reasons())
	_, err = pool.ToPDF(t.Context(), doc)
	require.NoError(t, err)
	warm, _ = pool.Counts()
	require.Equal(t, int64(2), warm, "the next conversion is warm")
	require.Empty(t, customerFiles(t, pool.Cold.TempDir))
	require.Error(t, syscall.Kill(pids[0], 0), "the killed soffice is gone")
}

// Ensure a conversion that outruns its timeout stops with the timeout,
// its listener is restarted, and the next conversion works.
func TestPoolTimeout(t *testing.T) {
	pool := officetest.NewWarm(t, 1)
	reasons := recordRestarts(pool)
	officetest.Ready(t, pool)
	pool.Cold.Timeout = 50 * time.Millisecond
	_, err := pool.ToPDF(t.Context(), longDocument())
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.ErrorContains(t, err, "timed out")
	pool.Cold.Timeout = 0
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, pool.Ready(ctx))
	require.Equal(t, []string{office.RestartTimeout}, reasons())
	_, err = pool.ToPDF(t.Context(), docxtest.Build("after"))
	require.NoError(t, err)
	require.Empty(t, customerFiles(t, pool.Cold.TempDir))
}

// Ensure that without a working listener (here its UNO helper cannot
// start) the cold converter makes the PDFs.
func TestPoolFallsBack(t *testing.T) {
	dir := t.TempDir()
	lo, err := office.NewLibreOffice(fakeSoffice(t, dir, "0"))
	require.NoError(t, err)
	lo.TempDir = t.TempDir()
	pool := &office.Pool{Cold: lo, Python: "false", StartTimeout: time.Second}
	reasons := recordRestarts(pool)
	defer pool.Close()
	for range 3 {
		pdf, err := pool.ToPDF(t.Context(), []byte("docx"))
		require.NoError(t, err)
		require.Equal(t, "%PDF-1.7 fake", string(pdf))
	}
	warm, cold := pool.Counts()
	require.Equal(t, [2]int64{0, 3}, [2]int64{warm, cold})
	require.Eventually(t, func() bool { return slices.Contains(reasons(), office.RestartStartFailed) }, 10*time.Second, 10*time.Millisecond,
		"a listener that does not start is reported")
	require.NoError(t, pool.Close())
	left, _ := filepath.Glob(filepath.Join(lo.TempDir, office.TempPrefix+"*"))
	require.Empty(t, left, "Close removes the listeners' work folders")
}

// killChildEnv makes the test binary convert a document until it is
// killed (see TestKilledConverterLeavesNothing).
const killChildEnv = "SCOPEKIT_DOCUMENTS_KILL_CHILD"

// Ensure a converter killed in the middle of a conversion (SIGKILL: no
// defer runs) leaves its work folder, customer document and all, only
// until RemoveStaleTempDirs, which a server runs at start; and that the
// warm converter's LibreOffice dies with its process.
func TestKilledConverterLeavesNothing(t *testing.T) {
	for _, mode := range []string{"cold", "warm"} {
		t.Run(mode, func(t *testing.T) {
			dir, fakeDir := t.TempDir(), t.TempDir()
			arg := ""
			switch mode {
			case "cold":
				arg = fakeSoffice(t, fakeDir, "30")
			case "warm":
				officetest.NewWarm(t, 1) // skips without LibreOffice and python3-uno
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$")
			cmd.Env = append(os.Environ(), killChildEnv+"="+mode+"|"+dir+"|"+arg)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			var pids []int
			if mode == "warm" {
				var pid int
				_, err := fmt.Fscanf(out, "soffice %d\n", &pid)
				require.NoError(t, err)
				pids = append(pids, pid)
			}
			require.Eventually(t, func() bool { return len(customerFiles(t, dir)) > 0 }, time.Minute, 5*time.Millisecond,
				"the child did not start converting")
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()

			require.NotEmpty(t, customerFiles(t, dir), "SIGKILL leaves the document behind")
			for _, pid := range pids {
				require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 10*time.Second, 10*time.Millisecond,
					"soffice outlived the process that started it")
			}
			pipes := filepath.Join("/tmp", fmt.Sprintf("OSL_PIPE_%d_scopekit-%d-*", os.Getuid(), cmd.Process.Pid))
			// A process the child was starting when it was killed holds a
			// copy of the folder's lock from its fork until it execs or
			// dies (its parent-death signal): a few milliseconds, more on
			// a loaded machine. Until then the folder is rightly in use.
			removed := 0
			require.Eventually(t, func() bool {
				n, err := office.RemoveStaleTempDirs(dir)
				require.NoError(t, err)
				removed += n
				return removed > 0
			}, 10*time.Second, 5*time.Millisecond, "the dead child's work folder is never taken for stale")
			left, _ := filepath.Glob(filepath.Join(dir, "*"))
			require.Empty(t, left, "the stale work folders are removed")
			left, _ = filepath.Glob(pipes)
			require.Empty(t, left, "the dead listener's pipe is removed")
			if mode == "cold" { // the fake's own child, left to run on purpose
				children, _ := filepath.Glob(filepath.Join(fakeDir, "child.*"))
				for _, c := range children {
					b, _ := os.ReadFile(c)
					var pid int
					if _, err := fmt.Sscan(string(b), &pid); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
		})
	}
	// A folder in use is left alone, by this process and any other.
	lo, err := office.NewLibreOffice(fakeSoffice(t, t.TempDir(), "2"))
	require.NoError(t, err)
	lo.TempDir = t.TempDir()
	done := make(chan error, 1)
	go func() { _, err := lo.ToPDF(context.Background(), []byte("docx")); done <- err }()
	require.Eventually(t, func() bool { return len(customerFiles(t, lo.TempDir)) > 0 }, 10*time.Second, 5*time.Millisecond)
	removed, err := office.RemoveStaleTempDirs(lo.TempDir)
	require.NoError(t, err)
	require.Zero(t, removed)
	require.NoError(t, <-done)
	require.Empty(t, customerFiles(t, lo.TempDir))
}

// TestKillChild is TestKilledConverterLeavesNothing's converting process.
func TestKillChild(t *testing.T) {
	spec := os.Getenv(killChildEnv)
	if spec == "" {
		t.Skip("run by TestKilledConverterLeavesNothing")
	}
	parts := strings.Split(spec, "|")
	mode, dir, soffice := parts[0], parts[1], parts[2]
	lo, err := office.NewLibreOffice(soffice)
	require.NoError(t, err)
	lo.TempDir = dir
	var conv office.Converter = lo
	doc := []byte("docx")
	if mode == "warm" {
		pool, err := office.NewPool(lo)
		require.NoError(t, err)
		pool.Listeners = 1
		require.NoError(t, pool.Ready(t.Context()))
		fmt.Printf("soffice %d\n", office.PIDs(pool)[0])
		conv, doc = pool, longDocument()
	}
	for {
		_, _ = conv.ToPDF(t.Context(), doc) // until killed
	}
}
