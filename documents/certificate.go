package documents

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// CertificatePDF writes a one-column certificate as a PDF of its own
// making (no converter needed, so an acceptance never waits for
// LibreOffice): the title, then each row's label and value, values
// wrapped to the column and continued on further pages. The text is set
// in the PDF standard fonts Helvetica and Helvetica-Bold, which every
// reader has; a character they cannot show (outside Windows-1252) prints
// as "?" (the record it is made from keeps the text exactly).
func CertificatePDF(title string, rows [][2]string) ([]byte, error) {
	var (
		pageW, pageH     = 612.0, 792.0 // US Letter, in points
		left, top, foot  = 60.0, 720.0, 60.0
		labelW, valueX   = 150.0, 215.0
		size, lead       = 9.5, 13.0
		valueW           = pageW - valueX - left
		approxCharWidths = 0.56 // of the font size: Helvetica's widest common glyphs
	)
	charW := size * approxCharWidths
	perLine, labelChars := int(valueW/charW), int(labelW/charW)
	var pages [][]byte
	var b bytes.Buffer
	y := top
	newPage := func() {
		if b.Len() > 0 {
			pages = append(pages, bytes.Clone(b.Bytes()))
		}
		b.Reset()
		y = top
	}
	text := func(font string, pt, x, y float64, s string) {
		fmt.Fprintf(&b, "BT /%s %.1f Tf %.2f %.2f Td (%s) Tj ET\n", font, pt, x, y, pdfString(s))
	}
	text("F2", 18, left, y, title)
	y -= 14
	fmt.Fprintf(&b, "0.12 0.22 0.39 RG 1.2 w %.2f %.2f m %.2f %.2f l S\n", left, y, pageW-left, y)
	y -= 24
	for _, r := range rows {
		lines := wrapText(r[1], perLine)
		if y-float64(len(lines))*lead < foot {
			newPage()
		}
		text("F2", size, left, y, clip(r[0], labelChars))
		for _, l := range lines {
			if y < foot {
				newPage()
			}
			text("F1", size, valueX, y, l)
			y -= lead
		}
		y -= 5
	}
	pages = append(pages, bytes.Clone(b.Bytes()))
	return assemblePDF(pages, pageW, pageH)
}

// wrapText breaks s into lines of at most n characters, at spaces where it can
// and inside a word longer than a line (a digest); newlines are kept.
func wrapText(s string, n int) []string {
	var out []string
	for _, para := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			for len([]rune(w)) > n {
				if line != "" {
					out, line = append(out, line), ""
				}
				r := []rune(w)
				out, w = append(out, string(r[:n])), string(r[n:])
			}
			switch {
			case line == "":
				line = w
			case len([]rune(line))+1+len([]rune(w)) <= n:
				line += " " + w
			default:
				out, line = append(out, line), w
			}
		}
		out = append(out, line)
	}
	return out
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// pdfString is s in Windows-1252 as the body of a PDF literal string.
func pdfString(s string) string {
	var b strings.Builder
	enc := charmap.Windows1252
	for _, r := range s {
		c, ok := enc.EncodeRune(r)
		if !ok || (c < 0x20 && c != '\t') {
			c = '?'
		}
		switch c {
		case '(', ')', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			if c >= 0x80 {
				fmt.Fprintf(&b, "\\%03o", c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// assemblePDF writes the PDF file of the pages' content streams: a
// catalog, a page tree, the two fonts, and each page with its stream.
func assemblePDF(pages [][]byte, w, h float64) ([]byte, error) {
	var out bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, out.Len())
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	out.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	n := len(pages)
	// 1 catalog, 2 pages, 3-4 fonts, then page and content pairs
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	for i, content := range pages {
		footer := fmt.Sprintf("BT /F1 8 Tf 60 36 Td (%s) Tj ET\n", pdfString(fmt.Sprintf("ScopeKit acceptance certificate · page %d of %d", i+1, n)))
		stream := string(content) + footer
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.0f %.0f] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>",
			w, h, 6+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(stream), stream))
	}
	xref := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return out.Bytes(), nil
}
