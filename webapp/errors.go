package webapp

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
)

// The one place where the workspace turns error codes into statuses and
// words (as httpadapter/errors.go does for the API).

// statuses maps codes to the status of the answer.
var statuses = map[string]int{
	scopekit.EINVALID:          http.StatusUnprocessableEntity,
	scopekit.EBADREQUEST:       http.StatusBadRequest,
	scopekit.EUNSUPPORTEDMEDIA: http.StatusUnsupportedMediaType,
	scopekit.EUNAUTHORIZED:     http.StatusUnauthorized,
	scopekit.EFORBIDDEN:        http.StatusForbidden,
	scopekit.ENOTFOUND:         http.StatusNotFound,
	scopekit.ECONFLICT:         http.StatusConflict,
	scopekit.ETOOLARGE:         http.StatusRequestEntityTooLarge,
	scopekit.ERATELIMITED:      http.StatusTooManyRequests,
	scopekit.ETIMEOUT:          http.StatusGatewayTimeout,
}

// titles are what an error page says first, by status.
var titles = map[int]string{
	http.StatusUnprocessableEntity:   "Please check what you entered",
	http.StatusBadRequest:            "This request could not be understood",
	http.StatusUnauthorized:          "Please sign in",
	http.StatusForbidden:             "Your role does not allow this",
	http.StatusNotFound:              "Not found",
	http.StatusConflict:              "This cannot be done now",
	http.StatusRequestEntityTooLarge: "Too large",
	http.StatusTooManyRequests:       "Too many requests",
}

// fieldError is one problem of a form, with the field it is about.
type fieldError struct {
	Field   string // a form field ("" for the form as a whole)
	Message string
}

// problem is what an error page or message shows.
type problem struct {
	L      *layout
	Status int
	Head   string
	SignIn string // where to sign in, for a 401
}

// describe returns the status and the messages of err. Internal errors
// are logged and told as such, without their cause.
func (w *Workspace) describe(err error) (int, []fieldError) {
	code := scopekit.ErrorCode(err)
	status, ok := statuses[code]
	if !ok {
		w.log.Error("workspace: internal error", "err", err)
		return http.StatusInternalServerError, []fieldError{{Message: "Something went wrong on our side. Please try again later."}}
	}
	var out []fieldError
	for _, e := range scopekit.List(err) {
		f := strings.TrimPrefix(strings.TrimPrefix(e.Field, "/data/attributes/"), "/data/relationships/")
		if f == "" {
			f = e.Parameter
		}
		out = append(out, fieldError{Field: f, Message: e.Message})
	}
	if code == scopekit.ENOTFOUND {
		// the engine's words name types and ids; a person needs less
		out = []fieldError{{Message: "It does not exist, or it is not yours to see."}}
	}
	return status, out
}

// fail answers a request whose handler failed: a page, or for htmx a
// message swapped into the page's message area.
func (w *Workspace) fail(c *call, err error) {
	var sin *signInNeeded
	if errors.As(err, &sin) {
		if c.htmx {
			c.rw.Header().Set("HX-Redirect", sin.to)
		}
		w.render(c.rw, http.StatusUnauthorized, "error", "page", &problem{L: &layout{Title: "Please sign in"},
			Status: http.StatusUnauthorized, Head: titles[http.StatusUnauthorized], SignIn: sin.to})
		return
	}
	status, msgs := w.describe(err)
	if ra := retryAfter(err); ra != "" {
		c.rw.Header().Set("Retry-After", ra)
	}
	l := &layout{Title: titles[status]}
	if c.actor != nil {
		l = c.layout(titles[status], "")
	}
	l.Errors = msgs
	if c.htmx {
		c.rw.Header().Set("HX-Retarget", "#flash")
		c.rw.Header().Set("HX-Reswap", "innerHTML")
		w.render(c.rw, status, "error", "messages", l)
		return
	}
	w.render(c.rw, status, "error", "page", &problem{L: l, Status: status, Head: titles[status]})
}

func retryAfter(err error) string {
	var e *scopekit.Error
	if errors.As(err, &e) && e.Code == scopekit.ERATELIMITED && e.RetryAfter > 0 {
		return strconv.Itoa(int(e.RetryAfter.Seconds()) + 1)
	}
	return ""
}
