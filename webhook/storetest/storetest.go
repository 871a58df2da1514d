// Package storetest is the conformance suite of webhook.Store over the
// outbox records of a engine.Store: what a DeliveryQuery selects (status,
// next attempt, skip, limit) and in what order, what Complete records,
// Purge, and (for stores shared by several processes) claims that keep a
// delivery with one dispatcher at a time. Which deliveries are due is
// package webhook's rule (webhook.Due) and tested there.
package storetest

import (
	"context"
	"encoding/base64"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

// Stores are the two views of one empty database for one test.
type Stores struct {
	Records engine.Store
	Webhook webhook.Store
	// Claim is the store's ClaimTTL (0: the store does not claim; one
	// dispatcher serves it and skips what it has in flight itself).
	Claim time.Duration
}

// Opener returns new, empty stores for one test whose clock is now.
type Opener func(t *testing.T, now func() time.Time) Stores

// Run runs the whole suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"Deliveries", testDeliveries},
		{"DeliveriesByStatus", testDeliveriesByStatus},
		{"Complete", testComplete},
		{"CompleteGone", testCompleteGone},
		{"Purge", testPurge},
		{"Claims", testClaims},
		{"RenewClaims", testRenewClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

var t0 = time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)

type fixture struct {
	Stores
	subs   []*engine.Record
	events []*engine.Record
	dels   []*engine.Record
}

// setup stores two subscriptions of account 1 (the second inactive), one
// of account 2, an event each, and deliveries due at t0+i seconds.
func setup(t *testing.T, open Opener) *fixture {
	f := &fixture{Stores: open(t, func() time.Time { return t0 })}
	ctx := context.Background()
	require.NoError(t, f.Records.Update(ctx, func(tx engine.Tx) error {
		for i, acct := range []string{"1", "1", "2"} {
			s := engine.NewRecord(views.TypeWebhookSubscriptions, acct)
			s.Attrs[views.NameEventType], s.Attrs[views.NameDestinationURL], s.Attrs[views.NameActive] = views.EventProjectStatusChanged, "https://example.test/hook", i != 1
			s.Attrs[views.SealedSecretAttr] = base64.StdEncoding.EncodeToString([]byte("sealed"))
			if err := tx.Insert(s); err != nil {
				return err
			}
			f.subs = append(f.subs, s)
			e := engine.NewRecord(views.TypeEvents, acct)
			e.Attrs[views.NameEventType], e.Attrs[views.NameSubjectType], e.Attrs[views.NameSubjectID] = views.EventProjectStatusChanged, views.TypeProjects, "9"
			e.Attrs[views.NameOldStatus], e.Attrs[views.NameNewStatus], e.Attrs[views.NameOccurredAt] = "draft", "won", engine.FormatTime(t0)
			e.SetRel(views.NameProject, "9")
			if err := tx.Insert(e); err != nil {
				return err
			}
			f.events = append(f.events, e)
		}
		// deliveries: due at t0+5s, t0+1s, t0+3s (acct 2), t0+2s (inactive sub), t0+1h
		for _, d := range []struct {
			sub int
			at  time.Duration
		}{{0, 5 * time.Second}, {0, time.Second}, {2, 3 * time.Second}, {1, 2 * time.Second}, {0, time.Hour}} {
			r := engine.NewRecord(views.TypeWebhookDeliveries, f.subs[d.sub].AccountID)
			r.Attrs[views.NameStatus], r.Attrs[views.NameAttempt], r.Attrs[views.NameNextAttemptAt] = views.DeliveryPending, int64(0), engine.FormatTime(t0.Add(d.at))
			r.SetRel(views.NameWebhookSubscription, f.subs[d.sub].ID)
			r.SetRel(views.NameEvent, f.events[d.sub].ID)
			if err := tx.Insert(r); err != nil {
				return err
			}
			f.dels = append(f.dels, r)
		}
		return nil
	}))
	return f
}

func deliveryIDs(ds []*webhook.Delivery) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

// list answers a query that claims nothing.
func list(t *testing.T, f *fixture, status string, by time.Time, limit int, skip webhook.Skip) []*webhook.Delivery {
	t.Helper()
	got, err := f.Webhook.Deliveries(context.Background(),
		&webhook.DeliveryQuery{Status: status, NextAttemptBy: by, Skip: skip, Limit: limit})
	require.NoError(t, err)
	return got
}

// due asks for the pending deliveries by at as a dispatcher does: a
// claiming store claims them for f.Claim.
func due(t *testing.T, f *fixture, at time.Time) []*webhook.Delivery {
	t.Helper()
	q := &webhook.DeliveryQuery{Status: views.DeliveryPending, NextAttemptBy: at, Limit: 10}
	if f.Claim > 0 {
		q.ClaimUntil = at.Add(f.Claim)
	}
	got, err := f.Webhook.Deliveries(context.Background(), q)
	require.NoError(t, err)
	return got
}

// Ensure Deliveries returns the deliveries the query selects oldest first
// across accounts, with their subscription (inactive ones too) and event,
// within the limit and leaving out what skip names; a query without
// ClaimUntil claims nothing, so asking again gives the same answer.
func testDeliveries(t *testing.T, open Opener) {
	f := setup(t, open)
	ctx := context.Background()
	d := f.dels
	pending := views.DeliveryPending
	for range 2 {
		got := list(t, f, pending, t0.Add(10*time.Second), 10, webhook.Skip{})
		require.Equal(t, []string{d[1].ID, d[3].ID, d[2].ID, d[0].ID}, deliveryIDs(got))
		first := got[0]
		require.Equal(t, "1", first.AccountID)
		require.Equal(t, 0, first.Attempt)
		require.True(t, first.NextAttemptAt.Equal(t0.Add(time.Second)))
		require.Equal(t, webhook.Subscription{ID: f.subs[0].ID, URL: "https://example.test/hook", Active: true, SealedSecret: []byte("sealed")}, first.Subscription)
		require.Equal(t, webhook.Event{ID: f.events[0].ID, Type: views.EventProjectStatusChanged, SubjectType: views.TypeProjects, SubjectID: "9",
			ProjectID: "9", OldStatus: "draft", NewStatus: "won", OccurredAt: t0}, first.Event)
		require.False(t, got[1].Subscription.Active, "an inactive subscription's delivery is returned for dropping")
		require.Equal(t, "2", got[2].AccountID)
	}

	require.Equal(t, []string{d[1].ID, d[3].ID}, deliveryIDs(list(t, f, pending, t0.Add(2*time.Second), 10, webhook.Skip{})),
		"later ones wait; one at the time given is selected")
	require.Equal(t, []string{d[1].ID, d[3].ID}, deliveryIDs(list(t, f, pending, t0.Add(10*time.Second), 2, webhook.Skip{})), "limit")
	require.Equal(t, []string{d[2].ID, d[0].ID}, deliveryIDs(list(t, f, pending, t0.Add(10*time.Second), 2,
		webhook.Skip{Deliveries: map[string]bool{d[1].ID: true}, Subscriptions: map[string]bool{f.subs[1].ID: true}})),
		"skip applies before the limit")
	require.Empty(t, list(t, f, pending, t0.Add(-time.Hour), 10, webhook.Skip{}))
	require.Empty(t, list(t, f, pending, t0.Add(10*time.Second), 0, webhook.Skip{}))

	// a delivery whose event is gone is left out
	require.NoError(t, f.Records.Update(ctx, func(tx engine.Tx) error { return tx.Delete(views.TypeEvents, "2", f.events[2].ID) }))
	require.Equal(t, []string{d[1].ID, d[3].ID, d[0].ID}, deliveryIDs(list(t, f, pending, t0.Add(10*time.Second), 10, webhook.Skip{})))
}

// Ensure Deliveries selects by the status the query names, whatever it
// is: which status is due is not the store's to know.
func testDeliveriesByStatus(t *testing.T, open Opener) {
	f := setup(t, open)
	var held *engine.Record
	require.NoError(t, f.Records.Update(context.Background(), func(tx engine.Tx) error {
		held = engine.NewRecord(views.TypeWebhookDeliveries, "1")
		held.Attrs[views.NameStatus], held.Attrs[views.NameAttempt], held.Attrs[views.NameNextAttemptAt] = "held", int64(2), engine.FormatTime(t0.Add(4*time.Second))
		held.SetRel(views.NameWebhookSubscription, f.subs[0].ID)
		held.SetRel(views.NameEvent, f.events[0].ID)
		return tx.Insert(held)
	}))
	d := f.dels
	require.Equal(t, []string{d[1].ID, d[3].ID, d[2].ID, d[0].ID},
		deliveryIDs(list(t, f, views.DeliveryPending, t0.Add(10*time.Second), 10, webhook.Skip{})))
	got := list(t, f, "held", t0.Add(10*time.Second), 10, webhook.Skip{})
	require.Equal(t, []string{held.ID}, deliveryIDs(got))
	require.Equal(t, 2, got[0].Attempt)
	require.Empty(t, list(t, f, "held", t0.Add(3*time.Second), 10, webhook.Skip{}))
	require.Empty(t, list(t, f, "other", t0.Add(time.Hour), 10, webhook.Skip{}))
}

func get(t *testing.T, s engine.Store, typ, acct, id string) *engine.Record {
	t.Helper()
	var r *engine.Record
	err := s.View(context.Background(), func(tx engine.Tx) error {
		var err error
		r, err = tx.Get(typ, acct, id)
		return err
	})
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	require.NoError(t, err)
	return r
}

func publications(t *testing.T, s engine.Store, acct string) []*engine.Record {
	t.Helper()
	var recs []*engine.Record
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		var err error
		recs, _, err = tx.List(&engine.Query{Type: views.TypeWebhookPublications, AccountID: acct})
		return err
	}))
	return recs
}

