package mcpadapter

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The text of a generated DOCX as Markdown, for an assistant to read back
// what it made: headings (the Title style and the heading styles, or an
// outline level), paragraphs, list items and tables (the first row as the
// header), read from word/document.xml with encoding/xml. Formatting,
// images, headers and footers are left out.

// Bounds of a DOCX read for its text.
const (
	maxPartBytes     = 32 << 20  // a part unpacked
	maxMarkdownBytes = 512 << 10 // the Markdown answered; the rest is cut
)

// docxMarkdown returns the body of a DOCX as Markdown; truncated when it
// was cut at maxMarkdownBytes.
func docxMarkdown(docx []byte) (md string, truncated bool, err error) {
	zr, err := zip.NewReader(bytes.NewReader(docx), int64(len(docx)))
	if err != nil {
		return "", false, err
	}
	body, err := zipPart(zr, "word/document.xml")
	if err != nil {
		return "", false, err
	}
	styles, err := zipPart(zr, "word/styles.xml")
	if err != nil && !errors.Is(err, errNoPart) {
		return "", false, err
	}
	levels, err := headingStyles(styles)
	if err != nil {
		return "", false, err
	}
	w := &mdWriter{levels: levels}
	if err := w.read(body); err != nil {
		return "", false, err
	}
	md = strings.Join(w.blocks, "\n\n")
	if len(md) > maxMarkdownBytes {
		cut := strings.LastIndexByte(md[:maxMarkdownBytes], '\n')
		return strings.TrimRight(md[:max(cut, 0)], "\n"), true, nil
	}
	return md, false, nil
}

var errNoPart = errors.New("no such part")

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

// wml is the WordprocessingML namespace.
const wml = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// attr returns the w: attribute of an element.
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
	d := xml.NewDecoder(bytes.NewReader(styles))
	id := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return levels, nil
		}
		if err != nil {
			return nil, err
		}
		e, ok := tok.(xml.StartElement)
		if !ok || e.Name.Space != wml {
			continue
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
	}
}

// mdWriter turns the body's elements into Markdown blocks.
type mdWriter struct {
	levels map[string]int
	blocks []string

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
	d := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
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
	}
}

func (w *mdWriter) start(e xml.StartElement) {
	if w.skip > 0 || e.Name.Local == "Fallback" {
		w.skip++
		return
	}
	if e.Name.Space != wml {
		return
	}
	switch e.Name.Local {
	case "p":
		if w.depth++; w.depth == 1 {
			w.para, w.level, w.list = &strings.Builder{}, 0, false
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
	if e.Name.Space != wml {
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
	w.blocks = append(w.blocks, text)
}

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
