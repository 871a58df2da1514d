package webapp

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The settings' forms: a control per attribute or relationship of the
// declaration (the kind decides the control), and the engine's input
// from a posted form. A form sends what the REST API's write document
// would: the same use case validates it, and its errors name the fields
// as the API's do, so they are shown next to them.

// Controls of a form field.
const (
	ctlText     = "text"
	ctlTextarea = "textarea"
	ctlNumber   = "number"
	ctlDate     = "date"
	ctlCheck    = "checkbox"
	ctlSelect   = "select"
	ctlMulti    = "multi"    // checkboxes of a to-many relationship
	ctlList     = "list"     // a list of strings, one a line
	ctlJSON     = "json"     // any JSON value, as text
	ctlSecret   = "password" // written, never shown
	ctlGrid     = "grid"     // a role's permissions
)

// formField is one control of a form, as the template draws it.
type formField struct {
	ID, Name, Label string
	Control         string
	Input           string // the input's type for text-like controls (text, email, url, number)
	Value           string
	Selected        map[string]bool // multi
	Options         []option
	Grid            []gridRow
	Required        bool
	Step, Min       string
	MaxLen          int
	Help            string
	Errors          []string
	Described       string // the ids describing the control (help, errors)
}

// gridRow is a permission of a role's grid.
type gridRow struct {
	Name, Label, Level string
}

// permissionLevels are the grid's columns.
var permissionLevels = []string{engine.AccessNone, engine.AccessView, engine.AccessManage}

// fieldLabel is how a form and a list name an attribute.
func fieldLabel(s *section, name string) string {
	if l, ok := s.Labels[name]; ok {
		return l
	}
	if l, ok := knownLabels[name]; ok {
		return l
	}
	return label(strings.ReplaceAll(name, "-", " "))
}

var knownLabels = map[string]string{
	views.NameSku: "SKU", views.NameSowLanguage: "SOW language", views.NameIssuerURL: "Issuer URL",
	views.NameClientID: "Client ID", views.NameDestinationURL: "Destination URL", views.NameJitProvisioning: "Create members at first sign-in",
	views.NameMfaRequired: "Require a second factor", views.NameEmail: "Email", views.NameBuiltin: "Built in",
}

// fieldDef is what a field of a section is in its type's declaration.
type fieldDef struct {
	attr *engine.AttrDef
	rel  *engine.RelDef
}

func (f fieldDef) name() string {
	if f.attr != nil {
		return f.attr.Name
	}
	return f.rel.Name
}

// sectionFields are the declarations of the section's form fields: those
// named, or every writable attribute and stored relationship (the
// parent's excepted: the record's page sets it).
func sectionFields(s *section, def *engine.TypeDef) []fieldDef {
	names := s.Fields
	if names == nil {
		for _, a := range def.Attrs {
			if !a.Computed && a.Kind != engine.KindObject && a.Name != views.NameActive {
				names = append(names, a.Name)
			}
		}
		for _, r := range def.Rels {
			if r.Stored() && !r.ReadOnly && r.Name != s.Parent {
				names = append(names, r.Name)
			}
		}
	}
	out := make([]fieldDef, 0, len(names))
	for _, n := range names {
		if a, ok := def.Attr(n); ok {
			out = append(out, fieldDef{attr: a})
		} else if r, ok := def.Rel(n); ok {
			out = append(out, fieldDef{rel: r})
		}
	}
	return out
}

// control is the control of a field.
func control(f fieldDef) string {
	if f.rel != nil {
		if f.rel.ToMany && f.rel.Name != views.NameRoles { // a user has one role, held in a to-many
			return ctlMulti
		}
		return ctlSelect
	}
	switch a := f.attr; {
	case a.Name == views.NamePermissions:
		return ctlGrid
	case a.Name == views.NameClientSecret:
		return ctlSecret
	case a.Kind == engine.KindText:
		return ctlTextarea
	case a.Kind == engine.KindDecimal, a.Kind == engine.KindInt:
		return ctlNumber
	case a.Kind == engine.KindBool:
		return ctlCheck
	case a.Kind == engine.KindEnum:
		return ctlSelect
	case a.Kind == engine.KindDate:
		return ctlDate
	case a.Kind == engine.KindList:
		return ctlList
	case a.Kind == engine.KindAny, a.Kind == engine.KindObject:
		return ctlJSON
	}
	return ctlText
}