// Ensure Complete stores each attempt as a publication, advances or
// removes the delivery, and keeps the subscription's failure streak and
// active state, in one call for several outcomes.
func testComplete(t *testing.T, open Opener) {
	f := setup(t, open)
	ctx := context.Background()
	got := due(t, f, t0.Add(10*time.Second))
	require.Len(t, got, 4)
	byID := map[string]*webhook.Delivery{}
	for _, d := range got {
		byID[d.ID] = d
	}
	failed := &webhook.Publication{Status: views.PublicationFailed, Payload: []byte(`{"x":1}`), Attempt: 1, Error: "connection refused",
		CreatedAt: t0.Add(6 * time.Second), CompletedAt: t0.Add(7 * time.Second), NextAttemptAt: t0.Add(time.Minute)}
	gone := &webhook.Publication{Status: views.PublicationRejected, ResponseStatus: 410, Payload: []byte(`{}`), Attempt: 1,
		CreatedAt: t0.Add(6 * time.Second), CompletedAt: t0.Add(6 * time.Second)}
	require.NoError(t, f.Webhook.Complete(ctx, []*webhook.Outcome{
		{Delivery: byID[f.dels[1].ID], Publication: failed, Next: t0.Add(time.Minute)},
		{Delivery: byID[f.dels[2].ID], Publication: gone, Disable: "the receiver answered 410 Gone"},
		{Delivery: byID[f.dels[3].ID]}, // inactive subscription: dropped without an attempt
	}))
	d1 := views.WebhookDelivery{Record: get(t, f.Records, views.TypeWebhookDeliveries, "1", f.dels[1].ID)}
	require.NotNil(t, d1.Record)
	require.EqualValues(t, 1, d1.Attempt())
	require.Equal(t, engine.FormatTime(t0.Add(time.Minute)), d1.NextAttemptAt())
	require.Nil(t, get(t, f.Records, views.TypeWebhookDeliveries, "2", f.dels[2].ID))
	require.Nil(t, get(t, f.Records, views.TypeWebhookDeliveries, "1", f.dels[3].ID))
	s0 := get(t, f.Records, views.TypeWebhookSubscriptions, "1", f.subs[0].ID)
	require.Equal(t, engine.FormatTime(t0.Add(6*time.Second)), s0.Str(views.FailingSinceAttr))
	s2 := views.WebhookSubscription{Record: get(t, f.Records, views.TypeWebhookSubscriptions, "2", f.subs[2].ID)}
	require.False(t, s2.Active())
	require.Equal(t, "the receiver answered 410 Gone", s2.DisabledReason())

	pubs := publications(t, f.Records, "1")
	require.Len(t, pubs, 1, "a dropped delivery has no publication")
	p := views.WebhookPublication{Record: pubs[0]}
	require.Equal(t, "failed", p.Status())
	require.Equal(t, `{"x":1}`, p.Payload())
	require.EqualValues(t, 1, p.Attempt())
	require.Equal(t, "connection refused", p.Error())
	require.Equal(t, engine.FormatTime(t0.Add(6*time.Second)), p.CreatedAt)
	require.Equal(t, engine.FormatTime(t0.Add(7*time.Second)), p.CompletedAt())
	require.Equal(t, engine.FormatTime(t0.Add(time.Minute)), p.NextAttemptAt())
	require.Equal(t, f.subs[0].ID, p.WebhookSubscription())
	require.Equal(t, map[string]any{"type": views.TypeProjects, "id": "9", "event-type": views.EventProjectStatusChanged}, p.Attrs[views.NameSource])
	require.Nil(t, p.Attrs[views.NameResponseStatus])
	require.EqualValues(t, 410, views.WebhookPublication{Record: publications(t, f.Records, "2")[0]}.ResponseStatus())

	// a later failure keeps the streak's start; a success clears it
	d := byID[f.dels[0].ID]
	later := *failed
	later.CreatedAt = t0.Add(20 * time.Second)
	require.NoError(t, f.Webhook.Complete(ctx, []*webhook.Outcome{{Delivery: d, Publication: &later, Next: t0.Add(time.Hour)}}))
	require.Equal(t, engine.FormatTime(t0.Add(6*time.Second)), get(t, f.Records, views.TypeWebhookSubscriptions, "1", f.subs[0].ID).Str(views.FailingSinceAttr))
	d.Attempt = 1
	ok := &webhook.Publication{Status: views.PublicationDelivered, ResponseStatus: 204, Attempt: 2, CreatedAt: t0.Add(time.Hour), CompletedAt: t0.Add(time.Hour)}
	require.NoError(t, f.Webhook.Complete(ctx, []*webhook.Outcome{{Delivery: d, Publication: ok}}))
	_, streak := get(t, f.Records, views.TypeWebhookSubscriptions, "1", f.subs[0].ID).Attrs[views.FailingSinceAttr]
	require.False(t, streak)
	require.Nil(t, get(t, f.Records, views.TypeWebhookDeliveries, "1", f.dels[0].ID))
	require.Len(t, publications(t, f.Records, "1"), 3)
}

