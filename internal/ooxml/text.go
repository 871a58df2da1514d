package ooxml

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// The text of an Office file as Markdown, for a reader (an assistant) to
// read back what was generated: headings, paragraphs, list items and
// tables (the first row as the header), read with encoding/xml.
// Formatting, images, headers and footers, notes and comments are left
// out.
//
//   - DOCX: the body, headings by the Title and heading styles or an
//     outline level.
//   - PPTX: each slide in the presentation's order, under its title (a
//     title placeholder's text) or "Slide n", then its text boxes and
//     tables.
//   - XLSX: each visible sheet in the workbook's order, under its name, as
//     a table of its cells' values as stored (a formula's last value; a
//     date as its serial number).

// Bounds of a file read for its text.
const (
	maxPartBytes     = 32 << 20  // a part unpacked
	maxMarkdownBytes = 512 << 10 // the Markdown answered; the rest is cut
	maxColumns       = 64        // columns of a sheet's table; the rest is cut
)

// ErrNotOffice is returned by Markdown for a file that is no DOCX, PPTX
// or XLSX.
var ErrNotOffice = errors.New("not a DOCX, PPTX or XLSX file")

// Markdown returns the text of a DOCX, PPTX or XLSX file as Markdown;
// truncated when it was cut (at 512 KiB, or a sheet past 64 columns).
func Markdown(file []byte) (md string, truncated bool, err error) {
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrNotOffice, err)
	}
	w := &mdWriter{}
	switch Format(file) {
	case DOCX:
		err = w.docx(zr)
	case PPTX:
		err = w.pptx(zr)
	case XLSX:
		err = w.xlsx(zr)
	default:
		return "", false, ErrNotOffice
	}
	if err != nil {
		return "", false, err
	}
	md = strings.Join(w.blocks, "\n\n")
	if len(md) > maxMarkdownBytes {
		cut := strings.LastIndexByte(md[:maxMarkdownBytes], '\n')
		return strings.TrimRight(md[:max(cut, 0)], "\n"), true, nil
	}
	return md, w.cut, nil
}

// docx reads a WordprocessingML body.
func (w *mdWriter) docx(zr *zip.Reader) error {
	body, err := zipPart(zr, MainPart[DOCX])
	if err != nil {
		return err
	}
	styles, err := zipPart(zr, "word/styles.xml")
	if err != nil && !errors.Is(err, errNoPart) {
		return err
	}
	if w.levels, err = headingStyles(styles); err != nil {
		return err
	}
	w.ns = wml
	return w.read(body)
}

var errNoPart = errors.New("no such part")

// eachPart calls fn with each of parts (their index, their bytes) in
// order, until the answer is full: the parts left are not read, and the
// text says it was cut.
func (w *mdWriter) eachPart(zr *zip.Reader, parts []string, fn func(i int, b []byte) error) error {
	for i, part := range parts {
		if w.full() {
			w.cut = true
			return nil
		}
		b, err := zipPart(zr, part)
		if err != nil {
			return err
		}
		if err := fn(i, b); err != nil {
			return err
		}
	}
	return nil
}

// zipPart reads one entry of a zip, bounded.
func zipPart(zr *zip.Reader, name string) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxPartBytes+1))
		if err == nil && len(b) > maxPartBytes {
			err = fmt.Errorf("%s is larger than %d bytes", name, maxPartBytes)
		}
		return b, err
	}
	return nil, fmt.Errorf("%s: %w", name, errNoPart)
}

