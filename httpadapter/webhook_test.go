package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/safehttp"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/webhook"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testKey = bytes.Repeat([]byte{7}, seal.KeySize)

func testSealer(t testing.TB) *seal.Sealer {
	s, err := seal.New(testKey)
	require.NoError(t, err)
	return s
}

// hit is one request a receiver got.
type hit struct {
	Header http.Header
	Body   []byte
	At     time.Time
}

// receiver is a real local webhook receiver; answer decides each reply
// from the number of the request (1, 2, ...).
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	hits []hit
	got  chan hit
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter)) *receiver {
	rc := &receiver{got: make(chan hit, 1000)}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := hit{Header: r.Header.Clone(), Body: b, At: time.Now()}
		rc.mu.Lock()
		rc.hits = append(rc.hits, h)
		n := len(rc.hits)
		rc.mu.Unlock()
		answer(n, w)
		rc.got <- h
	}))
	t.Cleanup(rc.Close)
	return rc
}

func status(code int) func(int, http.ResponseWriter) {
	return func(_ int, w http.ResponseWriter) { w.WriteHeader(code) }
}

// next waits for the receiver's next request.
func (rc *receiver) next(t *testing.T, within time.Duration) hit {
	t.Helper()
	select {
	case h := <-rc.got:
		return h
	case <-time.After(within):
		t.Fatalf("no delivery within %s", within)
		return hit{}
	}
}

