package scoping

import "context"

// Tracer starts spans around the costly steps of the use cases (pricing
// here, rendering in docgen), so that a trace shows where a request or a
// document job spent its time. kv are attribute keys and values, in
// pairs. end ends the span, with the step's error (nil when it went
// well). The composition root plugs in OpenTelemetry (package observe);
// the domain imports no tracing library.
type Tracer interface {
	Start(ctx context.Context, name string, kv ...string) (_ context.Context, end func(err error))
}

// Span starts a span of s.Tracer; without a Tracer it returns ctx and an
// end that does nothing, at no cost.
func (s *Service) Span(ctx context.Context, name string, kv ...string) (context.Context, func(error)) {
	if s.Tracer == nil || ctx == nil {
		return ctx, noEnd
	}
	return s.Tracer.Start(ctx, name, kv...)
}

func noEnd(error) {}
