package webapp

import (
	"net/http"
	"net/url"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// A record's page: its form (or, for a role that reads only, its
// values), what the use cases compute of it, its children, its actions
// and its section's own panel (a template's problems and preview, a
// subscription's publications, a provider's domains).

type recordPage struct {
	frame
	ID, Name  string
	Active    bool
	CanManage bool
	Form      *recordForm
	Shown     []shownField
	Children  []*childList
	Parent    *parentLink
	Base      string // the record's address
	Actions   []recordButton
	P         panels // the section's own (panels.go)
	// Why says why a page a role could manage is read-only (a member
	// whose role holds more than the reader's own).
	Why string
	// Errors are the problems of a refused change when the page has no
	// form to show them beside (it is read-only for the reader).
	Errors []fieldError
}

// shownField is a value shown read-only.
type shownField struct {
	Label, Value string
	Block        bool // long text: shown as a block
}

// childList is a child section's records on the parent's page.
type childList struct {
	S         *section
	Cols      []string
	Rows      []*listRow
	CanManage bool
	NewHref   string
	New       *recordForm // the modern design's create form
}

// recordButton is an action of a record's page (a small form posting to
// {record}/{act}).
type recordButton struct {
	Act, Label, Class, Confirm string
}

// recordPage serves a record's page.
func (w *Workspace) recordPage(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	rec, err := w.record(c, s, def)
	if err != nil {
		return err
	}
	return w.showRecord(c, http.StatusOK, s, def, rec, nil, nil)
}

// showRecord renders a record's page; a refused change of its form
// comes back with the values sent (posted) and the problems.
func (w *Workspace) showRecord(c *call, status int, s *section, def *engine.TypeDef, rec *engine.Record, posted url.Values, errs []fieldError) error {
	pg, err := w.recordPageOf(c, s, def, rec, posted, errs)
	if err != nil {
		return err
	}
	w.render(c.rw, status, "record", "layout", pg)
	return nil
}

func (w *Workspace) recordPageOf(c *call, s *section, def *engine.TypeDef, rec *engine.Record, posted url.Values, errs []fieldError) (*recordPage, error) {
	name := recordName(rec)
	if displayAttr(s.Type) == "" {
		name = s.One
	}
	pg := &recordPage{frame: w.frameOf(c, s, name), ID: rec.ID, Name: name, Active: rec.Active(),
		CanManage: c.actor.RequireWrite(def) == nil && !def.ReadOnly}
	if s.Parent != "" {
		link, err := w.parentOf(c, s, rec.Rel(s.Parent))
		if err != nil {
			return nil, err
		}
		pg.Parent = link
		pg.frame = w.frameOf(c, sectionOfType[parentType(def, s)], name)
	}
	if pg.CanManage {
		var err error
		if pg.CanManage, err = w.mayManage(c, def, rec.ID); err != nil {
			return nil, err
		}
		if !pg.CanManage {
			pg.Why = readOnlyWhy[def.Name]
		}
	}
	opts := &optionSets{w: w}
	var err error
	if pg.CanManage {
		if pg.Form, err = w.editForm(c, s, def, rec, posted, errs, "r-", opts); err != nil {
			return nil, err
		}
	} else {
		if pg.Shown, err = w.shownValues(c, s, def, rec, opts); err != nil {
			return nil, err
		}
	}
	for _, a := range def.Attrs {
		if a.Computed && !hiddenComputed[a.Name] && rec.Attrs[a.Name] != nil {
			pg.Shown = append(pg.Shown, shownField{Label: fieldLabel(s, a.Name), Value: cell(def, rec, a.Name, nil),
				Block: a.Kind == engine.KindText})
		}
	}
	for _, key := range s.Children {
		cl, err := w.childList(c, sectionByKey[key], rec, opts)
		if err != nil {
			return nil, err
		}
		if cl != nil {
			pg.Children = append(pg.Children, cl)
		}
	}
	if pg.CanManage {
		pg.Actions = w.buttons(s, def, rec)
	}
	if pg.Form == nil {
		pg.Errors = errs
	}
	pg.Base = c.url("/settings/" + s.Key + "/" + rec.ID)
	pg.P, err = w.panel(c, s, rec)
	return pg, err
}

// readOnlyWhy says, by type, why a record a role could otherwise manage
// is read-only for it (scoping.CheckManages: no one manages what holds
// more than they do).
var readOnlyWhy = map[string]string{
	views.TypeUsers:             "Their role holds more than yours: you can see this member, not change them.",
	views.TypeRoles:             "This role holds more than yours: you can see it, not change it.",
	views.TypeIdentityProviders: "A provider signs in any member of its domains, so changing one needs as much as every role of the account: you can see it, not change it.",
	views.TypeVerifiedDomains:   "A verified domain decides how the account's people of that domain sign in, so changing one needs as much as every role of the account: you can see it, not change it.",
}

// checkManages is scoping.CheckManages for the types of readOnlyWhy (the
// record id; with id "", creating one), nil for the others: what the
// role's permissions on the type do not say alone.
func (w *Workspace) checkManages(c *call, def *engine.TypeDef, id string) error {
	if _, guarded := readOnlyWhy[def.Name]; !guarded {
		return nil
	}
	return w.svc.CheckManages(c.ctx(), c.actor, def.Name, id)
}

// mayManage is checkManages as a yes or no; err is a failure, not a
// refusal.
func (w *Workspace) mayManage(c *call, def *engine.TypeDef, id string) (bool, error) {
	err := w.checkManages(c, def, id)
	if scopekit.ErrorCode(err) == scopekit.EFORBIDDEN {
		return false, nil
	}
	return err == nil, err
}

// hiddenComputed are computed attributes a record's page does not list
// (a panel shows them, or they hold nothing for people).
var hiddenComputed = map[string]bool{views.NameSecret: true, views.NameProblems: true, views.NameTags: true, views.NameSha256: true}

// shownValues are a record's form fields as values, for a role that
// reads only.
func (w *Workspace) shownValues(c *call, s *section, def *engine.TypeDef, rec *engine.Record, opts *optionSets) ([]shownField, error) {
	var out []shownField
	for _, f := range sectionFields(s, def) {
		ctl := control(f)
		if ctl == ctlSecret {
			continue
		}
		sf := shownField{Label: fieldLabel(s, f.name())}
		switch {
		case f.rel != nil:
			o, err := opts.of(c, f.rel.Type, rec.Rels[f.rel.Name])
			if err != nil {
				return nil, err
			}
			for i, id := range rec.Rels[f.rel.Name] {
				if i > 0 {
					sf.Value += ", "
				}
				sf.Value += labelOf(o, id)
			}
		case ctl == ctlGrid:
			for i, p := range permissionRows(rec.Object(f.attr.Name)) {
				if i > 0 {
					sf.Value += "; "
				}
				sf.Value += p.Label + ": " + p.Level
			}
		case ctl == ctlJSON || ctl == ctlTextarea:
			v := stored(rec, f)
			if len(v) > 0 {
				sf.Value = v[0]
			}
			sf.Block = true
		default:
			sf.Value = cell(def, rec, f.name(), nil)
		}
		out = append(out, sf)
	}
	return out, nil
}

// permissionRows are a role's permissions that are not none.
func permissionRows(perms map[string]any) []gridRow {
	var out []gridRow
	for _, p := range scoping.Permissions {
		if level, _ := perms[p].(string); level != "" && level != engine.AccessNone {
			out = append(out, gridRow{Name: p, Label: permissionLabel(p), Level: level})
		}
	}
	return out
}

// childList lists a child section's records of parent; nil when the
// role cannot read them.
func (w *Workspace) childList(c *call, s *section, parent *engine.Record, opts *optionSets) (*childList, error) {
	def, ok := w.svc.Schema().Lookup(s.Type)
	if !ok || !c.actor.Can(def.Guard, false) {
		return nil, nil
	}
	cl := &childList{S: s, CanManage: c.actor.RequireWrite(def) == nil,
		NewHref: c.url("/settings/"+s.Key+"/new") + "?" + url.Values{s.Parent: {parent.ID}}.Encode()}
	for _, col := range s.Cols {
		cl.Cols = append(cl.Cols, fieldLabel(s, col))
	}
	modern := designOf(c) == designModern && cl.CanManage
	p := engine.ListParams{Filters: map[string]string{s.Parent: parent.ID}, PageSize: 1000, PageNumber: 1, Sort: sortOf(def)}
	var err error
	if cl.Rows, _, err = w.rows(c, s, def, p, opts, modern); err != nil {
		return nil, err
	}
	if modern {
		if cl.New, err = w.newFormOf(c, s, def, parent.ID, nil, nil, "new-"+s.Key+"-", opts); err != nil {
			return nil, err
		}
	}
	return cl, nil
}

// buttons are the actions of a record's page for a role that manages it.
func (w *Workspace) buttons(s *section, def *engine.TypeDef, rec *engine.Record) []recordButton {
	if own := sectionButtons(s, rec); own != nil {
		return own
	}
	switch {
	case def.Archives && rec.Active():
		return []recordButton{{Act: "archive", Label: "Archive", Class: "secondary"}}
	case def.Archives:
		return []recordButton{{Act: "restore", Label: "Restore"}}
	}
	return []recordButton{{Act: "delete", Label: "Delete", Class: "danger", Confirm: "Delete this " + s.One + "?"}}
}