// startDispatcher runs a dispatcher over the env's store with a fast
// schedule until the test ends; mod adjusts it before it starts.
func startDispatcher(t *testing.T, e *testEnv, mod func(d *webhook.Dispatcher)) *webhook.Dispatcher {
	d := &webhook.Dispatcher{Store: e.db, Secrets: testSealer(t), AllowPrivate: true,
		Schedule: []time.Duration{0, 50 * time.Millisecond, 50 * time.Millisecond}, PollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(d)
	}
	e.svc.Webhooks.Notify = d.Notify
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

// hookFlow is a priced project with one project service whose delivery
// status the tests change (each change is a service_status_changed event).
type hookFlow struct {
	*flow
	service string
}

func newHookFlow(t *testing.T) *hookFlow {
	f := newFlow(t)
	ps := f.e.create("/v2/project-services", f.admin, "project-services", `{"name":"Hooked","quantity":1,"unit-hours":1}`,
		"project", "projects", f.project)
	return &hookFlow{flow: f, service: ps}
}

func (f *hookFlow) setStatus(status string) {
	f.e.t.Helper()
	f.e.patch("/v2/project-services/"+f.service, f.admin, "project-services", f.service, `{"status":"`+status+`"}`)
}

// subscribe creates a subscription and returns its id and secret.
func (f *hookFlow) subscribe(eventType, url string) (id, secret string) {
	f.e.t.Helper()
	r := f.e.req(http.MethodPost, "/v2/webhook-subscriptions", f.admin,
		doc("webhook-subscriptions", "", fmt.Sprintf(`{"event-type":%q,"destination-url":%q}`, eventType, url)))
	require.Equal(f.e.t, http.StatusCreated, r.Status, "%s", r.Body)
	return r.data()["id"].(string), r.attr("secret").(string)
}

// publications waits until the subscription has at least n publications
// and returns them (oldest first).
func (f *hookFlow) publications(sub string, n int) []map[string]any {
	f.e.t.Helper()
	var list []map[string]any
	require.Eventually(f.e.t, func() bool {
		r := f.e.get("/v2/webhook-subscriptions/"+sub+"/webhook-publications", f.admin)
		require.Equal(f.e.t, http.StatusOK, r.Status, "%s", r.Body)
		list = r.list()
		return len(list) >= n
	}, 5*time.Second, 20*time.Millisecond)
	return list
}

func attrsOf(res map[string]any) map[string]any {
	a, _ := res["attributes"].(map[string]any)
	return a
}

func TestWebhookSubscriptions(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	const path = "/v2/webhook-subscriptions"
	body := func(attrs string) string { return doc("webhook-subscriptions", "", attrs) }

	t.Run("Ensure create returns the secret once and stores it only sealed", func(t *testing.T) {
		r := e.req(http.MethodPost, path, admin, body(`{"event-type":"project_status_changed","destination-url":"https://127.0.0.1:9/hook","description":"ops"}`))
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		secret, _ := r.attr("secret").(string)
		require.True(t, strings.HasPrefix(secret, "whsec_"), "secret %q", secret)
		_, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		assert.Equal(t, true, r.attr("active"))
		assert.Nil(t, r.attr("disabled-reason"))
		id := r.data()["id"].(string)

		got := e.get(path+"/"+id, admin)
		require.Equal(t, http.StatusOK, got.Status)
		assert.Nil(t, got.attr("secret"), "secret is shown only on create")
		assert.NotContains(t, string(got.Body), strings.TrimPrefix(secret, "whsec_"))
		list := e.get(path, admin)
		assert.NotContains(t, string(list.Body), strings.TrimPrefix(secret, "whsec_"))

		raw := e.stored()
		assert.False(t, bytes.Contains(raw, []byte(secret)), "secret in clear in the data file")
		assert.False(t, bytes.Contains(raw, []byte(strings.TrimPrefix(secret, "whsec_"))), "secret body in clear in the data file")

		upd := e.patch(path+"/"+id, admin, "webhook-subscriptions", id, `{"active":false,"description":"paused"}`)
		assert.Equal(t, false, upd.attr("active"))
		assert.Nil(t, upd.attr("secret"))
		assert.Equal(t, []string{id}, e.get(path+"?filter[active]=false", admin).ids())
		assert.Empty(t, e.get(path+"?filter[active]=true", admin).ids())
		assert.Equal(t, http.StatusOK, e.get(path+"/"+id, admin).Status, "an inactive subscription is still found")
		assert.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, path+"/"+id, admin, "").Status)
		assert.Equal(t, http.StatusNotFound, e.get(path+"/"+id, admin).Status)
	})

	t.Run("Ensure validation of event type and destination", func(t *testing.T) {
		for _, tc := range []struct{ name, attrs, pointer string }{
			{"unknown event type", `{"event-type":"project_created","destination-url":"https://example.com/h"}`, "/data/attributes/event-type"},
			{"missing event type", `{"destination-url":"https://example.com/h"}`, "/data/attributes/event-type"},
			{"missing destination", `{"event-type":"project_status_changed"}`, "/data/attributes/destination-url"},
			{"relative destination", `{"event-type":"project_status_changed","destination-url":"/hooks"}`, "/data/attributes/destination-url"},
			{"ftp destination", `{"event-type":"project_status_changed","destination-url":"ftp://example.com/h"}`, "/data/attributes/destination-url"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				assertError(t, e.req(http.MethodPost, path, admin, body(tc.attrs)), http.StatusUnprocessableEntity, tc.pointer)
			})
		}
		t.Run("secret is computed", func(t *testing.T) {
			assertError(t, e.req(http.MethodPost, path, admin, body(`{"event-type":"project_status_changed","destination-url":"https://127.0.0.1/h","secret":"whsec_AAAA"}`)),
				http.StatusBadRequest, "/data/attributes/secret")
		})
	})

	t.Run("Ensure private destinations need allow-private", func(t *testing.T) {
		e.svc.Webhooks.CheckDestination = webhook.CheckDestination(false)
		defer func() { e.svc.Webhooks.CheckDestination = webhook.CheckDestination(true) }()
		for _, u := range []string{"https://127.0.0.1/h", "https://10.1.2.3/h", "https://169.254.169.254/latest", "https://[::1]/h",
			"https://localhost/h", "http://example.com/h"} {
			r := e.req(http.MethodPost, path, admin, body(`{"event-type":"service_status_changed","destination-url":"`+u+`"}`))
			assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/destination-url")
		}
		e.svc.Webhooks.CheckDestination = webhook.CheckDestination(true)
		e.create(path, admin, "webhook-subscriptions", `{"event-type":"service_status_changed","destination-url":"http://127.0.0.1:9/h"}`)
	})

	t.Run("Ensure settings.webhooks guards reads and writes", func(t *testing.T) {
		sales := e.token("acme", "sales@acme.test", "Sales")
		assertError(t, e.get(path, sales), http.StatusForbidden, "")
		assertError(t, e.req(http.MethodPost, path, sales, body(`{"event-type":"service_status_changed","destination-url":"https://127.0.0.1/h"}`)), http.StatusForbidden, "")
		other := e.token("globex", "admin@globex.test", "Account Admin")
		assert.Empty(t, e.get(path, other).ids(), "another account's subscriptions are not listed")
	})
}

