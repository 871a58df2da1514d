package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/boltcheck"
	"github.com/stretchr/testify/require"
)

// TestWebhookDeliveriesSurviveSIGKILL runs the built server binary, queues
// events for a receiver that refuses them, kills the server with SIGKILL,
// restarts it on the same file and sees every event delivered.
func TestWebhookDeliveriesSurviveSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "scopekit-server")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	var up atomic.Bool
	var mu sync.Mutex
	delivered := map[string]string{} // webhook-id -> new-status
	refused := 0
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if !up.Load() {
			refused++
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		var doc struct {
			Data struct {
				Attributes map[string]string
			}
		}
		_ = json.Unmarshal(b, &doc)
		delivered[r.Header.Get("webhook-id")] = doc.Data.Attributes["new-status"]
	}))
	defer rc.Close()

	data := filepath.Join(dir, "scopekit.db")
	addr := freeAddr(t)
	base := "http://" + addr
	start := func() *exec.Cmd {
		return startBinary(t, bin, addr, data, "-webhook-allow-private", "-log-level", "warn",
			"-webhook-retry-schedule", "0s"+strings.Repeat(",250ms", 60))
	}

	srv := start()
	tok := passwordToken(t, base)
	_, projects := call(t, http.MethodGet, base+"/v2/projects", tok, "")
	list := projects["data"].([]any)
	require.NotEmpty(t, list)
	project := list[0].(map[string]any)
	pid := project["id"].(string)
	st, sub := call(t, http.MethodPost, base+"/v2/webhook-subscriptions", tok,
		`{"data":{"type":"webhook-subscriptions","attributes":{"event-type":"project_status_changed","destination-url":"`+rc.URL+`/hooks"}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", sub)

	statuses := []string{"canceled", "draft", "canceled", "draft", "canceled"}
	if project["attributes"].(map[string]any)["status"] == "canceled" {
		statuses = []string{"draft", "canceled", "draft", "canceled", "draft"}
	}
	for _, s := range statuses {
		st, body := call(t, http.MethodPatch, base+"/v2/projects/"+pid, tok,
			fmt.Sprintf(`{"data":{"type":"projects","id":%q,"attributes":{"status":%q}}}`, pid, s))
		require.Equal(t, http.StatusOK, st, "%v", body)
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return refused >= len(statuses) },
		5*time.Second, 20*time.Millisecond, "the receiver saw the first attempts")
	require.NoError(t, srv.Process.Kill()) // SIGKILL: no shutdown at all
	_ = srv.Wait()

	up.Store(true)
	start()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(delivered) == len(statuses) },
		15*time.Second, 50*time.Millisecond, "every event delivered after the restart")
	mu.Lock()
	defer mu.Unlock()
	counts := map[string]int{}
	for _, s := range delivered {
		counts[s]++
	}
	want := map[string]int{}
	for _, s := range statuses {
		want[s]++
	}
	require.Equal(t, want, counts)
}

// startBinary runs the server binary bin on addr and the database data
// with the extra args, waits until it serves, and kills it when the test
// ends; a file killed with it must still pass bbolt's check.
func startBinary(t *testing.T, bin, addr, data string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", addr, "-data", data}, args...)...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		require.NoError(t, boltcheck.File(data))
	})
	require.Eventually(t, func() bool {
		res, err := http.Get("http://" + addr + "/v2/projects")
		if err == nil {
			res.Body.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "server did not start")
	return cmd
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// passwordToken signs in as the demo admin through the demo portal app.
func passwordToken(t testing.TB, base string) string {
	res, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"password"},
		"client_id": {"demo-portal"}, "client_secret": {"demo-portal-secret"},
		"username": {"admin@demo.test"}, "password": {"demo-admin-password"}})
	require.NoError(t, err)
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(res.Body)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", b)
	require.NoError(t, json.Unmarshal(b, &tok))
	return tok.AccessToken
}

func call(t testing.TB, method, u, tok, body string) (int, map[string]any) {
	var rd io.Reader
	if body != "" {
		rd = bytes.NewReader([]byte(body))
	}
	req, err := http.NewRequest(method, u, rd)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/vnd.api+json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var doc map[string]any
	b, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(b, &doc)
	return res.StatusCode, doc
}
