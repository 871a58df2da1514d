package httpadapter

import (
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// Metrics receives the adapter's measurements (package observe exports
// them to Prometheus); Server.Metrics nil measures nothing. Its methods
// are called from the requests' goroutines, once a request is answered.
type Metrics interface {
	// Request reports an answered request: its method (LabelOther for
	// one outside the standard methods), the route pattern it matched
	// (RouteUnmatched when none did; never the raw path), its status and
	// the time it took.
	Request(method, route string, status int, elapsed time.Duration)
	// Token reports an answer of the token endpoint: the grant type
	// (LabelOther for an unknown one) and TokenGranted or the OAuth
	// error code of the refusal.
	Token(grantType, outcome string)
	// Throttled reports a request a throttle refused, naming the limit
	// (one of the Limit* constants).
	Throttled(limit string)
}

// Labels of Metrics.
const (
	LabelOther     = "other"
	RouteUnmatched = "unmatched"
	TokenGranted   = "granted"

	LimitAuthIP          = "auth-ip"           // an IP over its bucket on the auth host (429)
	LimitAuthBlocked     = "auth-blocked"      // a blocked IP on the auth host (403)
	LimitTokenGlobal     = "token-global"      // the ceiling on tokens minted per second (429)
	LimitDocumentIP      = "documents-ip"      // document generations of an IP (429)
	LimitDocumentAccount = "documents-account" // document generations of an account (429)
)

// methodLabel bounds the method label to the standard methods, so that a
// client cannot make series up.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return LabelOther
}

// grantLabel bounds the grant type label to the grants of auth.
func grantLabel(g string) string {
	switch g {
	case "password", "client_credentials", "refresh_token", "authorization_code":
		return g
	}
	return LabelOther
}

// throttled notes the limit that refused the request, for Metrics.
func throttled(r *http.Request, limit string) {
	if info := infoOf(r); info != nil {
		info.throttled = limit
	}
}

// observe reports the answered request to m and names its span (when a
// tracing handler made one, outside this adapter) by its route pattern.
func (info *reqInfo) observe(m Metrics, r *http.Request, status int, elapsed time.Duration) {
	if span := trace.SpanFromContext(r.Context()); span.IsRecording() {
		span.SetName(methodLabel(r.Method) + " " + info.route)
		span.SetAttributes(attribute.String("http.route", info.route))
	}
	if m == nil {
		return
	}
	m.Request(methodLabel(r.Method), info.route, status, elapsed)
	if info.tokenOutcome != "" {
		m.Token(info.grant, info.tokenOutcome)
	}
	if info.throttled != "" {
		m.Throttled(info.throttled)
	}
}