// Ensure outcomes of deliveries or subscriptions deleted meanwhile are
// skipped without error.
func testCompleteGone(t *testing.T, open Opener) {
	f := setup(t, open)
	ctx := context.Background()
	got := due(t, f, t0.Add(10*time.Second))
	require.Len(t, got, 4)
	require.NoError(t, f.Records.Update(ctx, func(tx engine.Tx) error {
		if err := tx.Delete(views.TypeWebhookDeliveries, "1", f.dels[1].ID); err != nil {
			return err
		}
		return tx.Delete(views.TypeWebhookSubscriptions, "2", f.subs[2].ID)
	}))
	pub := &webhook.Publication{Status: views.PublicationDelivered, Attempt: 1, CreatedAt: t0, CompletedAt: t0}
	var outs []*webhook.Outcome
	for _, d := range got {
		if d.ID == f.dels[1].ID || d.ID == f.dels[2].ID {
			outs = append(outs, &webhook.Outcome{Delivery: d, Publication: pub})
		}
	}
	require.NoError(t, f.Webhook.Complete(ctx, outs))
	require.Empty(t, publications(t, f.Records, "1"))
	require.Empty(t, publications(t, f.Records, "2"))
	require.Nil(t, get(t, f.Records, views.TypeWebhookDeliveries, "2", f.dels[2].ID), "the orphaned delivery is removed")
}

