package httpadapter

import (
	"container/list"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"golang.org/x/time/rate"
)

// Throttle configures the throttling of the auth host (docs/auth.md,
// "Throttling on the auth host"; the defaults are docs/operations.md's flags).
// Each client IP has a token bucket shared by /oauth/token, and also by
// the login form (POST /oauth/authorize) and invitation acceptance, which
// guess passwords and tokens just as well; the login page (GET) is free.
// Over it a request gets 429 with Retry-After; an IP that collected
// BlockAfter such answers within BlockWindow gets 403, without
// Retry-After, for BlockFor. A global bucket caps the tokens minted per
// second across all clients (429 too). API data endpoints are never
// throttled. Zero fields take their defaults.
type Throttle struct {
	// Rate is the requests per second each client IP may make; default 10.
	Rate float64
	// Burst is the size of each IP's bucket; default 30.
	Burst int
	// BlockAfter is how many 429 answers within BlockWindow block an IP;
	// default 100. The window starts at the first 429 after a quiet one.
	BlockAfter int
	// BlockWindow defaults to 10 minutes.
	BlockWindow time.Duration
	// BlockFor is how long a blocked IP gets 403; default 1 hour.
	BlockFor time.Duration
	// GlobalRate is the ceiling on tokens minted per second by
	// POST /oauth/token across all clients (its burst is the same number,
	// at least 1); default 500. Refused requests give their token back.
	GlobalRate float64
	// TrustProxy takes the client IP from the last X-Forwarded-For entry
	// (the one the proxy in front added) instead of the connection's
	// remote address. Set it only behind exactly one trusted proxy.
	TrustProxy bool
	// MaxClients bounds the IPs remembered; the least recently seen are
	// forgotten first (idle ones are forgotten anyway once their bucket
	// would be full and their window over). Default 100,000.
	MaxClients int
	// Disabled turns throttling off (for programs that throttle in front).
	Disabled bool
}

// Defaults of Throttle (docs/operations.md).
const (
	DefaultTokenRate        = 10
	DefaultTokenBurst       = 30
	DefaultTokenBlockAfter  = 100
	DefaultTokenBlockWindow = 10 * time.Minute
	DefaultTokenBlockFor    = time.Hour
	DefaultTokenGlobalRate  = 500
	DefaultThrottleClients  = 100_000
)

// withDefaults returns t with its zero fields set.
func (t Throttle) withDefaults() Throttle {
	if !(t.Rate > 0) {
		t.Rate = DefaultTokenRate
	}
	if t.Burst <= 0 {
		t.Burst = DefaultTokenBurst
	}
	if t.BlockAfter <= 0 {
		t.BlockAfter = DefaultTokenBlockAfter
	}
	if t.BlockWindow <= 0 {
		t.BlockWindow = DefaultTokenBlockWindow
	}
	if t.BlockFor <= 0 {
		t.BlockFor = DefaultTokenBlockFor
	}
	if !(t.GlobalRate > 0) {
		t.GlobalRate = DefaultTokenGlobalRate
	}
	if t.MaxClients <= 0 {
		t.MaxClients = DefaultThrottleClients
	}
	return t
}

// throttle is the state of a Throttle: one bucket per client, LRU-ordered.
type throttle struct {
	cfg    Throttle
	idle   time.Duration // after this long unseen, a client is as good as new
	global *rate.Limiter

	gmu     sync.Mutex // guards minting, and global's check-then-take
	minting int        // token requests in flight, each owed one global token

	mu      sync.Mutex
	clients map[string]*list.Element // of *clientState
	lru     *list.List               // front: most recently seen
}

type clientState struct {
	key          string
	bucket       *rate.Limiter
	lastSeen     time.Time
	strikes      int // 429s since windowStart
	windowStart  time.Time
	blockedUntil time.Time
}

// refusal is a throttled answer: 429 with RetryAfter, or 403 (blocked).
type refusal struct {
	status     int
	retryAfter time.Duration
	desc       string
}

// sweepPerRequest bounds the idle clients forgotten by one request, so
// that no request pays for a large sweep.
const sweepPerRequest = 8

