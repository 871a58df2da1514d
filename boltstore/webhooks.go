package boltstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
	bolt "go.etcd.io/bbolt"
)

// Webhook deliveries, subscriptions and publications are records of the
// scoping engine (scoping/webhooks.go); this file reads and writes them for
// the webhook dispatcher, so both share one file and one transaction log.

var _ webhook.Store = (*DB)(nil)

// Due implements webhook.Store. It walks the next-attempt-at index of
// each account in time order and stops at the first delivery not yet due,
// so only the deliveries it returns (and skipped ones before them) are
// decoded, however many are pending later.
func (db *DB) Due(ctx context.Context, now time.Time, limit int, skip webhook.Skip) ([]*webhook.Delivery, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	const typ = "webhook-deliveries"
	var out []*webhook.Delivery
	nowKey := []byte(strings.ToLower(scoping.FormatTime(now)))
	err := db.bolt.View(func(btx *bolt.Tx) error {
		t := &tx{db: db, btx: btx}
		subs := map[string]*webhook.Subscription{}
		events := map[string]*webhook.Event{}
		for _, acct := range t.accounts(typ) {
			ib, err := t.index(typ, acct, "next-attempt-at", false)
			if err != nil {
				return err
			}
			b, err := t.records(typ, acct, false)
			if err != nil || ib == nil || b == nil {
				return err
			}
			cur := ib.Cursor()
			for k, _ := cur.First(); k != nil && len(out) < limit; k, _ = cur.Next() {
				if len(k) < 9 {
					continue
				}
				if bytes.Compare(k[:len(k)-9], nowKey) > 0 {
					break
				}
				id := k[len(k)-8:]
				if skip.Deliveries[keyID(id)] {
					continue
				}
				v := b.Get(id)
				if v == nil {
					continue
				}
				var r deliveryRow // decodes only what Due needs: it may pass many
				if err := json.Unmarshal(v, &r); err != nil {
					return fmt.Errorf("decode %s %s: %w", typ, keyID(id), err)
				}
				sid, eid := first(r.R.Subscription), first(r.R.Event)
				if r.A.Status != scoping.DeliveryPending || skip.Subscriptions[sid] {
					continue
				}
				sub, ok := subs[sid]
				if !ok {
					sub = loadSubscription(t, acct, sid)
					subs[sid] = sub
				}
				ev, ok := events[eid]
				if !ok {
					ev = loadEvent(t, acct, eid)
					events[eid] = ev
				}
				if sub == nil || ev == nil {
					continue // deleted meanwhile; the cascade removes the delivery
				}
				out = append(out, &webhook.Delivery{ID: keyID(id), AccountID: acct, Attempt: r.A.Attempt,
					NextAttemptAt: parseTime(r.A.Next), Subscription: *sub, Event: *ev})
			}
		}
		return nil
	})
	return out, err
}

// deliveryRow is the stored form of a webhook-deliveries record, as far
// as Due reads it.
type deliveryRow struct {
	A struct {
		Status  string `json:"status"`
		Attempt int    `json:"attempt"`
		Next    string `json:"next-attempt-at"`
	} `json:"a"`
	R struct {
		Subscription []string `json:"webhook-subscription"`
		Event        []string `json:"event"`
	} `json:"r"`
}

func first(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return ids[0]
}

func loadSubscription(stx scoping.Tx, acct, id string) *webhook.Subscription {
	s, err := stx.Get("webhook-subscriptions", acct, id)
	if err != nil {
		return nil
	}
	sealed, _ := base64.StdEncoding.DecodeString(s.Str(scoping.SealedSecretAttr))
	return &webhook.Subscription{ID: s.ID, URL: s.Str("destination-url"), Active: s.Active(),
		SealedSecret: sealed, FailingSince: parseTime(s.Str(scoping.FailingSinceAttr))}
}

func loadEvent(stx scoping.Tx, acct, id string) *webhook.Event {
	e, err := stx.Get("events", acct, id)
	if err != nil {
		return nil
	}
	return &webhook.Event{ID: e.ID, Type: e.Str("event-type"), SubjectType: e.Str("subject-type"),
		SubjectID: e.Str("subject-id"), ProjectID: e.Rel("project"), OldStatus: e.Str("old-status"),
		NewStatus: e.Str("new-status"), OccurredAt: parseTime(e.Str("occurred-at"))}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(scoping.TimeFormat, s)
	return t
}

// Complete implements webhook.Store.
func (db *DB) Complete(ctx context.Context, outcomes []*webhook.Outcome) error {
	return db.Update(ctx, func(stx scoping.Tx) error {
		for _, o := range outcomes {
			if err := complete(stx, o); err != nil {
				return err
			}
		}
		return nil
	})
}

func complete(stx scoping.Tx, o *webhook.Outcome) error {
	dl := o.Delivery
	d, err := stx.Get("webhook-deliveries", dl.AccountID, dl.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	sub, err := stx.Get("webhook-subscriptions", dl.AccountID, dl.Subscription.ID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return stx.Delete(d.Type, d.AccountID, d.ID)
	}
	if err != nil {
		return err
	}
	if p := o.Publication; p != nil {
		if err := stx.Insert(publication(dl, p)); err != nil {
			return err
		}
		changed := false
		if p.Status == webhook.Delivered {
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
			if err := stx.Replace(sub); err != nil {
				return err
			}
		}
	}
	if o.Next.IsZero() {
		return stx.Delete(d.Type, d.AccountID, d.ID)
	}
	d.Attrs["attempt"], d.Attrs["next-attempt-at"] = int64(dl.Attempt+1), scoping.FormatTime(o.Next)
	return stx.Replace(d)
}

func publication(dl *webhook.Delivery, p *webhook.Publication) *scoping.Record {
	r := scoping.NewRecord("webhook-publications", dl.AccountID)
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

// Purge implements webhook.Store.
func (db *DB) Purge(ctx context.Context, before time.Time) (int, error) {
	n := 0
	err := db.Update(ctx, func(stx scoping.Tx) error {
		old, _, err := stx.List(&scoping.Query{Type: "webhook-publications", AllAccounts: true,
			Where: []scoping.Cond{{Field: "created-at", Op: scoping.OpLte, Values: []string{scoping.FormatTime(before)}}}})
		if err != nil {
			return err
		}
		for _, r := range old {
			if err := stx.Delete(r.Type, r.AccountID, r.ID); err != nil {
				return err
			}
		}
		n = len(old)
		return nil
	})
	return n, err
}
