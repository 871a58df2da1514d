package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
)

// Render fills a DOCX template from a merge-data tree: v2 merge data
// (what mergedata.BuildV2 returns), or any value that marshals to JSON (maps, slices,
// strings, numbers, bools); []byte and json.RawMessage are taken as JSON.
// The body, headers, footers, footnotes and endnotes are filled; every
// other part of the template is copied as it is. RenderFormat fills PPTX
// and XLSX templates.
//
// Errors: EINVALID (field "file") for a template Tags refuses or one whose
// rendering outgrows MaxOutputPart; an error wrapping the JSON error when
// data does not marshal; ctx's error when ctx ends first (the work stops
// within milliseconds).
func Render(ctx context.Context, template []byte, data any) ([]byte, error) {
	return render(ctx, formatDOCX, template, data)
}

func render(ctx context.Context, f *officeFormat, template []byte, data any) ([]byte, error) {
	d, err := openPackage(ctx, f, template, false)
	if err != nil {
		return nil, err
	}
	defer d.close()
	tree, err := toTree(data)
	if err != nil {
		return nil, err
	}
	outs := map[string][]byte{}
	for _, name := range d.partNames() {
		t, err := d.compile(ctx, name)
		if err != nil {
			return nil, err
		}
		if len(t.tags) == 0 {
			if f.finish != nil { // its checks (a sheet's extent) hold for a part without tags too
				if _, err := f.finish(d, name, d.parts[name]); err != nil {
					return nil, err
				}
			}
			continue
		}
		if outs[name], err = t.render(ctx, tree); err != nil {
			return nil, err
		}
		if f.finish != nil {
			if outs[name], err = f.finish(d, name, outs[name]); err != nil {
				return nil, err
			}
		}
	}
	if f.complete != nil {
		if err := f.complete(ctx, d, outs); err != nil {
			return nil, err
		}
	}
	return d.write(outs)
}

// Tags validates a DOCX template, a file of at most MaxTemplateSize whose zip
// entries stay within the unpacking limits, with well-formed tags, and
// returns the sorted distinct paths its tags use, as written
// ("phases", "name", "project.project_name"; "x.length" counts as x).
// TagsFormat validates PPTX and XLSX templates.
//
// Errors: EINVALID with Field "file" and a message naming the problem: a
// non-DOCX, a zip bomb, an oversized file, or a malformed tag with its
// paragraph (`unclosed loop {#phases} in paragraph 12`); ctx's error
// when ctx ends first (the work stops within milliseconds).
func Tags(ctx context.Context, template []byte) ([]string, error) {
	return tags(ctx, formatDOCX, template)
}