func newThrottle(cfg Throttle) *throttle {
	cfg = cfg.withDefaults()
	fill := time.Duration(float64(cfg.Burst) / cfg.Rate * float64(time.Second))
	return &throttle{
		cfg:     cfg,
		idle:    max(fill, cfg.BlockWindow),
		global:  rate.NewLimiter(rate.Limit(cfg.GlobalRate), max(1, int(math.Ceil(cfg.GlobalRate)))),
		clients: map[string]*list.Element{},
		lru:     list.New(),
	}
}

// admit takes one request of the client from its bucket, or says why not.
func (t *throttle) admit(key string, now time.Time) *refusal {
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.client(key, now)
	if now.Before(c.blockedUntil) {
		return &refusal{status: http.StatusForbidden,
			desc: "this address sent too many requests that were throttled and is blocked for a while"}
	}
	r := c.bucket.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay == 0 {
		return nil
	}
	r.CancelAt(now)
	if now.Sub(c.windowStart) > t.cfg.BlockWindow {
		c.windowStart, c.strikes = now, 0
	}
	c.strikes++
	if c.strikes >= t.cfg.BlockAfter {
		c.blockedUntil, c.strikes = now.Add(t.cfg.BlockFor), 0
	}
	return &refusal{status: http.StatusTooManyRequests, retryAfter: delay,
		desc: "too many requests from this address; retry after the Retry-After delay"}
}

// client returns the state of key, created if new, and marks it seen;
// t.mu held. It forgets idle clients, and the least recently seen ones
// beyond MaxClients.
func (t *throttle) client(key string, now time.Time) *clientState {
	for i := 0; i < sweepPerRequest; i++ {
		back := t.lru.Back()
		if back == nil {
			break
		}
		c := back.Value.(*clientState)
		if now.Sub(c.lastSeen) < t.idle || now.Before(c.blockedUntil) {
			break
		}
		t.forget(back)
	}
	if e, ok := t.clients[key]; ok {
		c := e.Value.(*clientState)
		c.lastSeen = now
		t.lru.MoveToFront(e)
		return c
	}
	for t.lru.Len() >= t.cfg.MaxClients {
		t.forget(t.lru.Back())
	}
	c := &clientState{key: key, bucket: rate.NewLimiter(rate.Limit(t.cfg.Rate), t.cfg.Burst), lastSeen: now}
	t.clients[key] = t.lru.PushFront(c)
	return c
}

func (t *throttle) forget(e *list.Element) {
	delete(t.clients, e.Value.(*clientState).key)
	t.lru.Remove(e)
}

// mintBegin sets one token of the global ceiling aside for a token
// request, or answers 429 when none is left once the requests in flight
// have theirs. The request must call mintEnd.
func (t *throttle) mintBegin(now time.Time) *refusal {
	t.gmu.Lock()
	defer t.gmu.Unlock()
	avail := t.global.TokensAt(now) - float64(t.minting)
	if avail < 1 {
		wait := time.Duration((1 - avail) / t.cfg.GlobalRate * float64(time.Second))
		return &refusal{status: http.StatusTooManyRequests, retryAfter: wait,
			desc: "the server is issuing too many tokens right now; retry after the Retry-After delay"}
	}
	t.minting++
	return nil
}

// mintEnd takes the token set aside by mintBegin out of the global bucket
// when a token was minted, and gives it back otherwise. (A rate.Limiter
// reservation cannot be given back once its time has passed, hence the
// count of requests in flight.)
func (t *throttle) mintEnd(minted bool) {
	t.gmu.Lock()
	defer t.gmu.Unlock()
	t.minting--
	if minted {
		t.global.AllowN(time.Now(), 1)
	}
}

