package documents

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// kind is what a node of a parsed part is.
type kind uint8

const (
	kElem    kind = iota // an element
	kText                // character data
	kRaw                 // a comment or processing instruction, or a paragraph without braces, kept as written
	kValue               // a value tag: renders as a run
	kOpen                // a section's opening tag: renders as nothing
	kClose               // a section's closing tag: renders as nothing
	kSection             // a section: its kids render per item, once, or not at all
)

// node is a node of a part's XML tree. Names keep their prefixes as
// written (w:p), so a part is written back as Word wrote it.
type node struct {
	kind   kind
	drop   bool   // a block that held only a section tag: not written
	empty  bool   // a paragraph kept as bytes: whether it shows nothing
	memo   uint8  // what blank and hasTag found (memoBlank...), once known
	depth  int32  // the distance from the root, set by sections
	name   string // kElem: the qualified name
	attrs  []xml.Attr
	kids   []*node
	parent *node
	text   string // kText made here: the text (parsed text is in raw)
	tag    *tag   // kValue, kOpen, kClose, kSection
	rPr    *node  // kValue: the run properties of the tag's first run

	// raw is the markup as written of a node read from the part and kept
	// as bytes: character data (kText; textOf decodes it), a comment or
	// processing instruction (kRaw), or a paragraph without braces (kRaw,
	// name "w:p"), whose paras counts the paragraphs it holds (itself and
	// those of its text boxes).
	raw   []byte
	paras int
}

func (n *node) add(k *node) {
	k.parent = n
	n.kids = append(n.kids, k)
}

// str is the text of a kText node.
func (n *node) str() string {
	if n.raw != nil {
		return decode(n.raw)
	}
	return n.text
}

// qname is the name as written: prefix:local.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// maxNodes bounds the nodes of one part's tree (a variable so tests can
// lower it). Paragraphs without tags are kept as bytes, not nodes, so only
// the paragraphs with tags and the elements around them count.
var maxNodes = 400_000

// checkEvery is how many tokens or nodes pass between two looks at the
// context: often enough to stop within milliseconds, rarely enough to cost
// nothing.
const checkEvery = 1 << 12

// parseXML reads a part into a tree whose root is a kElem with no name
// holding the prolog and the document element. A paragraph whose markup
// has no brace becomes one kRaw node holding its bytes. The work is linear
// in the part's size however deeply elements nest: braces and paragraphs
// are counted once, as the scanner passes them, and a paragraph is judged
// by the counts at its start and end.
func parseXML(ctx context.Context, b []byte, paraName string) (*node, error) {
	s := &scanner{b: b}
	root := &node{kind: kElem}
	cur := root
	live := 0
	names := map[string]string{}
	braces, counted := 0, 0 // the braces in b[:counted]
	bracesTo := func(i int) int {
		for _, c := range b[counted:i] {
			if c == '{' || c == '}' {
				braces++
			}
		}
		counted = i
		return braces
	}
	type open struct {
		n                         *node
		start, live, braces, para int
	}
	var paras []open
	para := 0 // paragraphs begun so far
	closeElem := func(end int) {
		if cur.name == paraName {
			o := paras[len(paras)-1]
			paras = paras[:len(paras)-1]
			if bracesTo(end) == o.braces {
				n := &node{kind: kRaw, name: paraName, raw: b[o.start:end], paras: para - o.para + 1, empty: blank(cur), parent: cur.parent}
				cur.parent.kids[len(cur.parent.kids)-1] = n
				live = o.live
			}
		}
		cur = cur.parent
	}
	for i := 0; ; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		tok, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if tok.kind != tokEnd {
			if live++; live > maxNodes {
				return nil, errComplex
			}
		}
		switch tok.kind {
		case tokStart:
			name, ok := names[string(tok.name)]
			if !ok {
				name = string(tok.name)
				names[name] = name
			}
			n := &node{kind: kElem, name: name, attrs: decodeAttrs(tok.attrs)}
			cur.add(n)
			cur = n
			if name == paraName {
				para++
				paras = append(paras, open{n, tok.start, live, bracesTo(tok.start), para})
			}
			if tok.empty {
				closeElem(tok.end)
			}
		case tokEnd:
			if cur == root || string(tok.name) != cur.name {
				return nil, s.errorf(tok.start, "unexpected </%s>", tok.name)
			}
			closeElem(tok.end)
		case tokText, tokCDATA:
			cur.add(&node{kind: kText, raw: b[tok.start:tok.end]})
		default:
			cur.add(&node{kind: kRaw, raw: b[tok.start:tok.end]})
		}
	}
	if cur != root {
		return nil, fmt.Errorf("<%s> is not closed", cur.name)
	}
	return root, nil
}