func TestWebhookDelivered(t *testing.T) {
	f := newHookFlow(t)
	e := f.e
	rc := newReceiver(t, status(http.StatusNoContent))
	sub, secret := f.subscribe("service_status_changed", rc.URL+"/hooks")
	startDispatcher(t, e, nil)

	start := time.Now()
	f.setStatus("in_progress")
	h := rc.next(t, 2*time.Second)
	t.Logf("delivered %s after the change", h.At.Sub(start))
	assert.Less(t, h.At.Sub(start), time.Second, "delivered within a second")
	assert.Equal(t, "application/vnd.api+json", h.Header.Get("Content-Type"))
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	require.NoError(t, wh.Verify(h.Body, h.Header), "signature verifies")

	var body struct {
		Data struct {
			Type, ID      string
			Attributes    map[string]any
			Relationships map[string]struct {
				Data struct{ Type, ID string }
			}
		}
	}
	require.NoError(t, json.Unmarshal(h.Body, &body))
	assert.Equal(t, "webhook-events", body.Data.Type)
	assert.Equal(t, h.Header.Get("webhook-id"), body.Data.ID, "webhook-id is the event id")
	assert.Equal(t, "service_status_changed", body.Data.Attributes["event-type"])
	assert.Equal(t, "not_started", body.Data.Attributes["old-status"])
	assert.Equal(t, "in_progress", body.Data.Attributes["new-status"])
	assert.NotEmpty(t, body.Data.Attributes["occurred-at"])
	assert.Equal(t, struct{ Type, ID string }{"project-services", f.service}, body.Data.Relationships["subject"].Data)
	assert.Equal(t, struct{ Type, ID string }{"projects", f.project}, body.Data.Relationships["project"].Data)

	pubs := f.publications(sub, 1)
	require.Len(t, pubs, 1)
	p := attrsOf(pubs[0])
	assert.Equal(t, "delivered", p["status"])
	assert.EqualValues(t, 204, p["response-status"])
	assert.EqualValues(t, 1, p["attempt"])
	assert.Equal(t, string(h.Body), p["payload"], "payload is the exact body sent")
	assert.Equal(t, map[string]any{"type": "project-services", "id": f.service, "event-type": "service_status_changed"}, p["source"])
	assert.Nil(t, p["error"])
	assert.Nil(t, p["next-attempt-at"])
	assert.NotEmpty(t, p["created-at"])
	assert.NotEmpty(t, p["completed-at"])

	pid := pubs[0]["id"].(string)
	one := e.get("/v2/webhook-subscriptions/"+sub+"/webhook-publications/"+pid, f.admin)
	require.Equal(t, http.StatusOK, one.Status, "%s", one.Body)
	assert.Equal(t, pid, one.data()["id"])
	assert.Equal(t, sub, one.rel("webhook-subscription"))
	other, _ := f.subscribe("project_status_changed", rc.URL)
	assertError(t, e.get("/v2/webhook-subscriptions/"+other+"/webhook-publications/"+pid, f.admin), http.StatusNotFound, "")
	assertError(t, e.get("/v2/webhook-subscriptions/"+sub+"/webhook-publications/999999", f.admin), http.StatusNotFound, "")
	assertError(t, e.req(http.MethodPost, "/v2/webhook-publications", f.admin, doc("webhook-publications", "", `{}`)), http.StatusMethodNotAllowed, "")

	// Deleting the subscription takes its publications with it.
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/v2/webhook-subscriptions/"+sub, f.admin, "").Status)
	assertError(t, e.get("/v2/webhook-subscriptions/"+sub+"/webhook-publications/"+pid, f.admin), http.StatusNotFound, "")
}

