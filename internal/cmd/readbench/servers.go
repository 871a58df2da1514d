package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// workspace holds what a run starts: the server binary, its processes,
// the PostgreSQL schema.
type workspace struct {
	dir     string
	server  string
	procs   []*exec.Cmd
	cleanup []func()
}

func numCPU() int { return runtime.NumCPU() }

// newWorkspace builds the example server into a temp dir.
func newWorkspace(ctx context.Context) (*workspace, error) {
	dir, err := os.MkdirTemp("", "readbench")
	if err != nil {
		return nil, err
	}
	w := &workspace{dir: dir, server: filepath.Join(dir, "server")}
	build := exec.CommandContext(ctx, "go", "build", "-o", w.server, "./examples/server")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		w.close()
		return nil, fmt.Errorf("build the example server (run from the project root): %w", err)
	}
	return w, nil
}

func (w *workspace) close() {
	for _, p := range w.procs {
		_ = p.Process.Kill()
		_ = p.Wait()
	}
	for i := len(w.cleanup) - 1; i >= 0; i-- {
		w.cleanup[i]()
	}
	os.RemoveAll(w.dir)
}

// freePort returns a loopback address no one listens on.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// start runs the example server with args and waits until it answers.
func (w *workspace) start(ctx context.Context, name string, args ...string) (string, error) {
	addr, err := freePort()
	if err != nil {
		return "", err
	}
	log, err := os.Create(filepath.Join(w.dir, name+".log"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command(w.server, append([]string{"-addr", addr, "-log-level", "error",
		"-secret-key-file", filepath.Join(w.dir, "secret.key")}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return "", err
	}
	w.procs = append(w.procs, cmd)
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if res, err := http.Get(base + "/v1/me"); err == nil {
			res.Body.Close()
			return base, nil
		}
	}
	b, _ := os.ReadFile(log.Name())
	return "", fmt.Errorf("%s did not start: %s", name, b)
}

// bbolt starts a server on a new bbolt file.
func (w *workspace) bbolt(ctx context.Context, o *options) (*target, error) {
	base, err := w.start(ctx, "bbolt", "-data", filepath.Join(w.dir, "scopekit.db"))
	if err != nil {
		return nil, err
	}
	return newTarget(ctx, "bbolt", []string{base}, o)
}

// schema creates an empty schema in the database of dbURL and returns the
// URL whose sessions use it.
func (w *workspace) schema(ctx context.Context, dbURL string, keep bool) (string, error) {
	raw := make([]byte, 4)
	rand.Read(raw)
	name := "readbench_" + hex.EncodeToString(raw)
	if err := execSQL(ctx, dbURL, "CREATE SCHEMA "+name); err != nil {
		return "", fmt.Errorf("create schema: %w", err)
	}
	if keep {
		fmt.Printf("schema %s kept\n", name)
	} else {
		w.cleanup = append(w.cleanup, func() { _ = execSQL(context.Background(), dbURL, "DROP SCHEMA "+name+" CASCADE") })
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

func execSQL(ctx context.Context, dbURL, sql string) error {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// postgres starts n servers on the database of dbURL (the first creates
// the demo data) and returns their base URLs.
func (w *workspace) postgres(ctx context.Context, dbURL string, n, poolConns int) ([]string, error) {
	if poolConns > 0 {
		u, err := url.Parse(dbURL)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("pool_max_conns", fmt.Sprint(poolConns))
		u.RawQuery = q.Encode()
		dbURL = u.String()
	}
	var bases []string
	for i := range n {
		base, err := w.start(ctx, fmt.Sprintf("pgstore-%d", i+1), "-database", dbURL)
		if err != nil {
			return nil, err
		}
		bases = append(bases, base)
	}
	return bases, nil
}

// target is a store to measure: one server, or several sharing one
// database (wrk's connections are spread over them).
type target struct {
	name  string
	bases []string
	token string
}

// newTarget gets a token from the first server.
func newTarget(ctx context.Context, name string, bases []string, o *options) (*target, error) {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {o.clientID}, "client_secret": {o.secret}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, bases[0]+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &tok); err != nil || tok.AccessToken == "" {
		return nil, fmt.Errorf("%s: no token from %s/oauth/token (%d %s)", name, bases[0], res.StatusCode, b)
	}
	return &target{name: name, bases: bases, token: tok.AccessToken}, nil
}

// get reads a route as the target's token.
func (t *target) get(ctx context.Context, base, path string) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	req.Header.Set("Authorization", "Bearer "+t.token)
	req.Header.Set("Accept", "application/vnd.api+json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %s", t.name, path, res.StatusCode, b)
	}
	return b, err
}

// bare serves body as a handler that does nothing else would, and returns
// its base URL and what stops it.
func bare(body []byte) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.api+json")
		w.Write(body)
	})}
	go srv.Serve(l)
	return "http://" + l.Addr().String(), func() { srv.Close() }, nil
}
