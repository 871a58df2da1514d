package engine

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
)

// SortSpec is one sort= entry of a request.
type SortSpec struct {
	Field string
	Desc  bool
}

// ListParams are the query parameters of a read: filters (filter name =>
// raw value), sort, paging (PageNumber from 1; PageSize 0 = all) and
// include.
type ListParams struct {
	Filters    map[string]string
	Sort       []SortSpec
	PageNumber int
	PageSize   int
	Include    []string
	// Shared says the caller only reads the records of the result: the
	// store may share them with other readers (Query.Shared), for types
	// without a Compute hook or whose hook copies what it changes
	// (TypeDef.ComputeCopies). Included records are never shared.
	Shared bool
}

// Result is the outcome of a read: the primary records (one for a show;
// none for an empty to-one), the number matching in all, and the included
// records.
type Result struct {
	Records  []*Record
	Total    int
	Included []*Record
	// Single is true when the primary data is one record (or null).
	Single bool
	// Created is true when a create stored a new record (false when it
	// restored an existing one).
	Created bool
	Meta    map[string]any
}

// List returns a page of records of typ visible to the actor.
//
// Errors: ENOTFOUND for an unknown type, EFORBIDDEN without read access,
// EBADREQUEST (with Parameter) for a filter, sort or include the type does
// not accept.
func (e *Engine) List(ctx context.Context, a *Actor, typ string, p ListParams, opts Options) (*Result, error) {
	def, err := e.ReadableType(a, typ)
	if err != nil {
		return nil, err
	}
	var res *Result
	err = e.Read(ctx, a, opts, func(c *Call) error {
		res, err = c.list(ctx, def, nil, p)
		return err
	})
	return res, err
}

// readableType resolves typ and checks the actor may read it.
func (e *Engine) ReadableType(a *Actor, typ string) (*TypeDef, error) {
	def, err := e.LookupType(typ)
	if err != nil {
		return nil, err
	}
	return def, a.Require(def.Guard, false)
}

// list runs a listing of def with extra conditions plus the request's.
func (c *Call) list(ctx context.Context, def *TypeDef, extra []Cond, p ListParams) (*Result, error) {
	q, err := c.buildQuery(ctx, def, p)
	if err != nil {
		return nil, err
	}
	defaults, err := c.defaultConds(ctx, def, p.Filters)
	if err != nil {
		return nil, err
	}
	q.Where = append(append(q.Where, defaults...), extra...)
	if p.PageSize > 0 {
		q.Limit = p.PageSize
		q.Offset = (max(p.PageNumber, 1) - 1) * p.PageSize
	}
	q.Shared = p.Shared && (def.Hooks.Compute == nil || def.ComputeCopies)
	c.prefetch(def)
	recs, total, err := c.Tx.List(q)
	if err != nil {
		return nil, err
	}
	res := &Result{Records: recs, Total: total}
	if err := c.finish(ctx, def, res, p.Include); err != nil {
		return nil, err
	}
	return res, nil
}

// buildQuery translates filters and sort into a store query, adding the
// default archive filter and the actor's visibility.
func (c *Call) buildQuery(ctx context.Context, def *TypeDef, p ListParams) (*Query, error) {
	q := &Query{Type: def.Name, AccountID: c.AccountID()}
	activeGiven := false
	names := make([]string, 0, len(p.Filters))
	for name := range p.Filters {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		value := p.Filters[name]
		param := c.FilterParam(name)
		switch {
		case name == "ids":
			q.Where = append(q.Where, Eq("id", SplitList(value)...))
		case name == "active" && def.Archives:
			activeGiven = true
			vals := SplitList(value)
			for _, v := range vals {
				if v != "true" && v != "false" {
					return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, param, "%s must be true, false or true,false", param)
				}
			}
			if !(slices.Contains(vals, "true") && slices.Contains(vals, "false")) {
				q.Where = append(q.Where, Eq("active", vals...))
			}
		default:
			f, ok := def.Filters[name]
			if !ok {
				return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, param, "%s is not allowed", param)
			}
			conds, err := c.filterConds(ctx, name, f, value)
			if err != nil {
				return nil, err
			}
			q.Where = append(q.Where, conds...)
		}
	}
	if def.Archives && !activeGiven {
		q.Where = append(q.Where, Eq("active", "true"))
	}
	if def.ScopeRel != "" && !c.Actor.AllScopes {
		vis, err := c.scopes()
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(vis))
		for id := range vis {
			ids = append(ids, id)
		}
		q.Where = append(q.Where, Eq(def.ScopeRel, ids...))
	}
	for _, s := range p.Sort {
		k, ok := def.Sortable(s.Field)
		if !ok {
			return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, "sort", "sort by %s is not supported for %s", s.Field, def.Name)
		}
		k.Desc = s.Desc
		q.Sort = append(q.Sort, k)
	}
	return q, nil
}

