package ooxml

import (
	"strings"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// docx builds a DOCX of a body and, when not empty, a styles part.
func docx(body, styles string) []byte {
	files := map[string]string{"word/document.xml": `<?xml version="1.0"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`}
	if styles != "" {
		files["word/styles.xml"] = `<?xml version="1.0"?><w:styles ` + wordNS + `>` + styles + `</w:styles>`
	}
	return docxtest.Zip(files)
}

func para(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t>` + text + `</w:t></w:r></w:p>`
}

func cell(inner string) string { return `<w:tc>` + inner + `</w:tc>` }

// Ensure headings, paragraphs, list items and tables come out as
// Markdown, whatever the heading styles are called, and what is not text
// stays out.
func TestDocxMarkdown(t *testing.T) {
	styles := `<w:style w:styleId="Titel"><w:name w:val="Title"/></w:style>` +
		`<w:style w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>` +
		`<w:style w:styleId="Chapter"><w:name w:val="Chapter"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>`
	body := para("Titel", "Offer") + para("", "") + para("berschrift1", "Scope") +
		para("Chapter", "Details") +
		`<w:p><w:pPr><w:outlineLvl w:val="3"/></w:pPr><w:r><w:t>Deep</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t xml:space="preserve">Two </w:t></w:r><w:r><w:t>runs</w:t><w:tab/><w:t>a tab</w:t><w:br/><w:t>a break</w:t><w:br w:type="page"/></w:r></w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>An item</w:t></w:r></w:p>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice><w:t>shown</w:t></mc:Choice><mc:Fallback><w:t>hidden</w:t></mc:Fallback></mc:AlternateContent></w:r>` +
		`<w:r><w:delText>deleted</w:delText></w:r></w:p>` +
		`<w:p><w:r><w:t>Outer</w:t><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></w:r></w:p>` +
		`<w:tbl><w:tr>` + cell(para("", "Item")) + cell(para("", "Amount")) + `</w:tr>` +
		`<w:tr>` + cell(para("", "A | B")+para("", "second line")) + cell(para("", "$5")) + `</w:tr>` +
		`<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr>` + para("", "Total") + `</w:tc></w:tr>` +
		`<w:tr>` + cell(`<w:tbl><w:tr>`+cell(para("", "in"))+`</w:tr></w:tbl>`) + `</w:tr></w:tbl>` +
		`<w:tbl></w:tbl>` + para("", "After")
	md, truncated, err := Markdown(docx(body, styles))
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, strings.Join([]string{
		"# Offer", "## Scope", "### Details", "##### Deep", "Two runs a tab<br>a break", "- An item", "shown", "Outer boxed",
		"| Item | Amount |\n| --- | --- |\n| A \\| B<br>second line | $5 |\n| Total |  |\n| \\| in \\|<br>\\| --- \\| |  |",
		"After",
	}, "\n\n"), md)
}

// Ensure a DOCX without styles reads by the built-in style ids, a long
// text is cut at a line, and what is no DOCX is an error.
func TestDocxMarkdownEdges(t *testing.T) {
	md, _, err := Markdown(docx(para("Heading2", "Plain"), ""))
	require.NoError(t, err)
	assert.Equal(t, "Plain", md, "without styles.xml no style is a heading")

	long := strings.Repeat(para("", strings.Repeat("x", 1000)), maxMarkdownBytes/1000+10)
	md, truncated, err := Markdown(docx(long, ""))
	require.NoError(t, err)
	assert.True(t, truncated)
	assert.LessOrEqual(t, len(md), maxMarkdownBytes)
	assert.True(t, strings.HasSuffix(md, "x"), "cut at the end of a line")

	for name, b := range map[string][]byte{
		"not a zip":        []byte("PK nothing"),
		"no document part": docxtest.Zip(map[string]string{"word/other.xml": "<x/>"}),
		"broken XML":       docxtest.Zip(map[string]string{"word/document.xml": "<w:document><w:body>"}),
		"broken styles":    docx(para("", "x"), "<w:style"),
	} {
		_, _, err := Markdown(b)
		assert.Error(t, err, name)
	}
}
