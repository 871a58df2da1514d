package documents

import (
	"bytes"
	"cmp"
	"slices"
	"unicode/utf8"
)

// wrap is a section to build: the kids i..j of cont go into a section node
// of the pair whose opening tag is the open-th of the part.
type wrap struct {
	cont        *node
	i, j        int
	o           *node // the opening tag
	open, close int   // where the pair's tags are among the part's section tags
}

// sections pairs the opening and closing tags of the part (in document
// order) and turns each pair into a section node around what it spans:
//   - tags in one paragraph: the runs between them;
//   - tags in different cells of one table row: the row;
//   - otherwise the blocks (paragraphs, tables, rows) from the one holding
//     the opening tag to the one holding the closing tag, where a paragraph
//     or row that held nothing but section tags is dropped.
//
// Every span is found on the tree as parsed; then each container's kids are
// regrouped once, so the work stays linear in the size of the part.
func (t *template) sections() error {
	setDepth(t.root, 0)
	var stack []*node
	var pairs [][2]*node
	order := map[*node]int{} // of the opening and closing tags
	var err error
	walk(t.root, func(n *node) bool {
		if err != nil {
			return false
		}
		if n.kind == kOpen || n.kind == kClose {
			order[n] = len(order)
		}
		switch n.kind {
		case kOpen:
			if len(stack) == MaxNesting {
				err = invalid("%s in %s is nested too deeply: at most %d loops, sections and conditions may be open at once",
					n.tag.src, n.tag.where(), MaxNesting)
				return false
			}
			stack = append(stack, n)
		case kClose:
			if len(stack) == 0 {
				err = invalid("unbalanced tags: %s in %s closes nothing", n.tag.src, n.tag.where())
				return false
			}
			o := stack[len(stack)-1]
			if n.tag.body != "" && n.tag.body != o.tag.body {
				err = invalid("unbalanced tags: %s in %s does not close %s %s of %s", n.tag.src, n.tag.where(),
					o.tag.kindName(), o.tag.src, o.tag.where())
				return false
			}
			stack = stack[:len(stack)-1]
			pairs = append(pairs, [2]*node{o, n})
		}
		return true
	})
	if err != nil {
		return err
	}
	if len(stack) > 0 {
		o := stack[len(stack)-1]
		return invalid("unclosed %s %s in %s", o.tag.kindName(), o.tag.src, o.tag.where())
	}

	byCont := map[*node][]wrap{}
	var conts []*node
	indexed := map[*node]bool{}
	pos := map[*node]int{}
	for _, p := range pairs {
		o, c := p[0], p[1]
		cont, a, b := spanOf(o, c)
		if !indexed[cont] {
			indexed[cont] = true
			conts = append(conts, cont)
			for i, k := range cont.kids {
				pos[k] = i
			}
		}
		byCont[cont] = append(byCont[cont], wrap{cont: cont, i: pos[a], j: pos[b], o: o, open: order[o], close: order[c]})
	}
	for _, cont := range conts {
		if err := regroup(cont, byCont[cont]); err != nil {
			return err
		}
	}
	return nil
}

// setDepth sets the depth of n's subtree, n at d.
func setDepth(n *node, d int32) {
	n.depth = d
	for _, k := range n.kids {
		setDepth(k, d+1)
	}
}

// spanOf returns the container whose kids a..b the pair o…c spans, marking a
// and b dropped when they hold nothing but section tags.
//
// The two climb from the tags to their common ancestor by depth, so a
// pair costs the levels between its tags, not the depth of the tree.
func spanOf(o, c *node) (cont, a, b *node) {
	a, b = o, c
	for a.depth > b.depth {
		a = a.parent
	}
	for b.depth > a.depth {
		b = b.parent
	}
	for a.parent != b.parent {
		a, b = a.parent, b.parent
	}
	lca := a.parent
	if lca.kind == kElem && rowElems[lca.name] {
		return lca.parent, lca, lca
	}
	dropIfBlank(a, o)
	dropIfBlank(b, c)
	return lca, a, b
}