func (c *Call) filterConds(ctx context.Context, name string, f FilterDef, value string) ([]Cond, error) {
	param := c.FilterParam(name)
	if f.Build != nil {
		return f.Build(ctx, c, value)
	}
	field := f.Field
	if field == "" {
		field = name
	}
	switch f.Kind {
	case KindTime:
		t, err := parseTimeFilter(value)
		if err != nil {
			return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, param, "%s must be an RFC 3339 date or time", param)
		}
		return []Cond{{Field: field, Op: f.Op, Values: []string{FormatTime(t)}}}, nil
	case KindBool:
		if value != "true" && value != "false" {
			return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, param, "%s must be true or false", param)
		}
	}
	if f.Op == OpContains {
		return []Cond{{Field: field, Op: OpContains, Values: []string{value}}}, nil
	}
	return []Cond{{Field: field, Op: f.Op, Values: SplitList(value)}}, nil
}

// defaultConds are the conditions of def's filters that have a default and
// that the request did not give.
func (c *Call) defaultConds(ctx context.Context, def *TypeDef, given map[string]string) ([]Cond, error) {
	var out []Cond
	for _, name := range sortedFilterNames(def) {
		f := def.Filters[name]
		if _, ok := given[name]; ok || f.Default == "" {
			continue
		}
		conds, err := c.filterConds(ctx, name, f, f.Default)
		if err != nil {
			return nil, err
		}
		out = append(out, conds...)
	}
	return out, nil
}

