package documents

import (
	"bytes"
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
	kRaw                 // a comment, processing instruction or directive, kept as written
	kValue               // a value tag: renders as a run
	kOpen                // a section's opening tag: renders as nothing
	kClose               // a section's closing tag: renders as nothing
	kSection             // a section: its kids render per item, once, or not at all
)

// node is a node of a part's XML tree. Names keep their prefixes as
// written (w:p), so a part is written back exactly as Word wrote it.
type node struct {
	kind   kind
	name   string // kElem: the qualified name
	attrs  []xml.Attr
	kids   []*node
	parent *node
	text   string // kText: the text; kRaw: the markup
	tag    *tag   // kValue, kOpen, kClose, kSection
	rPr    *node  // kValue: the run properties of the tag's first run
	drop   bool   // a block that held only a section tag: not written

	// A paragraph without braces is kept as its bytes (kRaw, name "w:p"):
	// raw is its markup as written, paras the paragraphs it holds (itself
	// and those of its text boxes), empty whether it shows nothing.
	raw   []byte
	paras int
	empty bool
}

func (n *node) add(k *node) {
	k.parent = n
	n.kids = append(n.kids, k)
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

// parseXML reads a part into a tree whose root is a kElem with no name
// holding the prolog and the document element. A paragraph whose markup
// has no brace becomes one kRaw node holding its bytes.
func parseXML(b []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	root := &node{kind: kElem}
	cur := root
	live := 0
	names := map[xml.Name]string{}
	type open struct {
		n     *node
		start int64
		live  int
	}
	var paras []open
	for {
		off := d.InputOffset()
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if _, end := tok.(xml.EndElement); !end {
			if live++; live > maxNodes {
				return nil, errComplex
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name, ok := names[t.Name]
			if !ok {
				name = qname(t.Name)
				names[t.Name] = name
			}
			n := &node{kind: kElem, name: name}
			if len(t.Attr) > 0 {
				n.attrs = append([]xml.Attr(nil), t.Attr...)
			}
			cur.add(n)
			cur = n
			if name == "w:p" {
				paras = append(paras, open{n, off, live})
			}
		case xml.EndElement:
			if cur == root || qname(t.Name) != cur.name {
				return nil, fmt.Errorf("unexpected </%s>", qname(t.Name))
			}
			if cur.name == "w:p" {
				o := paras[len(paras)-1]
				paras = paras[:len(paras)-1]
				if raw := b[o.start:d.InputOffset()]; !bytes.ContainsAny(raw, "{}") {
					n := &node{kind: kRaw, name: "w:p", raw: raw, paras: 1, empty: blank(cur), parent: cur.parent}
					walk(cur, func(k *node) bool {
						if k != cur && k.kind == kElem && k.name == "w:p" {
							n.paras++
						} else if k.kind == kRaw {
							n.paras += k.paras
						}
						return true
					})
					cur.parent.kids[len(cur.parent.kids)-1] = n
					live = o.live
				}
			}
			cur = cur.parent
		case xml.CharData:
			cur.add(&node{kind: kText, text: string(t)})
		case xml.Comment:
			cur.add(&node{kind: kRaw, text: "<!--" + string(t) + "-->"})
		case xml.ProcInst:
			cur.add(&node{kind: kRaw, text: "<?" + t.Target + " " + string(t.Inst) + "?>"})
		case xml.Directive:
			cur.add(&node{kind: kRaw, text: "<!" + string(t) + ">"})
		}
	}
	if cur != root {
		return nil, fmt.Errorf("<%s> is not closed", cur.name)
	}
	return root, nil
}

// textOf returns the character data directly inside n.
func textOf(n *node) string {
	if len(n.kids) == 1 && n.kids[0].kind == kText {
		return n.kids[0].text
	}
	var sb strings.Builder
	for _, k := range n.kids {
		if k.kind == kText {
			sb.WriteString(k.text)
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
		escape(w, n.text, false)
	case kRaw:
		if n.raw != nil {
			w.Write(n.raw)
		} else {
			w.WriteString(n.text)
		}
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
