package scoping_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

// Event types as webhooks.md names them (the wire names).
const (
	hookProjectStatus  = "project_status_changed"
	hookDocumentStatus = "document_status_changed"
)

// What the outbox stores but never serves, and a queued delivery's
// status: the names package webhook reads.
const (
	hookSealedAttr  = "secret-sealed"
	hookFailingAttr = "failing-since"
	hookPending     = "pending"
)

// hookClock is a fixed clock for the module tests.
var hookClock = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// hookService is a service with the webhook package's sealer, a fixed
// clock and a Notify that counts its calls.
func hookService(t *testing.T) (*scoping.Service, *seal.Sealer, *atomic.Int64) {
	t.Helper()
	svc, _ := acctService(t)
	sealer, err := seal.New(make([]byte, seal.KeySize))
	require.NoError(t, err)
	var notified atomic.Int64
	svc.Webhooks = scoping.WebhookConfig{Sealer: sealer, FirstDelay: 5 * time.Second, Notify: func() { notified.Add(1) }}
	svc.Now = func() time.Time { return hookClock }
	return svc, sealer, &notified
}

// hookSubscribe creates an active subscription to eventType.
func hookSubscribe(t *testing.T, svc *scoping.Service, a *engine.Actor, eventType string) *engine.Record {
	t.Helper()
	return acctCreate(t, svc, a, "webhook-subscriptions", attrs("event-type", `"`+eventType+`"`, "destination-url", `"https://hooks.example.com/in"`), nil)
}

// hookProject creates a client and a project of it.
func hookProject(t *testing.T, svc *scoping.Service, a *engine.Actor, name string) *engine.Record {
	t.Helper()
	c := acctCreate(t, svc, a, "clients", attrs("name", `"Client of `+name+`"`), nil)
	return acctCreate(t, svc, a, "projects", attrs("project-name", `"`+name+`"`), map[string]engine.RelInput{"client": rel("clients", c.ID)})
}

// hookStored reads records of typ of every account from the store
// itself, undeclared attributes included.
func hookStored(t *testing.T, svc *scoping.Service, typ string) []*engine.Record {
	t.Helper()
	var recs []*engine.Record
	require.NoError(t, svc.Store().View(context.Background(), func(tx engine.Tx) (err error) {
		recs, _, err = tx.List(&engine.Query{Type: typ, AllAccounts: true})
		return err
	}))
	return recs
}

