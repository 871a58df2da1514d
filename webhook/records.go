package webhook

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
)

// The outbox, subscriptions and publications are records of the scoping
// engine (scoping/webhooks.go). This file turns them into deliveries and
// applies outcomes to them, once for every store: RecordStore implements
// Store over any scoping.Store, and a store with a faster or claiming way
// to answer a DeliveryQuery replaces only Deliveries, keeping Complete and
// Purge.

// Record types of the outbox.
const (
	deliveryType     = "webhook-deliveries"
	subscriptionType = "webhook-subscriptions"
	publicationType  = "webhook-publications"
	eventType        = "events"
)

// RecordStore implements Store over the webhook records of a scoping.Store.
// Its Deliveries reads through Tx.List and claims nothing.
type RecordStore struct {
	Records scoping.Store
}

var _ Store = RecordStore{}

// Deliveries implements Store.
func (s RecordStore) Deliveries(ctx context.Context, q *DeliveryQuery) ([]*Delivery, error) {
	var out []*Delivery
	err := s.Records.View(ctx, func(tx scoping.Tx) error {
		recs, _, err := tx.List(&scoping.Query{Type: deliveryType, AllAccounts: true,
			Where: []scoping.Cond{scoping.Eq("status", q.Status),
				{Field: "next-attempt-at", Op: scoping.OpLte, Values: []string{scoping.FormatTime(q.NextAttemptBy)}}},
			Sort: []scoping.SortKey{{Field: "next-attempt-at"}}})
		if err != nil {
			return err
		}
		l := NewLoader(tx)
		for _, r := range recs {
			if len(out) >= q.Limit {
				break
			}
			if q.Skip.Deliveries[r.ID] || q.Skip.Subscriptions[r.Rel("webhook-subscription")] {
				continue
			}
			if d := l.Delivery(r.AccountID, r.ID, int(r.Int("attempt")), ParseTime(r.Str("next-attempt-at")),
				r.Rel("webhook-subscription"), r.Rel("event")); d != nil {
				out = append(out, d)
			}
		}
		return nil
	})
	return out, err
}

// Complete implements Store.
func (s RecordStore) Complete(ctx context.Context, outcomes []*Outcome) error {
	return s.Records.Update(ctx, func(tx scoping.Tx) error {
		for _, o := range outcomes {
			if err := CompleteTx(tx, o); err != nil {
				return err
			}
		}
		return nil
	})
}

