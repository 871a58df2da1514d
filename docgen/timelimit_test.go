package docgen_test

import (
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// slowConverter makes no PDF before its context ends.
type slowConverter struct{}

func (slowConverter) ToPDF(ctx context.Context, _ []byte) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// Ensure a document past the pool's time limit ends in error saying so
// (keeping its file when only the PDF was late), and frees its worker:
// with one worker, the document queued behind it is generated.
func TestTimeLimit(t *testing.T) {
	e := mustEnv(t)
	e.pool.TimeLimit, e.pool.Workers, e.pool.Poll = 300*time.Millisecond, 1, time.Hour
	slow := e.queue(t, scoping.DocumentSOW, false)
	e.pool.BeforeGenerate = func(ctx context.Context, doc *engine.Record) {
		if doc.ID == slow {
			<-ctx.Done() // a rendering that would take far longer
		}
	}
	next := e.queue(t, "pricing", false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.pool.Run(ctx) }()
	require.Eventually(t, func() bool {
		return e.doc(t, next).Str("status") == scoping.DocumentFinished
	}, 10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	rec := e.doc(t, slow)
	require.Equal(t, scoping.DocumentError, rec.Str("status"))
	require.Equal(t, "generating the document took longer than its time limit of 300ms and was stopped: "+
		"the template's loops or expressions are too heavy for this project", rec.Str("error-text"))

	e.pool.BeforeGenerate, e.pool.Converter = nil, slowConverter{}
	e.queue(t, scoping.DocumentSOW, true)
	start := time.Now()
	out := e.pool.Generate(context.Background(), e.claim(t))
	require.Less(t, time.Since(start), 5*time.Second)
	require.Equal(t, "no PDF was made within the document's time limit of 300ms; the file is available", out.Failure)
	require.NotEmpty(t, out.File)
	require.Empty(t, out.PDF)
}
