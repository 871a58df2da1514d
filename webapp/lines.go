package webapp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The scope's changes. Each is one use case call (the REST routes'
// create, update and delete, MoveLine and ApplyBlueprint); the answer is
// the changed part of the page for htmx, or the page again (303) for a
// plain form.

// lineKind is a kind of project line as the workspace's paths name it.
type lineKind struct {
	typ string
	// the form fields an edit takes: decimal attributes and to-one
	// relationships (with the type they point to)
	decimals []string
	rels     map[string]string
	// what an add takes besides the project
	addStrings  []string
	addDecimals []string
	addRels     map[string]string
}

var lineKinds = map[string]lineKind{
	"services": {typ: views.TypeProjectServices, decimals: []string{views.NameQuantity, views.NameUnitHours},
		rels: map[string]string{views.NameProjectPhase: views.TypeProjectPhases, views.NameProjectResource: views.TypeProjectResources,
			views.NameProjectLocation: views.TypeProjectLocations},
		addDecimals: []string{views.NameQuantity}, addRels: map[string]string{views.NameService: views.TypeServices}},
	"subservices": {typ: views.TypeProjectSubservices, decimals: []string{views.NameQuantity, views.NameUnitHours},
		rels: map[string]string{views.NameProjectResource: views.TypeProjectResources}},
	"expenses": {typ: views.TypeProjectExpenses, decimals: []string{views.NameQuantity, views.NameRate},
		addStrings: []string{views.NameDescription}, addDecimals: []string{views.NameQuantity, views.NameRate},
		addRels: map[string]string{views.NameExpenseCategory: views.TypeExpenseCategories}},
	"products": {typ: views.TypeProjectProducts, decimals: []string{views.NameQuantity},
		addDecimals: []string{views.NameQuantity}, addRels: map[string]string{views.NameProduct: views.TypeProducts}},
	"governances": {typ: views.TypeProjectGovernances, decimals: []string{views.NameRate},
		addStrings: []string{views.NameName}, addDecimals: []string{views.NameRate},
		addRels: map[string]string{views.NameProjectResource: views.TypeProjectResources}},
}

func kindOf(c *call) (lineKind, error) {
	k, ok := lineKinds[c.r.PathValue("type")]
	if !ok {
		return lineKind{}, scopekit.Errorf(scopekit.ENOTFOUND, "no such kind of line")
	}
	return k, nil
}

