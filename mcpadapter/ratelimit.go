package mcpadapter

import (
	"crypto/sha256"
	"fmt"
	"math"
	"time"

	"github.com/scopekit/scopekit/internal/bounded"
	"golang.org/x/time/rate"
)

// Defaults of Server.CallRate and Server.CallBurst (per person), and of
// Server.ClientCallRate and Server.ClientCallBurst (per OAuth client).
const (
	DefaultCallRate        = 10
	DefaultCallBurst       = 60
	DefaultClientCallRate  = 100
	DefaultClientCallBurst = 600
)

// callLimiter holds token buckets per person (a user, whatever token and
// account it calls with) and per OAuth client (a service account's
// credential, or an application many people sign in through), so that
// minting more tokens buys no more calls. Buckets live in a bounded map
// (by digest): a full map starts over, which at worst forgives the
// buckets it drops.
type callLimiter struct {
	person, client bucketKind
	buckets        bounded.Map[[32]byte, *rate.Limiter]
}

// bucketKind is the rate and burst of one kind of bucket.
type bucketKind struct {
	name  string // what a bucket is of, in refusals ("person")
	rate  rate.Limit
	burst int
}

func newCallLimiter(perSecond float64, burst int, clientPerSecond float64, clientBurst int) *callLimiter {
	kind := func(name string, perSecond, def float64, burst, defBurst int) bucketKind {
		if !(perSecond > 0) {
			perSecond = def
		}
		if burst <= 0 {
			burst = defBurst
		}
		// a batch within MaxBatch must always be able to pass
		return bucketKind{name: name, rate: rate.Limit(perSecond), burst: max(burst, MaxBatch)}
	}
	return &callLimiter{person: kind("person", perSecond, DefaultCallRate, burst, DefaultCallBurst),
		client: kind("client", clientPerSecond, DefaultClientCallRate, clientBurst, DefaultClientCallBurst)}
}

// refusal says which limit refused calls and for how long.
type refusal struct {
	wait time.Duration
	kind bucketKind
}

func (r *refusal) message(secs int) string {
	what := "per person (all of a user's access tokens together)"
	if r.kind.name == "client" {
		what = "per OAuth client (all of its access tokens together)"
	}
	return fmt.Sprintf("rate limit exceeded: at most %g calls per second %s; retry after %d s", float64(r.kind.rate), what, secs)
}

// take counts n messages of a user's call through a client against both
// their buckets. It returns nil when they may run; else, taking nothing
// from either bucket, the refusal that waits longest.
func (l *callLimiter) take(userID, clientID string, n int, now time.Time) *refusal {
	type held struct {
		r    *rate.Reservation
		kind bucketKind
	}
	var hold []held
	var worst *refusal
	for _, b := range []struct {
		kind bucketKind
		id   string
	}{{l.person, userID}, {l.client, clientID}} {
		if b.id == "" {
			continue
		}
		r := l.bucket(b.kind, b.id).ReserveN(now, n)
		hold = append(hold, held{r, b.kind})
		if d := r.DelayFrom(now); d > 0 && (worst == nil || d > worst.wait) {
			worst = &refusal{wait: d, kind: b.kind}
		}
	}
	if worst != nil {
		for _, h := range hold {
			h.r.CancelAt(now)
		}
	}
	return worst
}

// bucket returns the bucket of kind for id, made on first use.
func (l *callLimiter) bucket(kind bucketKind, id string) *rate.Limiter {
	key := sha256.Sum256([]byte(kind.name + "\x00" + id))
	b, ok := l.buckets.Get(key)
	if !ok {
		b = rate.NewLimiter(kind.rate, kind.burst)
		l.buckets.Put(key, b)
	}
	return b
}

// retryAfter is a wait in whole seconds, rounded up, at least 1.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
