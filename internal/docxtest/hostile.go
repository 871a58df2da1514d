package docxtest

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
)

// Hostile templates: what an attacker uploads to exhaust a server.

const documentStart = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
	`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`

const documentEnd = `<w:sectPr/></w:body></w:document>`

// NestedParagraphs returns a DOCX whose body is a paragraph nested depth
// deep in paragraphs; every level holds a run of level's text when level
// is not empty (tags and all), the innermost the text "x".
func NestedParagraphs(depth int, level string) []byte {
	var run string
	if level != "" {
		var sb strings.Builder
		sb.WriteString(`<w:r><w:t xml:space="preserve">`)
		escape(&sb, level)
		sb.WriteString(`</w:t></w:r>`)
		run = sb.String()
	}
	var body strings.Builder
	body.Grow(depth * (len(run) + 11))
	body.WriteString(documentStart)
	for range depth {
		body.WriteString("<w:p>")
		body.WriteString(run)
	}
	body.WriteString(`<w:r><w:t>x</w:t></w:r>`)
	for range depth {
		body.WriteString("</w:p>")
	}
	body.WriteString(documentEnd)
	return Zip(map[string]string{"[Content_Types].xml": contentTypes, "_rels/.rels": rels, "word/document.xml": body.String()})
}

// Whitespace returns a DOCX whose document.xml holds n spaces: between the
// body's elements (where "body"), in the text of a paragraph without tags
// ("paragraph") or in the text of a paragraph with the tag
// {project.project_name} ("tagged"). The spaces are compressed as they are
// written, so building it takes little memory.
func Whitespace(n int, where string) []byte {
	var before, after string
	switch where {
	case "body":
		before, after = "", `<w:p><w:r><w:t>{project.project_name}</w:t></w:r></w:p>`
	case "paragraph":
		before, after = `<w:p><w:r><w:t xml:space="preserve">`, `</w:t></w:r></w:p><w:p><w:r><w:t>{project.project_name}</w:t></w:r></w:p>`
	default:
		before, after = `<w:p><w:r><w:t xml:space="preserve">{project.project_name}`, `</w:t></w:r></w:p>`
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range [][2]string{{"[Content_Types].xml", contentTypes}, {"_rels/.rels", rels}} {
		w, _ := zw.Create(e[0])
		io.WriteString(w, e[1]) //nolint:errcheck // in memory
	}
	w, _ := zw.Create("word/document.xml")
	io.WriteString(w, documentStart+before) //nolint:errcheck // in memory
	spaces := bytes.Repeat([]byte{' '}, 1<<20)
	for n > 0 {
		k := min(n, len(spaces))
		w.Write(spaces[:k]) //nolint:errcheck // in memory
		n -= k
	}
	io.WriteString(w, after+documentEnd) //nolint:errcheck // in memory
	zw.Close()
	return buf.Bytes()
}

// WithEntry returns a DOCX of one paragraph of text with one more zip
// entry, name holding content.
func WithEntry(text, name, content string) []byte {
	doc := documentStart + `<w:p><w:r><w:t xml:space="preserve">`
	var sb strings.Builder
	escape(&sb, text)
	doc += sb.String() + `</w:t></w:r></w:p>` + documentEnd
	return Zip(map[string]string{"[Content_Types].xml": contentTypes, "_rels/.rels": rels, "word/document.xml": doc, name: content})
}

func escape(sb *strings.Builder, s string) {
	sb.WriteString(strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s))
}
