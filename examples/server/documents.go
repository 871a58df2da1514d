package main

import (
	"context"

	"github.com/scopekit/scopekit/engine"
)

// beforeGenerate, when set (by a test build), runs before each document is
// rendered (app.Config.BeforeGenerate).
var beforeGenerate func(ctx context.Context, doc *engine.Record)