// stored is a field's value as a form shows it.
func stored(rec *engine.Record, f fieldDef) []string {
	if rec == nil {
		return nil
	}
	if f.rel != nil {
		return rec.Rels[f.rel.Name]
	}
	v, ok := rec.Attrs[f.attr.Name]
	if !ok || v == nil {
		return nil
	}
	switch control(f) {
	case ctlSecret:
		return nil
	case ctlList:
		return []string{strings.Join(rec.Strings(f.attr.Name), "\n")}
	case ctlJSON:
		b, _ := json.MarshalIndent(v, "", "  ")
		return []string{string(b)}
	case ctlCheck:
		if rec.Bool(f.attr.Name) {
			return []string{"true"}
		}
		return []string{"false"}
	case ctlGrid:
		return nil
	}
	return []string{displayValue(v)}
}

// displayValue is an attribute value as text.
func displayValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		if t {
			return "Yes"
		}
		return "No"
	case json.Number:
		return t.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// buildFields makes the form's fields: the values posted (a refused form
// comes back as it was sent) or else the record's, with the errors of
// each field beside it. prefix makes the ids unique on the page.
func (w *Workspace) buildFields(c *call, s *section, def *engine.TypeDef, rec *engine.Record, posted url.Values,
	errs []fieldError, prefix string, opts *optionSets) ([]*formField, error) {
	var out []*formField
	for _, f := range sectionFields(s, def) {
		name := f.name()
		if rec != nil && slices.Contains(s.CreateOnly, name) {
			continue
		}
		ff := &formField{ID: prefix + name, Name: name, Label: fieldLabel(s, name), Control: control(f), Input: "text", Help: s.Help[name]}
		values := stored(rec, f)
		if posted != nil {
			values = posted[name]
		}
		if len(values) > 0 {
			ff.Value = values[len(values)-1] // a checkbox sends its hidden "false" first
		}
		switch ff.Control {
		case ctlText:
			ff.MaxLen, _ = f.attr.MaxLength()
			switch name {
			case views.NameEmail:
				ff.Input = "email"
			case views.NameIssuerURL, views.NameDestinationURL:
				ff.Input = "url"
			}
			ff.Required = f.attr.Required
		case ctlTextarea, ctlList, ctlJSON:
			ff.Required = f.attr.Required && ff.Control == ctlTextarea
		case ctlNumber:
			ff.Input, ff.Step, ff.Min = "number", "any", "0"
			if f.attr.Kind == engine.KindInt {
				ff.Step, ff.Min = "1", ""
			}
			if f.attr.Signed {
				ff.Min = ""
			}
		case ctlCheck:
			ff.Value = map[bool]string{true: "true", false: ""}[ff.Value == "true" || (rec == nil && posted == nil && f.attr.Default == true)]
		case ctlSelect:
			if f.attr != nil {
				if !f.attr.Required {
					ff.Options = append(ff.Options, option{"", "None"})
				}
				for _, e := range f.attr.Enum {
					ff.Options = append(ff.Options, option{e, label(e)})
				}
				if ff.Value == "" && rec == nil && posted == nil {
					ff.Value, _ = f.attr.Default.(string)
				}
				break
			}
			ff.Required = f.rel.Required
			if !f.rel.Required && f.rel.Name != views.NameRoles {
				ff.Options = append(ff.Options, option{"", "None"})
			}
			o, err := opts.of(c, f.rel.Type, values)
			if err != nil {
				return nil, err
			}
			ff.Options = append(ff.Options, o...)
		case ctlMulti:
			ff.Selected = map[string]bool{}
			for _, v := range values {
				ff.Selected[v] = true
			}
			o, err := opts.of(c, f.rel.Type, values)
			if err != nil {
				return nil, err
			}
			ff.Options = o
		case ctlGrid:
			perms := map[string]any{}
			if rec != nil {
				perms = rec.Object(name)
			}
			for _, p := range scoping.Permissions {
				level, _ := perms[p].(string)
				if posted != nil {
					level = posted.Get("perm." + p)
				}
				if level == "" {
					level = engine.AccessNone
				}
				ff.Grid = append(ff.Grid, gridRow{Name: p, Label: permissionLabel(p), Level: level})
			}
		}
		for _, e := range errs {
			if e.Field == name {
				ff.Errors = append(ff.Errors, e.Message)
			}
		}
		ff.describe()
		out = append(out, ff)
	}
	return out, nil
}

