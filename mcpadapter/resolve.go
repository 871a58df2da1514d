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
// is the value (in any case); else the only record whose name starts with
// it, and the answer's "matched" says which record that was. A value that
// only occurs inside names ("fire" in "Campfire") picks nothing: the
// error lists the names that hold it, as it lists the candidates of an
// ambiguous value, and what there is for an unknown one, so that the
// assistant can choose. Records are read through the same list and show
// use cases as any other read, so the caller's permissions and visibility
// apply.

// maxCandidates bounds the names an error lists.
const maxCandidates = 20

// maxNamed bounds the records a name is looked for among, for types
// without a name filter (an account's phases, resources, blueprints, a
// project's phases, resources and locations).
const maxNamed = 1000

// How a name argument matched its record (NameMatch.By).
const (
	ByName   = "name"   // the record's name, in any case
	ByPrefix = "prefix" // the only name that starts with the value
)

// NameMatch says which record a name argument picked.
type NameMatch struct {
	Argument string `json:"argument"`
	Value    string `json:"value" jsonschema:"what was passed"`
	Name     string `json:"name" jsonschema:"the name of the record it picked"`
	ID       string `json:"id"`
	By       string `json:"by" jsonschema:"name (the record's name, in any case) or prefix (the only name that starts with the value: check it is the one meant)"`
}

// lookup is what an argument names.
type lookup struct {
	arg     string            // the tool argument
	what    string            // what it names, for messages ("client")
	typ     string            // the record type
	filters map[string]string // narrowing the records (a project's own)
	// name is the attribute that names a record; "" is name.
	name string
	// matched, when set, receives how a name picked its record.
	matched *[]NameMatch
}

// nameOf returns the name of a record of l.
func (l lookup) nameOf(r *engine.Record) string {
	if l.name != "" {
		return r.Str(l.name)
	}
	return r.Str(views.NameName)
}

// named are the records whose name is a value, starts with it, or holds
// it, in any case.
type named struct{ exact, prefix, holding []*engine.Record }

// resolve returns the record of l's type whose id or name is v.
func (t *tools) resolve(ctx context.Context, a *engine.Actor, l lookup, v ID) (*engine.Record, error) {
	rec, n, err := t.lookupNamed(ctx, a, l, v)
	if rec != nil || err != nil {
		return rec, err
	}
	if rec, err := pick(l, v, n.exact, ByName); rec != nil || err != nil {
		return rec, err
	}
	if rec, err := pick(l, v, n.prefix, ByPrefix); rec != nil || err != nil {
		return rec, err
	}
	return nil, t.unknown(ctx, a, l, v, n.holding)
}

// pick returns the one record of found, noting the match in l, or an
// error listing them when there are several; nil for none.
func pick(l lookup, v ID, found []*engine.Record, by string) (*engine.Record, error) {
	val := strings.TrimSpace(string(v))
	switch {
	case len(found) == 1:
		if l.matched != nil {
			*l.matched = append(*l.matched, NameMatch{Argument: l.arg, Value: val, Name: l.nameOf(found[0]), ID: found[0].ID, By: by})
		}
		return found[0], nil
	case len(found) > 1 && by == ByName:
		return nil, argError(l.arg, "%q names %d %ss: %s; pass the id", val, len(found), l.what, l.candidates(found))
	case len(found) > 1:
		return nil, argError(l.arg, "%q is how %d %ss' names start: %s; pass the id or the exact name", val, len(found), l.what, l.candidates(found))
	}
	return nil, nil
}

// unknown is the error of a value that names no record of l: the names
// that hold it, else the records there are.
func (t *tools) unknown(ctx context.Context, a *engine.Actor, l lookup, v ID, holding []*engine.Record) error {
	val := strings.TrimSpace(string(v))
	if len(holding) > 0 {
		return argError(l.arg, "no %s has the id or name %q, nor a name starting with it; names that hold it: %s; pass the id or the exact name",
			l.what, val, l.candidates(holding))
	}
	all, err := t.s.Svc.List(ctx, a, l.typ, engine.ListParams{Filters: l.filters, PageSize: maxCandidates + 1, PageNumber: 1}, opts)
	if err != nil {
		return t.fail(err)
	}
	if len(all.Records) == 0 {
		return argError(l.arg, "no %s has the id or name %q, and there are none", l.what, val)
	}
	return argError(l.arg, "no %s has the id or name %q; there are %s", l.what, val, l.candidates(all.Records))
}

// lookupNamed returns the record of l whose id is v, else the records
// whose name is v, starts with it or holds it.
func (t *tools) lookupNamed(ctx context.Context, a *engine.Actor, l lookup, v ID) (*engine.Record, named, error) {
	var n named
	val := strings.TrimSpace(string(v))
	if val == "" {
		return nil, n, argError(l.arg, "is required")
	}
	res, err := t.s.Svc.Get(ctx, a, l.typ, val, engine.ListParams{Filters: l.filters}, opts)
	switch {
	case err == nil:
		return res.Records[0], n, nil
	case scopekit.ErrorCode(err) != scopekit.ENOTFOUND:
		return nil, n, t.fail(err)
	}
	def, _ := t.s.Svc.Schema().Lookup(l.typ)
	p := engine.ListParams{Filters: map[string]string{}, PageSize: maxNamed, PageNumber: 1}
	for k, f := range l.filters {
		p.Filters[k] = f
	}
	if _, ok := def.Filters[views.NameName]; ok && l.name == "" {
		p.Filters[views.NameName] = val
	}
	res, err = t.s.Svc.List(ctx, a, l.typ, p, opts)
	if err != nil {
		return nil, n, t.fail(err)
	}
	low := strings.ToLower(val)
	for _, r := range res.Records {
		switch name := strings.ToLower(l.nameOf(r)); {
		case name == low:
			n.exact = append(n.exact, r)
		case strings.HasPrefix(name, low):
			n.prefix = append(n.prefix, r)
		case strings.Contains(name, low):
			n.holding = append(n.holding, r)
		}
	}
	return nil, n, nil
}

// candidates lists records of l as `"name" (id 3)`, at most
// maxCandidates.
func (l lookup) candidates(recs []*engine.Record) string {
	names := make([]string, 0, min(len(recs), maxCandidates))
	for _, r := range recs[:min(len(recs), maxCandidates)] {
		names = append(names, fmt.Sprintf("%q (id %s)", l.nameOf(r), r.ID))
	}
	slices.Sort(names)
	if len(recs) > maxCandidates {
		names = append(names, "and more")
	}
	return strings.Join(names, ", ")
}
