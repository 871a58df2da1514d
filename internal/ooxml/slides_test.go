package ooxml

import (
	"strings"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const slideNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// slide is a slide part of shapes.
func slide(shapes ...string) string {
	return `<?xml version="1.0"?><p:sld ` + slideNS + `><p:cSld><p:spTree>` + strings.Join(shapes, "") + `</p:spTree></p:cSld></p:sld>`
}

// shape is a text box, or a placeholder of type ph, of paragraphs.
func shape(ph string, paras ...string) string {
	nv := `<p:nvPr/>`
	if ph != "" {
		nv = `<p:nvPr><p:ph type="` + ph + `"/></p:nvPr>`
	}
	var b strings.Builder
	for _, p := range paras {
		b.WriteString(`<a:p><a:r><a:t>` + p + `</a:t></a:r></a:p>`)
	}
	return `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/>` + nv + `</p:nvSpPr><p:txBody><a:bodyPr/>` + b.String() + `</p:txBody></p:sp>`
}

// pptx is a presentation whose slides are the parts given, listed in the
// order of order (part names), which need not be theirs.
func pptx(slides map[string]string, order ...string) []byte {
	pres := `<?xml version="1.0"?><p:presentation ` + slideNS + ` xmlns:r="` + relNS + `"><p:sldIdLst>`
	rels := `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
	for i, name := range order {
		id := "rId" + string(rune('a'+i))
		pres += `<p:sldId id="` + string(rune('0'+i)) + `" r:id="` + id + `"/>`
		rels += `<Relationship Id="` + id + `" Type="slide" Target="slides/` + name + `"/>`
	}
	files := map[string]string{"ppt/presentation.xml": pres + `</p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels": rels + `</Relationships>`}
	for name, body := range slides {
		files["ppt/slides/"+name] = body
	}
	return docxtest.Zip(files)
}

// Ensure slides are read in the presentation's order, each under its
// title placeholder's text or its number, with text boxes and tables
// (merged cells kept as empty ones).
func TestPPTXMarkdown(t *testing.T) {
	table := `<p:graphicFrame><a:graphic><a:graphicData><a:tbl>` +
		`<a:tr><a:tc><a:txBody><a:p><a:r><a:t>Item</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Price</a:t></a:r></a:p></a:txBody></a:tc></a:tr>` +
		`<a:tr><a:tc gridSpan="2"><a:txBody><a:p><a:r><a:t>Total</a:t></a:r></a:p></a:txBody></a:tc><a:tc hMerge="1"><a:txBody><a:p/></a:txBody></a:tc></a:tr>` +
		`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`
	file := pptx(map[string]string{
		"slide1.xml": slide(shape("", "Second by order"), shape("title", "Prices"), table),
		"slide2.xml": slide(shape("ctrTitle", "Offer"), shape("subTitle", "for Globex"), shape("", "")),
		"slide3.xml": slide(shape("", "line one", "line two")),
	}, "slide2.xml", "slide1.xml", "slide3.xml")
	md, truncated, err := Markdown(file)
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, strings.Join([]string{
		"## Offer", "for Globex",
		"## Slide 2", "Second by order", "## Prices", "| Item | Price |\n| --- | --- |\n| Total |  |",
		"## Slide 3", "line one", "line two",
	}, "\n\n"), md)
}
