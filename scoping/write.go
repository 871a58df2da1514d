package scoping

import (
	"context"
	"slices"

	"github.com/scopekit/scopekit"
)

// Create validates in against the declaration of typ and stores a new
// record, running the type's hooks in the same transaction.
//
// Errors: EFORBIDDEN without write access; EBADREQUEST for unknown members,
// wrong JSON types or (on v2) computed fields; EINVALID (all at once) for
// blank required fields, uniqueness clashes, references to records of
// another account and type rules; ENOTFOUND for a project outside the
// actor's visibility.
func (s *Service) Create(ctx context.Context, a *Actor, typ string, in *Input, v2 bool) (*Result, error) {
	def, err := s.lookupType(typ)
	if err != nil {
		return nil, err
	}
	if def.Hooks.Create == nil {
		def, err = s.writableType(a, typ)
	} else {
		err = a.Require(def.Guard, true)
	}
	if err != nil {
		return nil, err
	}
	var rec *Record
	var created bool
	call, err := s.update(ctx, a, v2, in.Meta, func(c *Call) error {
		rec, created, err = c.create(ctx, def, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	res, err := s.reread(ctx, a, def, rec, v2, call.RespMeta)
	if res != nil {
		res.Created = created
	}
	return res, err
}

// create builds a new record of def from in and stores it, or restores the
// record an Upsert hook returns (created false).
func (c *Call) create(ctx context.Context, def *TypeDef, in *Input) (*Record, bool, error) {
	if def.Hooks.Create != nil {
		prev := c.Input
		c.Input = in
		defer func() { c.Input = prev }()
		rec, err := def.Hooks.Create(ctx, c, in)
		return rec, err == nil, err
	}
	rec := NewRecord(def.Name, c.AccountID())
	for _, at := range def.Attrs {
		if at.Default != nil {
			rec.Attrs[at.Name] = at.Default
		}
	}
	if def.Hooks.Upsert != nil {
		var errs scopekit.Errors
		if err := c.apply(def, rec, in, &errs); err != nil {
			return nil, false, err
		}
		if len(errs) == 0 {
			ex, err := def.Hooks.Upsert(ctx, c, rec)
			if err != nil {
				return nil, false, err
			}
			if ex != nil {
				old, err := c.Get(def.Name, ex.ID)
				if err != nil {
					return nil, false, err
				}
				rec, err := c.save(ctx, def, ex, old, &Input{})
				return rec, false, err
			}
		}
	}
	rec, err := c.save(ctx, def, rec, nil, in)
	return rec, err == nil, err
}

// Update applies in to the record typ/id. Archived records can be updated
// (that is how they are restored with active: true).
func (s *Service) Update(ctx context.Context, a *Actor, typ, id string, in *Input, v2 bool) (*Result, error) {
	def, err := s.writableType(a, typ)
	if err != nil {
		return nil, err
	}
	var rec *Record
	call, err := s.update(ctx, a, v2, in.Meta, func(c *Call) error {
		old, err := c.getVisible(ctx, def, id, anyActive(def))
		if err != nil {
			return err
		}
		rec, err = c.save(ctx, def, old.Clone(), old, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.reread(ctx, a, def, rec, v2, call.RespMeta)
}

// anyActive is the filter that finds a record of def whether archived or
// not (none for types that do not archive: they reject filter[active]).
func anyActive(def *TypeDef) map[string]string {
	if !def.Archives {
		return nil
	}
	return map[string]string{"active": "true,false"}
}

// reread serves a written record as a read would, computed fields included.
func (s *Service) reread(ctx context.Context, a *Actor, def *TypeDef, rec *Record, v2 bool, meta map[string]any) (*Result, error) {
	res := &Result{Records: []*Record{rec}, Total: 1, Single: true}
	if len(meta) > 0 {
		res.Meta = meta
	}
	err := s.view(ctx, a, v2, func(c *Call) error {
		// as stored: the write's transaction added the price figures
		if _, priced := figureAttrs[rec.Type]; priced {
			if cur, err := c.Get(rec.Type, rec.ID); err == nil {
				res.Records[0] = cur
			}
		}
		return c.compute(ctx, def, res.Records)
	})
	return res, err
}

func (s *Service) writableType(a *Actor, typ string) (*TypeDef, error) {
	def, err := s.lookupType(typ)
	if err != nil {
		return nil, err
	}
	if def.ReadOnly {
		return nil, scopekit.Errorf(scopekit.EFORBIDDEN, "%s are read-only", typ)
	}
	return def, a.Require(def.Guard, true)
}

// save applies in to rec (old is nil on create), validates and stores it.
func (c *Call) save(ctx context.Context, def *TypeDef, rec, old *Record, in *Input) (*Record, error) {
	var errs scopekit.Errors
	prev := c.Input
	c.Input = in
	defer func() { c.Input = prev }()
	if err := c.apply(def, rec, in, &errs); err != nil {
		return nil, err
	}
	if old == nil && def.Hooks.Defaults != nil {
		if err := def.Hooks.Defaults(ctx, c, rec); err != nil {
			return nil, err
		}
	}
	if err := c.validate(ctx, def, rec, old, &errs); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, firstPerField(errs)
	}
	var err error
	if old == nil {
		err = c.Tx.Insert(rec)
	} else {
		err = c.Tx.Replace(rec)
	}
	if err != nil {
		return nil, err
	}
	if def.Hooks.AfterWrite != nil {
		if err := def.Hooks.AfterWrite(ctx, c, rec, old); err != nil {
			return nil, err
		}
	}
	if err := c.restoreTeammate(def, rec); err != nil {
		return nil, err
	}
	return rec, nil
}

// apply copies attributes and relationships of in onto rec. Malformed input
// is returned as an error at once; rule violations are added to errs.
func (c *Call) apply(def *TypeDef, rec *Record, in *Input, errs *scopekit.Errors) error {
	names := make([]string, 0, len(in.Attrs))
	for n := range in.Attrs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		at, ok := def.Attr(name)
		if !ok {
			return badAttr(name, "%s is not an attribute of %s", name, def.Name)
		}
		if at.Computed {
			if c.V2 {
				return badAttr(name, "%s is computed and cannot be set", name)
			}
			continue // v1 ignores computed fields in writes
		}
		v, e := decodeAttr(at, in.Attrs[name])
		if e != nil {
			if e.Code == scopekit.EBADREQUEST {
				return e
			}
			*errs = append(*errs, e)
			continue
		}
		if v == nil {
			delete(rec.Attrs, name)
		} else {
			rec.Attrs[name] = v
		}
	}
	rnames := make([]string, 0, len(in.Rels))
	for n := range in.Rels {
		rnames = append(rnames, n)
	}
	slices.Sort(rnames)
	for _, name := range rnames {
		ri := in.Rels[name]
		rd, ok := def.Rel(name)
		p := RelPointer(name)
		if !ok {
			return scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s is not a relationship of %s", name, def.Name)
		}
		if !rd.Stored() || rd.ReadOnly {
			if c.V2 {
				return scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s is read-only", name)
			}
			continue
		}
		if ri.ToMany != rd.ToMany {
			shape := "a resource identifier or null"
			if rd.ToMany {
				shape = "an array of resource identifiers"
			}
			return scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s must be %s", name, shape)
		}
		ids := make([]string, 0, len(ri.Refs))
		for _, ref := range ri.Refs {
			if ref.Type != rd.Type {
				return scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s must reference %s, not %s", name, rd.Type, ref.Type)
			}
			if _, err := c.Get(rd.Type, ref.ID); err != nil {
				if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
					return err
				}
				*errs = append(*errs, invalid(p, "%s %s does not exist in this account", rd.Type, ref.ID))
				continue
			}
			ids = append(ids, ref.ID)
		}
		if len(ids) == 0 {
			delete(rec.Rels, name)
		} else {
			rec.Rels[name] = slices.Compact(ids)
		}
	}
	return nil
}

// validate checks required fields, uniqueness, the owning project's
// visibility and the type's own rules.
func (c *Call) validate(ctx context.Context, def *TypeDef, rec, old *Record, errs *scopekit.Errors) error {
	for _, at := range def.Attrs {
		if at.Required && blank(rec.Attrs[at.Name]) {
			*errs = append(*errs, invalid(AttrPointer(at.Name), "%s can't be blank", at.Name))
		}
		if at.Unique && !blank(rec.Attrs[at.Name]) {
			v, _ := textOf(rec.Attrs[at.Name])
			dups, err := c.Find(def.Name, Eq(at.Name, v))
			if err != nil {
				return err
			}
			for _, d := range dups {
				if d.ID != rec.ID {
					*errs = append(*errs, invalid(AttrPointer(at.Name), "%s %q has already been taken", at.Name, v))
					break
				}
			}
		}
	}
	for _, rd := range def.Rels {
		if rd.Required && len(rec.Rels[rd.Name]) == 0 {
			*errs = append(*errs, invalid(RelPointer(rd.Name), "%s can't be blank", rd.Name))
		}
	}
	if pid := projectOf(def, rec); pid != "" && def.ProjectRel != "id" {
		ok, err := c.canSeeProject(pid)
		if err != nil {
			return err
		}
		if !ok {
			*errs = append(*errs, invalid(RelPointer(def.ProjectRel), "projects %s does not exist in this account", pid))
		}
	}
	if def.Hooks.Validate != nil {
		for _, e := range def.Hooks.Validate(ctx, c, rec, old) {
			if e == nil {
				continue
			}
			se, ok := e.(*scopekit.Error)
			if !ok {
				return e
			}
			if se.Code != scopekit.EINVALID {
				return se
			}
			*errs = append(*errs, se)
		}
	}
	return nil
}

// restoreTeammate clears removed-at of the actor's teammate record on the
// project rec belongs to: a removed teammate who edits the project again
// is restored. Managing the team (writes to project-teammates) is not
// editing the project, so a teammate who removes itself stays removed.
func (c *Call) restoreTeammate(def *TypeDef, rec *Record) error {
	pid := projectOf(def, rec)
	if pid == "" || def.Name == "project-teammates" {
		return nil
	}
	tms, err := c.Find("project-teammates", Eq("project", pid), Eq("user", c.Actor.UserID), Cond{Field: "removed-at", Op: OpNotNull})
	if err != nil {
		return err
	}
	for _, t := range tms {
		delete(t.Attrs, "removed-at")
		if err := c.Tx.Replace(t); err != nil {
			return err
		}
	}
	return nil
}

// Delete removes the record typ/id. Records that own others (a stored
// relationship declared Cascade) take those with them; a record of an
// archiving type that other records still reference is archived instead;
// other references to a deleted record are cleared.
func (s *Service) Delete(ctx context.Context, a *Actor, typ, id string, v2 bool) error {
	def, err := s.writableType(a, typ)
	if err != nil {
		return err
	}
	_, err = s.update(ctx, a, v2, nil, func(c *Call) error {
		rec, err := c.getVisible(ctx, def, id, anyActive(def))
		if err != nil {
			return err
		}
		remove := c.remove
		if def.Hooks.Delete != nil {
			remove = func(_ *TypeDef, rec *Record) error { return def.Hooks.Delete(ctx, c, rec) }
		}
		if err := remove(def, rec); err != nil {
			return err
		}
		return c.restoreTeammate(def, rec)
	})
	return err
}

// remove deletes or archives rec as Delete describes.
func (c *Call) remove(def *TypeDef, rec *Record) error {
	type ref struct {
		def *TypeDef
		rel *RelDef
		rec *Record
	}
	var refs []ref
	for _, t := range c.Svc.schema.Types() {
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
			if err := c.remove(r.def, r.rec); err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
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

// firstPerField keeps the first error of each field: a value refused as it
// was decoded (a relationship naming a record that does not exist, an
// attribute outside its values) leaves the field empty, and the rules
// checked after it (required, a type's own) would report that emptiness
// again, as if nothing had been sent.
func firstPerField(errs scopekit.Errors) scopekit.Errors {
	seen := map[string]bool{}
	out := errs[:0:0]
	for _, e := range errs {
		if e.Field != "" {
			if seen[e.Field] {
				continue
			}
			seen[e.Field] = true
		}
		out = append(out, e)
	}
	return out
}
