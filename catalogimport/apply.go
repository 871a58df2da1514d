package catalogimport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// errRollback ends the write transaction of a dry run, or of an import
// that refused rows, without committing it.
var errRollback = errors.New("catalogimport: roll back")

// Import reads f and checks every row; unless dryRun, or a row is refused,
// it writes the catalog in one transaction of e as actor a, through the
// engine's create and update (validation and hooks included). A dry run
// applies the rows too, in a transaction it rolls back, so that it reports
// what the types' own rules would refuse.
//
// The report says what was (or would be) done per kind and lists the
// problems. Errors: ETOOLARGE for a file over the limits, EINVALID for a
// file that is not what its format says (and, with the report, for an
// import that refused rows: nothing was written), EFORBIDDEN without
// manage access to the kinds in the file.
func Import(ctx context.Context, e *engine.Engine, a *engine.Actor, f File, dryRun bool) (*Report, error) {
	tables, err := readFile(f)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		if k := kindNamed(t.name); k != nil {
			if err := mayWrite(e, a, k); err != nil {
				return nil, err
			}
		}
	}
	rep := newReport(dryRun)
	if p := parse(e.Schema(), tables, rep); p != nil {
		_, err = e.Write(ctx, a, engine.Options{}, nil, func(c *engine.Call) error {
			im := &importer{ctx: ctx, c: c, rep: rep, plan: p}
			if err := im.run(); err != nil {
				return err
			}
			if dryRun || rep.Refused() {
				return errRollback
			}
			return nil
		})
		if err != nil && !errors.Is(err, errRollback) {
			return nil, err
		}
	}
	if rep.Refused() {
		if dryRun {
			return rep, nil
		}
		return rep, rep.refusedError()
	}
	rep.Written = !dryRun
	return rep, nil
}

// mayWrite checks that a may write the records of a sheet of kind k (and
// the lines of business and categories its rows may create).
func mayWrite(e *engine.Engine, a *engine.Actor, k *kind) error {
	types := []string{k.typ}
	for _, c := range k.cols {
		if autoTypes[c.ref] {
			types = append(types, c.ref)
		}
	}
	for _, typ := range types {
		if _, err := e.WritableType(a, typ); err != nil {
			return err
		}
	}
	return nil
}

// importer applies a plan inside one write call.
type importer struct {
	ctx  context.Context
	c    *engine.Call
	rep  *Report
	plan *plan
	// byName indexes the account's records of the types rows name, by
	// folded name; byKey those of each kind by the key of its rows.
	byName map[string]map[string][]*engine.Record
	byKey  map[string]map[string][]*engine.Record
}

