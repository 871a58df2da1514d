package documents_test

import (
	"archive/zip"
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// The fixtures: minimal DOCX files built here from WordprocessingML
// snippets, so every test says exactly which runs and paragraphs it has.

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

// r is a run; props are run properties markup ("<w:b/>").
func r(text string, props ...string) string {
	pr := ""
	if len(props) > 0 {
		pr = "<w:rPr>" + strings.Join(props, "") + "</w:rPr>"
	}
	return "<w:r>" + pr + `<w:t xml:space="preserve">` + xmlEsc.Replace(text) + "</w:t></w:r>"
}

var xmlEsc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// p is a paragraph; a content item not starting with "<" is one run.
func p(content ...string) string {
	var sb strings.Builder
	sb.WriteString("<w:p>")
	for _, c := range content {
		if !strings.HasPrefix(c, "<") {
			c = r(c)
		}
		sb.WriteString(c)
	}
	sb.WriteString("</w:p>")
	return sb.String()
}

// tbl is a table of rows; tr a row of cells; tc a cell of paragraphs (a
// plain string is one paragraph of one run).
func tbl(rows ...string) string { return "<w:tbl><w:tblPr/>" + strings.Join(rows, "") + "</w:tbl>" }
func tr(cells ...string) string { return "<w:tr>" + strings.Join(cells, "") + "</w:tr>" }
func tc(paras ...string) string {
	var sb strings.Builder
	sb.WriteString("<w:tc>")
	for _, x := range paras {
		if !strings.HasPrefix(x, "<") {
			x = p(x)
		}
		sb.WriteString(x)
	}
	sb.WriteString("</w:tc>")
	return sb.String()
}

// documentXML wraps body blocks in a document.
func documentXML(blocks ...string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:document ` + wNS + `><w:body>` + strings.Join(blocks, "") + `<w:sectPr/></w:body></w:document>`
}

// docx zips a minimal DOCX: the given entries (name, content) plus the
// package parts Word needs, unless given.
func docx(t testing.TB, entries ...string) []byte {
	t.Helper()
	files := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
	}
	order := []string{"[Content_Types].xml", "_rels/.rels"}
	for i := 0; i+1 < len(entries); i += 2 {
		if _, ok := files[entries[i]]; !ok {
			order = append(order, entries[i])
		}
		files[entries[i]] = entries[i+1]
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range order {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = io.WriteString(w, files[name])
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// template is a DOCX whose body is blocks.
func template(t testing.TB, blocks ...string) []byte {
	return docx(t, "word/document.xml", documentXML(blocks...))
}

// entry returns one entry of a zip.
func entry(t testing.TB, b []byte, name string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			require.NoError(t, err)
			defer rc.Close()
			data, err := io.ReadAll(rc)
			require.NoError(t, err)
			return data
		}
	}
	t.Fatalf("no %s in the zip", name)
	return nil
}

var (
	paraRE = regexp.MustCompile(`(?s)<w:p(?: [^>]*)?>.*?</w:p>|<w:p(?: [^>]*)?/>`)
	tokRE  = regexp.MustCompile(`(?s)<w:t[ >][^<]*</w:t>|<w:br/>|<w:tab/>|<w:tr[ >]|<w:tc[ >]`)
)

// plain returns the text of a document part as lines: one per paragraph,
// "|" before each table cell, a new line per table row, "⏎" for a line
// break and "→" for a tab.
func plain(xml []byte) string {
	var sb strings.Builder
	for _, m := range tokRE.FindAll(xml, -1) {
		s := string(m)
		switch {
		case s == "<w:br/>":
			sb.WriteString("⏎")
		case s == "<w:tab/>":
			sb.WriteString("→")
		case strings.HasPrefix(s, "<w:tr"):
			sb.WriteString("\n")
		case strings.HasPrefix(s, "<w:tc"):
			sb.WriteString("|")
		default:
			s = s[strings.Index(s, ">")+1 : len(s)-len("</w:t>")]
			sb.WriteString(strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(s))
		}
	}
	return sb.String()
}

// paragraphs returns the text of each paragraph of a part, in order.
func paragraphs(xml []byte) []string {
	var out []string
	for _, m := range paraRE.FindAll(xml, -1) {
		out = append(out, plain(m))
	}
	return out
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./documents -update to create the golden file")
	require.Equal(t, string(want), string(got), "rendered %s differs from the golden file (go test ./documents -update rewrites it)", name)
}