func TestWebhookRetries(t *testing.T) {
	t.Run("Ensure a 4xx is rejected and retried until the schedule is exhausted", func(t *testing.T) {
		f := newHookFlow(t)
		rc := newReceiver(t, status(http.StatusBadRequest))
		sub, _ := f.subscribe("service_status_changed", rc.URL)
		startDispatcher(t, f.e, nil)
		f.setStatus("in_progress")
		ids := map[string]bool{}
		for range 3 {
			ids[rc.next(t, 2*time.Second).Header.Get("webhook-id")] = true
		}
		assert.Len(t, ids, 1, "the same webhook-id on every attempt")
		pubs := f.publications(sub, 3)
		for i, p := range pubs {
			a := attrsOf(p)
			assert.Equal(t, "rejected", a["status"])
			assert.EqualValues(t, 400, a["response-status"])
			assert.EqualValues(t, i+1, a["attempt"])
			if i < 2 {
				assert.NotNil(t, a["next-attempt-at"])
			} else {
				assert.Nil(t, a["next-attempt-at"])
				assert.Contains(t, a["error"], "gave up after 3 attempts")
			}
		}
		select {
		case <-rc.got:
			t.Fatal("attempted after the schedule was exhausted")
		case <-time.After(300 * time.Millisecond):
		}
	})

	t.Run("Ensure a 5xx then 2xx is retried then delivered, honouring Retry-After", func(t *testing.T) {
		f := newHookFlow(t)
		rc := newReceiver(t, func(n int, w http.ResponseWriter) {
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		sub, secret := f.subscribe("service_status_changed", rc.URL)
		startDispatcher(t, f.e, nil)
		f.setStatus("on_hold")
		first, second := rc.next(t, 2*time.Second), rc.next(t, 3*time.Second)
		assert.Equal(t, first.Header.Get("webhook-id"), second.Header.Get("webhook-id"))
		assert.GreaterOrEqual(t, second.At.Sub(first.At), 900*time.Millisecond, "Retry-After: 1 honoured")
		wh, _ := standardwebhooks.NewWebhook(secret)
		require.NoError(t, wh.Verify(second.Body, second.Header))
		pubs := f.publications(sub, 2)
		assert.Equal(t, "rejected", attrsOf(pubs[0])["status"])
		assert.EqualValues(t, 503, attrsOf(pubs[0])["response-status"])
		assert.NotNil(t, attrsOf(pubs[0])["next-attempt-at"])
		assert.Equal(t, "delivered", attrsOf(pubs[1])["status"])
		assert.EqualValues(t, 2, attrsOf(pubs[1])["attempt"])
	})

	t.Run("Ensure a slow receiver times out as failed", func(t *testing.T) {
		f := newHookFlow(t)
		rc := newReceiver(t, func(int, http.ResponseWriter) { time.Sleep(300 * time.Millisecond) })
		sub, _ := f.subscribe("service_status_changed", rc.URL)
		startDispatcher(t, f.e, func(d *webhook.Dispatcher) {
			d.Client = safehttp.NewClient(100*time.Millisecond, true)
			d.Schedule = d.Schedule[:1]
		})
		f.setStatus("in_progress")
		pubs := f.publications(sub, 1)
		a := attrsOf(pubs[0])
		assert.Equal(t, "failed", a["status"])
		assert.Nil(t, a["response-status"])
		assert.Contains(t, a["error"], "Client.Timeout")
	})

	t.Run("Ensure 410 Gone disables the subscription", func(t *testing.T) {
		f := newHookFlow(t)
		rc := newReceiver(t, status(http.StatusGone))
		sub, _ := f.subscribe("service_status_changed", rc.URL)
		startDispatcher(t, f.e, nil)
		f.setStatus("in_progress")
		rc.next(t, 2*time.Second)
		pubs := f.publications(sub, 1)
		assert.Equal(t, "rejected", attrsOf(pubs[0])["status"])
		s := f.e.get("/v2/webhook-subscriptions/"+sub, f.admin)
		assert.Equal(t, false, s.attr("active"))
		assert.Contains(t, s.attr("disabled-reason"), "410")
		f.setStatus("on_hold")
		select {
		case <-rc.got:
			t.Fatal("a disabled subscription got a delivery")
		case <-time.After(300 * time.Millisecond):
		}
		r := f.e.patch("/v2/webhook-subscriptions/"+sub, f.admin, "webhook-subscriptions", sub, `{"active":true}`)
		assert.Nil(t, r.attr("disabled-reason"), "reactivating clears the reason")
	})
}

func TestWebhookDeadReceiverDoesNotDelayOthers(t *testing.T) {
	f := newHookFlow(t)
	release := make(chan struct{})
	dead := newReceiver(t, func(int, http.ResponseWriter) { <-release })
	t.Cleanup(func() { close(release) })
	live := newReceiver(t, status(http.StatusOK))
	f.subscribe("service_status_changed", dead.URL)
	f.subscribe("service_status_changed", live.URL)
	startDispatcher(t, f.e, func(d *webhook.Dispatcher) {
		d.PerSubscription, d.MaxInFlight, d.ShutdownGrace = 2, 4, 50*time.Millisecond
	})
	statuses := []string{"in_progress", "on_hold", "in_progress", "on_hold", "complete", "in_progress"}
	for _, s := range statuses {
		start := time.Now()
		f.setStatus(s)
		h := live.next(t, time.Second)
		assert.Less(t, h.At.Sub(start), 500*time.Millisecond)
	}
}
