package httpadapter

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure the throttle remembers at most MaxClients IPs, forgets idle ones,
// and keeps a blocked IP blocked while it is idle.
func TestThrottleMemoryBound(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	th := newThrottle(Throttle{Rate: 1, Burst: 2, BlockAfter: 1, BlockWindow: time.Minute, BlockFor: time.Hour, MaxClients: 3})
	for i := range 10 {
		require.Nil(t, th.admit(string(rune('a'+i)), t0))
	}
	require.Len(t, th.clients, 3)
	require.Equal(t, 3, th.lru.Len())
	for _, k := range []string{"h", "i", "j"} {
		require.Contains(t, th.clients, k, "the most recently seen are kept")
	}

	// idle clients go once their bucket is full and their window over
	require.Equal(t, time.Minute, th.idle)
	require.Nil(t, th.admit("x", t0.Add(2*time.Minute)))
	require.Len(t, th.clients, 1)

	// a blocked client stays while blocked, idle or not
	th2 := newThrottle(Throttle{Rate: 1, Burst: 1, BlockAfter: 1, BlockWindow: time.Minute, BlockFor: time.Hour})
	require.Nil(t, th2.admit("a", t0))
	ref := th2.admit("a", t0)
	require.Equal(t, http.StatusTooManyRequests, ref.status)
	require.Equal(t, http.StatusForbidden, th2.admit("a", t0).status)
	require.Nil(t, th2.admit("b", t0.Add(30*time.Minute)))
	require.Contains(t, th2.clients, "a")
	require.Equal(t, http.StatusForbidden, th2.admit("a", t0.Add(59*time.Minute)).status)
	require.Nil(t, th2.admit("a", t0.Add(61*time.Minute)))
}

// Ensure the block counts 429s within the window only.
func TestThrottleBlockWindow(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	th := newThrottle(Throttle{Rate: 1, Burst: 1, BlockAfter: 3, BlockWindow: 10 * time.Second, BlockFor: time.Hour})
	now := t0
	strike := func() int { return th.admit("a", now).status }
	require.Nil(t, th.admit("a", now)) // the bucket's one token
	require.Equal(t, 429, strike())
	require.Equal(t, 429, strike())
	now = now.Add(11 * time.Second) // the window is over: counting starts again
	require.Nil(t, th.admit("a", now))
	require.Equal(t, 429, strike())
	require.Equal(t, 429, strike())
	now = now.Add(2 * time.Second)
	require.Nil(t, th.admit("a", now))
	require.Equal(t, 429, strike(), "the third 429 within the window is still a 429")
	require.Equal(t, 403, strike())
	now = now.Add(59 * time.Minute)
	require.Equal(t, 403, strike())
}

func TestClientKey(t *testing.T) {
	for _, tt := range []struct {
		remote, xff string
		trust       bool
		want        string
	}{
		{"192.0.2.1:1234", "", false, "192.0.2.1"},
		{"192.0.2.1:1234", "203.0.113.9", false, "192.0.2.1"},
		{"192.0.2.1:1234", "203.0.113.9", true, "203.0.113.9"},
		{"192.0.2.1:1234", "198.51.100.1, 203.0.113.9", true, "203.0.113.9"},
		{"192.0.2.1:1234", "203.0.113.9:4711", true, "203.0.113.9"},
		{"192.0.2.1:1234", "[2001:db8::1]:4711", true, "2001:db8::/64"},
		{"192.0.2.1:1234", "not an ip", true, "192.0.2.1"},
		{"192.0.2.1:1234", "203.0.113.9,", true, "192.0.2.1"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", false, "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.7]:443", "", false, "192.0.2.7"},
		{"[fe80::1%eth0]:443", "", false, "fe80::/64"},
		{"@unix", "", false, "@unix"},
	} {
		r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		require.Equal(t, tt.want, clientKey(r, tt.trust), "%+v", tt)
	}
	r := &http.Request{RemoteAddr: "192.0.2.1:1", Header: http.Header{"X-Forwarded-For": {"198.51.100.1", "203.0.113.5"}}}
	require.Equal(t, "203.0.113.5", clientKey(r, true), "the last header line")
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Nanosecond: 1, time.Second: 1,
		time.Second + time.Millisecond: 2, 3999 * time.Millisecond: 4, time.Hour: 3600} {
		require.Equal(t, want, retryAfterSeconds(d), d.String())
	}
}

// Ensure the defaults are docs/operations.md's.
func TestThrottleDefaults(t *testing.T) {
	d := Throttle{}.withDefaults()
	require.Equal(t, Throttle{Rate: 10, Burst: 30, BlockAfter: 100, BlockWindow: 10 * time.Minute, BlockFor: time.Hour,
		GlobalRate: 500, MaxClients: 100_000}, d)
}

// Ensure the global ceiling holds under concurrency: requests in flight
// count against it, and those that mint nothing give their share back.
func TestThrottleGlobalCeiling(t *testing.T) {
	th := newThrottle(Throttle{GlobalRate: 5})
	now := time.Now()
	admitted := 0
	for range 20 {
		if th.mintBegin(now) == nil {
			admitted++
		}
	}
	require.Equal(t, 5, admitted, "burst = rate")
	ref := th.mintBegin(now)
	require.Equal(t, http.StatusTooManyRequests, ref.status)
	require.InDelta(t, 200*time.Millisecond, ref.retryAfter, float64(10*time.Millisecond))
	for range 4 {
		th.mintEnd(false)
	}
	th.mintEnd(true)
	admitted = 0
	for range 20 {
		if th.mintBegin(now) == nil {
			admitted++
		}
	}
	require.Equal(t, 4, admitted, "four given back, one minted")
}

// Ensure document generation is throttled by the client IP's bucket and by
// the account's, independently, and never blocks (403) however often it
// refuses.
func TestDocumentThrottleBuckets(t *testing.T) {
	s := &Server{DocumentThrottle: DocumentThrottle{Rate: 0.001, Burst: 1}, Throttle: Throttle{TrustProxy: true}}
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) // each refusal is logged
	t.Cleanup(func() { slog.SetDefault(prev) })
	try := func(ip, account string) int {
		r := httptest.NewRequest(http.MethodPost, "/v2/project-documents", nil)
		r.Header.Set("X-Forwarded-For", ip)
		w := httptest.NewRecorder()
		c := &call{w: w, r: r, actor: &engine.Actor{Account: &engine.Record{ID: account}}}
		if s.admitGeneration(c) {
			return http.StatusAccepted
		}
		require.Equal(t, "application/json", w.Header().Get("Content-Type"))
		require.Regexp(t, `^[1-9][0-9]*$`, w.Header().Get("Retry-After"))
		return w.Code
	}
	require.Equal(t, http.StatusAccepted, try("10.0.0.1", "1"))
	require.Equal(t, http.StatusTooManyRequests, try("10.0.0.2", "1"), "the account's bucket is empty")
	require.Equal(t, http.StatusTooManyRequests, try("10.0.0.1", "2"), "the address's bucket is empty")
	require.Equal(t, http.StatusAccepted, try("10.0.0.3", "3"))
	for range 200 {
		require.Equal(t, http.StatusTooManyRequests, try("10.0.0.3", "3"), "refused, never blocked")
	}
	s2 := &Server{DocumentThrottle: DocumentThrottle{Disabled: true}}
	require.Nil(t, s2.documentThrottler())
}