// partsInOrder returns the parts a main part lists (a presentation's
// slides, a workbook's sheets), in its order: the relationship ids of the
// elements named elem (with their name attribute, and whether they are
// hidden), resolved through the main part's relationships.
func partsInOrder(zr *zip.Reader, main, elem string) (parts, names []string, err error) {
	b, err := zipPart(zr, main)
	if err != nil {
		return nil, nil, err
	}
	dir, file := path.Split(main)
	relsPart, err := zipPart(zr, dir+"_rels/"+file+".rels")
	if err != nil {
		return nil, nil, err
	}
	targets := map[string]string{}
	if err := eachElement(relsPart, func(e xml.StartElement) {
		if e.Name.Local == "Relationship" {
			t := plainAttr(e, "Target")
			if strings.HasPrefix(t, "/") {
				t = t[1:]
			} else {
				t = path.Join(dir, t)
			}
			targets[plainAttr(e, "Id")] = t
		}
	}); err != nil {
		return nil, nil, err
	}
	err = eachElement(b, func(e xml.StartElement) {
		if e.Name.Local != elem || plainAttr(e, "state") == "hidden" || plainAttr(e, "state") == "veryHidden" {
			return
		}
		for _, a := range e.Attr {
			if a.Name.Local == "id" && a.Name.Space == relNS {
				if t, ok := targets[a.Value]; ok {
					parts, names = append(parts, t), append(names, plainAttr(e, "name"))
				}
			}
		}
	})
	return parts, names, err
}

// relNS is the namespace of relationship ids.
const relNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

// eachToken calls fn with every token of the XML part b, in order.
func eachToken(b []byte, fn func(xml.Token)) error {
	d := xml.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(tok)
	}
}

// eachElement calls fn with every start element of b.
func eachElement(b []byte, fn func(xml.StartElement)) error {
	return eachToken(b, func(tok xml.Token) {
		if e, ok := tok.(xml.StartElement); ok {
			fn(e)
		}
	})
}

// plainAttr returns the unqualified attribute name of e.
func plainAttr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value
		}
	}
	return ""
}

// wml is the WordprocessingML namespace, dml DrawingML's, pml
// PresentationML's.
const (
	wml = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	dml = "http://schemas.openxmlformats.org/drawingml/2006/main"
	pml = "http://schemas.openxmlformats.org/presentationml/2006/main"
)

// attr returns the w: (or unqualified) attribute of an element.
func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name && (a.Name.Space == wml || a.Name.Space == "") {
			return a.Value
		}
	}
	return ""
}

