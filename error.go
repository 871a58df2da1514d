// Package scopekit holds what every ScopeKit package shares: the error type
// and its codes. Domain packages return *Error values; only the HTTP adapter
// maps codes to statuses.
package scopekit

import (
	"errors"
	"fmt"
	"time"
)

// Error codes: the conditions of the domain, which every adapter reports.
// httpadapter maps each to one HTTP status (shown); conditions that exist
// only in HTTP (method not allowed, not acceptable, slow request, headers
// too large) are httpadapter's own codes, not these.
const (
	EINVALID          = "invalid"           // 422: well-formed but fails validation
	EBADREQUEST       = "bad_request"       // 400: malformed request
	EUNSUPPORTEDMEDIA = "unsupported_media" // 415: wrong Content-Type on a write
	EUNAUTHORIZED     = "unauthorized"      // 401: no, invalid or expired credentials
	EFORBIDDEN        = "forbidden"         // 403: authenticated but not allowed
	ENOTFOUND         = "not_found"         // 404: missing or not visible
	ECONFLICT         = "conflict"          // 409: the current state forbids the action
	ETOOLARGE         = "too_large"         // 413: input over a declared limit (a body, a template upload)
	ERATELIMITED      = "rate_limited"      // 429: throttled; Error.RetryAfter says for how long
	ETIMEOUT          = "timeout"           // 504: not answered in time
	EINTERNAL         = "internal"          // 500: anything else
)

// Error is the error type of ScopeKit. Code is one of the E* constants
// (or, for a condition that exists only in one protocol, that adapter's own
// code), Message is safe to show to a client, Field names the attribute,
// relationship or JSON pointer the error is about (optional), and Parameter
// names the query parameter (optional).
type Error struct {
	Code       string
	Message    string
	Field      string
	Parameter  string
	RetryAfter time.Duration // ERATELIMITED only
}

// Error implements the error interface.
func (e *Error) Error() string {
	switch {
	case e.Field != "":
		return fmt.Sprintf("scopekit %s: %s (%s)", e.Code, e.Message, e.Field)
	case e.Parameter != "":
		return fmt.Sprintf("scopekit %s: %s (%s)", e.Code, e.Message, e.Parameter)
	}
	return fmt.Sprintf("scopekit %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns an *Error about one field (an attribute or
// relationship name, or a JSON pointer).
func FieldErrorf(code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ParamErrorf returns an *Error about one query parameter.
func ParamErrorf(code, param, format string, args ...any) *Error {
	return &Error{Code: code, Parameter: param, Message: fmt.Sprintf(format, args...)}
}

// Errors is several errors of one request reported together (for example
// every validation failure of a write). Its code is that of the first.
type Errors []*Error

// Error implements the error interface.
func (es Errors) Error() string {
	if len(es) == 0 {
		return "scopekit: no errors"
	}
	if len(es) == 1 {
		return es[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", es[0].Error(), len(es)-1)
}

// Err returns nil for an empty list, the single error for one, else es.
func (es Errors) Err() error {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return es
}

// ErrorCode returns the code of err: the Code of an *Error or of the first
// entry of Errors found in its chain, "" for nil, EINTERNAL otherwise.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var es Errors
	if errors.As(err, &es) && len(es) > 0 {
		return es[0].Code
	}
	return EINTERNAL
}

// List flattens err into its *Error entries. Errors that are not ScopeKit
// errors become one EINTERNAL entry whose message hides the cause.
func List(err error) []*Error {
	if err == nil {
		return nil
	}
	var es Errors
	if errors.As(err, &es) && len(es) > 0 {
		return es
	}
	var e *Error
	if errors.As(err, &e) {
		return []*Error{e}
	}
	return []*Error{{Code: EINTERNAL, Message: "Internal error"}}
}
