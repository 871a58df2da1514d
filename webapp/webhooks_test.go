package webapp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Ensure a webhooks manager subscribes a destination, sees the signing
// secret once, and reads each publication's status, the receiver's
// answer and the payload sent.
func TestSettingsWebhooks(t *testing.T) {
	e := newEnv(t)
	var got atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(receiver.Close)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	p := b.createSetting(t, "webhooks", "event-type", "project_status_changed", "destination-url", receiver.URL+"/hook",
		"description", "Our CRM", "active", "true")
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	secret := shownOnce(p)
	require.Len(t, secret, 1)
	require.True(t, strings.HasPrefix(secret[0], "whsec_"), secret[0])
	id := recordID.FindStringSubmatch(p.Body)[1]
	page := b.get("/app/acme/settings/webhooks/" + id)
	require.NotContains(t, page.Body, secret[0], "shown once")
	require.Contains(t, page.Body, "No deliveries yet.")

	_, err := e.svc.Submit(context.Background(), e.actor("acme", "ada@acme.test"), e.seeded["acme"].ProjectID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return got.Load() > 0 }, 30*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		return strings.Contains(b.get("/app/acme/settings/webhooks/"+id).Body, "answered 202")
	}, 30*time.Second, 100*time.Millisecond)
	page = b.get("/app/acme/settings/webhooks/" + id)
	require.Contains(t, page.Body, `<span class="status delivered">Delivered</span>`)
	require.Contains(t, page.Body, "project_status_changed of projects "+e.seeded["acme"].ProjectID)
	require.Contains(t, page.Body, "&#34;new-status&#34;: &#34;", "the payload, as sent")

	// a destination the use case refuses, said next to the field
	p = b.createSetting(t, "webhooks", "event-type", "project_status_changed", "destination-url", "ftp://example.com/x")
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, `id="f-destination-url-error"`)
}