// Ensure Purge deletes the publications created before the time, in every
// account, and counts them.
func testPurge(t *testing.T, open Opener) {
	f := setup(t, open)
	ctx := context.Background()
	got := due(t, f, t0.Add(10*time.Second))
	var outs []*webhook.Outcome
	for i, d := range got {
		at := t0.Add(time.Duration(i) * time.Hour)
		outs = append(outs, &webhook.Outcome{Delivery: d, Publication: &webhook.Publication{Status: views.PublicationFailed, Attempt: 1,
			CreatedAt: at, CompletedAt: at}, Next: at.Add(time.Hour)})
	}
	require.NoError(t, f.Webhook.Complete(ctx, outs))
	n, err := f.Webhook.Purge(ctx, t0.Add(90*time.Minute))
	require.NoError(t, err)
	require.Equal(t, 2, n)
	require.Len(t, append(publications(t, f.Records, "1"), publications(t, f.Records, "2")...), 2)
	n, err = f.Webhook.Purge(ctx, t0.Add(90*time.Minute))
	require.NoError(t, err)
	require.Zero(t, n)
}

// Ensure a claiming store hands each delivery a claiming query selects to
// one caller at a time, also to concurrent callers, until the claim runs
// out or the outcome is completed; Complete records the real next
// attempt.
func testClaims(t *testing.T, open Opener) {
	f := setup(t, open)
	if f.Claim == 0 {
		t.Skip("this store does not claim deliveries (one process serves it)")
	}
	ctx := context.Background()
	at := t0.Add(10 * time.Second)
	var mu sync.Mutex
	seen := map[string]int{}
	var all []*webhook.Delivery
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := f.Webhook.Deliveries(ctx, &webhook.DeliveryQuery{Status: views.DeliveryPending, NextAttemptBy: at, Limit: 10,
				ClaimUntil: at.Add(f.Claim)})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range got {
				seen[d.ID]++
				all = append(all, d)
			}
		}()
	}
	wg.Wait()
	require.Len(t, seen, 4)
	for id, n := range seen {
		require.Equal(t, 1, n, "delivery %s claimed %d times", id, n)
	}
	require.Empty(t, due(t, f, at), "claimed deliveries are not due for others")
	// one outcome completes with a retry in a minute; the others' claims run out
	var d1 *webhook.Delivery
	for _, d := range all {
		if d.ID == f.dels[1].ID {
			d1 = d
		}
	}
	require.Equal(t, 0, d1.Attempt)
	require.True(t, d1.NextAttemptAt.Equal(t0.Add(time.Second)), "the delivery keeps its planned time, not the claim's")
	next := at.Add(time.Minute)
	require.NoError(t, f.Webhook.Complete(ctx, []*webhook.Outcome{{Delivery: d1, Next: next,
		Publication: &webhook.Publication{Status: views.PublicationFailed, Attempt: 1, CreatedAt: at, CompletedAt: at}}}))
	after := due(t, f, at.Add(f.Claim+time.Second))
	require.ElementsMatch(t, []string{f.dels[3].ID, f.dels[2].ID, f.dels[0].ID}, deliveryIDs(after), "expired claims are due again")
	if next.Before(at.Add(f.Claim + time.Second)) {
		t.Fatalf("claim %s too short for this test", f.Claim)
	}
	require.Empty(t, due(t, f, at.Add(f.Claim+2*time.Second)))
	got := due(t, f, next.Add(f.Claim+time.Hour))
	require.Contains(t, deliveryIDs(got), d1.ID)
	for _, d := range got {
		if d.ID == d1.ID {
			require.Equal(t, 1, d.Attempt)
		}
	}
}

