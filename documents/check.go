package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/scopekit/scopekit/expr"
)

// A Schema describes the merge data templates are filled from, read from
// a JSON Schema (mergedata.SchemaV2): Lint resolves every tag's path
// against it in the tag's loop scope, as Render would against the data.

// Schema is the shape of merge data: objects with their fields, lists
// with their items, values.
type Schema struct {
	root *shape
}

// shape is one node of a Schema.
type shape struct {
	fields map[string]*shape // an object's fields
	open   bool              // an object with any fields (a map), or a value of any shape
	items  *shape            // a list's items
	list   bool
	text   bool // a text (has a length)
}

// anyShape is a value of any shape: everything below it resolves.
var anyShape = &shape{open: true}

// NewSchema reads a JSON Schema: "type" object with "properties" (and
// "additionalProperties" for maps), "array" with "items", and values.
func NewSchema(jsonSchema []byte) (*Schema, error) {
	var doc map[string]any
	if err := json.Unmarshal(jsonSchema, &doc); err != nil {
		return nil, fmt.Errorf("documents: schema: %w", err)
	}
	return &Schema{root: shapeOf(doc)}, nil
}

func shapeOf(s map[string]any) *shape {
	types := map[string]bool{}
	switch t := s["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok {
				types[x] = true
			}
		}
	}
	switch {
	case types["array"]:
		items, _ := s["items"].(map[string]any)
		return &shape{list: true, items: shapeOf(items)}
	case types["object"]:
		sh := &shape{fields: map[string]*shape{}}
		props, _ := s["properties"].(map[string]any)
		for k, v := range props {
			v, _ := v.(map[string]any)
			sh.fields[k] = shapeOf(v)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok || len(props) == 0 {
			_ = ap
			sh.open = true
		}
		return sh
	case types["string"]:
		return &shape{text: true}
	case len(types) == 0:
		return anyShape
	}
	return &shape{}
}

// field is the shape of a segment below sh; nil when sh has no such
// field.
func (sh *shape) field(seg string) *shape {
	switch {
	case sh.list && seg == "length", sh.text && seg == "length":
		return &shape{}
	case sh.list:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && strconv.Itoa(i) == seg {
			return sh.items
		}
		return nil
	case sh.fields != nil && sh.fields[seg] != nil:
		return sh.fields[seg]
	case sh.open:
		return anyShape
	}
	return nil
}

// Lint returns the problems of a DOCX template's tags against s: each
// path that does not resolve in its tag's scope, with its tag, paragraph
// (or slide, or cell) and the nearest known path. A template Tags refuses
// is refused here too. LintFormat lints PPTX and XLSX templates.
func Lint(ctx context.Context, template []byte, s *Schema) ([]string, error) {
	return lint(ctx, formatDOCX, template, s)
}

func lint(ctx context.Context, f *officeFormat, template []byte, s *Schema) ([]string, error) {
	d, err := openPackage(ctx, f, template, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	var problems []string
	for _, name := range d.partNames() {
		t, err := d.compile(ctx, name)
		if err != nil {
			return nil, err
		}
		problems = append(problems, s.lint(t)...)
	}
	return problems, nil
}

// linter walks a compiled part with the scopes' shapes.
type linter struct {
	s        *Schema
	scopes   []*shape
	loops    int // list loops open
	problems []string
	seen     map[string]bool
}

func (s *Schema) lint(t *template) []string {
	l := &linter{s: s, scopes: []*shape{s.root}, seen: map[string]bool{}}
	l.node(t.root)
	return l.problems
}

func (l *linter) node(n *node) {
	switch n.kind {
	case kValue:
		l.expr(n.tag, n.tag.expr)
	case kSection:
		sh := l.expr(n.tag, n.tag.expr)
		if n.tag.op == '^' || !n.tag.expr.IsPath() {
			l.kids(n)
			return
		}
		if sh == nil {
			sh = anyShape // an unknown loop: what is inside cannot be checked
		}
		if sh.list {
			l.scopes = append(l.scopes, sh.items)
			l.loops++
			l.kids(n)
			l.loops--
		} else {
			l.scopes = append(l.scopes, sh)
			l.kids(n)
		}
		l.scopes = l.scopes[:len(l.scopes)-1]
	default:
		l.kids(n)
	}
}

func (l *linter) kids(n *node) {
	for _, k := range n.kids {
		l.node(k)
	}
}

// expr returns the shape of e's value (anyShape where it cannot tell),
// noting the paths that do not resolve; nil for a path that does not.
func (l *linter) expr(t *tag, e *expr.Node) *shape {
	switch e.Op {
	case "path":
		return l.path(t, e)
	case "member":
		a := l.expr(t, e.A)
		if a == nil {
			return nil
		}
		sh := a.field(e.Path[0])
		if sh == nil {
			l.problem(t, e.Describe(), a.names(e.A.Describe()+"."))
		}
		return sh
	case "index":
		a := l.expr(t, e.A)
		l.expr(t, e.B)
		if a == nil {
			return nil
		}
		if a.list {
			return a.items
		}
		return anyShape
	case "$index":
		if l.loops == 0 {
			l.problem(t, "$index", nil)
		}
		return &shape{}
	}
	for _, k := range e.Kids() {
		l.expr(t, k)
	}
	if e.Op == "?:" {
		return anyShape
	}
	return &shape{}
}

func (l *linter) path(t *tag, e *expr.Node) *shape {
	if e.Path == nil {
		return l.scopes[len(l.scopes)-1]
	}
	var sh *shape
	for i := len(l.scopes) - 1; i >= 0; i-- {
		if sh = l.scopes[i].field(e.Path[0]); sh != nil {
			break
		}
		if e.Rel {
			break
		}
	}
	for _, seg := range e.Path[1:] {
		if sh == nil {
			break
		}
		sh = sh.field(seg)
	}
	if sh == nil {
		var known []string
		for i := len(l.scopes) - 1; i >= 0; i-- {
			known = append(known, l.scopes[i].names("")...)
			if e.Rel {
				break
			}
		}
		l.problem(t, e.Describe(), known)
	}
	return sh
}

// names lists the paths below sh (objects' fields, not list items), each
// after prefix.
func (sh *shape) names(prefix string) []string {
	var out []string
	var walk func(sh *shape, prefix string, depth int)
	walk = func(sh *shape, prefix string, depth int) {
		if depth > 8 {
			return
		}
		for k, f := range sh.fields {
			out = append(out, prefix+k)
			walk(f, prefix+k+".", depth+1)
		}
	}
	walk(sh, prefix, 0)
	return out
}

// problem notes a path that does not resolve, with the nearest of known.
func (l *linter) problem(t *tag, path string, known []string) {
	what := "path " + path
	if t.op == '#' || t.op == '^' {
		if t.expr.IsPath() {
			what = "loop " + path
		}
	}
	msg := fmt.Sprintf("unknown %s in %s in %s", what, t.src, t.where())
	if path == "$index" {
		msg = fmt.Sprintf("%s in %s is outside any loop", t.src, t.where())
	} else if near := nearest(path, known); near != "" {
		msg += fmt.Sprintf(": did you mean %s?", near)
	}
	if !l.seen[msg] {
		l.seen[msg] = true
		l.problems = append(l.problems, msg)
	}
}

// nearest is the path of known closest to path (Levenshtein distance over
// the whole dotted path; the shorter, then the first in order, on a tie).
func nearest(path string, known []string) string {
	slices.Sort(known)
	best, bestD := "", -1
	for _, k := range known {
		if d := levenshtein(path, k); bestD < 0 || d < bestD || d == bestD && len(k) < len(best) {
			best, bestD = k, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
