package mcpadapter

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure cursors round-trip and anything else is refused.
func TestCursor(t *testing.T) {
	page, size, err := decodeCursor(encodeCursor(3, 25))
	require.NoError(t, err)
	require.Equal(t, [2]int{3, 25}, [2]int{page, size})
	for _, bad := range []string{"", "x", encodeCursor(0, 25), encodeCursor(2, 0), encodeCursor(2, MaxLimit+1), "cDJzMjVz"} {
		_, _, err := decodeCursor(bad)
		require.ErrorContains(t, err, "cursor", bad)
	}
}

// Ensure list parameters are named as the tool's arguments.
func TestArgName(t *testing.T) {
	for param, want := range map[string]string{"created-after": "created_after", "name": "query",
		"approved-before": "approved_before", "project": "project", "include": "include"} {
		require.Equal(t, want, argName(param), param)
	}
}