// regroup puts the spans of cont's kids into section nodes. Spans nest or
// are apart, since tags do; spans of the same kids nest in the order their
// tags do (an inner loop over the same row repeats inside the outer one).
// Spans that overlap, or one inside another whose tags do not nest (one
// loop ending in the row or paragraph where another begins, two loops
// over one row one after the other), are an error.
func regroup(cont *node, ws []wrap) error {
	slices.SortFunc(ws, func(x, y wrap) int {
		return cmp.Or(cmp.Compare(x.i, y.i), cmp.Compare(y.j, x.j), cmp.Compare(x.open, y.open))
	})
	type frame struct {
		w    wrap
		kids []*node
	}
	var stack []frame
	var out []*node
	add := func(n *node) {
		if len(stack) == 0 {
			out = append(out, n)
		} else {
			stack[len(stack)-1].kids = append(stack[len(stack)-1].kids, n)
		}
	}
	next := 0
	for idx, kid := range cont.kids {
		for next < len(ws) && ws[next].i == idx {
			w := ws[next]
			if len(stack) > 0 {
				if top := stack[len(stack)-1].w; w.j > top.j || w.open < top.open || w.close > top.close {
					return overlap(top, w)
				}
			}
			stack = append(stack, frame{w: w})
			next++
		}
		add(kid)
		for len(stack) > 0 && stack[len(stack)-1].w.j == idx {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s := &node{kind: kSection, tag: f.w.o.tag, kids: f.kids}
			for _, k := range f.kids {
				k.parent = s
			}
			add(s)
		}
	}
	for _, n := range out {
		n.parent = cont
	}
	cont.kids = out
	return nil
}

// overlap is the error of two loops whose spans overlap without nesting:
// the later one begins where the earlier one ends.
func overlap(x, y wrap) error {
	if y.open < x.open {
		x, y = y, x
	}
	first, then := x.o.tag, y.o.tag
	return invalid("%s in %s begins in the block where %s %s of %s ends; give each its own paragraph or row",
		then.src, then.where(), first.kindName(), first.src, first.where())
}

// content are the elements that make a paragraph worth keeping even when it
// has no text.
var content = map[string]bool{
	"w:drawing": true, "w:pict": true, "w:object": true, "w:br": true, "w:tab": true, "w:ptab": true,
	"w:sym": true, "mc:AlternateContent": true, "w:fldChar": true, "w:fldSimple": true,
	"w:instrText": true, "w:sectPr": true, "w:footnoteReference": true, "w:endnoteReference": true,
	// DrawingML: a line break, a field (slide number, date)
	"a:br": true, "a:fld": true,
	// a sheet cell's value or formula
	"v": true, "f": true,
}

// dropIfBlank marks block (a paragraph or a table row holding the section
// tag t) as not written when it has nothing but section tags.
func dropIfBlank(block, t *node) {
	if block != t && block.kind == kElem && (paraElems[block.name] || rowElems[block.name]) && blank(block) {
		block.drop = true
	}
}

// Bits of node.memo.
const (
	memoKnown = 1 << iota // the others are set
	memoShows             // the subtree has something to show
	memoTag               // the subtree holds a tag
)

// summary returns what n's subtree holds (memoShows, memoTag), computed
// once per node: asked of a block and then of the blocks inside it, it
// stays linear in the size of the tree.
func summary(n *node) uint8 {
	if n.memo&memoKnown != 0 {
		return n.memo
	}
	m := uint8(memoKnown)
	switch {
	case n.kind == kValue:
		m |= memoShows | memoTag
	case n.kind == kOpen || n.kind == kClose:
		m |= memoTag
	case n.kind == kRaw && paraElems[n.name] && !n.empty:
		m |= memoShows
	case n.kind == kElem && content[n.name]:
		m |= memoShows
	case n.kind == kElem && textElems[n.name] && !onlySpaces(n):
		m |= memoShows
	}
	for _, k := range n.kids {
		m |= summary(k) & (memoShows | memoTag)
	}
	n.memo = m
	return m
}

// blank reports whether n holds nothing to show: no value tags, no text but
// spaces, none of the content elements.
func blank(n *node) bool { return summary(n)&memoShows == 0 }

// onlySpaces reports whether the text of the w:t t is spaces, tabs and
// no-break spaces only, without copying text read from the part.
func onlySpaces(t *node) bool {
	for _, k := range t.kids {
		if k.kind != kText {
			continue
		}
		s := k.raw
		if s == nil || bytes.ContainsAny(s, "&\r<") {
			s = []byte(k.str())
		}
		for len(s) > 0 {
			r, size := utf8.DecodeRune(s)
			if r != ' ' && r != '\t' && r != '\u00a0' {
				return false
			}
			s = s[size:]
		}
	}
	return true
}
