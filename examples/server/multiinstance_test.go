package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
)

// instance is one server process of a multi-instance test.
type instance struct {
	base string
	cmd  *exec.Cmd
}

// claim is the instances' -webhook-claim: it must outlast an attempt and
// its recording, which waits for the account's write lock behind the
// writers of the test (the default is a minute).
const claim = 10 * time.Second

// startInstances starts n server processes (this test binary acting as the
// server) on one PostgreSQL database with one secret key file; the first
// creates the demo account.
func startInstances(t testing.TB, n int, dbURL string) []*instance {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "secret.key")
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	require.NoError(t, os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600))
	out := make([]*instance, n)
	var wg sync.WaitGroup
	for i := range n {
		addr := freeAddr(t)
		args := []string{"-addr", addr, "-database", dbURL, "-data", filepath.Join(dir, fmt.Sprint(i, ".db")),
			"-secret-key-file", keyFile, "-webhook-allow-private", "-webhook-claim", claim.String(), "-log-level", "error",
			"-webhook-retry-schedule", "0s" + strings.Repeat(",200ms", 30), fmt.Sprint("-demo=", i == 0),
			"-token-rate", "1000", "-token-burst", "1000"}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), runMainEnv+"=1")
		cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		out[i] = &instance{base: "http://" + addr, cmd: cmd}
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.Eventually(t, func() bool {
				res, err := http.Get(out[i].base + "/v2/projects")
				if err == nil {
					res.Body.Close()
				}
				return err == nil
			}, 60*time.Second, 50*time.Millisecond, "instance %d did not start", i)
		}()
		if i == 0 {
			wg.Wait() // the first applies the migrations and creates the demo
		}
	}
	wg.Wait()
	return out
}

// hookReceiver counts deliveries by webhook-id. While hold is set it keeps
// requests open; a request whose sender goes away meanwhile is orphaned.
type hookReceiver struct {
	mu       sync.Mutex
	answered map[string]int  // webhook-id -> 2xx answers written to a live sender
	orphaned map[string]bool // webhook-id -> an attempt's sender died while held
	held     atomic.Int32
	hold     atomic.Bool
	release  chan struct{}
}

func newHookReceiver() *hookReceiver {
	return &hookReceiver{answered: map[string]int{}, orphaned: map[string]bool{}, release: make(chan struct{})}
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	id := r.Header.Get("webhook-id")
	if h.hold.Load() {
		h.held.Add(1)
		select {
		case <-h.release:
		case <-r.Context().Done(): // the sending instance was killed
			h.mu.Lock()
			h.orphaned[id] = true
			h.mu.Unlock()
			return
		}
	}
	h.mu.Lock()
	h.answered[id]++
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *hookReceiver) counts() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]int, len(h.answered))
	for k, v := range h.answered {
		out[k] = v
	}
	return out
}

// projectEvents lists the ids of the events that publications recorded,
// read through one instance.
func projectEvents(t *testing.T, base, tok string) map[string]bool {
	st, doc := call(t, http.MethodGet, base+"/v2/webhook-subscriptions", tok, "")
	require.Equal(t, http.StatusOK, st)
	ids := map[string]bool{}
	for _, s := range doc["data"].([]any) {
		sid := s.(map[string]any)["id"].(string)
		for page := 1; ; page++ {
			st, pubs := call(t, http.MethodGet, fmt.Sprintf("%s/v2/webhook-subscriptions/%s/webhook-publications?page[size]=1000&page[number]=%d", base, sid, page), tok, "")
			require.Equal(t, http.StatusOK, st, "%v", pubs)
			list := pubs["data"].([]any)
			for _, p := range list {
				var body struct{ Data struct{ ID string } }
				require.NoError(t, json.Unmarshal([]byte(p.(map[string]any)["attributes"].(map[string]any)["payload"].(string)), &body))
				ids[body.Data.ID] = true
			}
			if len(list) < 1000 {
				break
			}
		}
	}
	return ids
}

