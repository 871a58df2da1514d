package webapp

import (
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The pages of a section of records: its list (search, archived ones,
// paging), a record's page (its form, or its values for a role that only
// reads them, and its children), and the changes, each one use case call
// of the REST routes: create, update, archive and restore (active false
// and true), delete.

// settingsPageSize is how many records a list shows at once.
const settingsPageSize = 25

type listPage struct {
	frame
	Cols      []string
	Rows      []*listRow
	Query     string
	Archived  bool
	Archives  bool
	CanSearch bool
	Total     int
	Page      int
	Pages     int
	Prev      string
	Next      string
	CanManage bool
	NewHref   string
	New       *recordForm // the modern design's create form, in the list
}

// listRow is a record as a list shows it.
type listRow struct {
	ID, Name, Href string
	Cells          []string
	Active         bool
	Edit           *recordForm // the modern design's editor, in the list
}

// recordForm is a form of a record (a new one when ID is "").
type recordForm struct {
	ID     string
	Prefix string // of the fields' ids: unique on the page
	Action string
	Title  string
	Fields []*formField
	Hidden []option // name, value
	Errors []fieldError
	Submit string
	Note   string
	HTMX   bool // sent by htmx: a refused form comes back in place
	// Multipart forms carry a file (File).
	Multipart bool
	File      *fileField
}

// fileField is a form's file input.
type fileField struct {
	Label, Help, Accept string
	Errors              []string
}

// recordSection is the section of the path's key that lists records and
// its type; ENOTFOUND for another key, EFORBIDDEN without read access.
func (w *Workspace) recordSection(c *call) (*section, *engine.TypeDef, error) {
	s, ok := sectionByKey[c.r.PathValue("key")]
	if !ok || s.Type == "" {
		return nil, nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such settings page")
	}
	def, err := w.svc.ReadableType(c.actor, s.Type)
	return s, def, err
}

// settingsList serves a section's list.
func (w *Workspace) settingsList(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	if s.Parent != "" { // listed on the parent's page
		return scopekit.Errorf(scopekit.ENOTFOUND, "no such settings page")
	}
	q := c.r.URL.Query()
	pg := &listPage{frame: w.frameOf(c, s, s.Title), Archives: def.Archives, CanSearch: s.Search != "",
		CanManage: c.actor.RequireWrite(def) == nil && !def.ReadOnly, NewHref: c.url("/settings/" + s.Key + "/new")}
	if pg.CanManage {
		// no New for what the role may not create (an identity provider
		// without as much as every role)
		if pg.CanManage, err = w.mayManage(c, def, ""); err != nil {
			return err
		}
	}
	pg.Query, pg.Archived = strings.TrimSpace(q.Get("q")), q.Get("archived") == "1" && def.Archives
	p := engine.ListParams{Filters: map[string]string{}, PageSize: settingsPageSize, PageNumber: 1, Sort: sortOf(def)}
	if pg.Query != "" && s.Search != "" {
		p.Filters[s.Search] = pg.Query
	}
	if pg.Archived {
		p.Filters[views.NameActive] = "false"
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 && n < 1_000_000 {
		p.PageNumber = n
	}
	opts := &optionSets{w: w}
	rows, total, err := w.rows(c, s, def, p, opts, designOf(c) == designModern && pg.CanManage)
	if err != nil {
		return err
	}
	pg.Rows, pg.Total, pg.Page = rows, total, p.PageNumber
	pg.Pages = (total + settingsPageSize - 1) / settingsPageSize
	for _, col := range s.Cols {
		pg.Cols = append(pg.Cols, fieldLabel(s, col))
	}
	if pg.Page > 1 {
		pg.Prev = pageURL(q, pg.Page-1)
	}
	if pg.Page < pg.Pages {
		pg.Next = pageURL(q, pg.Page+1)
	}
	if designOf(c) == designModern && pg.CanManage && s.Key != "templates" {
		if pg.New, err = w.newForm(c, s, def, nil, nil, opts); err != nil {
			return err
		}
	}
	w.render(c.rw, http.StatusOK, "settings", "layout", pg)
	return nil
}

// sortOf is a list's order: by position where the type has one (the
// order documents and projects follow), then by name where it has one.
func sortOf(def *engine.TypeDef) []engine.SortSpec {
	var out []engine.SortSpec
	if _, ok := def.Attr(views.NamePosition); ok {
		out = append(out, engine.SortSpec{Field: views.NamePosition})
	}
	if _, ok := def.Attr(views.NameName); ok {
		out = append(out, engine.SortSpec{Field: views.NameName})
	}
	if len(out) == 0 {
		out = append(out, engine.SortSpec{Field: views.NameCreatedAt})
	}
	return out
}

// rows reads a page of records and shows them, with an editor each when
// edit is set.
func (w *Workspace) rows(c *call, s *section, def *engine.TypeDef, p engine.ListParams, opts *optionSets, edit bool) ([]*listRow, int, error) {
	for _, col := range s.Cols {
		if _, ok := def.Rel(col); ok {
			p.Include = append(p.Include, col)
		}
	}
	res, err := w.svc.List(c.ctx(), c.actor, s.Type, p, engine.Options{})
	if err != nil {
		return nil, 0, err
	}
	names := map[string]string{}
	for _, r := range res.Included {
		names[r.Type+"/"+r.ID] = recordName(r)
	}
	var out []*listRow
	for _, r := range res.Records {
		row := &listRow{ID: r.ID, Name: recordName(r), Href: c.url("/settings/" + s.Key + "/" + r.ID), Active: r.Active()}
		if displayAttr(s.Type) == "" && len(s.Cols) > 0 { // named by its first column (a rate by its resource)
			row.Name = cell(def, r, s.Cols[0], names)
			if row.Name == "" {
				row.Name = cmp.Or(s.Blank, recordName(r))
			}
		}
		for _, col := range s.Cols {
			row.Cells = append(row.Cells, cell(def, r, col, names))
		}
		if edit {
			if row.Edit, err = w.editForm(c, s, def, r, nil, nil, "e"+r.ID+"-", opts); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, row)
	}
	return out, res.Total, nil
}

// cell shows one column of a record.
func cell(def *engine.TypeDef, r *engine.Record, col string, names map[string]string) string {
	if rel, ok := def.Rel(col); ok {
		var out []string
		for _, id := range r.Rels[col] {
			if n, ok := names[rel.Type+"/"+id]; ok {
				out = append(out, n)
			} else {
				out = append(out, "#"+id)
			}
		}
		return strings.Join(out, ", ")
	}
	a, ok := def.Attr(col)
	if !ok || r.Attrs[col] == nil {
		return ""
	}
	switch {
	case col == views.NameProblems:
		return plural(len(r.Strings(col)), "problem")
	case col == views.NameSize:
		return size(r.Int(col))
	case a.Kind == engine.KindDecimal:
		return amount(r.Dec(col))
	case a.Kind == engine.KindEnum:
		return label(r.Str(col))
	case a.Kind == engine.KindList:
		return strings.Join(r.Strings(col), ", ")
	case a.Kind == engine.KindTime:
		return strings.Replace(dateTime(r.Str(col)), "T", " ", 1)
	}
	return displayValue(r.Attrs[col])
}

// size shows a file's size.
func size(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt((n+512)>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// newForm is the form of a new record of s (of the parent record parent
// for a child section), refilled from posted with errs when refused.
func (w *Workspace) newForm(c *call, s *section, def *engine.TypeDef, posted url.Values, errs []fieldError, opts *optionSets) (*recordForm, error) {
	return w.newFormOf(c, s, def, "", posted, errs, "new-"+s.Key+"-", opts)
}

func (w *Workspace) newFormOf(c *call, s *section, def *engine.TypeDef, parent string, posted url.Values, errs []fieldError,
	prefix string, opts *optionSets) (*recordForm, error) {
	fields, err := w.buildFields(c, s, def, nil, posted, errs, prefix, opts)
	if err != nil {
		return nil, err
	}
	f := &recordForm{Prefix: prefix, Action: c.url("/settings/" + s.Key), Title: "New " + s.One, Fields: fields,
		Errors: loose(fields, errs), Submit: "Create " + s.One, Note: s.Note,
		Hidden: []option{{"once", randomToken()}, {"prefix", prefix}}}
	if s.Parent != "" {
		f.Hidden = append(f.Hidden, option{s.Parent, parent})
	}
	return f, nil
}

// editForm is the form of record r.
func (w *Workspace) editForm(c *call, s *section, def *engine.TypeDef, r *engine.Record, posted url.Values, errs []fieldError,
	prefix string, opts *optionSets) (*recordForm, error) {
	fields, err := w.buildFields(c, s, def, r, posted, errs, prefix, opts)
	if err != nil {
		return nil, err
	}
	return &recordForm{ID: r.ID, Prefix: prefix, Action: c.url("/settings/" + s.Key + "/" + r.ID), Title: "Edit " + recordName(r),
		Fields: fields, Errors: loose(fields, errs), Submit: "Save", Note: s.Note, Hidden: []option{{"prefix", prefix}}}, nil
}

type newPage struct {
	frame
	Form    *recordForm
	Parent  *parentLink
	Refused []scoping.TemplateProblem // a template's file refused by its check
}

// parentLink leads from a child record back to its parent's page.
type parentLink struct{ Title, Href string }

// newRecord serves the page of a new record's form (a child's names its
// parent: ?service=7).
func (w *Workspace) newRecord(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	return w.showNew(c, http.StatusOK, s, def, c.r.URL.Query().Get(s.Parent), nil, nil)
}

func (w *Workspace) showNew(c *call, status int, s *section, def *engine.TypeDef, parent string, posted url.Values, errs []fieldError) error {
	if err := c.actor.RequireWrite(def); err != nil {
		return err
	}
	if err := w.checkManages(c, def, ""); err != nil {
		return err
	}
	pg := &newPage{frame: w.frameOf(c, s, "New "+s.One)}
	if s.Parent != "" {
		link, err := w.parentOf(c, s, parent)
		if err != nil {
			return err
		}
		pg.Parent = link
		pg.frame = w.frameOf(c, sectionOfType[parentType(def, s)], "New "+s.One)
	}
	var err error
	if pg.Form, err = w.newFormOf(c, s, def, parent, posted, errs, "f-", &optionSets{w: w}); err != nil {
		return err
	}
	w.render(c.rw, status, "newrecord", "layout", pg)
	return nil
}

// parentType is the type of a child section's parent.
func parentType(def *engine.TypeDef, s *section) string {
	r, _ := def.Rel(s.Parent)
	return r.Type
}

// parentOf reads a child's parent record (404 when the actor cannot).
func (w *Workspace) parentOf(c *call, s *section, id string) (*parentLink, error) {
	def, _ := w.svc.Schema().Lookup(sectionByKey[s.Key].Type)
	pt := parentType(def, s)
	pdef, _ := w.svc.Schema().Lookup(pt)
	res, err := w.svc.Get(c.ctx(), c.actor, pt, id, engine.ListParams{Filters: engine.AnyActive(pdef)}, engine.Options{})
	if err != nil {
		return nil, err
	}
	ps := sectionOfType[pt]
	return &parentLink{Title: recordName(res.Records[0]), Href: c.url("/settings/" + ps.Key + "/" + id)}, nil
}

// createRecord creates a record of the section (the REST create); a
// refused form comes back with the problems beside the fields.
func (w *Workspace) createRecord(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	in, err := c.recordInput(s, def, true)
	if err != nil {
		return err
	}
	var parent string
	if s.Parent != "" {
		if parent, err = c.value(s.Parent); err != nil {
			return err
		}
		in.Rels[s.Parent] = engine.RelInput{Refs: []engine.Ref{{Type: parentType(def, s), ID: parent}}}
	}
	if err := c.claimOnce(); err != nil {
		return err
	}
	res, err := w.svc.Create(c.ctx(), c.actor, s.Type, in, engine.Options{})
	if refused(err) || ceiling(c, def, err) {
		status, errs := w.describe(err)
		return w.refusedForm(c, status, func() (*recordForm, error) {
			return w.newFormOf(c, s, def, parent, c.form, errs, c.prefix(), &optionSets{w: w})
		}, func() error { return w.showNew(c, status, s, def, parent, c.form, errs) })
	}
	if err != nil {
		return err
	}
	rec := res.Records[0]
	if shown := createdOnce(s.Key); shown != nil {
		return shown(w, c, s, rec, res)
	}
	return c.redirect(w.afterChange(c, s, rec, "created"))
}

// refused reports whether err is a form's problem (a value the use case
// refused, naming its field), shown in the form rather than as a page.
func refused(err error) bool {
	switch scopekit.ErrorCode(err) {
	case scopekit.EINVALID:
		return true
	case scopekit.EBADREQUEST:
		return scopekit.List(err)[0].Field != ""
	}
	return false
}

// ceiling reports whether err refuses what a form grants, to a role that
// may write the type otherwise (no one grants more than they hold): the
// form comes back with the reason.
func ceiling(c *call, def *engine.TypeDef, err error) bool {
	return scopekit.ErrorCode(err) == scopekit.EFORBIDDEN && c.actor.RequireWrite(def) == nil
}

// afterChange is where a change leads: a child's parent page, the
// modern design's list, or the record's page.
func (w *Workspace) afterChange(c *call, s *section, rec *engine.Record, done string) string {
	switch {
	case s.Parent != "":
		return c.url("/settings/"+sectionOfType[parentTypeOf(w, s)].Key+"/"+rec.Rel(s.Parent)) + "?done=" + done
	case designOf(c) == designModern && done != "created":
		return c.url("/settings/"+s.Key) + "?done=" + done
	}
	return c.url("/settings/"+s.Key+"/"+rec.ID) + "?done=" + done
}

func parentTypeOf(w *Workspace, s *section) string {
	def, _ := w.svc.Schema().Lookup(s.Type)
	return parentType(def, s)
}

// prefixPattern is what a form's prefix may be (the ids of its fields).
var prefixPattern = regexp.MustCompile(`^[a-z0-9-]{1,40}$`)

// prefix is the posted form's id prefix, for the form sent back in place.
func (c *call) prefix() string {
	p := c.form.Get("prefix")
	if !prefixPattern.MatchString(p) {
		return "f-"
	}
	return p
}

// refusedForm answers a refused change: to htmx the form alone, rebuilt
// with the problems (shown where the change was made), else the page.
func (w *Workspace) refusedForm(c *call, status int, form func() (*recordForm, error), page func() error) error {
	if !c.htmx {
		return page()
	}
	f, err := form()
	if err != nil {
		return err
	}
	f.HTMX = true
	w.render(c.rw, status, "settings", "record-form", map[string]any{"F": f, "CSRF": c.sess.CSRF})
	return nil
}

// updateRecord changes a record (the REST update).
func (w *Workspace) updateRecord(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	in, err := c.recordInput(s, def, false)
	if err != nil {
		return err
	}
	if len(in.Attrs)+len(in.Rels) == 0 {
		return scopekit.Errorf(scopekit.EBADREQUEST, "The form changes nothing.")
	}
	res, err := w.svc.Update(c.ctx(), c.actor, s.Type, c.r.PathValue("id"), in, engine.Options{})
	if refused(err) || ceiling(c, def, err) {
		status, errs := w.describe(err)
		rec, gerr := w.record(c, s, def)
		if gerr != nil {
			return gerr
		}
		return w.refusedForm(c, status, func() (*recordForm, error) {
			return w.editForm(c, s, def, rec, c.form, errs, c.prefix(), &optionSets{w: w})
		}, func() error { return w.showRecord(c, status, s, def, rec, c.form, errs) })
	}
	if err != nil {
		return err
	}
	return c.redirect(w.afterChange(c, s, res.Records[0], "saved"))
}

// record reads the record of the path, archived or not.
func (w *Workspace) record(c *call, s *section, def *engine.TypeDef) (*engine.Record, error) {
	res, err := w.svc.Get(c.ctx(), c.actor, s.Type, c.r.PathValue("id"), engine.ListParams{Filters: engine.AnyActive(def)}, engine.Options{})
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

// recordAction archives, restores or deletes the record of the path, or
// runs an action of its section.
func (w *Workspace) recordAction(c *call) error {
	s, def, err := w.recordSection(c)
	if err != nil {
		return err
	}
	act := c.r.PathValue("act")
	if h := sectionAction(s.Key, act); h != nil {
		return h(w, c, s, def)
	}
	rec, err := w.record(c, s, def)
	if err != nil {
		return err
	}
	switch {
	case (act == "archive" || act == "restore") && def.Archives:
		active := map[string]string{"archive": "false", "restore": "true"}[act]
		in := &engine.Input{Attrs: map[string]json.RawMessage{views.NameActive: json.RawMessage(active)}}
		if _, err := w.svc.Update(c.ctx(), c.actor, s.Type, rec.ID, in, engine.Options{}); err != nil {
			return err
		}
		return c.redirect(w.afterChange(c, s, rec, act+"d"))
	case act == "delete" && !def.Archives:
		if err := w.svc.Delete(c.ctx(), c.actor, s.Type, rec.ID, engine.Options{}); err != nil {
			return err
		}
		if s.Parent != "" {
			return c.redirect(w.afterChange(c, s, rec, "deleted"))
		}
		return c.redirect(c.url("/settings/"+s.Key) + "?done=deleted")
	}
	return scopekit.Errorf(scopekit.ENOTFOUND, "no such action")
}
