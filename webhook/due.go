package webhook

import (
	"context"
	"time"

	"github.com/scopekit/scopekit/scoping/views"
)

// Due returns up to limit deliveries of s that are due at now: pending,
// with their next attempt at or before now, and not named by skip (which
// applies before the limit), oldest first. When s is a ClaimRenewer they
// are claimed until now plus its ClaimTTL, so that no other process's Due
// returns them meanwhile.
func Due(ctx context.Context, s Store, now time.Time, limit int, skip Skip) ([]*Delivery, error) {
	q := &DeliveryQuery{Status: views.DeliveryPending, NextAttemptBy: now, Skip: skip, Limit: limit}
	if r, ok := s.(ClaimRenewer); ok {
		q.ClaimUntil = now.Add(r.ClaimTTL())
	}
	return s.Deliveries(ctx, q)
}

// OutboxLag is how long the oldest due delivery of s has waited past its
// attempt time at now (0 when none is due): how far the dispatchers are
// behind. It only reads: nothing is claimed.
func OutboxLag(ctx context.Context, s Store, now time.Time) (time.Duration, error) {
	due, err := s.Deliveries(ctx, &DeliveryQuery{Status: views.DeliveryPending, NextAttemptBy: now, Limit: 1})
	if err != nil || len(due) == 0 {
		return 0, err
	}
	return max(now.Sub(due[0].NextAttemptAt), 0), nil
}
