// Command gensow writes the built-in "Standard SOW" template
// (documents/standard_sow.docx) from the markup below, so the template is
// reviewed as code and rebuilt with `go generate ./documents`; with
// -changeorder it writes the built-in "Standard change order"
// (documents/standard_change_order.docx, changeorder.go) in the same
// style. Their tags are v2 merge data paths; documents' tests check each
// one exists.
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"
)

func main() {
	out := flag.String("o", "standard_sow.docx", "the file to write")
	co := flag.Bool("changeorder", false, "write the Standard change order instead")
	flag.Parse()
	if *co {
		content, footerTitle, docTitle = changeOrderDocument, "Change order {change_order.number}", "Change order"
	}
	b, err := build()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// build zips the parts with a fixed time, so the output is reproducible.
func build() ([]byte, error) {
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", rootRels},
		{"docProps/core.xml", strings.Replace(core, "Statement of Work", docTitle, 1)},
		{"docProps/app.xml", app},
		{"word/document.xml", content()},
		{"word/styles.xml", stylesXML},
		{"word/settings.xml", settings},
		{"word/fontTable.xml", fontTable},
		{"word/numbering.xml", numbering},
		{"word/footer1.xml", footer()},
		{"word/footer2.xml", emptyFooter},
		{"word/_rels/document.xml.rels", documentRels},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: mod})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(xmlHeader + p.body)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// What build writes: the Standard SOW unless -changeorder.
var (
	content     = document
	footerTitle = "Statement of Work"
	docTitle    = "Statement of Work"
)

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const nsW = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// r is a run of text with optional run properties (inner markup).
func r(text string, props ...string) string {
	pr := ""
	if len(props) > 0 {
		pr = "<w:rPr>" + strings.Join(props, "") + "</w:rPr>"
	}
	return `<w:r>` + pr + `<w:t xml:space="preserve">` + esc.Replace(text) + `</w:t></w:r>`
}

// p is a paragraph of a style (a style id, "" for Normal) with runs;
// text given as a plain string becomes one run.
func p(style string, runs ...string) string {
	return pp(style, "", runs...)
}

// pp is p with more paragraph properties (inner markup after the style).
func pp(style, props string, runs ...string) string {
	pr := props
	if style != "" {
		pr = `<w:pStyle w:val="` + style + `"/>` + pr
	}
	if pr != "" {
		pr = "<w:pPr>" + pr + "</w:pPr>"
	}
	return "<w:p>" + pr + strings.Join(runs, "") + "</w:p>"
}

// t is a paragraph of one plain run.
func t(style, text string) string { return p(style, r(text)) }

// lead is a paragraph of one plain run kept on the page of what follows
// it (a table it introduces).
func lead(text string) string { return pp("", `<w:keepNext/>`, r(text)) }

// tag is a paragraph holding only a section tag (not written out).
func tag(s string) string { return p("", r(s)) }

// when shows blocks only when the condition (a tag expression) holds.
func when(cond string, blocks ...string) string {
	return tag("{#"+cond+"}") + strings.Join(blocks, "") + tag("{/}")
}

// each repeats blocks for each item of the list at path (or shows them
// once for another truthy value).
func each(path string, blocks ...string) string {
	return tag("{#"+path+"}") + strings.Join(blocks, "") + tag("{/"+path+"}")
}

// unless shows blocks only when the value at path is falsy.
func unless(path string, blocks ...string) string {
	return tag("{^"+path+"}") + strings.Join(blocks, "") + tag("{/"+path+"}")
}

// bullet is an item of a bulleted list.
func bullet(text string) string { return t("ListBullet", text) }

const (
	bold   = "<w:b/>"
	italic = "<w:i/>"
	muted  = `<w:color w:val="595959"/>`
)

// col is a table column: its width in twentieths of a point and whether
// its figures align right.
type col struct {
	w     int
	right bool
}

