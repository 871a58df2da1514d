package client_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests run the real example server (go build ./examples/server, once)
// as a child process on 127.0.0.1:0, each on a new database file: the
// client meets exactly what a user's program meets.

var (
	serverBin string
	buildErr  error
	// serverURL is the shared demo server of the Examples and of the tests
	// that need no limits of their own.
	serverURL string
)

// otherAccount is a second account, created by the shared server's
// bootstrap file, that the demo's users are no members of.
const bootstrapFile = `{"accounts": [{"slug": "other", "name": "Other Co", "default-currency": "USD"}]}`

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "scopekit-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "server")
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	if out, err := exec.Command(goBin, "build", "-o", serverBin, "github.com/scopekit/scopekit/examples/server").CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build ./examples/server: %v\n%s", err, out)
	}
	code := 1
	func() {
		if buildErr != nil {
			fmt.Fprintln(os.Stderr, buildErr)
			return
		}
		boot := filepath.Join(dir, "bootstrap.json")
		if err := os.WriteFile(boot, []byte(bootstrapFile), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
		s, err := start(filepath.Join(dir, "shared.db"), "-bootstrap", boot, "-demo=true")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return
		}
		defer s.stop()
		serverURL = s.URL
		code = m.Run()
	}()
	os.RemoveAll(dir)
	os.Exit(code)
}

type server struct {
	URL    string
	cmd    *exec.Cmd
	stderr *strings.Builder
	done   chan error
}

// start runs the server binary on the database file data and waits for its
// banner.
func start(data string, args ...string) (*server, error) {
	cmd := exec.Command(serverBin, append([]string{"-addr", "127.0.0.1:0", "-data", data, "-log-level", "warn"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stderr: &strings.Builder{}, done: make(chan error, 1)}
	cmd.Stderr = &lockedWriter{w: s.stderr}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "ScopeKit is serving "); ok {
				found <- strings.Fields(rest)[0]
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { s.done <- cmd.Wait() }()
	select {
	case s.URL = <-found:
		return s, nil
	case err := <-s.done:
		return nil, fmt.Errorf("the server exited: %v: %s", err, s.stderr)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return nil, fmt.Errorf("the server did not start within 60 s")
	}
}

func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// startServer starts a server for one test and stops it when the test ends.
func startServer(t *testing.T, data string, args ...string) *server {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	if data == "" {
		data = filepath.Join(t.TempDir(), "scopekit.db")
	}
	s, err := start(data, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	return s
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// recorder is a transport that logs each request the client sends (the
// token endpoint's with their grant type) and each answer's status.
type recorder struct {
	mu   sync.Mutex
	log  []string
	next http.RoundTripper
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	entry := req.Method + " " + req.URL.Path
	if req.URL.Path == "/oauth/token" && req.Body != nil {
		body, _ := io.ReadAll(req.Body)
		req.Body.Close()
		form, _ := url.ParseQuery(string(body))
		entry += " " + form.Get("grant_type")
		req.Body = io.NopCloser(strings.NewReader(string(body)))
	}
	res, err := r.next.RoundTrip(req)
	if err == nil {
		entry += fmt.Sprintf(" -> %d", res.StatusCode)
		if ra := res.Header.Get("Retry-After"); ra != "" {
			entry += " retry-after " + ra
		}
	}
	r.mu.Lock()
	r.log = append(r.log, entry)
	r.mu.Unlock()
	return res, err
}

func (r *recorder) entries() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

func newRecorder() (*recorder, *http.Client) {
	r := &recorder{next: http.DefaultTransport}
	return r, &http.Client{Transport: r, Timeout: 30 * time.Second}
}