// oneRoot checks a parsed part is an XML document: one root element, with
// nothing but spaces, comments and processing instructions around it (a
// byte order mark may lead). parseXML reads fragments too (a cell's
// runs), so the parts' callers check this.
func oneRoot(root *node) error {
	elems := 0
	for i, k := range root.kids {
		switch {
		case k.kind == kElem || k.kind == kRaw && k.name != "":
			if elems++; elems > 1 {
				return fmt.Errorf("<%s> after the root element", k.name)
			}
		case k.kind == kText:
			s := string(k.raw)
			if i == 0 {
				s = strings.TrimPrefix(s, "\ufeff")
			}
			if strings.Trim(s, " \t\r\n") != "" {
				return fmt.Errorf("text outside the root element")
			}
		}
	}
	if elems == 0 {
		return fmt.Errorf("no root element")
	}
	return nil
}

// textOf returns the character data directly inside n.
func textOf(n *node) string {
	if len(n.kids) == 1 && n.kids[0].kind == kText {
		return n.kids[0].str()
	}
	var sb strings.Builder
	for _, k := range n.kids {
		if k.kind == kText {
			sb.WriteString(k.str())
		}
	}
	return sb.String()
}

// out is the writer of a rendered part: a buffer with a size bound.
type out struct {
	bytes.Buffer
	limit int
	err   error
}

func (w *out) full() bool {
	if w.err == nil && w.Len() > w.limit {
		w.err = errTooLarge
	}
	return w.err != nil
}

func (w *out) startTag(name string, attrs []xml.Attr, empty bool) {
	w.WriteByte('<')
	w.WriteString(name)
	for _, a := range attrs {
		w.WriteByte(' ')
		w.WriteString(qname(a.Name))
		w.WriteString(`="`)
		escape(w, a.Value, true)
		w.WriteByte('"')
	}
	if empty {
		w.WriteString("/>")
	} else {
		w.WriteByte('>')
	}
}

func (w *out) endTag(name string) {
	w.WriteString("</")
	w.WriteString(name)
	w.WriteByte('>')
}

// escape writes s as XML text (or an attribute value), dropping the
// characters XML 1.0 does not allow, so no value can make a part unreadable.
func escape(w *out, s string, attr bool) {
	last := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == '&':
			esc = "&amp;"
		case r == '<':
			esc = "&lt;"
		case r == '>':
			esc = "&gt;"
		case r == '"' && attr:
			esc = "&quot;"
		case (r == '\n' || r == '\r' || r == '\t') && attr:
			esc = fmt.Sprintf("&#%d;", r)
		case r == '\n' || r == '\r' || r == '\t':
			i += size
			continue
		case r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r == utf8.RuneError && size == 1) || (r >= 0xD800 && r <= 0xDFFF):
			esc = ""
		default:
			i += size
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		i += size
		last = i
	}
	w.WriteString(s[last:])
}

// writeNode writes n and its subtree as they are (no tags evaluated).
func (w *out) writeNode(n *node) {
	switch n.kind {
	case kText:
		if n.raw != nil {
			w.Write(n.raw) // checked character data, as written
		} else {
			escape(w, n.text, false)
		}
	case kRaw:
		w.Write(n.raw)
	case kElem:
		if n.name == "" {
			for _, k := range n.kids {
				w.writeNode(k)
			}
			return
		}
		w.startTag(n.name, n.attrs, len(n.kids) == 0)
		if len(n.kids) > 0 {
			for _, k := range n.kids {
				w.writeNode(k)
			}
			w.endTag(n.name)
		}
	}
}
