package httpadapter

import (
	"mime"
	"net/http"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/jsonapi"
)

// acceptable reports whether an Accept header admits JSON:API: a missing
// header counts as */*, and application/vnd.api+json must come without
// media type parameters (JSON:API 1.0).
func acceptable(accept string) bool {
	if strings.TrimSpace(accept) == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		delete(params, "q")
		switch mt {
		case "*/*", "application/*":
			return true
		case jsonapi.MediaType:
			if len(params) == 0 {
				return true
			}
		}
	}
	return false
}

// checkContentType enforces the media type of a write body, in any case:
// missing is 400 naming Content-Type, anything else (parameters
// included) is 415.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if strings.TrimSpace(ct) == "" {
		return scopekit.Errorf(scopekit.EBADREQUEST, "Content-Type header is required: use %s", jsonapi.MediaType)
	}
	if !strings.EqualFold(strings.TrimSpace(ct), jsonapi.MediaType) { // media types ignore case (RFC 9110)
		return scopekit.Errorf(scopekit.EUNSUPPORTEDMEDIA, "Content-Type must be %s without parameters, not %q", jsonapi.MediaType, ct)
	}
	return nil
}