// headingStyles maps paragraph style ids to heading levels: 1 for the
// title, n+1 for "heading n" or a style of outline level n-1.
func headingStyles(styles []byte) (map[string]int, error) {
	levels := map[string]int{}
	if len(styles) == 0 {
		return levels, nil
	}
	id := ""
	err := eachElement(styles, func(e xml.StartElement) {
		if e.Name.Space != wml {
			return
		}
		switch e.Name.Local {
		case "style":
			id = attr(e, "styleId")
		case "name":
			name := strings.ToLower(attr(e, "val"))
			if name == "title" {
				levels[id] = 1
			} else if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && strings.HasPrefix(name, "heading ") {
				levels[id] = n + 1
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(e, "val")); err == nil && id != "" && n < 9 {
				levels[id] = n + 2
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return levels, nil
}

// mdWriter turns the body's elements into Markdown blocks.
type mdWriter struct {
	ns     string         // the text's namespace: wml, or dml in a slide
	levels map[string]int // heading levels by paragraph style (DOCX)
	blocks []string
	size   int  // bytes of the blocks so far
	cut    bool // something was left out (a sheet's columns)
	title  bool // in a slide's title placeholder

	para   *strings.Builder // the paragraph being read; nil outside one
	depth  int              // paragraphs open (a text box's inside a paragraph)
	level  int              // its heading level, 0 for none
	list   bool             // it is a list item
	inText bool             // in a w:t
	skip   int              // depth inside an element left out (a drawing's fallback)

	tables []*mdTable // open tables, innermost last
}

type mdTable struct {
	rows [][]string
	cell *[]string // the paragraphs of the cell being read
	span int       // the columns it spans
}

func (w *mdWriter) read(body []byte) error {
	return eachToken(body, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			w.start(t)
		case xml.EndElement:
			w.end(t)
		case xml.CharData:
			if w.inText && w.skip == 0 && w.para != nil {
				w.para.Write(t)
			}
		}
	})
}

func (w *mdWriter) start(e xml.StartElement) {
	if w.skip > 0 || e.Name.Local == "Fallback" {
		w.skip++
		return
	}
	if e.Name.Space == pml && e.Name.Local == "ph" {
		w.title = attr(e, "type") == "title" || attr(e, "type") == "ctrTitle"
	}
	if e.Name.Space != w.ns {
		return
	}
	switch e.Name.Local {
	case "p":
		if w.depth++; w.depth == 1 {
			w.para, w.level, w.list = &strings.Builder{}, 0, false
			if w.title {
				w.level = 2 // under the document's one heading level: a slide's title
			}
		} else {
			w.para.WriteByte(' ')
		}
	case "pStyle":
		if w.depth == 1 {
			w.level = w.levels[attr(e, "val")]
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(e, "val")); err == nil && w.depth == 1 && n < 9 {
			w.level = n + 2
		}
	case "numPr":
		w.list = w.depth == 1
	case "t":
		w.inText = true
	case "tab":
		if w.para != nil {
			w.para.WriteByte(' ')
		}
	case "br", "cr":
		if w.para != nil && attr(e, "type") != "page" {
			w.para.WriteString("<br>")
		}
	case "tbl":
		w.tables = append(w.tables, &mdTable{})
	case "tr":
		if tb := w.table(); tb != nil {
			tb.rows = append(tb.rows, nil)
		}
	case "tc":
		if tb := w.table(); tb != nil && len(tb.rows) > 0 {
			tb.cell, tb.span = &[]string{}, 1
		}
	case "gridSpan":
		if tb := w.table(); tb != nil && tb.cell != nil {
			n, _ := strconv.Atoi(attr(e, "val"))
			tb.span = min(max(n, 1), 64)
		}
	}
}

// table is the innermost open table, nil outside one.
func (w *mdWriter) table() *mdTable {
	if len(w.tables) == 0 {
		return nil
	}
	return w.tables[len(w.tables)-1]
}

func (w *mdWriter) end(e xml.EndElement) {
	if w.skip > 0 {
		w.skip--
		return
	}
	if e.Name.Space == pml && e.Name.Local == "sp" {
		w.title = false
	}
	if e.Name.Space != w.ns {
		return
	}
	switch e.Name.Local {
	case "t":
		w.inText = false
	case "p":
		if w.depth--; w.depth == 0 {
			w.paragraph(strings.TrimSpace(w.para.String()))
			w.para = nil
		}
	case "tc":
		if tb := w.table(); tb != nil && tb.cell != nil {
			r := &tb.rows[len(tb.rows)-1]
			*r = append(*r, strings.Join(*tb.cell, "<br>"))
			for range tb.span - 1 { // a merged cell: empty ones keep the columns aligned
				*r = append(*r, "")
			}
			tb.cell = nil
		}
	case "tbl":
		tb := w.tables[len(w.tables)-1]
		w.tables = w.tables[:len(w.tables)-1]
		if md := tb.markdown(); md != "" {
			w.paragraph(md) // a table within a cell is flattened into it
		}
	}
}

// paragraph adds a paragraph's text: to the cell being read, else as a
// block.
func (w *mdWriter) paragraph(text string) {
	if text == "" {
		return
	}
	if tb := w.table(); tb != nil {
		if tb.cell != nil {
			*tb.cell = append(*tb.cell, strings.ReplaceAll(strings.ReplaceAll(text, "|", `\|`), "\n", "<br>"))
		}
		return
	}
	switch {
	case w.level > 0:
		text = strings.Repeat("#", min(w.level, 6)) + " " + text
	case w.list:
		text = "- " + text
	}
	w.block(text)
}

// block adds a block of Markdown.
func (w *mdWriter) block(text string) {
	w.blocks = append(w.blocks, text)
	w.size += len(text) + 2
}

// full reports whether the blocks so far fill the answer: the parts left
// are not read.
func (w *mdWriter) full() bool { return w.size > maxMarkdownBytes }

// markdown is the table in GitHub's syntax, its first row as the header.
func (tb *mdTable) markdown() string {
	cols := 0
	for _, r := range tb.rows {
		cols = max(cols, len(r))
	}
	if cols == 0 {
		return ""
	}
	var b strings.Builder
	for i, r := range tb.rows {
		b.WriteString("|")
		for c := range cols {
			cell := ""
			if c < len(r) {
				cell = r[c]
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteString("\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
