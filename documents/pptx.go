package documents

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// PowerPoint templates: the tags are in the slides' text (DrawingML
// paragraphs a:p of ppt/slides/slideN.xml, in shapes and table cells), so a
// loop repeats text in a paragraph, paragraphs of a shape, or table rows
// (a:tr) as it does in a DOCX.

var formatPPTX = &officeFormat{name: FormatPPTX, title: "PPTX", contentType: ContentTypePPTX,
	main:      "ppt/presentation.xml",
	tagPart:   func(name string) bool { return numberedPart(name, "ppt/slides/", "slide") },
	extraPart: func(string) bool { return false },
	dialect:   drawingML}

// drawingML is the dialect of slide text. A run holds one a:t, whose
// spaces are kept without xml:space; a new line in a value is an a:br
// between runs, a tab stays a tab character.
var drawingML = &dialect{para: "a:p", run: "a:r", text: "a:t", runProps: "a:rPr", paraProps: "a:pPr",
	label: func(part string, _ *node, n int) string {
		slide := strings.TrimSuffix(strings.TrimPrefix(path.Base(part), "slide"), ".xml")
		return fmt.Sprintf("paragraph %d of slide %s", n, slide)
	},
	context: func(t *template, _ string) string { return t.title },
	value:   func(w *out, d *dialect, rPr *node, s string) { textRuns(w, d, rPr, s, "<a:br/>") }}

// slideTitle is the text of a slide's title placeholder (a p:sp whose
// p:ph is of type title or ctrTitle), "" when it has none.
func slideTitle(root *node) string {
	var title string
	walk(root, func(n *node) bool {
		if title != "" || n.kind != kElem {
			return false
		}
		if n.name != "p:sp" {
			return true
		}
		if isTitleShape(n) {
			title = openingWords(shapeText(n))
		}
		return false
	})
	return title
}

// isTitleShape reports whether the shape sp is a title placeholder.
func isTitleShape(sp *node) bool {
	found := false
	walk(sp, func(n *node) bool {
		if n.kind == kElem && n.name == "p:ph" {
			t := attr(n.attrs, "type")
			found = found || t == "title" || t == "ctrTitle"
		}
		return !found && n.name != "p:txBody"
	})
	return found
}

// shapeText is the text of a shape's paragraphs, those kept as bytes
// (without tags) too, a space between paragraphs.
func shapeText(sp *node) string {
	var b strings.Builder
	walk(sp, func(n *node) bool {
		switch {
		case n.kind == kElem && n.name == "a:t":
			b.WriteString(textOf(n))
			return false
		case n.kind == kRaw && n.name == "a:p":
			b.WriteString(rawText(n.raw, "t"))
		case n.kind == kElem && n.name == "a:p" && b.Len() > 0:
			b.WriteByte(' ')
		}
		return true
	})
	return b.String()
}

// rawText is the character data of the elements named local in a
// fragment of markup kept as bytes.
func rawText(raw []byte, local string) string {
	d := xml.NewDecoder(bytes.NewReader(raw))
	var b strings.Builder
	in := 0
	for {
		tok, err := d.Token()
		if err != nil {
			return b.String()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local == local {
				in++
			} else if t.Name.Local == "p" && b.Len() > 0 {
				b.WriteByte(' ')
			}
		case xml.EndElement:
			if t.Name.Local == local && in > 0 {
				in--
			}
		case xml.CharData:
			if in > 0 {
				b.Write(t)
			}
		}
	}
}
