package engine

import (
	"context"
	"maps"
	"slices"

	"github.com/scopekit/scopekit"
)

// Create validates in against the declaration of typ and stores a new
// record, running the type's hooks in the same transaction.
//
// Errors: EFORBIDDEN without write access; EBADREQUEST for unknown members,
// wrong JSON types or (on v2) computed fields; EINVALID (all at once) for
// blank required fields, uniqueness clashes, references to records of
// another account and type rules; ENOTFOUND for a scope outside the
// actor's visibility.
func (e *Engine) Create(ctx context.Context, a *Actor, typ string, in *Input, opts Options) (*Result, error) {
	return e.CreateAfter(ctx, a, typ, in, opts, nil)
}

// CreateAfter is Create with a step of the domain's run first in the
// write's transaction, once the guard and the Prepare hook have passed:
// before may derive records the new one refers to and complete in with
// them (a use case's own defaults), or refuse the write.
func (e *Engine) CreateAfter(ctx context.Context, a *Actor, typ string, in *Input, opts Options, before func(c *Call) error) (*Result, error) {
	def, err := e.LookupType(typ)
	if err != nil {
		return nil, err
	}
	if def.Hooks.Create == nil {
		def, err = e.WritableType(a, typ)
	} else {
		err = a.RequireWrite(def)
	}
	if err != nil {
		return nil, err
	}
	invalid, err := e.prepare(ctx, a, opts, def, "", in)
	if err != nil {
		return nil, err
	}
	var created bool
	res, err := e.WriteRecord(ctx, a, opts, in.Meta, def, func(c *Call) (rec *Record, err error) {
		if before != nil {
			if err := before(c); err != nil {
				return nil, err
			}
		}
		c.prepared = invalid
		rec, created, err = c.CreateRecord(ctx, def, in)
		return rec, err
	})
	if res != nil {
		res.Created = created
	}
	return res, err
}

// CreateEach runs fn in one write transaction, in which create stores a
// new record of typ from in as Create would (guard, validation, hooks):
// every record fn creates is stored, or, when fn or a create fails, none.
// A type with a Prepare hook (work done outside any transaction) is
// refused (EBADREQUEST).
func (e *Engine) CreateEach(ctx context.Context, a *Actor, opts Options, fn func(create func(typ string, in *Input) (*Record, error)) error) error {
	_, err := e.Write(ctx, a, opts, nil, func(c *Call) error {
		return fn(func(typ string, in *Input) (*Record, error) {
			def, err := e.LookupType(typ)
			if err != nil {
				return nil, err
			}
			if def.Hooks.Create == nil {
				def, err = e.WritableType(a, typ)
			} else {
				err = a.RequireWrite(def)
			}
			if err != nil {
				return nil, err
			}
			if def.Hooks.Prepare != nil {
				return nil, scopekit.Errorf(scopekit.EBADREQUEST, "%s cannot be created among other records", typ)
			}
			rec, _, err := c.CreateRecord(ctx, def, in)
			return rec, err
		})
	})
	return err
}

