package webhook

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The outbox, subscriptions and publications are records of the scoping
// engine (scoping/webhooks.go). This file turns them into deliveries and
// applies outcomes to them, once for every store: RecordStore implements
// Store over any engine.Store, and a store with a faster or claiming way
// to answer a DeliveryQuery replaces only Deliveries, keeping Complete and
// Purge. Of package scoping it reads only the names of the subscription
// attributes that are stored but not declared (never served).

// RecordStore implements Store over the webhook records of an engine.Store.
// Its Deliveries reads through Tx.List and claims nothing.
type RecordStore struct {
	Records engine.Store
}

var _ Store = RecordStore{}

// Deliveries implements Store.
func (s RecordStore) Deliveries(ctx context.Context, q *DeliveryQuery) ([]*Delivery, error) {
	var out []*Delivery
	err := s.Records.View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeWebhookDeliveries, AllAccounts: true,
			Where: []engine.Cond{engine.Eq(views.NameStatus, q.Status),
				{Field: views.NameNextAttemptAt, Op: engine.OpLte, Values: []string{engine.FormatTime(q.NextAttemptBy)}}},
			Sort: []engine.SortKey{{Field: views.NameNextAttemptAt}}})
		if err != nil {
			return err
		}
		l := NewLoader(tx)
		for _, r := range views.Of[views.WebhookDelivery](recs) {
			if len(out) >= q.Limit {
				break
			}
			if q.Skip.Deliveries[r.ID] || q.Skip.Subscriptions[r.WebhookSubscription()] {
				continue
			}
			if d := l.Delivery(r.AccountID, r.ID, int(r.Attempt()), ParseTime(r.NextAttemptAt()),
				r.WebhookSubscription(), r.Event()); d != nil {
				out = append(out, d)
			}
		}
		return nil
	})
	return out, err
}

// Complete implements Store.
func (s RecordStore) Complete(ctx context.Context, outcomes []*Outcome) error {
	return s.Records.Update(ctx, func(tx engine.Tx) error {
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
	old := []engine.Cond{{Field: views.NameCreatedAt, Op: engine.OpLte, Values: []string{engine.FormatTime(before)}}}
	err := s.Records.Update(ctx, func(tx engine.Tx) error {
		pubs, _, err := tx.List(&engine.Query{Type: views.TypeWebhookPublications, AllAccounts: true, Where: old})
		if err != nil {
			return err
		}
		for _, r := range pubs {
			if err := tx.Delete(r.Type, r.AccountID, r.ID); err != nil {
				return err
			}
		}
		n = len(pubs)
		events, _, err := tx.List(&engine.Query{Type: views.TypeEvents, AllAccounts: true, Where: old})
		if err != nil {
			return err
		}
		for _, e := range events {
			waiting, _, err := tx.List(&engine.Query{Type: views.TypeWebhookDeliveries, AccountID: e.AccountID,
				Where: []engine.Cond{engine.Eq(views.NameEvent, e.ID)}, Limit: 1})
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
	tx     engine.Tx
	subs   map[string]*Subscription
	events map[string]*Event
}

// NewLoader returns a Loader reading through tx.
func NewLoader(tx engine.Tx) *Loader {
	return &Loader{tx: tx, subs: map[string]*Subscription{}, events: map[string]*Event{}}
}

// Want tells the loader of a delivery it will be asked for: over a store
// that reads ahead (engine.Prefetcher), the subscriptions and events of
// all the deliveries wanted are read with the next statement, not one
// statement each.
func (l *Loader) Want(accountID, subID, eventID string) {
	engine.Prefetch(l.tx, engine.Key{Type: views.TypeWebhookSubscriptions, AccountID: accountID, ID: subID},
		engine.Key{Type: views.TypeEvents, AccountID: accountID, ID: eventID})
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

func loadSubscription(tx engine.Tx, acct, id string) *Subscription {
	r, err := tx.Get(views.TypeWebhookSubscriptions, acct, id)
	if err != nil {
		return nil
	}
	s := views.WebhookSubscription{Record: r}
	sealed, _ := base64.StdEncoding.DecodeString(s.Str(views.SealedSecretAttr))
	return &Subscription{ID: s.ID, URL: s.DestinationURL(), Active: s.Active(),
		SealedSecret: sealed, FailingSince: ParseTime(s.Str(views.FailingSinceAttr))}
}

func loadEvent(tx engine.Tx, acct, id string) *Event {
	r, err := tx.Get(views.TypeEvents, acct, id)
	if err != nil {
		return nil
	}
	e := views.Event{Record: r}
	return &Event{ID: e.ID, Type: e.EventType(), SubjectType: e.SubjectType(),
		SubjectID: e.SubjectID(), ProjectID: e.Project(), OldStatus: e.OldStatus(),
		NewStatus: e.NewStatus(), OccurredAt: ParseTime(e.OccurredAt())}
}

// ParseTime parses a stored timestamp (engine.TimeFormat); zero when
// empty or malformed.
func ParseTime(s string) time.Time {
	t, _ := time.Parse(engine.TimeFormat, s)
	return t
}

// CompleteTx applies one outcome in tx: the publication is stored, the
// subscription's failure streak set (by a failed or rejected attempt when
// unset) or cleared (by a delivered one) and its active state updated, and
// the delivery advanced to its next attempt or removed. An outcome whose
// delivery or subscription was deleted meanwhile is skipped.
func CompleteTx(tx engine.Tx, o *Outcome) error {
	dl := o.Delivery
	d, err := tx.Get(views.TypeWebhookDeliveries, dl.AccountID, dl.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	sub, err := tx.Get(views.TypeWebhookSubscriptions, dl.AccountID, dl.Subscription.ID)
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
		if p.Status == views.PublicationDelivered {
			_, changed = sub.Attrs[views.FailingSinceAttr]
			delete(sub.Attrs, views.FailingSinceAttr)
		} else if sub.Str(views.FailingSinceAttr) == "" {
			sub.Attrs[views.FailingSinceAttr] = engine.FormatTime(p.CreatedAt)
			changed = true
		}
		if o.Disable != "" {
			sub.Attrs[views.NameActive], sub.Attrs[views.NameDisabledReason] = false, o.Disable
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
	d.Attrs[views.NameAttempt], d.Attrs[views.NameNextAttemptAt] = int64(dl.Attempt+1), engine.FormatTime(o.Next)
	return tx.Replace(d)
}

// publicationRecord is the webhook-publications record of one attempt.
func publicationRecord(dl *Delivery, p *Publication) *engine.Record {
	r := engine.NewRecord(views.TypeWebhookPublications, dl.AccountID)
	r.CreatedAt = engine.FormatTime(p.CreatedAt)
	r.Attrs[views.NameStatus], r.Attrs[views.NamePayload], r.Attrs[views.NameAttempt] = p.Status, string(p.Payload), int64(p.Attempt)
	r.Attrs[views.NameSource] = map[string]any{"type": dl.Event.SubjectType, "id": dl.Event.SubjectID, "event-type": dl.Event.Type}
	r.Attrs[views.NameCompletedAt] = engine.FormatTime(p.CompletedAt)
	if p.ResponseStatus != 0 {
		r.Attrs[views.NameResponseStatus] = int64(p.ResponseStatus)
	}
	if p.Error != "" {
		r.Attrs[views.NameError] = p.Error
	}
	if !p.NextAttemptAt.IsZero() {
		r.Attrs[views.NameNextAttemptAt] = engine.FormatTime(p.NextAttemptAt)
	}
	r.SetRel(views.NameWebhookSubscription, dl.Subscription.ID)
	return r
}
