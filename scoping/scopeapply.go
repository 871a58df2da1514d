package scoping

import (
	"slices"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Applying a frozen scope to records: a revert makes a project's lines
// those of a version again (versions.go); a change order copies them and,
// once accepted, gives its own back to the project (changeorders.go). The
// lines are matched by identity: a frozen line updates the record that
// stands for it, or is created anew when none does; records that no frozen
// line stands for are removed. References between lines follow the new
// ids; references to catalog records that no longer exist are dropped.

// scopeTarget says where a frozen scope goes.
type scopeTarget struct {
	projectID string
	// changeOrder is the change order whose copy receives the lines ("":
	// the project's own lines); a line it gets anew keeps the identity it
	// stands for as its origin.
	changeOrder string
	// existing are the records already there, by type and by the identity
	// of the frozen line they stand for.
	existing map[string]map[string]*engine.Record
}

// frozenLines decodes the lines of a stored scope, by type.
func frozenLines(s *storedScope) (map[string][]*snapLine, error) {
	out := make(map[string][]*snapLine, len(s.Lines))
	for typ, raws := range s.Lines {
		for _, raw := range raws {
			l, err := decodeLine(raw)
			if err != nil {
				return nil, err
			}
			out[typ] = append(out[typ], l)
		}
	}
	return out, nil
}

// applyScope writes the frozen lines to the target in the call's
// transaction and returns, by type, the id each frozen identity got.
func applyScope(c *engine.Call, t scopeTarget, lines map[string][]*snapLine) (map[string]map[string]string, error) {
	schema := c.Engine.Schema()
	ids := map[string]map[string]string{}
	catalog, err := catalogPresent(c, lines)
	if err != nil {
		return nil, err
	}
	for _, typ := range projectInputTypes {
		def := mustLookup(schema, typ)
		ids[typ] = map[string]string{}
		for _, l := range lines[typ] {
			rec, isNew := t.existing[typ][l.ID], false
			if rec == nil {
				rec, isNew = engine.NewRecord(typ, c.AccountID()), true
				for _, a := range def.Attrs {
					if a.Default != nil {
						rec.Attrs[a.Name] = a.Default
					}
				}
			}
			setScopeFields(def, rec, l, func(rd *engine.RelDef, v string) string {
				if m, ok := ids[rd.Type]; ok {
					return m[v] // a line of this scope, under its id here
				}
				if catalog[rd.Type][v] {
					return v
				}
				return ""
			})
			rec.SetRel(views.NameProject, t.projectID)
			rec.SetRel(views.NameChangeOrder, t.changeOrder)
			if t.changeOrder != "" && isNew {
				rec.Attrs[attrOrigin] = l.ID
			}
			if isNew {
				err = c.Tx.Insert(rec)
			} else {
				err = c.Tx.Replace(rec)
			}
			if err != nil {
				return nil, err
			}
			ids[typ][l.ID] = rec.ID
		}
	}
	// what no frozen line stands for goes, children first
	for i := len(projectInputTypes) - 1; i >= 0; i-- {
		typ := projectInputTypes[i]
		keep := map[string]bool{}
		for _, l := range lines[typ] {
			keep[l.ID] = true
		}
		for _, ident := range sortedIdentities(t.existing[typ]) {
			if !keep[ident] {
				rec := t.existing[typ][ident]
				if err := c.Tx.Delete(typ, rec.AccountID, rec.ID); err != nil {
					return nil, err
				}
			}
		}
	}
	return ids, nil
}

func sortedIdentities(m map[string]*engine.Record) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, engine.CompareIDs)
	return out
}

// setScopeFields makes rec's scope attributes and relationships those of
// the frozen line l (what is not scope, such as delivery progress, stays);
// ref maps a frozen relationship's id to the id it takes here ("": drop).
func setScopeFields(def *engine.TypeDef, rec *engine.Record, l *snapLine, ref func(rd *engine.RelDef, id string) string) {
	skip := notScope[def.Name]
	for i := range def.Attrs {
		a := &def.Attrs[i]
		if a.Computed || a.Name == "created-at" || a.Name == "updated-at" || slices.Contains(skip, a.Name) {
			continue
		}
		if v, ok := l.Attributes[a.Name]; ok {
			rec.Attrs[a.Name] = v
		} else if a.Default == nil {
			delete(rec.Attrs, a.Name)
		} else {
			rec.Attrs[a.Name] = a.Default
		}
	}
	for i := range def.Rels {
		rd := &def.Rels[i]
		if !rd.Stored() || rd.ToMany || rd.ReadOnly || slices.Contains(notScopeRels, rd.Name) {
			continue
		}
		id := ""
		if v := l.Relationships[rd.Name]; v != "" {
			id = ref(rd, v)
		}
		rec.SetRel(rd.Name, id)
	}
}

// catalogPresent reports, by type, which of the records outside the scope
// that the frozen lines refer to still exist.
func catalogPresent(c *engine.Call, lines map[string][]*snapLine) (map[string]map[string]bool, error) {
	schema := c.Engine.Schema()
	want := map[string][]string{}
	for typ, ls := range lines {
		def := mustLookup(schema, typ)
		for _, l := range ls {
			for name, id := range l.Relationships {
				if rd, ok := def.Rel(name); ok && !slices.Contains(projectInputTypes, rd.Type) {
					want[rd.Type] = append(want[rd.Type], id)
				}
			}
		}
	}
	out := map[string]map[string]bool{}
	for typ, ids := range want {
		found, err := c.Find(typ, engine.Eq("id", ids...))
		if err != nil {
			return nil, err
		}
		out[typ] = map[string]bool{}
		for _, r := range found {
			out[typ][r.ID] = true
		}
	}
	return out, nil
}
