package webhook_test

import (
	"bytes"
	"context"
	"net/http"
	"net/netip"
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

func TestSealer(t *testing.T) {
	s, err := webhook.NewSealer(bytes.Repeat([]byte{1}, webhook.KeySize))
	require.NoError(t, err)
	sealed, err := s.Seal([]byte("whsec_abc"))
	require.NoError(t, err)
	assert.False(t, bytes.Contains(sealed, []byte("abc")))
	plain, err := s.Open(sealed)
	require.NoError(t, err)
	assert.Equal(t, "whsec_abc", string(plain))
	other, _ := webhook.NewSealer(bytes.Repeat([]byte{2}, webhook.KeySize))
	_, err = other.Open(sealed)
	assert.ErrorIs(t, err, webhook.ErrUnseal)
	_, err = webhook.NewSealer([]byte("short"))
	assert.Error(t, err)
}

func TestIsPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "224.0.0.1": false, "::1": false, "fe80::1": false, "fc00::1": false,
		"::ffff:127.0.0.1": false, "64:ff9b::7f00:1": false,
	} {
		assert.Equal(t, want, webhook.IsPublic(netip.MustParseAddr(addr)), addr)
	}
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