func tags(ctx context.Context, f *officeFormat, template []byte) ([]string, error) {
	d, err := openPackage(ctx, f, template, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	paths := []string{}
	for _, name := range d.partNames() {
		t, err := d.compile(ctx, name)
		if err != nil {
			return nil, err
		}
		for _, tg := range t.tags {
			paths = tg.expr.Paths(paths)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths), nil
}

// compile compiles the tag part name of the template, as its format
// prepares it.
func (d *docx) compile(ctx context.Context, name string) (*template, error) {
	b := d.parts[name]
	if d.f.prepare != nil {
		var err error
		if b, err = d.f.prepare(ctx, d, name, b); err != nil {
			return nil, err
		}
	}
	return compile(ctx, d.f.dialect, name, b)
}

// toTree turns data into a decoded JSON tree (numbers as json.Number).
func toTree(data any) (any, error) {
	var b []byte
	switch v := data.(type) {
	case []byte:
		b = v
	case json.RawMessage:
		b = v
	default:
		var err error
		if b, err = json.Marshal(data); err != nil {
			return nil, fmt.Errorf("documents: merge data: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("documents: merge data: %w", err)
	}
	return tree, nil
}

// Bounds of one part's rendering: its size (MaxOutputPart) and the nodes
// it visits (loops multiply them). Variables so tests can lower them.
var (
	outputLimit = MaxOutputPart
	maxSteps    = 20_000_000
)

// renderer writes a compiled part filled from data.
type renderer struct {
	ctx   context.Context
	d     *dialect
	w     out
	env   env
	steps int
	paras int  // paragraphs written so far
	at    *tag // the tag being evaluated, for a required value's error
}

func (t *template) render(ctx context.Context, data any) ([]byte, error) {
	r := &renderer{ctx: ctx, d: t.d, w: out{limit: outputLimit}, env: env{scopes: []any{data}, index: []int{-1}}}
	// most of a large part is usually copied as it is: room for it at once
	// rather than growing (and copying) the buffer to it
	r.w.Grow(min(t.size+t.size/8, outputLimit))
	r.node(t.root)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req, ok := r.env.err.(errRequired); ok {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, "file",
			"a required value is missing: %s in %s has no value (the data has nothing at %s)", r.at.src, r.at.where(), req.expr.A.Describe())
	}
	if _, ok := r.env.err.(errTooLong); ok {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, "file",
			"the text that %s in %s joins with + would be longer than %d MiB: join fewer or shorter values", quoteTag(r.at.src), r.at.where(), maxJoined>>20)
	}
	if errors.Is(r.w.err, errTooLarge) {
		return nil, scopekit.FieldErrorf(scopekit.EINVALID, "file",
			"the document rendered from %s would be too large (over %d MiB, or loops nested over long lists)", t.part, outputLimit>>20)
	}
	return r.w.Bytes(), nil
}

func (r *renderer) node(n *node) {
	if r.w.err != nil {
		return
	}
	if r.steps++; r.steps > maxSteps {
		r.w.err = errTooLarge
		return
	}
	if r.steps%checkEvery == 0 && r.ctx.Err() != nil {
		r.w.err = r.ctx.Err()
		return
	}
	switch n.kind {
	case kText:
		r.w.writeNode(n)
	case kRaw:
		r.paras += n.paras
		r.w.writeNode(n)
	case kValue:
		r.value(n)
	case kSection:
		r.section(n)
	case kElem:
		if n.drop {
			return
		}
		if n.name == "" {
			r.kids(n)
			return
		}
		if n.name == r.d.para {
			r.paras++
		}
		r.w.startTag(n.name, n.attrs, len(n.kids) == 0)
		if len(n.kids) == 0 {
			return
		}
		before := r.paras
		r.kids(n)
		if p := needsParagraph[n.name]; p != "" && r.paras == before {
			r.w.WriteString(p)
		}
		r.w.endTag(n.name)
		r.w.full()
	}
}

func (r *renderer) kids(n *node) {
	for _, k := range n.kids {
		r.node(k)
	}
}

// section writes a section's content per item of a list, once for another
// truthy value (or a false one when inverted), or not at all.
func (r *renderer) section(n *node) {
	e := n.tag.expr
	v := r.eval(n.tag)
	if r.w.err != nil {
		return
	}
	switch {
	case n.tag.op == '^':
		if !truthy(v) {
			r.kids(n)
		}
	case !e.IsPath():
		if truthy(v) {
			r.kids(n)
		}
	default:
		items, ok := v.([]any)
		if !ok {
			if truthy(v) {
				r.env.push(v, -1)
				r.kids(n)
				r.env.pop()
			}
			return
		}
		for i, it := range items {
			r.env.push(it, i)
			r.kids(n)
			r.env.pop()
			if r.w.full() {
				return
			}
		}
	}
}

// eval evaluates a tag's expression; a required value found missing
// stops the rendering.
func (r *renderer) eval(t *tag) any {
	v := eval(t.expr, &r.env)
	if r.env.err != nil && r.w.err == nil {
		r.at, r.w.err = t, r.env.err
	}
	return v
}

// value writes a value tag as runs with the tag's run properties; new
// lines become line breaks and tabs tabs.
func (r *renderer) value(n *node) {
	s := text(r.eval(n.tag))
	if s == "" || r.w.err != nil {
		return
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	r.d.value(&r.w, r.d, n.rPr, s)
}