// Ensure a claiming store that renews claims keeps renewed deliveries from
// other claiming queries past the first claim's end, and leaves a delivery
// completed meanwhile at the next attempt Complete recorded.
func testRenewClaims(t *testing.T, open Opener) {
	f := setup(t, open)
	r, ok := f.Webhook.(webhook.ClaimRenewer)
	if f.Claim == 0 || !ok {
		t.Skip("this store does not claim deliveries (one process serves it)")
	}
	require.Equal(t, f.Claim, r.ClaimTTL())
	ctx := context.Background()
	at := t0.Add(10 * time.Second)
	held := due(t, f, at)
	require.Len(t, held, 4)
	var d1 *webhook.Delivery
	for _, d := range held {
		if d.ID == f.dels[1].ID {
			d1 = d
		}
	}
	next := at.Add(f.Claim + 10*time.Second) // completed: retried after the first claim's end
	require.NoError(t, f.Webhook.Complete(ctx, []*webhook.Outcome{{Delivery: d1, Next: next,
		Publication: &webhook.Publication{Status: views.PublicationFailed, Attempt: 1, CreatedAt: at, CompletedAt: at}}}))

	renewedAt := at.Add(f.Claim - time.Second)
	require.NoError(t, r.RenewClaims(ctx, renewedAt.Add(f.Claim), held))
	require.Empty(t, due(t, f, at.Add(f.Claim+time.Second)), "renewed claims outlast the first claim")
	got := due(t, f, next)
	require.Equal(t, []string{d1.ID}, deliveryIDs(got), "a completed delivery keeps its recorded next attempt")
	require.Equal(t, 1, got[0].Attempt)
	got = due(t, f, renewedAt.Add(f.Claim))
	require.ElementsMatch(t, []string{f.dels[3].ID, f.dels[2].ID, f.dels[0].ID}, deliveryIDs(got), "renewed claims run out too")
}
