// Package officetest gives tests LibreOffice's converters, working in the
// test's temp dir and stopped when it ends; the test is skipped where
// LibreOffice (or, for the warm converter, python3-uno) is not installed.
// CI installs both.
package officetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit/office"
)

// Cold returns a converter running a soffice per document.
func Cold(tb testing.TB) *office.LibreOffice {
	tb.Helper()
	lo, err := office.NewLibreOffice("")
	if err != nil {
		tb.Skipf("LibreOffice not installed (Debian: libreoffice-writer-nogui): %v", err)
	}
	lo.TempDir = tb.TempDir()
	return lo
}

// NewWarm returns a warm converter of n listeners, not started yet.
func NewWarm(tb testing.TB, n int) *office.Pool {
	tb.Helper()
	pool, err := office.NewPool(Cold(tb))
	if err != nil {
		tb.Skipf("no warm converter (Debian: python3-uno): %v", err)
	}
	pool.Listeners = n
	tb.Cleanup(func() {
		if err := pool.Close(); err != nil {
			tb.Error(err)
		}
	})
	return pool
}

// Warm returns a warm converter of n listeners whose listeners are up.
func Warm(tb testing.TB, n int) *office.Pool {
	tb.Helper()
	pool := NewWarm(tb, n)
	Ready(tb, pool)
	return pool
}

// Ready waits (at most two minutes) for pool's listeners to be up.
func Ready(tb testing.TB, pool *office.Pool) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := pool.Ready(ctx); err != nil {
		tb.Fatalf("the warm converter's listeners did not start: %v", err)
	}
}

// Fixed is a converter that makes the same PDF of every document: for
// tests of what is done with a PDF, without LibreOffice.
type Fixed []byte

// ToPDF answers a copy of f.
func (f Fixed) ToPDF(context.Context, []byte) ([]byte, error) { return bytes.Clone(f), nil }
