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
