package mcpadapter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// Ensure a cancelled call is told as cancelled and not logged as an
// internal error, while any other unexpected error still is.
func TestCancelledCallIsNotAnInternalError(t *testing.T) {
	var logged bytes.Buffer
	tl := &tools{s: &Server{Logger: slog.New(slog.NewTextHandler(&logged, nil))}}

	err := tl.fail(fmt.Errorf("listing projects: %w", context.Canceled))
	require.ErrorContains(t, err, "cancelled")
	require.NotContains(t, logged.String(), "level=ERROR")

	err = tl.fail(errors.New("disk on fire"))
	require.EqualError(t, err, "internal error")
	require.Contains(t, logged.String(), "level=ERROR")
}
