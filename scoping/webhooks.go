package scoping

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Webhook subscriptions, their pending deliveries and their publications
// (docs/webhooks.md). This file declares the records; package webhook delivers
// them. A recorded event queues one delivery per active subscription of its
// account and type in the transaction of the change, so a change that rolls
// back leaves neither event nor deliveries, and a crash after the commit
// loses nothing.

// Sealer encrypts secrets that must be usable later (a webhook signing
// secret cannot be hashed) before they are stored; auth seals the TOTP
// seeds of second factors with the same.
type Sealer = auth.Sealer

// WebhookConfig is what the webhook records need from outside scoping; the
// composition root plugs it in (package webhook provides the parts).
type WebhookConfig struct {
	// CheckDestination rejects a destination URL the server must not call
	// (wrong scheme, private address); its error text completes
	// "destination-url ...". nil accepts absolute https URLs.
	CheckDestination func(ctx context.Context, rawURL string) error
	// Sealer encrypts subscription secrets; without it subscriptions
	// cannot be created.
	Sealer Sealer
	// FirstDelay is the delay before a delivery's first attempt.
	FirstDelay time.Duration
	// Notify is called after a transaction that recorded events commits,
	// so a dispatcher can deliver at once instead of at its next poll. It
	// must not block.
	Notify func()
}

// The generated secrets of subscriptions.
const (
	webhookSecretPrefix   = "whsec_"
	webhookSecretByteSize = 24
)

var eventTypes = []string{views.EventProjectStatusChanged, views.EventServiceStatusChanged, views.EventDocumentStatusChanged,
	views.EventChangeOrderStatusChanged, views.EventAcceptanceStatusChanged}

func declareWebhooks(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "webhook-subscriptions", Guard: "settings.webhooks", V2: true,
		Attrs: cat([]engine.AttrDef{required(enum("event-type", "", eventTypes...)), required(str("destination-url")),
			text("description"), {Name: "active", Kind: engine.KindBool, Default: true, Index: true}},
			computed(str("secret"), text("disabled-reason"))),
		Rels:    []engine.RelDef{inverse("webhook-publications", "webhook-publications", "webhook-subscription")},
		Filters: with(eq("event-type"), "active", engine.FilterDef{Op: engine.OpIn, Kind: engine.KindBool}),
		Hooks: engine.Hooks{
			Validate:   validateSubscription,
			AfterWrite: afterSubscriptionWrite,
		}})
	register(s, &engine.TypeDef{Name: "webhook-publications", Guard: "settings.webhooks", V2: true, ReadOnly: true, IndexCreated: true,
		Attrs: computed(enum("status", "", views.PublicationDelivered, views.PublicationRejected, views.PublicationFailed),
			num("response-status"), obj("source"), text("payload"), num("attempt"), text("error"),
			engine.AttrDef{Name: "completed-at", Kind: engine.KindTime}, engine.AttrDef{Name: "next-attempt-at", Kind: engine.KindTime}),
		Rels:    []engine.RelDef{{Name: "webhook-subscription", Type: "webhook-subscriptions", Cascade: true, ReadOnly: true}},
		Filters: eq("status")})
	register(s, &engine.TypeDef{Name: "webhook-deliveries", Internal: true,
		Attrs: []engine.AttrDef{{Name: "status", Kind: engine.KindString, Index: true}, num("attempt"),
			{Name: "next-attempt-at", Kind: engine.KindTime, Index: true}}, // the index orders them by due time
		Rels: []engine.RelDef{{Name: "webhook-subscription", Type: "webhook-subscriptions", Cascade: true},
			to1("event", "events")}})
}

// validateSubscription checks the destination when it is new or changed.
func validateSubscription(ctx context.Context, c *engine.Call, rec, old *engine.Record) []error {
	u := rec.Str(views.NameDestinationURL)
	if u == "" || (old != nil && old.Str(views.NameDestinationURL) == u) {
		return nil
	}
	check := svcOf(c).Webhooks.CheckDestination
	if check == nil {
		check = httpsOnly
	}
	if err := check(ctx, u); err != nil {
		return []error{engine.Invalid(engine.AttrPointer(views.NameDestinationURL), "destination-url %s", err.Error())}
	}
	return nil
}

// httpsOnly is the destination check used when none is configured.
func httpsOnly(_ context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return errors.New("must be an absolute https URL")
	}
	return nil
}

// afterSubscriptionWrite gives a new subscription its secret, stored only
// sealed and returned in clear in the create response alone; reactivating
// a subscription clears its disabled-reason and failure streak.
func afterSubscriptionWrite(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old != nil {
		if rec.Active() && !old.Active() {
			delete(rec.Attrs, views.NameDisabledReason)
			delete(rec.Attrs, views.FailingSinceAttr)
			return c.Tx.Replace(rec)
		}
		return nil
	}
	sealer := svcOf(c).Webhooks.Sealer
	if sealer == nil {
		return scopekit.Errorf(scopekit.EINTERNAL, "webhook subscriptions need a secret sealer (none configured)")
	}
	raw := make([]byte, webhookSecretByteSize)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	secret := webhookSecretPrefix + base64.StdEncoding.EncodeToString(raw)
	sealed, err := sealer.Seal([]byte(secret))
	if err != nil {
		return err
	}
	rec.Attrs[views.SealedSecretAttr] = base64.StdEncoding.EncodeToString(sealed)
	if err := c.Tx.Replace(rec); err != nil {
		return err
	}
	delete(rec.Attrs, views.SealedSecretAttr)
	rec.Attrs[views.NameSecret] = secret // in memory only: the create response
	return nil
}

// queueDeliveries adds a pending delivery of event e for every active
// subscription of its account and type.
func queueDeliveries(c *engine.Call, e *engine.Record) error {
	subs, _, err := c.Tx.List(&engine.Query{Type: views.TypeWebhookSubscriptions, AccountID: e.AccountID,
		Where: []engine.Cond{engine.Eq(views.NameEventType, e.Str(views.NameEventType)), engine.Eq(views.NameActive, "true")}})
	if err != nil {
		return err
	}
	due := engine.FormatTime(svcOf(c).Now().Add(svcOf(c).Webhooks.FirstDelay))
	for _, s := range subs {
		d := engine.NewRecord(views.TypeWebhookDeliveries, e.AccountID)
		d.Attrs[views.NameStatus], d.Attrs[views.NameAttempt], d.Attrs[views.NameNextAttemptAt] = views.DeliveryPending, int64(0), due
		d.SetRel(views.NameWebhookSubscription, s.ID)
		d.SetRel(views.NameEvent, e.ID)
		if err := c.Tx.Insert(d); err != nil {
			return err
		}
	}
	return nil
}
