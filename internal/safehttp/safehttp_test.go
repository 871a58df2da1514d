package safehttp_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/safehttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure loopback, private, link-local, reserved and mapped or translated
// forms of them are not public.
func TestIsPublic(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"0.0.0.0": false, "100.64.0.1": false, "224.0.0.1": false, "::1": false, "fe80::1": false, "fc00::1": false,
		"::ffff:127.0.0.1": false, "64:ff9b::7f00:1": false,
	} {
		assert.Equal(t, want, safehttp.IsPublic(netip.MustParseAddr(addr)), addr)
	}
}

// Ensure the client refuses to connect to a non-public address unless
// private destinations are allowed (the check is on the address dialed,
// whatever the name resolved to), and follows no redirect.
func TestClientGuard(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://8.8.8.8/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	_, err := safehttp.NewClient(5*time.Second, false).Get(srv.URL)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "destination address 127.0.0.1 is not public")

	res, err := safehttp.NewClient(5*time.Second, true).Get(srv.URL)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusFound, res.StatusCode, "the redirect is answered, not followed")
}
