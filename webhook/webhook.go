// Package webhook delivers ScopeKit's outgoing webhook notifications
// (docs/webhooks.md): a durable dispatcher that reads pending deliveries from a
// Store, POSTs each event's JSON:API document to its subscription's
// destination signed per the Standard Webhooks spec, retries on a schedule
// and records every attempt as a publication. It also provides the
// destination safety check and the sealer of subscription secrets that the
// composition root plugs into scoping.
package webhook

import (
	"context"
	"time"
)

// Event is one entry of the outbox: a status change of a subject.
type Event struct {
	ID          string
	Type        string // project_status_changed, service_status_changed, document_status_changed
	SubjectType string
	SubjectID   string
	ProjectID   string // "" when none
	OldStatus   string
	NewStatus   string
	OccurredAt  time.Time
}

// Subscription is what a delivery needs of its subscription.
type Subscription struct {
	ID           string
	URL          string
	Active       bool
	SealedSecret []byte    // the Standard Webhooks secret, sealed
	FailingSince time.Time // start of the current run of failed attempts (zero: none)
}

// Delivery is one pending delivery of an event to a subscription.
type Delivery struct {
	ID            string
	AccountID     string
	Attempt       int // attempts made so far
	NextAttemptAt time.Time
	Subscription  Subscription
	Event         Event
}

// Publication is the record of one attempt.
type Publication struct {
	Status         string // delivered, rejected or failed
	ResponseStatus int    // 0 when no answer
	Payload        []byte // the exact body sent
	Attempt        int
	Error          string
	CreatedAt      time.Time
	CompletedAt    time.Time
	NextAttemptAt  time.Time // zero when no further attempt follows
}

// Outcome is what became of a delivery: an attempt (Publication) or none
// (the subscription is inactive), and what follows.
type Outcome struct {
	Delivery    *Delivery
	Publication *Publication // nil when no attempt was made
	// Next is when to try again; zero finishes the delivery (delivered,
	// given up, or dropped).
	Next time.Time
	// Disable, when set, deactivates the subscription with this reason.
	Disable string
}

// Skip names deliveries that a DeliveryQuery leaves out.
type Skip struct {
	Deliveries    map[string]bool // by delivery id
	Subscriptions map[string]bool // by subscription id
}

// DeliveryQuery is a plain query of the outbox: the deliveries in Status
// whose next attempt is at or before NextAttemptBy, except those Skip
// names, oldest next attempt first (then by id), at most Limit. Which
// deliveries are due is Due's rule; the store only answers the query.
type DeliveryQuery struct {
	Status        string
	NextAttemptBy time.Time
	Skip          Skip // applied before Limit
	Limit         int
	// ClaimUntil, when set, asks a store shared by several processes
	// (a ClaimRenewer) to claim what it returns until then: no other
	// query that claims returns those deliveries meanwhile, unless their
	// outcome is completed first. Other stores ignore it.
	ClaimUntil time.Time
}

// ClaimRenewer is implemented by a Store shared by several processes that
// claims what a DeliveryQuery with ClaimUntil returns (Due asks for
// ClaimTTL). The dispatcher renews the claims of the deliveries it holds
// (in flight, or waiting for a free slot of their subscription, or waiting
// for their outcome to be written) every third of ClaimTTL, so a slow
// attempt or a slow commit never lets another process attempt the same
// delivery while this one still works on it: a claim runs out only when
// its process has died.
//
// Without it, nothing is claimed: fine for a store one process serves
// (bbolt); two dispatchers on a shared store could attempt a delivery
// twice.
type ClaimRenewer interface {
	// ClaimTTL is how long a claim lasts (the dispatcher's ClaimUntil is
	// now plus ClaimTTL).
	ClaimTTL() time.Duration
	// RenewClaims extends, to until, the claims on those of the
	// deliveries that are still at the same attempt (a delivery completed
	// meanwhile keeps the next attempt Complete recorded).
	RenewClaims(ctx context.Context, until time.Time, deliveries []*Delivery) error
}

// Store persists deliveries, subscriptions' delivery state and
// publications, and answers queries of the outbox. RecordStore implements
// it over the records scoping serves (any engine.Store); a store may
// answer Deliveries in a faster way, or claim what it returns when
// several processes share it.
type Store interface {
	// Deliveries answers q, each delivery with its subscription and event
	// (read by a Loader in the same transaction); a delivery whose
	// subscription or event is gone is left out. An inactive
	// subscription's delivery is returned too (with Active false) so that
	// the dispatcher can drop it.
	Deliveries(ctx context.Context, q *DeliveryQuery) ([]*Delivery, error)
	// Complete applies outcomes in one transaction: each publication is
	// stored, each delivery advanced or removed, and each subscription's
	// failure streak (set by a failed or rejected attempt when unset,
	// cleared by a delivered one) and active state updated. Outcomes of
	// deliveries or subscriptions deleted meanwhile are skipped.
	Complete(ctx context.Context, outcomes []*Outcome) error
	// Purge deletes the publications created before t, and the events of
	// the outbox recorded before t that no delivery waits on any more, and
	// returns how many records it deleted. It reads only what it deletes
	// (and the events' deliveries), not the whole history.
	Purge(ctx context.Context, before time.Time) (int, error)
}
