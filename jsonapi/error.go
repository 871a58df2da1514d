package jsonapi

import (
	"fmt"
	"strings"
)

// Error is a request error found while decoding a write document or parsing
// a query: Status is 400, 403 or 409; Pointer is a JSON pointer into the body
// (e.g. "/data/attributes/name"), Parameter a query parameter name (e.g.
// "page[size]"), Detail a sentence a client can act on that names the
// member or parameter. The HTTP adapter turns it into an error object.
type Error struct {
	Status    int
	Detail    string
	Pointer   string
	Parameter string
}

// Error implements the error interface.
func (e *Error) Error() string {
	switch {
	case e.Parameter != "":
		return fmt.Sprintf("jsonapi %d: %s (parameter %s)", e.Status, e.Detail, e.Parameter)
	case e.Pointer != "":
		return fmt.Sprintf("jsonapi %d: %s (pointer %s)", e.Status, e.Detail, e.Pointer)
	}
	return fmt.Sprintf("jsonapi %d: %s", e.Status, e.Detail)
}

func badRequest(pointer, format string, args ...any) *Error {
	return &Error{Status: 400, Pointer: pointer, Detail: fmt.Sprintf(format, args...)}
}

func badParameter(param, format string, args ...any) *Error {
	return &Error{Status: 400, Parameter: param, Detail: fmt.Sprintf(format, args...)}
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer builds a JSON pointer (RFC 6901) from member names and indexes,
// escaping "~" and "/" so that any member name yields a valid pointer.
func pointer(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(p))
	}
	return b.String()
}
