package httpadapter

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/jsonapi"
)

// Codes of the conditions that exist only in HTTP: the adapter's own, not
// the root's domain codes. They travel in a *scopekit.Error like the
// others, so one writer answers every error.
const (
	codeMethod          = "method_not_allowed" // 405: the route exists, the method does not
	codeNotAcceptable   = "not_acceptable"     // 406: Accept admits no JSON:API
	codeSlowRequest     = "request_timeout"    // 408: the request body did not arrive in time
	codeHeadersTooLarge = "headers_too_large"  // 431: request line and headers too large
)

// statusOf is the one place where error codes become HTTP statuses.
var statusOf = map[string]int{
	scopekit.EINVALID:          http.StatusUnprocessableEntity,
	scopekit.EBADREQUEST:       http.StatusBadRequest,
	scopekit.EUNSUPPORTEDMEDIA: http.StatusUnsupportedMediaType,
	scopekit.EUNAUTHORIZED:     http.StatusUnauthorized,
	scopekit.EFORBIDDEN:        http.StatusForbidden,
	scopekit.ENOTFOUND:         http.StatusNotFound,
	scopekit.ECONFLICT:         http.StatusConflict,
	codeMethod:                 http.StatusMethodNotAllowed,
	codeNotAcceptable:          http.StatusNotAcceptable,
	scopekit.ETOOLARGE:         http.StatusRequestEntityTooLarge,
	codeSlowRequest:            http.StatusRequestTimeout,
	codeHeadersTooLarge:        http.StatusRequestHeaderFieldsTooLarge,
	scopekit.ERATELIMITED:      http.StatusTooManyRequests,
	scopekit.ETIMEOUT:          http.StatusGatewayTimeout,
	scopekit.EINTERNAL:         http.StatusInternalServerError,
}

// codeOfStatus maps a jsonapi decoding status back to a code.
func codeOfStatus(status int) string {
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	return scopekit.EBADREQUEST
}

// normalize turns any error into ScopeKit errors: jsonapi decoding and
// query errors keep their status and source, context errors become
// timeouts, and anything unknown becomes EINTERNAL.
func normalize(err error) []*scopekit.Error {
	var je *jsonapi.Error
	if errors.As(err, &je) {
		e := &scopekit.Error{Code: codeOfStatus(je.Status), Message: je.Detail, Field: je.Pointer, Parameter: je.Parameter}
		if je.Pointer == "" && je.Parameter == "" && je.Status == http.StatusBadRequest {
			e.Field = "/"
		}
		return []*scopekit.Error{e}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return []*scopekit.Error{{Code: scopekit.ETIMEOUT, Message: "the request was not answered in time"}}
	}
	return scopekit.List(err)
}

// statusClientClosed is the status recorded for a request whose client
// went away before its answer (nginx's 499).
const statusClientClosed = 499

// writeError writes err as a JSON:API error document. Internal errors are
// logged with the request id and shown only as "Internal error"; 401
// bodies carry no detail.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && errors.Is(r.Context().Err(), context.Canceled) {
		// the client went away (or the server is shutting down): no one
		// reads an answer and nothing went wrong here; the request log
		// and the metrics show 499, as proxies do, not a server error
		w.WriteHeader(statusClientClosed)
		return
	}
	errs := normalize(err)
	status := statusOf[errs[0].Code]
	if status == 0 {
		status = http.StatusInternalServerError
	}
	doc := &jsonapi.Document{}
	for _, e := range errs {
		s := statusOf[e.Code]
		if s == 0 {
			s = http.StatusInternalServerError
		}
		obj := &jsonapi.ErrorObject{Status: strconv.Itoa(s), Title: http.StatusText(s), Code: e.Code, Detail: e.Message}
		switch {
		case s == http.StatusUnauthorized:
			obj.Detail = ""
		case s == http.StatusInternalServerError:
			obj.Detail = "Internal error"
			logger(r).Error("internal error", "request_id", requestID(r), "error", err.Error())
		}
		if strings.HasPrefix(e.Field, "/") {
			obj.Source = &jsonapi.ErrorSource{Pointer: e.Field}
		} else if e.Parameter != "" {
			obj.Source = &jsonapi.ErrorSource{Parameter: e.Parameter}
		}
		doc.Errors = append(doc.Errors, obj)
	}
	if errs[0].Code == scopekit.ERATELIMITED {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Max(1, math.Ceil(errs[0].RetryAfter.Seconds())))))
	}
	writeDoc(w, r, status, doc)
}

// writeDoc writes a JSON:API document with its media type.
func writeDoc(w http.ResponseWriter, r *http.Request, status int, doc *jsonapi.Document) {
	w.Header().Set("Content-Type", jsonapi.MediaType)
	w.WriteHeader(status)
	if err := jsonapi.Write(w, doc); err != nil {
		logger(r).Warn("writing response", "request_id", requestID(r), "error", err.Error())
	}
}

func logger(r *http.Request) *slog.Logger {
	if info := infoOf(r); info != nil && info.log != nil {
		return info.log
	}
	return slog.Default()
}