// describe sets the ids that describe the control: its help and its
// errors.
func (ff *formField) describe() {
	var described []string
	if ff.Help != "" {
		described = append(described, ff.ID+"-help")
	}
	if len(ff.Errors) > 0 {
		described = append(described, ff.ID+"-error")
	}
	ff.Described = strings.Join(described, " ")
}

// permissionLabel names a permission for people.
func permissionLabel(p string) string {
	switch p {
	case "settings.webhooks":
		return "Webhooks"
	case "merge_data":
		return "Merge data"
	case "project_approvals":
		return "Project approvals"
	case "rate_tables":
		return "Rate tables and resources"
	case "user_preferences":
		return "Own preferences"
	}
	return label(p)
}

// loose are the errors not shown beside a field of the form.
func loose(fields []*formField, errs []fieldError) []fieldError {
	var out []fieldError
	for _, e := range errs {
		if !slices.ContainsFunc(fields, func(f *formField) bool { return f.Name == e.Field }) {
			out = append(out, e)
		}
	}
	return out
}

// recordInput builds the engine's input of a posted settings form: each
// field of the section the form carries (absent ones are left alone;
// blank is null, as an API client clears a value).
func (c *call) recordInput(s *section, def *engine.TypeDef, create bool) (*engine.Input, error) {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for _, f := range sectionFields(s, def) {
		name := f.name()
		if !create && slices.Contains(s.CreateOnly, name) {
			continue
		}
		ctl := control(f)
		if ctl == ctlGrid {
			perms, given, err := c.permissionsOf()
			if err != nil {
				return nil, err
			}
			if given {
				in.Attrs[name], _ = json.Marshal(perms)
			}
			continue
		}
		values, given := c.form[name]
		if !given {
			continue
		}
		if ctl == ctlMulti {
			refs := []engine.Ref{}
			for _, v := range values {
				if v = strings.TrimSpace(v); v != "" {
					refs = append(refs, engine.Ref{Type: f.rel.Type, ID: v})
				}
			}
			in.Rels[name] = engine.RelInput{ToMany: true, Refs: refs}
			continue
		}
		var v string
		if ctl == ctlCheck { // a hidden "false", then the box's "true" when it is ticked
			v = "false"
			if slices.Contains(values, "true") {
				v = "true"
			}
		} else {
			var err error
			if v, err = c.value(name); err != nil {
				return nil, err
			}
		}
		if f.rel != nil {
			ri := engine.RelInput{ToMany: f.rel.ToMany}
			if v != "" {
				ri.Refs = []engine.Ref{{Type: f.rel.Type, ID: v}}
			}
			in.Rels[name] = ri
			continue
		}
		raw, keep := attrJSON(f.attr, ctl, v, create)
		if keep {
			in.Attrs[name] = raw
		}
	}
	return in, nil
}

