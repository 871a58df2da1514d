package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/internal/boltcheck"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// The demo's identity (app.DemoAccount), as the tests name it.
var (
	demoIdentity      = app.DemoAccount()
	demoSlug          = demoIdentity.Slug
	demoName          = demoIdentity.Name
	demoProjectName   = demoIdentity.ProjectName
	demoAdminEmail    = demoIdentity.AdminEmail
	demoAdminPassword = demoIdentity.AdminPassword
	demoBotClientID   = demoIdentity.BotClientID
	demoBotSecret     = demoIdentity.BotSecret
	demoAppClientID   = demoIdentity.AppClientID
	demoAppSecret     = demoIdentity.AppSecret
	demoAppRedirect   = demoIdentity.AppRedirect
)

// runMainEnv makes the test binary act as the server binary: the tests
// start it as a child process to see exactly what a user sees (exit code,
// stderr lines) without a separate go build.
const runMainEnv = "SCOPEKIT_EXAMPLE_SERVER_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	bcryptCost = bcrypt.MinCost
	code := m.Run()
	pgtest.DropSchemas() // the multi-instance tests' databases
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for the server's and the test's
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is run() started in-process.
type testServer struct {
	URL    string
	Data   string
	Stdout *syncBuffer
	Stderr *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// env turns "NAME=value" pairs into a getenv function.
func env(pairs ...string) func(string) string {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// startServer runs the server on 127.0.0.1:0 with the database data (a
// new file in a temp dir when ""), waits until it serves, and stops it
// when the test ends, then checks the file for consistency.
func startServer(t *testing.T, data string, getenv func(string) string, args ...string) *testServer {
	t.Helper()
	s, err := tryStart(t, data, getenv, args...)
	require.NoError(t, err)
	return s
}

// tryStart is startServer returning the error of a start that fails.
func tryStart(t *testing.T, data string, getenv func(string) string, args ...string) (*testServer, error) {
	t.Helper()
	if data == "" {
		data = filepath.Join(t.TempDir(), "scopekit.db")
	}
	if getenv == nil {
		getenv = env()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{Data: data, Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	ready := make(chan string, 1)
	all := append([]string{"-addr", "127.0.0.1:0", "-data", data}, args...)
	go func() { s.done <- run(ctx, all, getenv, s.Stdout, s.Stderr, ready) }()
	select {
	case s.URL = <-ready:
	case err := <-s.done:
		cancel()
		return nil, err
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("server did not start within 30 s")
	}
	t.Cleanup(func() {
		s.stop(t)
		if _, err := os.Stat(data); err == nil { // a server on bbolt: check its file
			require.NoError(t, boltcheck.File(data))
		}
	})
	return s, nil
}

// stop cancels the server's context and waits for run to return.
func (s *testServer) stop(t *testing.T) {
	t.Helper()
	if s.done == nil {
		return
	}
	s.cancel()
	select {
	case err := <-s.done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop within 15 s")
	}
	s.done = nil
}

// token gets a client_credentials token from the token endpoint at
// authURL.
func token(t *testing.T, authURL, clientID, secret string) string {
	t.Helper()
	res, err := http.PostForm(authURL+"/oauth/token", url.Values{
		"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}})
	require.NoError(t, err)
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.Unmarshal(body, &tok))
	require.NotEmpty(t, tok.AccessToken)
	return tok.AccessToken
}

// getDoc GETs a JSON:API document with the bearer token and returns the
// status and the decoded body.
func getDoc(t *testing.T, rawURL, tok string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, rawURL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/vnd.api+json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var doc map[string]any
	body, _ := io.ReadAll(res.Body)
	if len(body) > 0 {
		require.NoError(t, json.Unmarshal(body, &doc), "%s", body)
	}
	return res.StatusCode, doc
}

// mainResult is what a user sees of one run of the binary.
type mainResult struct {
	Code           int
	Stdout, Stderr string
	Took           time.Duration
}

// runMain runs the test binary as the server binary with args and the
// extra environment, until it exits (killed after timeout).
func runMain(t *testing.T, timeout time.Duration, extraEnv []string, args ...string) mainResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), extraEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := mainResult{Stdout: stdout.String(), Stderr: stderr.String(), Took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	default:
		t.Fatalf("run %v: %v", args, err)
	}
	require.NoError(t, ctx.Err(), "the binary did not exit within %s", timeout)
	return r
}

// lines splits output into its non-empty lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