// run applies the sheets in order.
func (im *importer) run() error {
	im.byName, im.byKey = map[string]map[string][]*engine.Record{}, map[string]map[string][]*engine.Record{}
	for _, s := range im.plan.sheets {
		for _, c := range s.kind.cols {
			if c.ref != "" {
				if err := im.loadNames(c.ref); err != nil {
					return err
				}
			}
		}
	}
	for _, s := range im.plan.sheets {
		keys := map[string][]*engine.Record{}
		recs, err := im.c.Find(s.kind.typ)
		if err != nil {
			return err
		}
		for _, r := range recs {
			k := recordKey(s.kind, r)
			keys[k] = append(keys[k], r)
		}
		im.byKey[s.kind.typ] = keys
		// the ids of the records the sheet creates, at once: a store that
		// asks a server for each id then sends the rows together
		if err := engine.ReserveIDs(im.c.Tx, s.kind.typ, im.creates(s)); err != nil {
			return err
		}
		for _, r := range s.rows {
			if err := im.apply(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadNames indexes the records of typ by name, once (before any row is
// applied: the records rows create are added as they are).
func (im *importer) loadNames(typ string) error {
	if _, done := im.byName[typ]; done {
		return nil
	}
	recs, err := im.c.Find(typ)
	if err != nil {
		return err
	}
	names := map[string][]*engine.Record{}
	for _, r := range recs {
		names[fold(r.Str(views.NameName))] = append(names[fold(r.Str(views.NameName))], r)
	}
	im.byName[typ] = names
	return nil
}

// creates counts the rows of s that will create a record: those whose key
// names no record of the account.
func (im *importer) creates(s *sheet) int {
	n := 0
	ids := make([]string, len(s.kind.cols))
	for _, r := range s.rows {
		if r.bad {
			continue
		}
		for ci, c := range s.kind.cols {
			if c.key && c.ref != "" {
				ids[ci] = ""
				if rec, _ := pick(im.byName[c.ref][fold(r.text[ci])]); rec != nil {
					ids[ci] = rec.ID
				}
			}
		}
		if len(im.byKey[s.kind.typ][rowKey(r, ids)]) == 0 {
			n++
		}
	}
	return n
}

// rowKey is the key of a row as recordKey is a record's: the folded names
// of its key attributes and the ids its key relationships name (ids, by
// column).
func rowKey(r *row, ids []string) string {
	var parts []string
	for ci, c := range r.sheet.kind.cols {
		switch {
		case !c.key:
		case c.attr != "":
			parts = append(parts, fold(r.text[ci]))
		default:
			parts = append(parts, ids[ci])
		}
	}
	return strings.Join(parts, "\x00")
}

// recordKey is the key of a record as its kind's rows key it: the folded
// names of its key attributes and the ids of its key relationships.
func recordKey(k *kind, r *engine.Record) string {
	var parts []string
	for _, c := range k.cols {
		switch {
		case !c.key:
		case c.attr != "":
			parts = append(parts, fold(r.Str(c.attr)))
		default:
			parts = append(parts, r.Rel(c.rel))
		}
	}
	return strings.Join(parts, "\x00")
}

// apply resolves a row's references, finds its record by key and creates
// or updates it when the row differs.
func (im *importer) apply(r *row) error {
	s, k := r.sheet, r.sheet.kind
	counts := im.rep.counts(k.key)
	ids := make([]string, len(k.cols))
	for ci, c := range k.cols {
		if c.ref == "" || s.at[ci] < 0 || r.text[ci] == "" {
			continue
		}
		id, err := im.resolve(r, ci)
		if err != nil {
			return err
		}
		if id == "" {
			r.bad = true
		}
		ids[ci] = id
	}
	if r.bad {
		counts.Refused++
		return nil
	}
	key := rowKey(r, ids)
	def, _ := im.c.Engine.Schema().Lookup(k.typ)
	old, ok := pick(im.byKey[k.typ][key])
	if !ok {
		s.problem(im.rep, r.n, -1, "%d %s of the account match this row: rename all but one", len(im.byKey[k.typ][key]), k.title)
		r.bad = true
		counts.Refused++
		return nil
	}
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for ci, c := range k.cols {
		if s.at[ci] < 0 {
			continue // a column the sheet does not have: left as it is
		}
		if c.attr != "" {
			v, ok := r.vals[c.attr]
			if !ok {
				continue
			}
			if v == nil {
				v = im.blank(def, c)
			}
			if old == nil || text(old.Attrs[c.attr]) != text(v) {
				raw, _ := json.Marshal(v)
				in.Attrs[c.attr] = raw
			}
			continue
		}
		if old == nil || old.Rel(c.rel) != ids[ci] {
			ri := engine.RelInput{}
			if ids[ci] != "" {
				ri.Refs = []engine.Ref{{Type: c.ref, ID: ids[ci]}}
			}
			in.Rels[c.rel] = ri
		}
	}
	if old != nil && !old.Active() {
		in.Attrs[views.NameActive] = json.RawMessage("true") // a row names an archived record: restored
	}
	var rec *engine.Record
	var err error
	switch {
	case old != nil && len(in.Attrs) == 0 && len(in.Rels) == 0:
		counts.Unchanged++
		return nil
	case old != nil:
		rec, err = im.c.UpdateRecord(im.ctx, def, old, in)
	default:
		rec, _, err = im.c.CreateRecord(im.ctx, def, in)
	}
	if err != nil {
		return im.refused(r, counts, err)
	}
	if old != nil {
		counts.Updated++
		im.byKey[k.typ][key] = []*engine.Record{rec}
		return nil
	}
	counts.Created++
	im.byKey[k.typ][key] = []*engine.Record{rec}
	if names := im.byName[k.typ]; names != nil { // a type later rows name
		n := fold(rec.Str(views.NameName))
		names[n] = append(names[n], rec)
	}
	return nil
}

// resolve returns the id of the record a reference cell names: a record
// of the account (as the earlier sheets left it), or for a line of business
// or category one created now. It returns "" after reporting a name it
// cannot resolve.
func (im *importer) resolve(r *row, ci int) (string, error) {
	s, c := r.sheet, r.sheet.kind.cols[ci]
	name := r.text[ci]
	recs := im.byName[c.ref][fold(name)]
	if len(recs) == 0 {
		if def := im.plan.named[c.ref][fold(name)]; def != nil {
			s.problem(im.rep, r.n, ci, "the %s %q is refused (%s row %d)", singular[c.ref], name, def.sheet.name, def.n)
			return "", nil
		}
		if !autoTypes[c.ref] {
			s.problem(im.rep, r.n, ci, "no %s named %q in this file or in the account", singular[c.ref], name)
			return "", nil
		}
		if r.bad {
			return "", nil // refused already: nothing is created for it
		}
		def, _ := im.c.Engine.Schema().Lookup(c.ref)
		raw, _ := json.Marshal(name)
		rec, _, err := im.c.CreateRecord(im.ctx, def, &engine.Input{Attrs: map[string]json.RawMessage{views.NameName: raw}})
		if err != nil {
			return "", im.report(r, ci, err)
		}
		im.byName[c.ref][fold(name)] = []*engine.Record{rec}
		im.rep.counts(c.ref).Created++
		return rec.ID, nil
	}
	rec, ok := pick(recs)
	if !ok {
		s.problem(im.rep, r.n, ci, "%d records of the account are named %q: rename all but one", len(recs), name)
		return "", nil
	}
	return rec.ID, nil
}

// singular names the types rows refer to, in messages.
var singular = map[string]string{
	views.TypePhases: "phase", views.TypeResources: "resource", views.TypeServices: "service",
	views.TypeRateTables: "rate table", views.TypeLinesOfBusiness: "line of business", views.TypeServiceCategories: "category",
}

// pick chooses the record a name or key designates: the only one, or the
// only active one; false when several match.
func pick(recs []*engine.Record) (*engine.Record, bool) {
	if len(recs) <= 1 {
		if len(recs) == 0 {
			return nil, true
		}
		return recs[0], true
	}
	var active []*engine.Record
	for _, r := range recs {
		if r.Active() {
			active = append(active, r)
		}
	}
	if len(active) == 1 {
		return active[0], true
	}
	return nil, false
}

// blank is the value a blank cell of column c sets: the account's
// default currency, or the attribute's default (nil: no value).
func (im *importer) blank(def *engine.TypeDef, c column) any {
	if c.accountCurrency {
		return views.Account{Record: im.c.Actor.Account}.DefaultCurrency()
	}
	at, _ := def.Attr(c.attr)
	return at.Default
}

// text is the canonical text of a value ("" for none), to compare a cell
// with what is stored.
func text(v any) string {
	s, _ := engine.TextOf(v)
	return s
}

// refused reports the errors of a row's write, which the engine refused;
// an error that is not about the row (the store failed) ends the import.
func (im *importer) refused(r *row, counts *Counts, err error) error {
	if err := im.report(r, -1, err); err != nil {
		return err
	}
	r.bad = true
	counts.Refused++
	return nil
}

// report adds the row-level errors of err as problems (about column ci
// when they name no field); it returns err when it is not about the row.
func (im *importer) report(r *row, ci int, err error) error {
	es := scopekit.List(err)
	for _, e := range es {
		switch e.Code {
		case scopekit.EINVALID, scopekit.EBADREQUEST, scopekit.ECONFLICT:
		default:
			return err
		}
	}
	for _, e := range es {
		at := columnOf(r.sheet.kind, e.Field)
		if at < 0 {
			at = ci
		}
		r.sheet.problem(im.rep, r.n, at, "%s", e.Message)
	}
	return nil
}

// columnOf returns the column a field pointer of the engine names, -1 for
// none.
func columnOf(k *kind, field string) int {
	attr, isAttr := strings.CutPrefix(field, engine.AttrPointer(""))
	rel, isRel := strings.CutPrefix(field, engine.RelPointer(""))
	for ci, c := range k.cols {
		if (isAttr && c.attr == attr) || (isRel && c.rel == rel) {
			return ci
		}
	}
	return -1
}
