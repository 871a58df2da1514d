package documents

// sections pairs the opening and closing tags of the part (in document
// order) and turns each pair into a section node, innermost first:
//   - tags in one paragraph: the runs between them;
//   - tags in different cells of one table row: the row;
//   - otherwise the blocks (paragraphs, tables, rows) from the one holding
//     the opening tag to the one holding the closing tag, where a paragraph
//     or row that held nothing but section tags is dropped.
func (t *template) sections() error {
	var stack []*node
	var pairs [][2]*node
	var err error
	walk(t.root, func(n *node) bool {
		if err != nil {
			return false
		}
		switch n.kind {
		case kOpen:
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
	for _, p := range pairs {
		build(p[0], p[1])
	}
	return nil
}

// ancestors returns the path from the root to n.
func ancestors(n *node) []*node {
	var path []*node
	for ; n != nil; n = n.parent {
		path = append(path, n)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// build wraps what the pair o…c spans in a section node.
func build(o, c *node) {
	po, pc := ancestors(o), ancestors(c)
	k := 0
	for k < len(po) && k < len(pc) && po[k] == pc[k] {
		k++
	}
	lca := po[k-1]
	var cont *node
	var i, j int
	if lca.kind == kElem && lca.name == "w:tr" {
		cont = lca.parent
		i = indexOf(cont.kids, lca)
		j = i
	} else {
		a, b := po[k], pc[k]
		cont = lca
		i, j = indexOf(cont.kids, a), indexOf(cont.kids, b)
		dropIfBlank(a, o)
		dropIfBlank(b, c)
	}
	// A section that is exactly what this pair spans (an inner loop over
	// the same row or paragraphs) goes inside this one.
	for cont.kind == kSection && i == 0 && j == len(cont.kids)-1 {
		p := cont.parent
		i = indexOf(p.kids, cont)
		j = i
		cont = p
	}
	s := &node{kind: kSection, tag: o.tag, parent: cont}
	s.kids = append([]*node(nil), cont.kids[i:j+1]...)
	for _, kid := range s.kids {
		kid.parent = s
	}
	kids := make([]*node, 0, len(cont.kids)-(j-i))
	kids = append(kids, cont.kids[:i]...)
	kids = append(kids, s)
	cont.kids = append(kids, cont.kids[j+1:]...)
}

// content are the elements that make a paragraph worth keeping even when it
// has no text.
var content = map[string]bool{
	"w:drawing": true, "w:pict": true, "w:object": true, "w:br": true, "w:tab": true, "w:ptab": true,
	"w:sym": true, "mc:AlternateContent": true, "w:fldChar": true, "w:fldSimple": true,
	"w:instrText": true, "w:sectPr": true, "w:footnoteReference": true, "w:endnoteReference": true,
}

// dropIfBlank marks block (a paragraph or a table row holding the section
// tag t) as not written when it has nothing but section tags.
func dropIfBlank(block, t *node) {
	if block == t || block.kind != kElem || (block.name != "w:p" && block.name != "w:tr") {
		return
	}
	blank := true
	walk(block, func(n *node) bool {
		switch {
		case !blank || n.kind == kValue:
			blank = false
		case n.kind == kElem && content[n.name]:
			blank = false
		case n.kind == kElem && n.name == "w:t":
			for _, r := range textOf(n) {
				if r != ' ' && r != '\t' && r != '\u00a0' {
					blank = false
				}
			}
		}
		return blank
	})
	block.drop = blank
}
