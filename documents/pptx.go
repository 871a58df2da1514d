package documents

import (
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
	value: func(w *out, d *dialect, rPr *node, s string) { textRuns(w, d, rPr, s, "<a:br/>") }}
