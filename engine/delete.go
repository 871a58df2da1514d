package engine

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit"
)

// Deletes: a record removed, or archived when its type archives.

// Delete removes the record typ/id. Records that own others (a stored
// relationship declared Cascade) take those with them; a record of an
// archiving type that other records still reference is archived instead;
// other references to a deleted record are cleared.
func (e *Engine) Delete(ctx context.Context, a *Actor, typ, id string, opts Options) error {
	def, err := e.WritableType(a, typ)
	if err != nil {
		return err
	}
	_, err = e.Write(ctx, a, opts, nil, func(c *Call) error {
		rec, err := c.GetVisible(ctx, def, id, AnyActive(def))
		if err != nil {
			return err
		}
		return c.removeRecord(ctx, def, rec)
	})
	return err
}

// removeRecord removes rec through def's Delete hook, or as Remove does.
func (c *Call) removeRecord(ctx context.Context, def *TypeDef, rec *Record) error {
	remove := c.Remove
	if def.Hooks.Delete != nil {
		remove = func(_ *TypeDef, rec *Record) error { return def.Hooks.Delete(ctx, c, rec) }
	}
	if err := remove(def, rec); err != nil {
		return err
	}
	return c.touched(def, rec)
}

// Remove deletes or archives rec as Delete describes.
func (c *Call) Remove(def *TypeDef, rec *Record) error {
	type ref struct {
		def *TypeDef
		rel *RelDef
		rec *Record
	}
	var refs []ref
	for _, t := range c.Engine.schema.Types() {
		for i := range t.Rels {
			rd := &t.Rels[i]
			if rd.Type != def.Name || !rd.Stored() || t.Global {
				continue
			}
			recs, err := c.Find(t.Name, Eq(rd.Name, rec.ID))
			if err != nil {
				return err
			}
			for _, r := range recs {
				refs = append(refs, ref{t, rd, r})
			}
		}
	}
	hasOthers := slices.ContainsFunc(refs, func(r ref) bool { return !r.rel.Cascade })
	if hasOthers && def.Archives {
		rec.Attrs["active"] = false
		return c.Tx.Replace(rec)
	}
	for _, r := range refs {
		if r.rel.Cascade {
			if err := c.Remove(r.def, r.rec); err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
				return err
			}
			continue
		}
		cur, err := c.Get(r.def.Name, r.rec.ID)
		if err != nil {
			continue // removed by an earlier cascade
		}
		cur.Rels[r.rel.Name] = slices.DeleteFunc(cur.Rels[r.rel.Name], func(id string) bool { return id == rec.ID })
		if len(cur.Rels[r.rel.Name]) == 0 {
			delete(cur.Rels, r.rel.Name)
		}
		if err := c.Tx.Replace(cur); err != nil {
			return err
		}
	}
	for _, kind := range def.Blobs {
		if err := c.Tx.DeleteBlob(rec.AccountID, kind, rec.ID); err != nil {
			return err
		}
	}
	return c.Tx.Delete(def.Name, rec.AccountID, rec.ID)
}
