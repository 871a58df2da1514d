package webapp

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter throttles by key (a link, an address): a token bucket per key,
// per minute. It keeps at most maxKeys buckets; past that it starts
// afresh, which lets a flood of new keys through once rather than grow
// without bound.
type limiter struct {
	mu      sync.Mutex
	per     rate.Limit
	burst   int
	buckets map[string]*rate.Limiter
}

const maxKeys = 50000

func newLimiter(perMinute, burst float64) *limiter {
	return &limiter{per: rate.Limit(perMinute / time.Minute.Seconds()), burst: int(burst), buckets: map[string]*rate.Limiter{}}
}

func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= maxKeys {
			l.buckets = map[string]*rate.Limiter{}
		}
		b = rate.NewLimiter(l.per, l.burst)
		l.buckets[key] = b
	}
	return b.Allow()
}
