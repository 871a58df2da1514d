package documents

import (
	"fmt"
	"strings"
)

// dialect names the elements of one format's text model, so that the one
// engine (tags found on a paragraph's joined text, runs split at tags,
// sections over runs, paragraphs and table rows) serves Word, PowerPoint
// and Excel: WordprocessingML's w:p/w:r/w:t, DrawingML's a:p/a:r/a:t, and
// a spreadsheet cell's c/r/t (a cell is the "paragraph" of a sheet).
type dialect struct {
	para, run, text string // the paragraph, the run and its text element
	runProps        string // the run properties, a run's first kid
	paraProps       string // the paragraph properties, a paragraph's first kid
	// preserve: text elements take xml:space="preserve" (DrawingML's a:t
	// takes no attributes and keeps spaces anyway)
	preserve bool
	// label names paragraph number n of part (p is its node) in messages
	label func(part string, p *node, n int) string
	// context is what a person finds a paragraph of text by, beside its
	// label: its opening words, the slide's title (nil: the label says
	// it all, as a cell's reference does)
	context func(t *template, text string) string
	// value writes a value's text as runs with the run properties rPr
	value func(w *out, d *dialect, rPr *node, s string)
}

// The elements of every dialect, for what does not depend on the format:
// the names carry their prefixes, so the sets do not overlap.
var (
	textElems = map[string]bool{"w:t": true, "a:t": true, "t": true}
	paraElems = map[string]bool{"w:p": true, "a:p": true, "c": true}
	// rowElems are table rows: a loop whose tags sit in two cells of one
	// row repeats the row
	rowElems = map[string]bool{"w:tr": true, "a:tr": true, "row": true}
	// needsParagraph are the elements that must end with a paragraph, and
	// the empty paragraph written when a loop left none
	needsParagraph = map[string]string{"w:tc": "<w:p/>", "w:txbxContent": "<w:p/>", "w:hdr": "<w:p/>",
		"w:ftr": "<w:p/>", "w:footnote": "<w:p/>", "w:endnote": "<w:p/>", "a:txBody": "<a:p/>"}
)

// wordML is the dialect of DOCX templates.
var wordML = &dialect{para: "w:p", run: "w:r", text: "w:t", runProps: "w:rPr", paraProps: "w:pPr", preserve: true,
	label: func(part string, _ *node, n int) string {
		if part == mainPart {
			return fmt.Sprintf("paragraph %d", n)
		}
		return fmt.Sprintf("paragraph %d of %s", n, part)
	},
	context: func(_ *template, text string) string { return openingWords(text) },
	value: func(w *out, d *dialect, rPr *node, s string) {
		w.WriteString("<w:r>")
		if rPr != nil {
			w.writeNode(rPr)
		}
		first := true
		for line := range strings.SplitSeq(s, "\n") {
			if !first {
				w.WriteString("<w:br/>")
			}
			first = false
			for j, cell := range strings.Split(line, "\t") {
				if j > 0 {
					w.WriteString("<w:tab/>")
				}
				if cell != "" {
					w.WriteString(`<w:t xml:space="preserve">`)
					escape(w, cell, false)
					w.WriteString("</w:t>")
				}
			}
		}
		w.WriteString("</w:r>")
	}}

// textRuns writes s as one run per line, with brk between the lines: the
// value writer of DrawingML (a:br between runs; tabs stay characters).
func textRuns(w *out, d *dialect, rPr *node, s, brk string) {
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			w.WriteString(brk)
		}
		if line == "" {
			continue
		}
		w.startTag(d.run, nil, false)
		if rPr != nil {
			w.writeNode(rPr)
		}
		w.startTag(d.text, nil, false)
		escape(w, line, false)
		w.endTag(d.text)
		w.endTag(d.run)
	}
}

// firstKid returns n's first kid when it is the element name (a run's or
// paragraph's properties), or nil.
func firstKid(n *node, name string) *node {
	if len(n.kids) > 0 && n.kids[0].kind == kElem && n.kids[0].name == name {
		return n.kids[0]
	}
	return nil
}

// openingWords are the first words of a paragraph's text: Word numbers
// no paragraphs, so a message names one by how it begins.
func openingWords(text string) string {
	const words, chars = 8, 60
	fields := strings.Fields(text)
	cut := len(fields) > words
	if cut {
		fields = fields[:words]
	}
	s := strings.Join(fields, " ")
	if r := []rune(s); len(r) > chars {
		s, cut = string(r[:chars]), true
	}
	if cut {
		s += "…"
	}
	return s
}