func sortedFilterNames(def *TypeDef) []string {
	names := make([]string, 0, len(def.Filters))
	for n := range def.Filters {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func parseTimeFilter(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.Parse(time.DateOnly, v)
}

// SplitList splits a comma-separated query value, dropping blanks.
func SplitList(v string) []string {
	parts := strings.Split(v, ",")
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Get returns one record of typ. Filters of p that the type accepts narrow
// it (an archived record is found only with an active filter covering it).
//
// Errors: ENOTFOUND when missing, in another account, archived and not
// requested, or outside the actor's visibility; EFORBIDDEN without read
// access; EBADREQUEST for a bad filter or include.
func (e *Engine) Get(ctx context.Context, a *Actor, typ, id string, p ListParams, opts Options) (*Result, error) {
	def, err := e.ReadableType(a, typ)
	if err != nil {
		return nil, err
	}
	var res *Result
	err = e.Read(ctx, a, opts, func(c *Call) error {
		rec, err := c.GetVisible(ctx, def, id, p.Filters)
		if err != nil {
			return err
		}
		res = &Result{Records: []*Record{rec}, Total: 1, Single: true}
		return c.finish(ctx, def, res, p.Include)
	})
	return res, err
}

// getVisible reads one record, applying the filters (and the default
// archive filter) and the actor's visibility.
func (c *Call) GetVisible(ctx context.Context, def *TypeDef, id string, filters map[string]string) (*Record, error) {
	q, err := c.buildQuery(ctx, def, ListParams{Filters: filters})
	if err != nil {
		return nil, err
	}
	c.prefetch(def)
	rec, err := c.Get(def.Name, id)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil, NotFound(def.Name, id)
	}
	if err != nil {
		return nil, err
	}
	if !q.Matches(rec) {
		return nil, NotFound(def.Name, id)
	}
	return rec, nil
}

// Related returns the records a relationship of one record points to: a
// single record (or none) for a to-one relationship, a filtered, sorted and
// paged list for a to-many one.
func (e *Engine) Related(ctx context.Context, a *Actor, typ, id, relName string, p ListParams, opts Options) (*Result, error) {
	def, err := e.LookupType(typ)
	if err != nil {
		return nil, err
	}
	rel, ok := def.Rel(relName)
	if !ok {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "%s has no relationship %q", typ, relName)
	}
	target, err := e.LookupType(rel.Type)
	if err != nil {
		return nil, err
	}
	if err := a.Require(def.Guard, false); err != nil {
		return nil, err
	}
	if err := a.Require(target.Guard, false); err != nil {
		return nil, err
	}
	var res *Result
	err = e.Read(ctx, a, opts, func(c *Call) error {
		if rel.Inverse != "" {
			return c.inverse(ctx, def, target, rel, id, p, &res)
		}
		owner, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		if rel.Stored() && !rel.ToMany {
			res = &Result{Single: true}
			if rid := owner.Rel(relName); rid != "" {
				if r, err := c.Get(target.Name, rid); err == nil && c.CheckVisible(target, r) == nil {
					res.Records, res.Total = []*Record{r}, 1
				}
			}
			return c.finish(ctx, target, res, p.Include)
		}
		ids, err := c.relatedIDs(rel, []*Record{owner})
		if err != nil {
			return err
		}
		res, err = c.list(ctx, target, []Cond{Eq("id", ids...)}, p)
		return err
	})
	return res, err
}

// inverse lists the records whose relationship rel.Inverse names the
// record typ/id, once that record is found visible. The list does not
// depend on the owner's data, so the owner is read with it (Prefetch):
// one round trip where the store reads ahead. Errors come as if the
// owner were read first.
func (c *Call) inverse(ctx context.Context, def, target *TypeDef, rel *RelDef, id string, p ListParams, res **Result) error {
	Prefetch(c.Tx, Key{Type: def.Name, AccountID: c.AccountID(), ID: id})
	c.prefetch(def)
	if f, ok := target.Filters[rel.Inverse]; ok && f.Default != "" {
		// the back-reference's own filter, with a default, is given by
		// the relationship: its default does not apply
		p.Filters = maps.Clone(p.Filters)
		if p.Filters == nil {
			p.Filters = map[string]string{}
		}
		if _, given := p.Filters[rel.Inverse]; !given {
			p.Filters[rel.Inverse] = id
		}
	}
	list, err := c.list(ctx, target, []Cond{Eq(rel.Inverse, id)}, p)
	if _, oerr := c.GetVisible(ctx, def, id, nil); oerr != nil {
		return oerr
	}
	*res = list
	return err
}

// relatedIDs returns the ids a relationship of owners points to. Inverse
// relationships are resolved by the caller's query instead.
func (c *Call) relatedIDs(rel *RelDef, owners []*Record) ([]string, error) {
	var ids []string
	switch {
	case rel.Stored():
		for _, o := range owners {
			ids = append(ids, o.Rels[rel.Name]...)
		}
	case rel.Through != "":
		oids := make([]string, len(owners))
		for i, o := range owners {
			oids[i] = o.ID
		}
		where := []Cond{Eq(rel.From, oids...)}
		where = append(where, rel.ThroughWhere...)
		joins, err := c.Find(rel.Through, where...)
		if err != nil {
			return nil, err
		}
		for _, j := range joins {
			ids = append(ids, j.Rels[rel.To]...)
		}
	}
	slices.SortFunc(ids, CompareIDs)
	return slices.Compact(ids), nil
}

// finish adds included records and computed attributes to a result.
func (c *Call) finish(ctx context.Context, def *TypeDef, res *Result, include []string) error {
	if err := c.Compute(ctx, def, res.Records); err != nil {
		return err
	}
	for _, name := range include { // checked first: the answer must not depend on the data
		if _, ok := def.Rel(name); !ok {
			return scopekit.ParamErrorf(scopekit.EBADREQUEST, "include", "%s has no relationship %q to include", def.Name, name)
		}
	}
	if len(include) == 0 || len(res.Records) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, r := range res.Records {
		seen[r.Type+"/"+r.ID] = true
	}
	for _, name := range include {
		rel, _ := def.Rel(name)
		target, ok := c.Engine.schema.Lookup(rel.Type)
		if !ok || !c.Actor.Can(target.Guard, false) {
			continue
		}
		var recs []*Record
		var err error
		if rel.Inverse != "" {
			ids := make([]string, len(res.Records))
			for i, r := range res.Records {
				ids[i] = r.ID
			}
			var where []Cond
			if where, err = c.defaultConds(ctx, target, map[string]string{rel.Inverse: ""}); err != nil {
				return err
			}
			recs, err = c.Find(target.Name, append(where, Eq(rel.Inverse, ids...))...)
		} else {
			var ids []string
			if ids, err = c.relatedIDs(rel, res.Records); err == nil && len(ids) > 0 {
				recs, err = c.Find(target.Name, Eq("id", ids...))
			}
		}
		if err != nil {
			return err
		}
		batch := recs[:0]
		for _, r := range recs {
			key := r.Type + "/" + r.ID
			if seen[key] || c.CheckVisible(target, r) != nil {
				continue
			}
			seen[key] = true
			batch = append(batch, r)
		}
		if err := c.Compute(ctx, target, batch); err != nil {
			return err
		}
		res.Included = append(res.Included, batch...)
	}
	return nil
}

// prefetch passes what reading records of def will also need to a store
// that reads ahead.
func (c *Call) prefetch(def *TypeDef) {
	if def.Hooks.Prefetch != nil {
		Prefetch(c.Tx, def.Hooks.Prefetch(c)...)
	}
}

// Compute runs def's Compute hook over recs.
func (c *Call) Compute(ctx context.Context, def *TypeDef, recs []*Record) error {
	if def.Hooks.Compute == nil || len(recs) == 0 {
		return nil
	}
	return def.Hooks.Compute(ctx, c, recs)
}