// clientKey returns the throttling key of the request's client: its IP,
// IPv6 addresses grouped by /64 (what one host usually holds).
func clientKey(r *http.Request, trustProxy bool) string {
	var addr netip.Addr
	if trustProxy {
		addr = lastForwardedFor(r.Header.Values("X-Forwarded-For"))
	}
	if !addr.IsValid() {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		addr, _ = netip.ParseAddr(host)
	}
	if !addr.IsValid() {
		return r.RemoteAddr
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

// lastForwardedFor parses the last entry of X-Forwarded-For (over all its
// header lines): the address the trusted proxy saw.
func lastForwardedFor(values []string) netip.Addr {
	if len(values) == 0 {
		return netip.Addr{}
	}
	last := values[len(values)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	last = strings.TrimSpace(last)
	if ap, err := netip.ParseAddrPort(last); err == nil {
		return ap.Addr()
	}
	a, _ := netip.ParseAddr(strings.Trim(last, "[]"))
	return a
}

// retryAfterSeconds is d in whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// throttler returns the server's throttle, nil when disabled.
func (s *Server) throttler() *throttle {
	s.throttleOnce.Do(func() {
		if !s.Throttle.Disabled {
			s.throttle = newThrottle(s.Throttle)
		}
	})
	return s.throttle
}

// admitAuthPost applies the per-IP bucket to a POST of the auth host and
// writes the refusal in the caller's style; it reports whether to go on.
func (s *Server) admitAuthPost(w http.ResponseWriter, r *http.Request, write func(http.ResponseWriter, *http.Request, *refusal)) bool {
	t := s.throttler()
	if t == nil {
		return true
	}
	ref := t.admit(clientKey(r, t.cfg.TrustProxy), time.Now())
	if ref == nil {
		return true
	}
	route := RouteUnmatched // the pattern, never the path: an invitation's holds its token
	if info := infoOf(r); info != nil {
		route = info.route
	}
	logger(r).Info("auth host throttled", "status", ref.status, "route", route, "request_id", requestID(r))
	if ref.status == http.StatusForbidden {
		throttled(r, LimitAuthBlocked)
	} else {
		throttled(r, LimitAuthIP)
	}
	write(w, r, ref)
	return false
}

// AdmitAuth applies the same per-IP bucket to a request of another
// handler mounted on this server that guesses secrets just as well (the
// workspace's invitation page): nil when admitted, else ERATELIMITED
// with its RetryAfter, or EFORBIDDEN while the address is blocked.
func (s *Server) AdmitAuth(r *http.Request) error {
	var err error
	s.admitAuthPost(nil, r, func(_ http.ResponseWriter, _ *http.Request, ref *refusal) {
		if ref.status == http.StatusTooManyRequests {
			err = &scopekit.Error{Code: scopekit.ERATELIMITED, Message: "Too many attempts from this address. Wait a little, then try again.",
				RetryAfter: ref.retryAfter}
			return
		}
		err = scopekit.Errorf(scopekit.EFORBIDDEN, "This address made too many attempts and is blocked for a while.")
	})
	return err
}

// slowDown is the error of a throttled request (RFC 8628 3.5 registered
// it for clients that ask too often).
const slowDown = "slow_down"

// writeJSONRefusal writes a refusal as an OAuth-style error object: 429
// slow_down with Retry-After, or 403 access_denied without it.
func writeJSONRefusal(w http.ResponseWriter, _ *http.Request, ref *refusal) {
	w.Header().Set("Cache-Control", "no-store")
	code := auth.AccessDenied
	if ref.status == http.StatusTooManyRequests {
		code = slowDown
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ref.retryAfter)))
	}
	oauthWriteError(w, ref.status, code, ref.desc)
}

// throttledToken wraps the token endpoint: the per-IP bucket first, then
// the global ceiling on minted tokens, which a request that mints nothing
// does not use up.
func (s *Server) throttledToken(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := s.throttler()
		if t == nil {
			h.ServeHTTP(w, r)
			return
		}
		if !s.admitAuthPost(w, r, writeJSONRefusal) {
			return
		}
		if ref := t.mintBegin(time.Now()); ref != nil {
			logger(r).Warn("token ceiling reached", "global_rate", fmt.Sprint(t.cfg.GlobalRate), "request_id", requestID(r))
			throttled(r, LimitTokenGlobal)
			writeJSONRefusal(w, r, ref)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		defer func() { t.mintEnd(sw.status == http.StatusOK) }()
		h.ServeHTTP(sw, r)
	})
}