// TestInstancesShareOneDatabase runs three server processes on one
// PostgreSQL database: 64 concurrent writers spread over them lose no
// acknowledged record and never duplicate one, a contested unique name is
// taken once, a webhook subscription receives every event once, and after
// one instance is killed with SIGKILL mid-load nothing it acknowledged is
// lost and the deliveries it had claimed are made by the others.
func TestInstancesShareOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes")
	}
	dbURL := pgtest.URL(t)
	if !strings.HasPrefix(dbURL, "postgres://") && !strings.HasPrefix(dbURL, "postgresql://") {
		t.Skip(pgtest.EnvVar + " is not a postgres:// URL (the server's -database takes only URLs)")
	}
	recv := newHookReceiver()
	rc := httptest.NewServer(recv)
	defer rc.Close()
	inst := startInstances(t, 3, dbURL)
	tok := passwordToken(t, inst[0].base)
	st, sub := call(t, http.MethodPost, inst[1].base+"/v2/webhook-subscriptions", tok,
		`{"data":{"type":"webhook-subscriptions","attributes":{"event-type":"project_status_changed","destination-url":"`+rc.URL+`/hooks"}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", sub)

	type acked struct{ id, name string }
	var mu sync.Mutex
	var clients []acked
	var projects []string
	var dead atomic.Bool // instance 2 was killed: writers avoid it
	create := func(w, i int, typ, attrs, rels string) (string, int) {
		for try := 0; ; try++ {
			k := (w + i + try) % 3
			if k == 2 && dead.Load() {
				continue
			}
			body := `{"data":{"type":"` + typ + `","attributes":` + attrs + rels + `}}`
			req, _ := http.NewRequest(http.MethodPost, inst[k].base+"/v2/"+typ, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/vnd.api+json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				require.True(t, dead.Load() && k == 2, "instance %d: %v", k, err)
				continue // not acknowledged: the instance died
			}
			var doc struct{ Data struct{ ID string } }
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusCreated {
				return "", res.StatusCode
			}
			require.NoError(t, json.Unmarshal(b, &doc), "%s", b)
			return doc.Data.ID, res.StatusCode
		}
	}

	// phase 1: 64 writers on three instances, a contested unique name,
	// and one status change (one event) per writer's project
	const writers, each = 64, 2
	var wins atomic.Int32
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				name := fmt.Sprintf("Writer %02d client %d", w, i)
				id, st := create(w, i, "clients", fmt.Sprintf(`{"name":%q}`, name), "")
				require.Equal(t, http.StatusCreated, st, name)
				mu.Lock()
				clients = append(clients, acked{id, name})
				mu.Unlock()
			}
			if w%4 == 0 {
				if _, st := create(w, 0, "clients", `{"name":"Contested Ltd"}`, ""); st == http.StatusCreated {
					wins.Add(1)
				} else {
					require.Equal(t, http.StatusUnprocessableEntity, st)
				}
			}
			pid, st := create(w, 1, "projects", fmt.Sprintf(`{"project-name":"Writer %02d project"}`, w),
				`,"relationships":{"client":{"data":{"type":"clients","id":"1"}}}`)
			require.Equal(t, http.StatusCreated, st)
			st, body := call(t, http.MethodPatch, inst[(w+2)%3].base+"/v2/projects/"+pid, tok,
				fmt.Sprintf(`{"data":{"type":"projects","id":%q,"attributes":{"status":"canceled"}}}`, pid))
			require.Equal(t, http.StatusOK, st, "%v", body)
			mu.Lock()
			projects = append(projects, pid)
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.EqualValues(t, 1, wins.Load(), "a unique name is taken once")
	require.Eventually(t, func() bool { return len(recv.counts()) >= writers }, 30*time.Second, 50*time.Millisecond,
		"every event delivered")
	time.Sleep(500 * time.Millisecond) // a duplicate would show by now
	events := projectEvents(t, inst[2].base, tok)
	require.Len(t, events, writers)
	for id, n := range recv.counts() {
		require.True(t, events[id], "delivered event %s was never recorded", id)
		require.Equal(t, 1, n, "event %s delivered %d times", id, n)
	}

	// phase 2: the receiver holds deliveries open; events raised through
	// instance 2 are claimed by it; it is killed mid-load
	recv.hold.Store(true)
	for _, pid := range projects[:8] {
		st, body := call(t, http.MethodPatch, inst[2].base+"/v2/projects/"+pid, tok,
			fmt.Sprintf(`{"data":{"type":"projects","id":%q,"attributes":{"status":"draft"}}}`, pid))
		require.Equal(t, http.StatusOK, st, "%v", body)
	}
	require.Eventually(t, func() bool { return recv.held.Load() >= 8 }, 10*time.Second, 20*time.Millisecond, "attempts in flight")
	var acks atomic.Int32
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				name := fmt.Sprintf("Writer %02d late client %d", w, i)
				id, st := create(w, i, "clients", fmt.Sprintf(`{"name":%q}`, name), "")
				if st == http.StatusUnprocessableEntity {
					continue // committed by the killed instance, never acknowledged
				}
				require.Equal(t, http.StatusCreated, st, name)
				acks.Add(1)
				mu.Lock()
				clients = append(clients, acked{id, name})
				mu.Unlock()
			}
		}()
	}
	require.Eventually(t, func() bool { return acks.Load() >= writers }, 30*time.Second, 5*time.Millisecond)
	dead.Store(true)
	require.NoError(t, inst[2].cmd.Process.Kill()) // SIGKILL
	_ = inst[2].cmd.Wait()
	wg.Wait()
	close(recv.release)
	recv.hold.Store(false)

	recv.mu.Lock()
	orphaned := make([]string, 0, len(recv.orphaned))
	for id := range recv.orphaned {
		orphaned = append(orphaned, id)
	}
	recv.mu.Unlock()
	require.NotEmpty(t, orphaned, "instance 2 had claimed deliveries when it was killed")
	require.Eventually(t, func() bool {
		c := recv.counts()
		for _, id := range orphaned {
			if c[id] == 0 {
				return false
			}
		}
		return len(c) >= writers+8
	}, 30*time.Second, 50*time.Millisecond, "the killed instance's claimed deliveries made by the others")

	// every acknowledged client is present once, names are unique
	st, doc := call(t, http.MethodGet, inst[0].base+"/v2/clients?page[size]=1000", tok, "")
	require.Equal(t, http.StatusOK, st)
	byID := map[string]string{}
	names := map[string]int{}
	for _, c := range doc["data"].([]any) {
		m := c.(map[string]any)
		name := m["attributes"].(map[string]any)["name"].(string)
		require.NotContains(t, byID, m["id"].(string))
		byID[m["id"].(string)] = name
		names[strings.ToLower(name)]++
	}
	for name, n := range names {
		require.Equal(t, 1, n, "name %q stored %d times", name, n)
	}
	for _, c := range clients {
		require.Equal(t, c.name, byID[c.id], "acknowledged client %s %q", c.id, c.name)
	}
}

// BenchmarkInstanceWrites measures writes per second through the HTTP API
// (POST /v2/clients, 64 concurrent clients spread round-robin) with one and
// with three server processes on one PostgreSQL database. The writes are of
// one account, whose write transactions take turns (docs/scale-out.md).
func BenchmarkInstanceWrites(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			dbURL := pgtest.URL(b)
			inst := startInstances(b, n, dbURL)
			tok := passwordToken(b, inst[0].base)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			var next atomic.Int64
			b.SetParallelism(max(1, 64/runtime.GOMAXPROCS(0))) // 64 concurrent clients
			b.ResetTimer()
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					body := fmt.Sprintf(`{"data":{"type":"clients","attributes":{"name":"Bench client %d"}}}`, i)
					req, _ := http.NewRequest(http.MethodPost, inst[int(i)%n].base+"/v2/clients", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+tok)
					req.Header.Set("Content-Type", "application/vnd.api+json")
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != http.StatusCreated {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
		})
	}
}

// TestApprovalRaceAcrossInstances has the approver sign the same pending
// step through two instances at once, many times over: one signature
// counts, the others find the step no longer pending (409), and the
// project ends approved once.
func TestApprovalRaceAcrossInstances(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two server processes")
	}
	dbURL := pgtest.URL(t)
	if !strings.HasPrefix(dbURL, "postgres://") && !strings.HasPrefix(dbURL, "postgresql://") {
		t.Skip(pgtest.EnvVar + " is not a postgres:// URL (the server's -database takes only URLs)")
	}
	inst := startInstances(t, 2, dbURL)
	a, b := inst[0].base, inst[1].base
	tok := passwordToken(t, a)
	st, me := call(t, http.MethodGet, b+"/v1/me", tok, "")
	require.Equal(t, http.StatusOK, st, "%v", me)
	adminID := me["data"].(map[string]any)["id"].(string)
	st, level := call(t, http.MethodPost, a+"/demo/v1/approval-levels", tok,
		`{"data":{"type":"approval-levels","attributes":{"name":"Technical review","kind":"technical","position":1,
		"conditions":[{"field":"contract_revenue","operator":"gt","value":"5000"}]}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", level)
	st, body := call(t, http.MethodPost, b+"/demo/v1/line-of-business-approvals", tok,
		`{"data":{"type":"line-of-business-approvals","relationships":{
		"approval-level":{"data":{"type":"approval-levels","id":"`+level["data"].(map[string]any)["id"].(string)+`"}},
		"approvers":{"data":[{"type":"users","id":"`+adminID+`"}]}}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", body)
	// the demo's service account submits (a submitter may not approve)
	res, err := http.PostForm(b+"/oauth/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {"demo-bot"}, "client_secret": {"demo-bot-secret"}})
	require.NoError(t, err)
	var bot struct {
		AccessToken string `json:"access_token"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&bot))
	res.Body.Close()
	st, body = call(t, http.MethodPost, a+"/demo/v1/projects/1/submit", bot.AccessToken, "")
	require.Equal(t, http.StatusOK, st, "%v", body)
	st, steps := call(t, http.MethodGet, b+"/demo/v1/approval-steps?filter[project]=1&filter[status]=pending", tok, "")
	require.Equal(t, http.StatusOK, st, "%v", steps)
	list := steps["data"].([]any)
	require.Len(t, list, 1)
	step := list[0].(map[string]any)["id"].(string)

	const signers = 16
	codes := make(chan int, signers)
	var wg sync.WaitGroup
	for i := range signers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _ := call(t, http.MethodPost, inst[i%2].base+"/demo/v1/approval-steps/"+step+"/approve", tok, "")
			codes <- st
		}()
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	require.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: signers - 1}, count)
	st, p := call(t, http.MethodGet, a+"/v2/projects/1", tok, "")
	require.Equal(t, http.StatusOK, st)
	require.Equal(t, "approved", p["data"].(map[string]any)["attributes"].(map[string]any)["status"])
}