// Purge implements Store. Both record types index created-at, so the
// store finds what is old without reading the rest.
func (s RecordStore) Purge(ctx context.Context, before time.Time) (int, error) {
	n := 0
	old := []scoping.Cond{{Field: "created-at", Op: scoping.OpLte, Values: []string{scoping.FormatTime(before)}}}
	err := s.Records.Update(ctx, func(tx scoping.Tx) error {
		pubs, _, err := tx.List(&scoping.Query{Type: publicationType, AllAccounts: true, Where: old})
		if err != nil {
			return err
		}
		for _, r := range pubs {
			if err := tx.Delete(r.Type, r.AccountID, r.ID); err != nil {
				return err
			}
		}
		n = len(pubs)
		events, _, err := tx.List(&scoping.Query{Type: eventType, AllAccounts: true, Where: old})
		if err != nil {
			return err
		}
		for _, e := range events {
			waiting, _, err := tx.List(&scoping.Query{Type: deliveryType, AccountID: e.AccountID,
				Where: []scoping.Cond{scoping.Eq("event", e.ID)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(waiting) > 0 {
				continue // still being delivered: kept until its deliveries end
			}
			if err := tx.Delete(e.Type, e.AccountID, e.ID); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// Loader builds deliveries from outbox records in one transaction,
// reading each subscription and event once however many deliveries share
// it.
type Loader struct {
	tx     scoping.Tx
	subs   map[string]*Subscription
	events map[string]*Event
}

// NewLoader returns a Loader reading through tx.
func NewLoader(tx scoping.Tx) *Loader {
	return &Loader{tx: tx, subs: map[string]*Subscription{}, events: map[string]*Event{}}
}

// Delivery returns the delivery with its subscription and event; nil when
// either is gone (deleted meanwhile: the cascade removes the delivery).
func (l *Loader) Delivery(accountID, id string, attempt int, next time.Time, subID, eventID string) *Delivery {
	key := accountID + "/" + subID
	sub, ok := l.subs[key]
	if !ok {
		sub = loadSubscription(l.tx, accountID, subID)
		l.subs[key] = sub
	}
	key = accountID + "/" + eventID
	ev, ok := l.events[key]
	if !ok {
		ev = loadEvent(l.tx, accountID, eventID)
		l.events[key] = ev
	}
	if sub == nil || ev == nil {
		return nil
	}
	return &Delivery{ID: id, AccountID: accountID, Attempt: attempt, NextAttemptAt: next, Subscription: *sub, Event: *ev}
}

func loadSubscription(tx scoping.Tx, acct, id string) *Subscription {
	s, err := tx.Get(subscriptionType, acct, id)
	if err != nil {
		return nil
	}
	sealed, _ := base64.StdEncoding.DecodeString(s.Str(scoping.SealedSecretAttr))
	return &Subscription{ID: s.ID, URL: s.Str("destination-url"), Active: s.Active(),
		SealedSecret: sealed, FailingSince: ParseTime(s.Str(scoping.FailingSinceAttr))}
}

func loadEvent(tx scoping.Tx, acct, id string) *Event {
	e, err := tx.Get(eventType, acct, id)
	if err != nil {
		return nil
	}
	return &Event{ID: e.ID, Type: e.Str("event-type"), SubjectType: e.Str("subject-type"),
		SubjectID: e.Str("subject-id"), ProjectID: e.Rel("project"), OldStatus: e.Str("old-status"),
		NewStatus: e.Str("new-status"), OccurredAt: ParseTime(e.Str("occurred-at"))}
}

// ParseTime parses a stored timestamp (scoping.TimeFormat); zero when
// empty or malformed.
func ParseTime(s string) time.Time {
	t, _ := time.Parse(scoping.TimeFormat, s)
	return t
}

// CompleteTx applies one outcome in tx: the publication is stored, the
// subscription's failure streak set (by a failed or rejected attempt when
// unset) or cleared (by a delivered one) and its active state updated, and
// the delivery advanced to its next attempt or removed. An outcome whose
// delivery or subscription was deleted meanwhile is skipped.
func CompleteTx(tx scoping.Tx, o *Outcome) error {
	dl := o.Delivery
	d, err := tx.Get(deliveryType, dl.AccountID, dl.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	sub, err := tx.Get(subscriptionType, dl.AccountID, dl.Subscription.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return tx.Delete(d.Type, d.AccountID, d.ID)
	}
	if err != nil {
		return err
	}
	if p := o.Publication; p != nil {
		if err := tx.Insert(publicationRecord(dl, p)); err != nil {
			return err
		}
		changed := false
		if p.Status == Delivered {
			_, changed = sub.Attrs[scoping.FailingSinceAttr]
			delete(sub.Attrs, scoping.FailingSinceAttr)
		} else if sub.Str(scoping.FailingSinceAttr) == "" {
			sub.Attrs[scoping.FailingSinceAttr] = scoping.FormatTime(p.CreatedAt)
			changed = true
		}
		if o.Disable != "" {
			sub.Attrs["active"], sub.Attrs["disabled-reason"] = false, o.Disable
			changed = true
		}
		if changed {
			if err := tx.Replace(sub); err != nil {
				return err
			}
		}
	}
	if o.Next.IsZero() {
		return tx.Delete(d.Type, d.AccountID, d.ID)
	}
	d.Attrs["attempt"], d.Attrs["next-attempt-at"] = int64(dl.Attempt+1), scoping.FormatTime(o.Next)
	return tx.Replace(d)
}

// publicationRecord is the webhook-publications record of one attempt.
func publicationRecord(dl *Delivery, p *Publication) *scoping.Record {
	r := scoping.NewRecord(publicationType, dl.AccountID)
	r.CreatedAt = scoping.FormatTime(p.CreatedAt)
	r.Attrs["status"], r.Attrs["payload"], r.Attrs["attempt"] = p.Status, string(p.Payload), int64(p.Attempt)
	r.Attrs["source"] = map[string]any{"type": dl.Event.SubjectType, "id": dl.Event.SubjectID, "event-type": dl.Event.Type}
	r.Attrs["completed-at"] = scoping.FormatTime(p.CompletedAt)
	if p.ResponseStatus != 0 {
		r.Attrs["response-status"] = int64(p.ResponseStatus)
	}
	if p.Error != "" {
		r.Attrs["error"] = p.Error
	}
	if !p.NextAttemptAt.IsZero() {
		r.Attrs["next-attempt-at"] = scoping.FormatTime(p.NextAttemptAt)
	}
	r.SetRel("webhook-subscription", dl.Subscription.ID)
	return r
}
