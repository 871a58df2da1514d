package webhook_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/scopekit/scopekit/webhook"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSignVerifiesWithStandardWebhooks(t *testing.T) {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	body := []byte(`{"data":{"type":"webhook-events","id":"1"}}`)
	now := time.Now()
	sig, err := webhook.Sign(secret, "1", now, body)
	require.NoError(t, err)
	h := http.Header{}
	h.Set("webhook-id", "1")
	h.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	h.Set("webhook-signature", sig)
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	require.NoError(t, wh.Verify(body, h))
	require.Error(t, wh.Verify(append(body, ' '), h), "a changed body fails")
	want, err := wh.Sign("1", now, body)
	require.NoError(t, err)
	assert.Equal(t, want, sig)
}

func TestCheckDestination(t *testing.T) {
	ctx := context.Background()
	strict, lax := webhook.CheckDestination(false), webhook.CheckDestination(true)
	for _, u := range []string{"http://8.8.8.8/h", "https://127.0.0.1/h", "https://[::1]/h", "ftp://8.8.8.8/", "/relative", "https:///nohost"} {
		assert.Error(t, strict(ctx, u), u)
	}
	assert.NoError(t, strict(ctx, "https://8.8.8.8/h"))
	assert.NoError(t, lax(ctx, "http://127.0.0.1:9000/h"))
	assert.Error(t, lax(ctx, "ftp://127.0.0.1/h"))
}