// CreateRecord builds a new record of def from in and stores it, or restores the
// record an Upsert hook returns (created false).
func (c *Call) CreateRecord(ctx context.Context, def *TypeDef, in *Input) (*Record, bool, error) {
	if def.Hooks.Create != nil {
		prev := c.Input
		c.Input, c.existing = in, false
		defer func() { c.Input = prev }()
		rec, err := def.Hooks.Create(ctx, c, in)
		return rec, err == nil && !c.existing, err
	}
	rec := NewRecord(def.Name, c.AccountID())
	for _, at := range def.Attrs {
		if at.Default != nil {
			rec.Attrs[at.Name] = at.Default
		}
	}
	if def.Hooks.Upsert != nil {
		var errs scopekit.Errors
		if _, err := c.apply(def, rec, in, &errs); err != nil {
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
func (e *Engine) Update(ctx context.Context, a *Actor, typ, id string, in *Input, opts Options) (*Result, error) {
	return e.UpdateThen(ctx, a, typ, id, in, opts, nil)
}

// UpdateThen is Update with a last read step of the domain's, then, run
// in the same transaction once the updated record has been read back (as
// WriteThenRead's last): a use case answers with more than the record,
// as the write left it.
func (e *Engine) UpdateThen(ctx context.Context, a *Actor, typ, id string, in *Input, opts Options,
	then func(ctx context.Context, read *Call, rec *Record) error) (*Result, error) {
	def, err := e.WritableType(a, typ)
	if err != nil {
		return nil, err
	}
	invalid, err := e.prepare(ctx, a, opts, def, id, in)
	if err != nil {
		return nil, err
	}
	return e.writeRecord(ctx, a, opts, in.Meta, def, func(c *Call) (*Record, error) {
		old, err := c.GetVisible(ctx, def, id, AnyActive(def))
		if err != nil {
			return nil, err
		}
		c.prepared = invalid
		return c.UpdateRecord(ctx, def, old, in)
	}, then)
}

// prepare runs the type's Prepare hook for a create (id "") or an update
// of the record id, outside any transaction; the record updated is read
// first, in a read transaction of its own. The hook's EINVALID errors are
// returned apart, to be reported with the write's own (all at once).
func (e *Engine) prepare(ctx context.Context, a *Actor, opts Options, def *TypeDef, id string, in *Input) (scopekit.Errors, error) {
	if def.Hooks.Prepare == nil {
		return nil, nil
	}
	var old *Record
	if id != "" {
		err := e.Read(ctx, a, opts, func(c *Call) error {
			var err error
			old, err = c.GetVisible(ctx, def, id, AnyActive(def))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	c := &Call{Ctx: ctx, Engine: e, Actor: a, Opts: opts, Input: in}
	if e.cfg.Begin != nil {
		e.cfg.Begin(c, false)
	}
	err := def.Hooks.Prepare(ctx, c, old, in)
	if err == nil {
		return nil, nil
	}
	invalid := scopekit.List(err)
	for _, se := range invalid {
		if se.Code != scopekit.EINVALID {
			return nil, err
		}
	}
	if len(invalid) == 0 {
		return nil, err
	}
	return invalid, nil
}

// UpdateRecord applies in to a copy of old, a record of def the call has
// read, and stores it, running the type's hooks as Update does.
func (c *Call) UpdateRecord(ctx context.Context, def *TypeDef, old *Record, in *Input) (*Record, error) {
	return c.save(ctx, def, old.Clone(), old, in)
}

// AnyActive is the filter that finds a record of def whether archived or
// not (none for types that do not archive: they reject an active filter).
func AnyActive(def *TypeDef) map[string]string {
	if !def.Archives {
		return nil
	}
	return map[string]string{"active": "true,false"}
}

// WriteRecord runs fn in a write transaction as Write does and serves the
// record of def it returns as a read would, computed fields included: in
// the same transaction, after the commit steps (so as stored, with what
// they added when def.Reread is set).
func (e *Engine) WriteRecord(ctx context.Context, a *Actor, opts Options, meta map[string]any, def *TypeDef,
	fn func(c *Call) (*Record, error)) (*Result, error) {
	return e.writeRecord(ctx, a, opts, meta, def, fn, nil)
}

func (e *Engine) writeRecord(ctx context.Context, a *Actor, opts Options, meta map[string]any, def *TypeDef,
	fn func(c *Call) (*Record, error), then func(ctx context.Context, read *Call, rec *Record) error) (*Result, error) {
	var res *Result
	_, err := e.WriteThenRead(ctx, a, opts, meta, func(c *Call) error {
		rec, err := fn(c)
		if err != nil {
			return err
		}
		res = &Result{Records: []*Record{rec}, Total: 1, Single: true}
		if len(c.RespMeta) > 0 {
			res.Meta = c.RespMeta
		}
		return nil
	}, func(ctx context.Context, c *Call) error {
		if def.Reread {
			cur, err := c.Get(def.Name, res.Records[0].ID)
			if err != nil {
				return err
			}
			res.Records[0] = cur
		}
		if err := c.Compute(ctx, def, res.Records); err != nil {
			return err
		}
		if then != nil {
			return then(ctx, c, res.Records[0])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// WritableType resolves typ and checks the actor may write it
// (EFORBIDDEN for read-only types).
func (e *Engine) WritableType(a *Actor, typ string) (*TypeDef, error) {
	def, err := e.LookupType(typ)
	if err != nil {
		return nil, err
	}
	if def.ReadOnly {
		return nil, scopekit.Errorf(scopekit.EFORBIDDEN, "%s are read-only", typ)
	}
	return def, a.RequireWrite(def)
}

// save applies in to rec (old is nil on create), validates and stores it.
func (c *Call) save(ctx context.Context, def *TypeDef, rec, old *Record, in *Input) (*Record, error) {
	var errs scopekit.Errors
	prev := c.Input
	c.Input = in
	defer func() { c.Input = prev }()
	through, err := c.apply(def, rec, in, &errs)
	if err != nil {
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
	if err := c.touched(def, rec); err != nil {
		return nil, err
	}
	// last, so that what the write names is what stays
	if err := c.writeThrough(ctx, def, rec, through, old != nil); err != nil {
		return nil, err
	}
	return rec, nil
}

// apply copies attributes and relationships of in onto rec. Malformed input
// is returned as an error at once; rule violations are added to errs. The
// ids given for through relationships are returned by name, for
// writeThrough once rec is stored.
func (c *Call) apply(def *TypeDef, rec *Record, in *Input, errs *scopekit.Errors) (map[string][]string, error) {
	var through map[string][]string
	names := make([]string, 0, len(in.Attrs))
	for n := range in.Attrs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		at, ok := def.Attr(name)
		if !ok {
			return nil, BadAttr(name, "%s is not an attribute of %s", name, def.Name)
		}
		if at.Computed {
			if c.Opts.Strict {
				return nil, BadAttr(name, "%s is computed and cannot be set", name)
			}
			continue // v1 ignores computed fields in writes
		}
		v, e := DecodeAttr(at, in.Attrs[name])
		if e != nil {
			if e.Code == scopekit.EBADREQUEST {
				return nil, e
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
	var refs []Key // read together where the store reads ahead
	for _, name := range rnames {
		if rd, ok := def.Rel(name); ok {
			for _, ref := range in.Rels[name].Refs {
				if ref.Type == rd.Type {
					refs = append(refs, Key{Type: rd.Type, AccountID: c.AccountID(), ID: ref.ID})
				}
			}
		}
	}
	if len(refs) > 1 {
		Prefetch(c.Tx, refs...)
	}
	for _, name := range rnames {
		ri := in.Rels[name]
		rd, ok := def.Rel(name)
		p := RelPointer(name)
		if !ok {
			return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s is not a relationship of %s", name, def.Name)
		}
		if !rd.Writable() {
			if c.Opts.Strict {
				return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s is read-only", name)
			}
			continue
		}
		if ri.ToMany != rd.ToMany {
			shape := "a resource identifier or null"
			if rd.ToMany {
				shape = "an array of resource identifiers"
			}
			return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s must be %s", name, shape)
		}
		ids := make([]string, 0, len(ri.Refs))
		for _, ref := range ri.Refs {
			if ref.Type != rd.Type {
				return nil, scopekit.FieldErrorf(scopekit.EBADREQUEST, p, "%s must reference %s, not %s", name, rd.Type, ref.Type)
			}
			if _, err := c.Get(rd.Type, ref.ID); err != nil {
				if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
					return nil, err
				}
				*errs = append(*errs, Invalid(p, "%s %s does not exist in this account", rd.Type, ref.ID))
				continue
			}
			ids = append(ids, ref.ID)
		}
		switch {
		case rd.Through != "":
			if through == nil {
				through = map[string][]string{}
			}
			through[name] = ids
		case len(ids) == 0:
			delete(rec.Rels, name)
		default:
			rec.Rels[name] = slices.Compact(ids)
		}
	}
	return through, nil
}

// writeThrough makes the joining records of rec's through relationships
// (by name, the ids given) match: a record is added for each id that has
// none, through the joining type's create (its Upsert hook restores one it
// kept), and on an update the records of ids not given are removed,
// through its Delete hook where it has one. The actor needs write access
// to the joining type.
func (c *Call) writeThrough(ctx context.Context, def *TypeDef, rec *Record, through map[string][]string, update bool) error {
	names := slices.Sorted(maps.Keys(through))
	for _, name := range names {
		rd, _ := def.Rel(name)
		jdef, ok := c.Engine.schema.Lookup(rd.Through)
		if !ok {
			return scopekit.Errorf(scopekit.EINTERNAL, "%s: no joining type %s", name, rd.Through)
		}
		if err := c.Actor.RequireWrite(jdef); err != nil {
			return err
		}
		cur, err := c.Find(rd.Through, append([]Cond{Eq(rd.From, rec.ID)}, rd.ThroughWhere...)...)
		if err != nil {
			return err
		}
		want, have := map[string]bool{}, map[string]bool{}
		for _, id := range through[name] {
			want[id] = true
		}
		for _, j := range cur {
			to := j.Rel(rd.To)
			have[to] = true
			if !update || want[to] {
				continue
			}
			if err := c.removeRecord(ctx, jdef, j); err != nil {
				return err
			}
		}
		for _, id := range through[name] {
			if have[id] {
				continue
			}
			have[id] = true
			in := &Input{Rels: map[string]RelInput{rd.From: {Refs: []Ref{{Type: def.Name, ID: rec.ID}}},
				rd.To: {Refs: []Ref{{Type: rd.Type, ID: id}}}}}
			if _, _, err := c.CreateRecord(ctx, jdef, in); err != nil {
				return err
			}
		}
	}
	return nil
}

// validate checks required fields, uniqueness, the owning scope's
// visibility and the type's own rules.
func (c *Call) validate(ctx context.Context, def *TypeDef, rec, old *Record, errs *scopekit.Errors) error {
	*errs, c.prepared = append(*errs, c.prepared...), nil
	for _, at := range def.Attrs {
		if at.Required && Blank(rec.Attrs[at.Name]) {
			*errs = append(*errs, Invalid(AttrPointer(at.Name), "%s can't be blank", at.Name))
		}
		if at.Unique && !Blank(rec.Attrs[at.Name]) {
			v, _ := TextOf(rec.Attrs[at.Name])
			dups, err := c.Find(def.Name, Eq(at.Name, v))
			if err != nil {
				return err
			}
			for _, d := range dups {
				if d.ID != rec.ID {
					*errs = append(*errs, Invalid(AttrPointer(at.Name), "%s %q has already been taken", at.Name, v))
					break
				}
			}
		}
	}
	for _, rd := range def.Rels {
		if rd.Required && len(rec.Rels[rd.Name]) == 0 {
			*errs = append(*errs, Invalid(RelPointer(rd.Name), "%s can't be blank", rd.Name))
		}
	}
	if sid := ScopeOf(def, rec); sid != "" && def.ScopeRel != "id" {
		ok, err := c.CanSee(sid)
		if err != nil {
			return err
		}
		if !ok {
			rd, _ := def.Rel(def.ScopeRel)
			*errs = append(*errs, Invalid(RelPointer(def.ScopeRel), "%s %s does not exist in this account", rd.Type, sid))
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

// touched runs Config.Touched for a record written or removed.
func (c *Call) touched(def *TypeDef, rec *Record) error {
	if c.Engine.cfg.Touched == nil {
		return nil
	}
	return c.Engine.cfg.Touched(c, def, rec)
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
