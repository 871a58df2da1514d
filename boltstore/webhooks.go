package boltstore

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/webhook"
	bolt "go.etcd.io/bbolt"
)

// Webhook deliveries, subscriptions and publications are records of the
// scoping engine (scoping/webhooks.go); package webhook shapes and updates
// them over any engine.Store, and decides which deliveries are due. This
// file only answers its delivery queries faster than a generic list
// would, by walking the next-attempt-at index.

var _ webhook.Store = (*DB)(nil)

// Deliveries implements webhook.Store; one process serves a bbolt file, so
// it claims nothing. It walks the next-attempt-at index of each account in
// time order and stops at the first delivery after q.NextAttemptBy (or at
// the limit), so only the deliveries it may return (and skipped ones
// before them) are decoded, however many wait later; the accounts' oldest
// are then merged in time order.
func (db *DB) Deliveries(ctx context.Context, q *webhook.DeliveryQuery) ([]*webhook.Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const typ = views.TypeWebhookDeliveries
	var out []*webhook.Delivery
	byKey := []byte(strings.ToLower(engine.FormatTime(q.NextAttemptBy)))
	err := db.bolt.View(func(btx *bolt.Tx) error {
		t := &tx{db: db, btx: btx}
		l := webhook.NewLoader(t)
		for _, acct := range t.accounts(typ) {
			ib, err := t.index(typ, acct, views.NameNextAttemptAt, false)
			if err != nil {
				return err
			}
			b, err := t.records(typ, acct, false)
			if err != nil || ib == nil || b == nil {
				return err
			}
			cur := ib.Cursor()
			n := 0
			for k, _ := cur.First(); k != nil && n < q.Limit; k, _ = cur.Next() {
				if len(k) < 9 {
					continue
				}
				if bytes.Compare(k[:len(k)-9], byKey) > 0 {
					break
				}
				id := k[len(k)-8:]
				if q.Skip.Deliveries[keyID(id)] {
					continue
				}
				v := b.Get(id)
				if v == nil {
					continue
				}
				rec, err := decodeRecord(typ, acct, id, v)
				if err != nil {
					return err
				}
				r := views.WebhookDelivery{Record: rec}
				sid := r.WebhookSubscription()
				if r.Status() != q.Status || q.Skip.Subscriptions[sid] {
					continue
				}
				if d := l.Delivery(acct, keyID(id), int(r.Attempt()), webhook.ParseTime(r.NextAttemptAt()), sid, r.Event()); d != nil {
					out = append(out, d)
					n++
				}
			}
		}
		return nil
	})
	// each account gave its oldest; the oldest of all come first
	slices.SortStableFunc(out, func(a, b *webhook.Delivery) int {
		return cmp.Or(a.NextAttemptAt.Compare(b.NextAttemptAt), engine.CompareIDs(a.ID, b.ID))
	})
	if len(out) > q.Limit {
		out = out[:max(q.Limit, 0)]
	}
	return out, err
}

// Complete implements webhook.Store.
func (db *DB) Complete(ctx context.Context, outcomes []*webhook.Outcome) error {
	return webhook.RecordStore{Records: db}.Complete(ctx, outcomes)
}

// Purge implements webhook.Store.
func (db *DB) Purge(ctx context.Context, before time.Time) (int, error) {
	return webhook.RecordStore{Records: db}.Purge(ctx, before)
}
