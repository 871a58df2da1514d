//go:build scopekit_docdelay

package main

import (
	"context"
	"time"

	"github.com/scopekit/scopekit/engine"
)

// Built only by the document crash test (go build -tags
// scopekit_docdelay): every document waits a moment before it is
// rendered, so that the test can kill the server while one is generating.
func init() {
	beforeGenerate = func(ctx context.Context, _ *engine.Record) {
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}
