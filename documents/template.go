package documents

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/scopekit/scopekit/expr"
)

// tag is one tag of a template.
type tag struct {
	src  string     // as written, braces included: {#phases}
	op   byte       // 0 for a value, '#' a section, '^' an inverted section, '/' a close
	body string     // the expression text, spaces removed (what a close names)
	expr *expr.Node // nil for a close
	para int        // the paragraph it is in (1-based, in its part)
	part string     // the part it is in
	at   string     // the paragraph as messages name it ("paragraph 3", "cell B5 of Sheet1")
}

// where names the tag's paragraph for an error message.
func (t *tag) where() string {
	if t.at != "" {
		return t.at
	}
	if t.part == mainPart {
		return fmt.Sprintf("paragraph %d", t.para)
	}
	return fmt.Sprintf("paragraph %d of %s", t.para, t.part)
}

// kindName is how an error message calls an opening tag.
func (t *tag) kindName() string {
	switch {
	case t.op == '^':
		return "inverted section"
	case t.expr != nil && t.expr.IsPath():
		return "loop"
	}
	return "condition"
}

// template is a compiled part: its tree with tags as nodes and sections
// built.
type template struct {
	d    *dialect
	part string
	size int // of the part's bytes
	root *node
	tags []*tag
}

// compile parses a part, finds the tags of every paragraph, and builds the
// sections. Errors are EINVALID naming the tag and its paragraph.
//
// It stops with ctx's error when ctx ends first.
func compile(ctx context.Context, d *dialect, part string, b []byte) (*template, error) {
	root, err := parseXML(ctx, b, d.para)
	if err == nil {
		err = oneRoot(root)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if errors.Is(err, errDoctype) {
		return nil, invalid("the template's %s has a DOCTYPE declaration; a template may not have one", part)
	}
	if errors.Is(err, errComplex) {
		return nil, invalid("the template's %s is too complex: more than %d XML nodes (a paragraph without tags counts as one)", part, maxNodes)
	}
	if err != nil {
		return nil, invalid("the template's %s is not well-formed XML: %v", part, err)
	}
	t := &template{d: d, part: part, size: len(b), root: root}
	// Paragraphs are numbered in document order, those kept as bytes too.
	var paras []*node
	var numbers []int
	para := 0
	walk(root, func(n *node) bool {
		switch {
		case n.kind == kElem && n.name == d.para:
			para++
			paras, numbers = append(paras, n), append(numbers, para)
		case n.kind == kRaw:
			para += n.paras
		}
		return true
	})
	for i, p := range paras {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := t.splitTags(p, numbers[i]); err != nil {
			return nil, err
		}
	}
	splitTagParagraphs(paras, d.paraProps)
	if err := t.sections(); err != nil {
		return nil, err
	}
	return t, nil
}

// walk visits n's subtree in document order; f returns false to skip a
// node's kids.
func walk(n *node, f func(*node) bool) {
	if !f(n) {
		return
	}
	for _, k := range n.kids {
		walk(k, f)
	}
}

// splitTags finds the tags on the joined text of paragraph p (text boxes'
// paragraphs inside it excluded) and rebuilds the runs they touch, so each
// tag becomes a node of its own where its first character was, carrying
// that run's properties.
func (t *template) splitTags(p *node, para int) error {
	var ts []*node     // the paragraph's w:t elements in order
	var texts []string // their texts
	var starts []int   // where each begins in the joined text
	size := 0
	for _, k := range p.kids {
		walk(k, func(n *node) bool {
			if n.kind != kElem || n.name == t.d.para {
				return false
			}
			if n.name == t.d.text {
				s := textOf(n)
				ts, texts, starts = append(ts, n), append(texts, s), append(starts, size)
				size += len(s)
				return false
			}
			return true
		})
	}
	text := ""
	if len(texts) == 1 {
		text = texts[0] // no copy: a paragraph may hold a very long text
	} else {
		var joined strings.Builder
		joined.Grow(size)
		for _, s := range texts {
			joined.WriteString(s)
		}
		text = joined.String()
	}
	if !strings.ContainsAny(text, "{}") {
		return nil
	}
	spans, err := t.scan(text, para, t.d.label(t.part, p, para))
	if err != nil {
		return err
	}
	// pieces of each w:t: its text outside tags, with the tags that start in it.
	type piece struct {
		text string
		tag  *tag
	}
	pieces := make([][]piece, len(ts))
	touched := make([]bool, len(ts))
	si := 0
	for i := range ts {
		from, to := starts[i], starts[i]+len(texts[i])
		pos := from
		for pos < to {
			for si < len(spans) && spans[si].end <= pos {
				si++
			}
			if si == len(spans) || spans[si].start >= to {
				pieces[i] = append(pieces[i], piece{text: text[pos:to]})
				break
			}
			sp := spans[si]
			touched[i] = true
			if sp.start > pos {
				pieces[i] = append(pieces[i], piece{text: text[pos:sp.start]})
			}
			if sp.start >= from {
				pieces[i] = append(pieces[i], piece{tag: sp.tag})
			}
			pos = min(sp.end, to)
		}
	}
	at := make(map[*node]int, len(ts))
	for i, tn := range ts {
		at[tn] = i
	}
	repl := map[*node][]*node{}
	var runs []*node
	for i, tn := range ts {
		run := tn.parent
		if !touched[i] || run == nil || repl[run] != nil {
			continue
		}
		rPr := firstKid(run, t.d.runProps)
		seq := []*node{}
		cur := newRun(run, rPr)
		flush := func() {
			if hasContent(cur) {
				seq = append(seq, cur)
			}
			cur = newRun(run, rPr)
		}
		for _, k := range run.kids {
			if k == rPr {
				continue
			}
			j, ok := at[k]
			if !ok || !touched[j] {
				cur.add(k)
				continue
			}
			for _, pc := range pieces[j] {
				if pc.tag == nil {
					cur.add(textRun(k, pc.text, t.d.preserve))
					continue
				}
				flush()
				tk := kValue
				switch pc.tag.op {
				case '#', '^':
					tk = kOpen
				case '/':
					tk = kClose
				}
				seq = append(seq, &node{kind: tk, tag: pc.tag, rPr: rPr})
			}
		}
		flush()
		repl[run] = seq
		runs = append(runs, run)
	}
	replaceAll(repl, runs)
	return nil
}

// replaceAll puts each of nodes in its parent by its replacement in repl,
// rebuilding each parent's kids once.
func replaceAll(repl map[*node][]*node, nodes []*node) {
	done := map[*node]bool{}
	for _, n := range nodes {
		p := n.parent
		if done[p] {
			continue
		}
		done[p] = true
		kids := make([]*node, 0, len(p.kids))
		for _, k := range p.kids {
			seq, ok := repl[k]
			if !ok {
				kids = append(kids, k)
				continue
			}
			for _, x := range seq {
				x.parent = p
			}
			kids = append(kids, seq...)
		}
		p.kids = kids
	}
}

// splitTagParagraphs gives each section tag of a paragraph that holds
// nothing but section tags ("{/phases}{#locations}") a paragraph of its
// own, so that one loop can end and the next begin on one line.
func splitTagParagraphs(paras []*node, pPrName string) {
	repl := map[*node][]*node{}
	var split []*node
	for _, p := range paras {
		var tags []*node
		for _, k := range p.kids {
			if k.kind == kOpen || k.kind == kClose {
				tags = append(tags, k)
			}
		}
		if len(tags) < 2 || !blank(p) || tagsBelow(p) {
			continue
		}
		pPr := firstKid(p, pPrName)
		for _, tg := range tags {
			q := &node{kind: kElem, name: p.name, attrs: p.attrs}
			if pPr != nil {
				q.kids = append(q.kids, pPr) // shared: written, never changed
			}
			q.add(tg)
			repl[p] = append(repl[p], q)
		}
		split = append(split, p)
	}
	replaceAll(repl, split)
}

// tagsBelow reports whether tags sit deeper in p than among its kids.
func tagsBelow(p *node) bool {
	for _, k := range p.kids {
		if k.kind != kOpen && k.kind != kClose && summary(k)&memoTag != 0 {
			return true
		}
	}
	return false
}

// newRun is an empty copy of run with the run properties rPr.
func newRun(run, rPr *node) *node {
	r := &node{kind: kElem, name: run.name, attrs: run.attrs}
	if rPr != nil {
		r.kids = []*node{rPr} // shared: written, never changed
	}
	return r
}

// textRun is a copy of the text element t holding s, spaces preserved
// (with keep, by xml:space).
func textRun(t *node, s string, keep bool) *node {
	n := &node{kind: kElem, name: t.name, attrs: t.attrs}
	if keep {
		n.attrs = preserve(t.attrs)
	}
	if s != "" {
		n.add(&node{kind: kText, text: s})
	}
	return n
}

var xmlSpace = xml.Name{Space: "xml", Local: "space"}

// preserve returns attrs with xml:space="preserve".
func preserve(attrs []xml.Attr) []xml.Attr {
	for _, a := range attrs {
		if a.Name == xmlSpace {
			return attrs
		}
	}
	return append(append([]xml.Attr(nil), attrs...), xml.Attr{Name: xmlSpace, Value: "preserve"})
}

// hasContent reports whether a run holds anything but its properties and
// empty text.
func hasContent(run *node) bool {
	for _, k := range run.kids {
		if k.kind == kElem && strings.HasSuffix(k.name, "rPr") {
			continue
		}
		if k.kind == kElem && textElems[k.name] && textOf(k) == "" {
			continue
		}
		return true
	}
	return false
}

// span is a tag's place in a paragraph's joined text.
type span struct {
	start, end int
	tag        *tag
}

// scan finds the tags of a paragraph's text.
func (t *template) scan(text string, para int, where string) ([]span, error) {
	var spans []span
	at := func() string { return where }
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '}':
			return nil, invalid("unbalanced braces: %s without { in %s", quoteTag(text[max(0, i-30):i+1]), at())
		case '{':
			end := strings.IndexAny(text[i+1:], "{}")
			if end < 0 || text[i+1+end] == '{' {
				stop := len(text)
				if end >= 0 {
					stop = i + 1 + end
				}
				return nil, invalid("unbalanced braces: unclosed tag %s in %s", quoteTag(text[i:min(stop, i+40)]), at())
			}
			end += i + 1
			tg, err := parseTag(text[i:end+1], para, t.part)
			if err != nil {
				return nil, invalid("bad tag %s in %s: %v", quoteTag(text[i:end+1]), at(), err)
			}
			tg.at = where
			t.tags = append(t.tags, tg)
			spans = append(spans, span{start: i, end: end + 1, tag: tg})
			i = end
		}
	}
	return spans, nil
}

// quoteTag shortens a tag's text for an error message.
func quoteTag(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:60]) + "…"
	}
	return s
}

// parseTag parses a tag's text, braces included.
func parseTag(src string, para int, part string) (*tag, error) {
	body := strings.TrimSpace(src[1 : len(src)-1])
	t := &tag{src: src, para: para, part: part}
	if body != "" && strings.ContainsRune("#^/", rune(body[0])) {
		t.op, body = body[0], strings.TrimSpace(body[1:])
	}
	t.body = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, body)
	if t.op == '/' {
		if body != "" {
			if _, err := parseExpr(body); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	e, err := parseExpr(body)
	if err != nil {
		return nil, err
	}
	if t.op != 0 && hasFilter(e) {
		return nil, fmt.Errorf("a filter formats a value a tag shows ({x | money}); a loop, section or condition cannot use one")
	}
	t.expr = e
	return t, nil
}