// table is a table in the ScopeKit style; the first row repeats on each
// page as the header.
func table(cols []col, rows ...string) string {
	var sb strings.Builder
	total := 0
	for _, c := range cols {
		total += c.w
	}
	sb.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="ScopeKitTable"/><w:tblW w:w="` + fmt.Sprint(total) + `" w:type="dxa"/>` +
		`<w:tblLayout w:type="fixed"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr><w:tblGrid>`)
	for _, c := range cols {
		sb.WriteString(`<w:gridCol w:w="` + fmt.Sprint(c.w) + `"/>`)
	}
	sb.WriteString(`</w:tblGrid>`)
	for _, row := range rows {
		sb.WriteString(row)
	}
	sb.WriteString(`</w:tbl>`)
	return sb.String()
}

// row kinds.
const (
	header = iota
	body
	sub      // a line detailing the one above it: indented, grey
	subtotal // a figure the rows above add up to, which more rows follow
	total
	sign // a signature line: tall, the text at the bottom

	// keep, added to a kind, keeps the row on the page of the next one
	// (for short tables that read as one figure).
	keep = 1 << 8
)

// row is a table row of cells, each cell's content being runs.
func row(cols []col, kind int, cells ...string) string {
	keepNext := ""
	if kind&keep != 0 {
		keepNext, kind = `<w:keepNext/>`, kind&^keep
	}
	var sb strings.Builder
	sb.WriteString("<w:tr>")
	trPr := `<w:cantSplit/>`
	if kind == sign {
		trPr += `<w:trHeight w:val="680"/>`
	}
	if kind == header {
		trPr += `<w:tblHeader/>`
	}
	sb.WriteString("<w:trPr>" + trPr + "</w:trPr>")
	for i, c := range cells {
		props := keepNext
		if kind == sub && i == 0 {
			props = `<w:ind w:left="284"/>`
		}
		if cols[i].right {
			props += `<w:jc w:val="right"/>`
		}
		style := "TableText"
		switch kind {
		case sign:
			style = "SignatureLine"
		case header:
			style = "TableHeading"
		case sub:
			style = "TableSubText"
		case subtotal, total:
			style = "TableTotal"
		}
		tcPr := `<w:tcW w:w="` + fmt.Sprint(cols[i].w) + `" w:type="dxa"/>`
		switch kind {
		case header:
			tcPr += `<w:shd w:val="clear" w:color="auto" w:fill="1F3864"/>`
		case sign:
			tcPr += `<w:tcBorders><w:top w:val="nil"/><w:bottom w:val="nil"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/><w:vAlign w:val="bottom"/>`
		}
		switch kind {
		case subtotal:
			tcPr += `<w:tcBorders><w:top w:val="single" w:sz="4" w:space="0" w:color="8EA9DB"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/>`
		case total:
			tcPr += `<w:tcBorders><w:top w:val="single" w:sz="8" w:space="0" w:color="1F3864"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/>`
		}
		sb.WriteString("<w:tc><w:tcPr>" + tcPr + "</w:tcPr>" + pp(style, props, c) + "</w:tc>")
	}
	sb.WriteString("</w:tr>")
	return sb.String()
}

func pageBreak() string { return `<w:p><w:r><w:br w:type="page"/></w:r></w:p>` }

// money is a figure path shown with the currency's symbol.
func money(path string) string { return r("{" + path + " | money}") }

func field(instr string) string {
	return `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> ` + instr +
		` </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`
}

func footer() string {
	return `<w:ftr ` + nsW + `>` +
		pp("Footer", `<w:tabs><w:tab w:val="right" w:pos="9360"/></w:tabs>`,
			r("{project.project_name} · "+footerTitle), `<w:r><w:tab/></w:r>`, r("Page "), field("PAGE"), r(" of "), field("NUMPAGES")) +
		`</w:ftr>`
}

const emptyFooter = `<w:ftr ` + nsW + `><w:p><w:pPr><w:pStyle w:val="Footer"/></w:pPr></w:p></w:ftr>`
