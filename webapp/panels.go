package webapp

import (
	"net/http"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// What sections add to the generic pages: their own actions, buttons,
// panels and the pages a creation shows once (a secret).

func (w *Workspace) templateRoutes(m *http.ServeMux) {}

// sectionAction is an action of a section beyond archive, restore and
// delete (nil when there is none of that name).
func sectionAction(key, act string) func(w *Workspace, c *call, s *section, def *engine.TypeDef) error {
	return nil
}

// sectionButtons are a section's own actions on a record's page (nil:
// the generic ones).
func sectionButtons(s *section, rec *engine.Record) []recordButton { return nil }

// panels are the sections' own parts of a record's page.
type panels struct{}

// panel is a section's own part of a record's page.
func (w *Workspace) panel(c *call, s *section, rec *engine.Record) (panels, error) {
	return panels{}, nil
}

// createdOnce is the page a creation of the section shows instead of
// going to the record (what is shown once: a secret); nil for none.
func createdOnce(key string) func(w *Workspace, c *call, s *section, rec *engine.Record, res *engine.Result) error {
	return nil
}

func permissionOrder() []string { return scoping.Permissions }
