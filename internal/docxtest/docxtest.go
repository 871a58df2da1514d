// Package docxtest builds minimal DOCX files for tests (internal/ooxml's
// Markdown reads the text back out of generated ones).
package docxtest

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
	`</Types>`

const rels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
	`</Relationships>`

// Build returns a DOCX whose body is one paragraph per string, each in one
// run (the text is XML-escaped, tags and all).
func Build(paragraphs ...string) []byte {
	var body strings.Builder
	for _, p := range paragraphs {
		body.WriteString(`<w:p><w:r><w:t xml:space="preserve">`)
		xml.EscapeText(&body, []byte(p)) //nolint:errcheck // a strings.Builder does not fail
		body.WriteString(`</w:t></w:r></w:p>`)
	}
	return Raw(body.String(), nil)
}

// Raw returns a DOCX whose body is the WordprocessingML body (w: and r:
// are declared), with the further entries parts (name to content).
func Raw(body string, parts map[string]string) []byte {
	doc := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
		`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>` +
		body + `<w:sectPr/></w:body></w:document>`
	files := map[string]string{"[Content_Types].xml": contentTypes, "_rels/.rels": rels, "word/document.xml": doc}
	for name, content := range parts {
		files[name] = content
	}
	return Zip(files)
}

// Zip returns a zip archive of the named files, in name order.
func Zip(files map[string]string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels", "word/document.xml"} {
		if content, ok := files[name]; ok {
			w, _ := zw.Create(name)
			io.WriteString(w, content) //nolint:errcheck // in memory
		}
	}
	for name, content := range files {
		switch name {
		case "[Content_Types].xml", "_rels/.rels", "word/document.xml":
			continue
		}
		w, _ := zw.Create(name)
		io.WriteString(w, content) //nolint:errcheck // in memory
	}
	zw.Close()
	return buf.Bytes()
}
