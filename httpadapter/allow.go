package httpadapter

import (
	"net/http"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/scoping"
)

// readOnlyAllow is the Allow of a URL that only reads.
const readOnlyAllow = "GET, HEAD, OPTIONS"

// accountAllow is the Allow of /{slug}/v1/account.
const accountAllow = "GET, HEAD, OPTIONS, PATCH"

// narrowAllow replaces the router's Allow (every method of the route
// pattern) with what the URL's resource type admits, when the URL names a
// declared type: a read-only type takes no writes, an action takes POST
// only, a relationship or figure GET only.
func (s *Server) narrowAllow(w http.ResponseWriter, r *http.Request) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	v2 := false
	switch {
	case len(segs) >= 2 && segs[0] == "v2":
		v2, segs = true, segs[1:]
	case len(segs) >= 3 && segs[1] == "v1" && !scoping.IsReservedSlug(segs[0]):
		segs = segs[2:]
	default:
		return
	}
	if allow := s.resourceAllow(segs, v2); allow != "" {
		w.Header().Set("Allow", allow)
	}
}

// resourceAllow is the Allow of the resource URL whose segments after the
// version prefix are segs ("" when they name no declared type).
func (s *Server) resourceAllow(segs []string, v2 bool) string {
	if !v2 && len(segs) == 1 && segs[0] == "account" {
		return accountAllow
	}
	def, ok := s.schema().Lookup(segs[0])
	if !ok || !def.Served() || (v2 && !def.V2) {
		return ""
	}
	m := []string{http.MethodGet, http.MethodHead}
	switch len(segs) {
	case 1:
		if !def.ReadOnly || def.Hooks.Create != nil {
			m = append(m, http.MethodPost)
		}
	case 2:
		if !def.ReadOnly {
			m = append(m, http.MethodPatch, http.MethodDelete)
		}
	case 3:
		name := def.Name + "/" + segs[2]
		_, isAction := s.actions()[name]
		isAction = isAction && !(v2 && v1Only(name))
		_, isRead := s.reads()[name]
		_, isRel := def.Rel(segs[2])
		_, isUpload := s.uploads()[name]
		switch {
		case isAction && isRead && !v2: // a list beside the action that adds to it
			m = append(m, http.MethodPost)
		case isAction:
			m = []string{http.MethodPost}
		case isUpload && !v2:
			m = append(m, http.MethodPut)
		case isRel || (isRead && (!v2 || v2Reads[name])):
		default:
			return ""
		}
	case 6:
		if _, ok := s.deepReads()[def.Name+"/"+segs[2]+"/"+segs[4]]; !ok || v2 {
			return ""
		}
	}
	m = append(m, http.MethodOptions)
	slices.Sort(m)
	return strings.Join(m, ", ")
}
