package mcpadapter

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Arguments that name a record by id or by name: assistants know what a
// user called a thing, not its id. An id wins; else the record whose name
// is the value (case-insensitively), else the only one whose name holds
// it. An ambiguous name is an error listing the candidates; an unknown
// one lists what there is, so that the assistant can choose. Records are
// read through the same list and show use cases as any other read, so
// the caller's permissions and visibility apply.

// maxCandidates bounds the names an error lists.
const maxCandidates = 20

// maxNamed bounds the records a name is looked for among, for types
// without a name filter (an account's phases, resources, blueprints, a
// project's phases, resources and locations).
const maxNamed = 1000

// lookup is what an argument names.
type lookup struct {
	arg     string            // the tool argument
	what    string            // what it names, for messages ("client")
	typ     string            // the record type
	filters map[string]string // narrowing the records (a project's own)
}

// resolve returns the record of l's type whose id or name is v.
func (t *tools) resolve(ctx context.Context, a *engine.Actor, l lookup, v ID) (*engine.Record, error) {
	rec, err := t.find(ctx, a, l, v)
	if rec != nil || err != nil {
		return rec, err
	}
	val := strings.TrimSpace(string(v))
	all, err := t.s.Svc.List(ctx, a, l.typ, engine.ListParams{Filters: l.filters, PageSize: maxCandidates + 1, PageNumber: 1}, opts)
	if err != nil {
		return nil, t.fail(err)
	}
	if len(all.Records) == 0 {
		return nil, argError(l.arg, "no %s has the id or name %q, and there are none", l.what, val)
	}
	return nil, argError(l.arg, "no %s has the id or name %q; there are %s", l.what, val, candidates(all.Records))
}

// find is resolve, but answers nil when no record has the id or name.
func (t *tools) find(ctx context.Context, a *engine.Actor, l lookup, v ID) (*engine.Record, error) {
	val := strings.TrimSpace(string(v))
	if val == "" {
		return nil, argError(l.arg, "is required")
	}
	res, err := t.s.Svc.Get(ctx, a, l.typ, val, engine.ListParams{Filters: l.filters}, opts)
	switch {
	case err == nil:
		return res.Records[0], nil
	case scopekit.ErrorCode(err) != scopekit.ENOTFOUND:
		return nil, t.fail(err)
	}
	def, _ := t.s.Svc.Schema().Lookup(l.typ)
	p := engine.ListParams{Filters: map[string]string{}, PageSize: maxNamed, PageNumber: 1}
	for k, f := range l.filters {
		p.Filters[k] = f
	}
	if _, ok := def.Filters[views.NameName]; ok {
		p.Filters[views.NameName] = val
	}
	res, err = t.s.Svc.List(ctx, a, l.typ, p, opts)
	if err != nil {
		return nil, t.fail(err)
	}
	var exact, partial []*engine.Record
	for _, r := range res.Records {
		switch name := r.Str(views.NameName); {
		case strings.EqualFold(name, val):
			exact = append(exact, r)
		case strings.Contains(strings.ToLower(name), strings.ToLower(val)):
			partial = append(partial, r)
		}
	}
	for _, found := range [][]*engine.Record{exact, partial} {
		switch {
		case len(found) == 1:
			return found[0], nil
		case len(found) > 1:
			return nil, argError(l.arg, "%q names %d %ss: %s; pass the id or the exact name", val, len(found), l.what, candidates(found))
		}
	}
	return nil, nil
}

// candidates lists records as `"name" (id 3)`, at most maxCandidates.
func candidates(recs []*engine.Record) string {
	names := make([]string, 0, min(len(recs), maxCandidates))
	for _, r := range recs[:min(len(recs), maxCandidates)] {
		names = append(names, fmt.Sprintf("%q (id %s)", r.Str(views.NameName), r.ID))
	}
	slices.Sort(names)
	if len(recs) > maxCandidates {
		names = append(names, "and more")
	}
	return strings.Join(names, ", ")
}