// attrJSON is the JSON value of a form's text for an attribute; keep is
// false when the form leaves the attribute as it is (a blank secret).
func attrJSON(a *engine.AttrDef, ctl, v string, create bool) (json.RawMessage, bool) {
	switch {
	case ctl == ctlSecret && v == "":
		return nil, false
	case v == "" && ctl != ctlCheck:
		return json.RawMessage("null"), true
	case ctl == ctlCheck:
		return json.RawMessage(v), true
	case ctl == ctlList:
		items := []string{}
		for _, line := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == ',' }) {
			if line = strings.TrimSpace(line); line != "" {
				items = append(items, line)
			}
		}
		raw, _ := json.Marshal(items)
		return raw, true
	case ctl == ctlJSON && json.Valid([]byte(v)):
		return json.RawMessage(v), true
	case a.Kind == engine.KindInt && isInteger(v):
		return json.RawMessage(v), true
	}
	raw, _ := json.Marshal(v) // the use case says what is wrong with it
	return raw, true
}

// isInteger reports whether v is a plain decimal integer JSON takes.
func isInteger(v string) bool {
	s := strings.TrimPrefix(v, "-")
	return s != "" && len(s) <= 18 && strings.Trim(s, "0123456789") == "" && (s == "0" || s[0] != '0')
}

// permissionsOf reads a role's grid: perm.<name> = none, view or manage.
// given is false when the form has no grid.
func (c *call) permissionsOf() (map[string]string, bool, error) {
	perms := map[string]string{}
	for key := range c.form {
		p, ok := strings.CutPrefix(key, "perm.")
		if !ok {
			continue
		}
		v, err := c.value(key)
		if err != nil {
			return nil, false, err
		}
		perms[p] = v
	}
	if len(perms) == 0 {
		return nil, false, nil
	}
	return perms, true, nil
}

// optionSets lists the choices of the relationships' types once per
// page; a current value that is not among them (an archived record) is
// added, so that saving a form never changes it silently.
type optionSets struct {
	w    *Workspace
	sets map[string][]option
}

func (o *optionSets) of(c *call, typ string, current []string) ([]option, error) {
	if o.sets == nil {
		o.sets = map[string][]option{}
	}
	opts, ok := o.sets[typ]
	if !ok {
		var err error
		if opts, err = o.w.choicesOf(c, typ, "true"); err != nil {
			return nil, err
		}
		o.sets[typ] = opts
	}
	var missing []string
	for _, v := range current {
		if v != "" && !slices.ContainsFunc(opts, func(op option) bool { return op.Value == v }) {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return opts, nil
	}
	more, err := o.w.choicesOf(c, typ, "true,false", missing...)
	if err != nil {
		return nil, err
	}
	for i := range more {
		more[i].Label += " (archived)"
	}
	return append(slices.Clone(opts), more...), nil
}

// choicesOf lists records of typ the actor may read as options: active
// ones (or "true,false") and, given ids, those only. A type the role
// cannot read gives no options.
func (w *Workspace) choicesOf(c *call, typ, active string, ids ...string) ([]option, error) {
	def, ok := w.svc.Schema().Lookup(typ)
	if !ok || !c.actor.Can(def.Guard, false) {
		return nil, nil
	}
	p := engine.ListParams{PageSize: 1000, PageNumber: 1, Filters: map[string]string{}}
	if def.Archives {
		p.Filters[views.NameActive] = active
	}
	if len(ids) > 0 {
		p.Filters["ids"] = strings.Join(ids, ",")
	}
	res, err := w.svc.List(c.ctx(), c.actor, typ, p, engine.Options{})
	if err != nil {
		return nil, err
	}
	out := make([]option, 0, len(res.Records))
	for _, r := range res.Records {
		out = append(out, option{r.ID, recordName(r)})
	}
	return out, nil
}

// recordName names a record for people.
func recordName(r *engine.Record) string {
	if a := displayAttr(r.Type); a != "" {
		if n := r.Str(a); n != "" {
			return n
		}
	}
	return "#" + r.ID
}
