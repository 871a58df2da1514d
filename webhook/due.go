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
