package mcpadapter

import (
	"crypto/sha256"
	"math"
	"time"

	"github.com/scopekit/scopekit/internal/bounded"
	"golang.org/x/time/rate"
)

// Defaults of Server.CallRate and Server.CallBurst.
const (
	DefaultCallRate  = 10
	DefaultCallBurst = 60
)

// callLimiter holds a token bucket per access token (by digest), in a
// bounded map: a full map starts over, which at worst forgives the
// buckets of the tokens it drops.
type callLimiter struct {
	rate    rate.Limit
	burst   int
	buckets bounded.Map[[32]byte, *rate.Limiter]
}

func newCallLimiter(perSecond float64, burst int) *callLimiter {
	if !(perSecond > 0) {
		perSecond = DefaultCallRate
	}
	if burst <= 0 {
		burst = DefaultCallBurst
	}
	// a batch within MaxBatch must always be able to pass
	return &callLimiter{rate: rate.Limit(perSecond), burst: max(burst, MaxBatch)}
}

// take counts n messages of the token against its bucket. It returns 0
// when they may run, else how long to wait before they could.
func (l *callLimiter) take(token string, n int, now time.Time) time.Duration {
	key := sha256.Sum256([]byte(token))
	b, ok := l.buckets.Get(key)
	if !ok {
		b = rate.NewLimiter(l.rate, l.burst)
		l.buckets.Put(key, b)
	}
	r := b.ReserveN(now, n)
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	return delay
}

// retryAfter is a wait in whole seconds, rounded up, at least 1.
func retryAfter(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