// input builds the engine's input of a form: the named string and
// decimal attributes and to-one relationships the form carries (a blank
// decimal or relationship is null: back to its default). Fields the form
// lacks are left out.
func (c *call) input(strs, decimals []string, rels map[string]string) (*engine.Input, error) {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for _, names := range [][]string{strs, decimals} {
		for _, n := range names {
			if _, given := c.form[n]; !given {
				continue
			}
			v, err := c.value(n)
			if err != nil {
				return nil, err
			}
			raw, _ := json.Marshal(v)
			if v == "" && !contains(strs, n) {
				raw = json.RawMessage("null")
			}
			in.Attrs[n] = raw
		}
	}
	for n, typ := range rels {
		if _, given := c.form[n]; !given {
			continue
		}
		v, err := c.value(n)
		if err != nil {
			return nil, err
		}
		ri := engine.RelInput{}
		if v != "" {
			ri.Refs = []engine.Ref{{Type: typ, ID: v}}
		}
		in.Rels[n] = ri
	}
	return in, nil
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// lineOfPath reads the line of the path, of the kind the path names, and
// checks that it is one of the path's project's own lines (404 otherwise,
// as for a line one cannot see): a change order's copy is not.
func (w *Workspace) lineOfPath(c *call) (lineKind, *engine.Record, error) {
	k, err := kindOf(c)
	if err != nil {
		return k, nil, err
	}
	res, err := w.svc.Get(c.ctx(), c.actor, k.typ, c.r.PathValue("line"), engine.ListParams{}, engine.Options{})
	if err != nil {
		return k, nil, err
	}
	rec := res.Records[0]
	if rec.Rel(views.NameProject) != c.r.PathValue("id") || rec.Rel(views.NameChangeOrder) != "" {
		return k, nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such line on this project")
	}
	return k, rec, nil
}

// addLine adds a line to the project (a catalog service, an expense, a
// product or a governance item).
func (w *Workspace) addLine(c *call) error {
	k, err := kindOf(c)
	if err != nil {
		return err
	}
	if k.addRels == nil && k.addStrings == nil {
		return scopekit.Errorf(scopekit.ENOTFOUND, "lines of this kind come with their service")
	}
	in, err := c.input(k.addStrings, k.addDecimals, k.addRels)
	if err != nil {
		return err
	}
	pid := c.r.PathValue("id")
	in.Rels[views.NameProject] = engine.RelInput{Refs: []engine.Ref{{Type: views.TypeProjects, ID: pid}}}
	if err := c.claimOnce(); err != nil {
		return err
	}
	if _, err := w.svc.Create(c.ctx(), c.actor, k.typ, in, engine.Options{}); err != nil {
		return err
	}
	return w.scopeChanged(c, "", "Added.")
}

// editLine changes a line's quantities, hours, phase, resource or
// location in place.
func (w *Workspace) editLine(c *call) error {
	k, rec, err := w.lineOfPath(c)
	if err != nil {
		return err
	}
	in, err := c.input(nil, k.decimals, k.rels)
	if err != nil {
		return err
	}
	if len(in.Attrs)+len(in.Rels) == 0 {
		return scopekit.Errorf(scopekit.EBADREQUEST, "The form changes nothing.")
	}
	// the answer is drawn from the write's own pricing run
	snap, err := w.svc.UpdateLine(c.ctx(), c.actor, k.typ, rec.ID, in)
	if err != nil {
		return err
	}
	return w.scopeChangedTo(c, snap, rec.ID, "")
}

// removeLine deletes a line.
func (w *Workspace) removeLine(c *call) error {
	k, rec, err := w.lineOfPath(c)
	if err != nil {
		return err
	}
	if err := w.svc.Delete(c.ctx(), c.actor, k.typ, rec.ID, engine.Options{}); err != nil {
		return err
	}
	return w.scopeChanged(c, "", "Removed.")
}

// moveLine moves a service or subservice one place up or down.
func (w *Workspace) moveLine(c *call) error {
	k, rec, err := w.lineOfPath(c)
	if err != nil {
		return err
	}
	dir, err := c.value("direction")
	if err != nil {
		return err
	}
	by := map[string]int{"up": -1, "down": 1}[dir]
	if err := w.svc.MoveLine(c.ctx(), c.actor, k.typ, rec.ID, by); err != nil {
		return err
	}
	return w.scopeChanged(c, "", "")
}

// applyBlueprint adds a blueprint's services.
func (w *Workspace) applyBlueprint(c *call) error {
	bp, err := c.value("blueprint")
	if err != nil {
		return err
	}
	if bp == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "blueprint", "Choose a blueprint.")
	}
	if err := c.claimOnce(); err != nil {
		return err
	}
	res, err := w.svc.ApplyBlueprint(c.ctx(), c.actor, c.r.PathValue("id"), bp)
	if err != nil {
		return err
	}
	return w.scopeChanged(c, "", plural(len(res.Records), "service")+" added from the blueprint.")
}

// scopeChanged answers a change of the scope. htmx gets the changed
// service's rows (lineID) or the whole scope, and the header and the
// pricing panel out of band; a plain form goes back to the scope.
func (w *Workspace) scopeChanged(c *call, lineID, flash string) error {
	return w.scopeChangedTo(c, nil, lineID, flash)
}

// scopeChangedTo is scopeChanged from the project's snapshot after the
// change, when the change answered with it (nil: read it).
func (w *Workspace) scopeChangedTo(c *call, snap *views.Snapshot, lineID, flash string) error {
	pid := c.r.PathValue("id")
	if !c.htmx {
		to := c.url("/projects/" + pid)
		if lineID != "" {
			to += "#" + anchor(c.r.PathValue("type"), lineID)
		}
		return c.redirect(to)
	}
	var pg *projectPage
	var err error
	if snap != nil {
		pg, err = w.tabPage(c, snap, nil, tabScope)
	} else {
		pg, err = w.projectPage(c, pid, tabScope)
	}
	if err != nil {
		return err
	}
	pg.L.Flash = flash
	if l := pg.Scope.line(c.r.PathValue("type"), lineID); l != nil {
		w.render(c.rw, http.StatusOK, "project", "line-changed", map[string]any{"P": pg, "Line": l})
		return nil
	}
	w.render(c.rw, http.StatusOK, "project", "scope-changed", pg)
	return nil
}

// anchor is the page id of a line's row, by the kind of line (as the
// paths name kinds; ids are per type, so the kind is part of it).
func anchor(kind, id string) string {
	switch kind {
	case "services":
		return "line-svc-" + id
	case "subservices":
		return "line-sub-" + id
	}
	return "line-" + kind + "-" + id
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
