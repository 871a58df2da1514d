package webhook_test

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

// claimSpy is a real store seen as a claiming one: it keeps the last
// query it answered.
type claimSpy struct {
	webhook.Store
	last *webhook.DeliveryQuery
}

func (s *claimSpy) Deliveries(ctx context.Context, q *webhook.DeliveryQuery) ([]*webhook.Delivery, error) {
	s.last = q
	return s.Store.Deliveries(ctx, q)
}

func (s *claimSpy) ClaimTTL() time.Duration { return time.Minute }

func (s *claimSpy) RenewClaims(context.Context, time.Time, []*webhook.Delivery) error { return nil }

// Ensure Due selects the pending deliveries whose next attempt is at or
// before now, oldest first, leaving out later ones and those in another
// status, applies skip before the limit, and asks a claiming store to
// claim them for its ClaimTTL.
func TestDue(t *testing.T) {
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	now := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	ids := map[string]string{}
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		sub := engine.NewRecord("webhook-subscriptions", "1")
		sub.Attrs["event-type"], sub.Attrs["destination-url"], sub.Attrs["active"] = views.EventProjectStatusChanged, "https://example.test/hook", true
		sub.Attrs[views.SealedSecretAttr] = base64.StdEncoding.EncodeToString([]byte("sealed"))
		ev := engine.NewRecord("events", "1")
		ev.Attrs["event-type"], ev.Attrs["subject-type"], ev.Attrs["subject-id"] = views.EventProjectStatusChanged, "projects", "9"
		for _, r := range []*engine.Record{sub, ev} {
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		for _, d := range []struct {
			name, status string
			at           time.Time
		}{
			{"at now", views.DeliveryPending, now},
			{"overdue", views.DeliveryPending, now.Add(-time.Minute)},
			{"later", views.DeliveryPending, now.Add(time.Second)},
			{"not pending", "held", now.Add(-time.Hour)},
		} {
			r := engine.NewRecord("webhook-deliveries", "1")
			r.Attrs["status"], r.Attrs["attempt"], r.Attrs["next-attempt-at"] = d.status, int64(0), engine.FormatTime(d.at)
			r.SetRel("webhook-subscription", sub.ID)
			r.SetRel("event", ev.ID)
			if err := tx.Insert(r); err != nil {
				return err
			}
			ids[d.name] = r.ID
		}
		return nil
	}))

	got, err := webhook.Due(ctx, db, now, 10, webhook.Skip{})
	require.NoError(t, err)
	require.Equal(t, []string{ids["overdue"], ids["at now"]}, deliveryIDs(got))
	got, err = webhook.Due(ctx, db, now, 1, webhook.Skip{Deliveries: map[string]bool{ids["overdue"]: true}})
	require.NoError(t, err)
	require.Equal(t, []string{ids["at now"]}, deliveryIDs(got), "skip applies before the limit")
	got, err = webhook.Due(ctx, db, now.Add(time.Second), 10, webhook.Skip{})
	require.NoError(t, err)
	require.Equal(t, []string{ids["overdue"], ids["at now"], ids["later"]}, deliveryIDs(got))

	spy := &claimSpy{Store: db}
	got, err = webhook.Due(ctx, spy, now, 10, webhook.Skip{})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, now.Add(time.Minute), spy.last.ClaimUntil, "a claiming store claims for its ClaimTTL")
}

func deliveryIDs(ds []*webhook.Delivery) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}
