package httpadapter

import "sort"

// ExtraRoutes lists the routes /{type}/{id}/{name} beyond CRUD and
// relationships, as "type/name": the POST actions and the GET reads. The
// permission audit walks them.
func (s *Server) ExtraRoutes() (actions, reads []string) {
	for k := range s.actions() {
		actions = append(actions, k)
	}
	for k := range s.reads() {
		reads = append(reads, k)
	}
	sort.Strings(actions)
	sort.Strings(reads)
	return actions, reads
}

// ServedRoutes lists "METHOD pattern" of every route the handlers built
// so far answer.
func (s *Server) ServedRoutes() []string {
	s.servedMu.Lock()
	defer s.servedMu.Unlock()
	out := make([]string, 0, len(s.served))
	for _, r := range s.served {
		out = append(out, r.Method+" "+r.Pattern)
	}
	sort.Strings(out)
	return out
}

// RouteDescribed reports whether a fixed route has an entry in routeDocs,
// and the reason when it is left out of the reference on purpose.
func RouteDescribed(key string) (described bool, omit string) {
	d, ok := routeDocs[key]
	return ok, d.Omit
}

// UploadRoutes lists the PUT routes /{type}/{id}/{name}, as "type/name".
func (s *Server) UploadRoutes() []string {
	var out []string
	for k := range s.uploads() {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// V2Read reports whether a read is served on v2 too.
func V2Read(key string) bool { return v2Reads[key] }

// DeepReads lists the GET routes /{type}/{id}/{rel}/{relid}/{sub}/{subid}
// as "type/rel/sub", each with its path after the type's collection as the
// reference names it.
func (s *Server) DeepReads() map[string]string {
	out := map[string]string{}
	for k := range s.deepReads() {
		out[k] = deepReadDocs[k].Path
	}
	return out
}

// V1OnlyAction reports whether an action is served on v1 only.
func V1OnlyAction(key string) bool { return v1Only(key) }