// Ensure a new subscription gets a whsec_ secret shown in the create
// answer only and stored sealed, that subscriptions need a sealer, a
// known event type and settings.webhooks manage.
func TestWebhooksSubscriptionSecret(t *testing.T) {
	ctx := context.Background()
	svc, sealer, _ := hookService(t)
	acct, sys := acctAccount(t, svc, "acme")

	sub := hookSubscribe(t, svc, sys, hookProjectStatus)
	secret := sub.Str("secret")
	require.True(t, strings.HasPrefix(secret, "whsec_"), secret)
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	require.NoError(t, err)
	require.Len(t, raw, 24)
	require.True(t, sub.Active())
	require.NotContains(t, sub.Attrs, hookSealedAttr)

	res, err := svc.Get(ctx, sys, "webhook-subscriptions", sub.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.NotContains(t, res.Records[0].Attrs, "secret", "shown once")
	stored := hookStored(t, svc, "webhook-subscriptions")
	require.Len(t, stored, 1)
	sealed, err := base64.StdEncoding.DecodeString(stored[0].Str(hookSealedAttr))
	require.NoError(t, err)
	require.NotContains(t, string(sealed), secret)
	plain, err := sealer.Open(sealed)
	require.NoError(t, err)
	require.Equal(t, secret, string(plain))
	other := hookSubscribe(t, svc, sys, hookProjectStatus)
	require.NotEqual(t, secret, other.Str("secret"), "every subscription has its own")

	_, err = svc.Create(ctx, sys, "webhook-subscriptions", &engine.Input{Attrs: attrs("event-type", `"project_deleted"`, "destination-url", `"https://a.example.com"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
	_, err = svc.Create(ctx, sys, "webhook-subscriptions", &engine.Input{Attrs: attrs("destination-url", `"https://a.example.com"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "event-type is required: %v", err)

	for role, code := range map[string]string{"Sales": scopekit.EFORBIDDEN, "Read Only": scopekit.EFORBIDDEN, "Account Admin": ""} {
		a := acctMember(t, svc, acct.ID, strings.ReplaceAll(strings.ToLower(role), " ", "")+"@acme.test", role)
		_, err := svc.List(ctx, a, "webhook-subscriptions", engine.ListParams{}, engine.Options{})
		require.Equal(t, code, scopekit.ErrorCode(err), role)
	}

	svc.Webhooks.Sealer = nil
	_, err = svc.Create(ctx, sys, "webhook-subscriptions", &engine.Input{Attrs: attrs("event-type", `"project_status_changed"`, "destination-url", `"https://a.example.com"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINTERNAL, "", "need a secret sealer")
	require.Len(t, hookStored(t, svc, "webhook-subscriptions"), 2, "nothing stored")
}

// Ensure destinations are absolute https URLs unless a destination check
// is configured, whose refusal completes "destination-url ...", and that
// a destination is checked when new or changed only.
func TestWebhooksDestination(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	_, sys := acctAccount(t, svc, "acme")
	create := func(url string) (*engine.Result, error) {
		return svc.Create(ctx, sys, "webhook-subscriptions", &engine.Input{Attrs: attrs("event-type", `"service_status_changed"`, "destination-url", `"`+url+`"`)}, engine.Options{})
	}
	for _, bad := range []string{"http://hooks.example.com/in", "https://", "hooks.example.com/in", "ftp://hooks.example.com", "https://[::1"} {
		_, err := create(bad)
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/destination-url", "destination-url must be an absolute https URL")
	}
	_, err := create("")
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "destination-url is required: %v", err)
	res, err := create("https://hooks.example.com/in")
	require.NoError(t, err)
	sub := res.Records[0]

	var checked []string
	svc.Webhooks.CheckDestination = func(ctx context.Context, u string) error {
		checked = append(checked, u)
		return webhook.CheckDestination(true)(ctx, u)
	}
	res, err = create("http://127.0.0.1:9000/hooks")
	require.NoError(t, err, "the configured check allows private http")
	_, err = create("mailto:ops@example.com")
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/destination-url", "destination-url must be")
	checked = nil
	_, err = svc.Update(ctx, sys, "webhook-subscriptions", sub.ID, &engine.Input{Attrs: attrs("description", `"ERP"`, "destination-url", `"https://hooks.example.com/in"`)}, engine.Options{})
	require.NoError(t, err)
	require.Empty(t, checked, "an unchanged destination is not checked again")
	_, err = svc.Update(ctx, sys, "webhook-subscriptions", sub.ID, &engine.Input{Attrs: attrs("destination-url", `"ftp://x.example.com"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/destination-url", "destination-url must be")
	require.Equal(t, []string{"ftp://x.example.com"}, checked)
}

// Ensure setting active back to true on a subscription the server
// disabled clears its disabled-reason and failure streak, while other
// changes keep them.
func TestWebhooksReactivate(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	_, sys := acctAccount(t, svc, "acme")
	sub := hookSubscribe(t, svc, sys, hookDocumentStatus)
	// as the dispatcher does: failing since, then disabled
	since := engine.FormatTime(hookClock.Add(-time.Hour))
	require.NoError(t, svc.Store().Update(ctx, func(tx engine.Tx) error {
		s, err := tx.Get("webhook-subscriptions", sub.AccountID, sub.ID)
		if err != nil {
			return err
		}
		s.Attrs[hookFailingAttr] = since
		return tx.Replace(s)
	}))
	_, err := svc.Update(ctx, sys, "webhook-subscriptions", sub.ID, &engine.Input{Attrs: attrs("description", `"ERP"`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, since, hookStored(t, svc, "webhook-subscriptions")[0].Str(hookFailingAttr), "an active one keeps its streak")

	require.NoError(t, svc.Store().Update(ctx, func(tx engine.Tx) error {
		s, err := tx.Get("webhook-subscriptions", sub.AccountID, sub.ID)
		if err != nil {
			return err
		}
		s.Attrs["active"], s.Attrs["disabled-reason"] = false, "the destination answered 410 Gone"
		return tx.Replace(s)
	}))
	res, err := svc.Update(ctx, sys, "webhook-subscriptions", sub.ID, &engine.Input{Attrs: attrs("description", `"ERP 2"`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "the destination answered 410 Gone", res.Records[0].Str("disabled-reason"))
	require.False(t, res.Records[0].Active())

	res, err = svc.Update(ctx, sys, "webhook-subscriptions", sub.ID, &engine.Input{Attrs: attrs("active", `true`)}, engine.Options{})
	require.NoError(t, err)
	require.True(t, res.Records[0].Active())
	require.NotContains(t, res.Records[0].Attrs, "disabled-reason")
	stored := hookStored(t, svc, "webhook-subscriptions")[0]
	require.NotContains(t, stored.Attrs, hookFailingAttr)
	require.NotContains(t, stored.Attrs, "disabled-reason")
	require.NotEmpty(t, stored.Str(hookSealedAttr), "the secret stays")
}

// Ensure a recorded event queues one pending delivery, due after the
// first delay, for each active subscription of its account and type, and
// none for others; Notify runs once the write commits.
func TestWebhooksDeliveriesQueued(t *testing.T) {
	ctx := context.Background()
	svc, _, notified := hookService(t)
	_, sys := acctAccount(t, svc, "acme")
	_, globexSys := acctAccount(t, svc, "globex")
	want := hookSubscribe(t, svc, sys, hookDocumentStatus)
	paused := hookSubscribe(t, svc, sys, hookDocumentStatus)
	_, err := svc.Update(ctx, sys, "webhook-subscriptions", paused.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	hookSubscribe(t, svc, sys, hookProjectStatus)
	hookSubscribe(t, svc, globexSys, hookDocumentStatus)
	twice := hookSubscribe(t, svc, sys, hookDocumentStatus)
	proj := hookProject(t, svc, sys, "Firewall")
	require.Zero(t, notified.Load(), "no event yet")
	require.Empty(t, hookStored(t, svc, "webhook-deliveries"))

	doc := acctCreate(t, svc, sys, "project-documents", attrs("document-type", `"pricing"`), map[string]engine.RelInput{"project": rel("projects", proj.ID)})
	require.EqualValues(t, 1, notified.Load())
	events, err := svc.Events(ctx, "", 0)
	require.NoError(t, err)
	require.Len(t, events, 1)
	dels := hookStored(t, svc, "webhook-deliveries")
	require.Len(t, dels, 2)
	subs := map[string]bool{}
	for _, d := range dels {
		subs[d.Rel("webhook-subscription")] = true
		require.Equal(t, sys.AccountID(), d.AccountID)
		require.Equal(t, hookPending, d.Str("status"))
		require.EqualValues(t, 0, d.Int("attempt"))
		require.Equal(t, engine.FormatTime(hookClock.Add(5*time.Second)), d.Str("next-attempt-at"))
		require.Equal(t, events[0].ID, d.Rel("event"))
	}
	require.Equal(t, map[string]bool{want.ID: true, twice.ID: true}, subs)

	// a write refused by validation records nothing and notifies nobody
	_, err = svc.Create(ctx, sys, "project-documents", &engine.Input{Attrs: attrs("document-type", `"sow"`),
		Rels: map[string]engine.RelInput{"project": rel("projects", proj.ID)}}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.EqualValues(t, 1, notified.Load())
	require.Len(t, hookStored(t, svc, "webhook-deliveries"), 2)

	// a write without events does not notify
	_, err = svc.Update(ctx, sys, "project-documents", doc.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	require.EqualValues(t, 1, notified.Load())
}

// Ensure Events lists the outbox of every account oldest first, after an
// id compared as a number, up to a limit, each event naming its change.
func TestWebhooksEvents(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	_, acme := acctAccount(t, svc, "acme")
	_, globex := acctAccount(t, svc, "globex")
	empty, err := svc.Events(ctx, "", 10)
	require.NoError(t, err)
	require.Empty(t, empty)

	var docs []*engine.Record
	projects := map[string]string{}
	for i, a := range []*engine.Actor{acme, globex} {
		p := hookProject(t, svc, a, fmt.Sprint("P", i))
		for range 6 {
			d := acctCreate(t, svc, a, "project-documents", attrs("document-type", `"breakdown"`), map[string]engine.RelInput{"project": rel("projects", p.ID)})
			docs = append(docs, d)
			projects[d.ID] = p.ID
		}
	}
	all, err := svc.Events(ctx, "", 0)
	require.NoError(t, err)
	require.Len(t, all, 12)
	for i, e := range all {
		if i > 0 {
			require.Negative(t, engine.CompareIDs(all[i-1].ID, e.ID), "oldest first")
		}
		require.Equal(t, docs[i].AccountID, e.AccountID)
		require.Equal(t, hookDocumentStatus, e.Str("event-type"))
		require.Equal(t, "project-documents", e.Str("subject-type"))
		require.Equal(t, docs[i].ID, e.Str("subject-id"))
		require.Equal(t, "", e.Str("old-status"))
		require.Equal(t, scoping.DocumentQueued, e.Str("new-status"))
		require.Equal(t, projects[docs[i].ID], e.Rel("project"))
		require.Equal(t, engine.FormatTime(hookClock), e.Str("occurred-at"))
	}
	ids := func(recs []*engine.Record) []string {
		out := make([]string, len(recs))
		for i, r := range recs {
			out[i] = r.ID
		}
		return out
	}
	page, err := svc.Events(ctx, all[4].ID, 3)
	require.NoError(t, err)
	require.Equal(t, ids(all[5:8]), ids(page))
	// "9" < "10": ids compare as numbers, not as text
	nine := -1
	for i, e := range all {
		if e.ID == "9" {
			nine = i
		}
	}
	require.NotEqual(t, -1, nine, "the sequence starts at 1: %v", ids(all))
	rest, err := svc.Events(ctx, "9", 0)
	require.NoError(t, err)
	require.Equal(t, ids(all[nine+1:]), ids(rest))
	none, err := svc.Events(ctx, all[11].ID, 5)
	require.NoError(t, err)
	require.Empty(t, none)
}
