package pgstore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure no count is the same twice while the listener is down (nothing
// kept may be compared then), that counts hold while it listens, and that
// they all move when it connects again.
func TestCountsWhileNotListening(t *testing.T) {
	var v versions
	require.NotEqual(t, v.get("users"), v.get("users"), "a count compared before listening")
	v.gen.Add(1)
	v.live.Store(true)
	v.bump("users")
	listening := v.get("users")
	require.Equal(t, listening, v.get("users"))
	v.live.Store(false)
	require.NotEqual(t, v.get("users"), v.get("users"), "a count compared while not listening")
	require.NotEqual(t, listening, v.get("users"))
	v.gen.Add(1) // connected again
	v.live.Store(true)
	require.NotEqual(t, listening, v.get("users"), "the counts did not move at the reconnection")
}
