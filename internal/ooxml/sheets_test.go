package ooxml

import (
	"bytes"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// Ensure a workbook written by excelize reads as a table per visible
// sheet, in the workbook's order: strings, numbers, booleans, formulas'
// values, a "|" escaped, empty rows and hidden sheets left out.
func TestXLSXMarkdown(t *testing.T) {
	x := excelize.NewFile()
	require.NoError(t, x.SetSheetName("Sheet1", "Pricing"))
	require.NoError(t, x.SetSheetRow("Pricing", "A1", &[]any{"Item", "Amount", "Billable"}))
	require.NoError(t, x.SetSheetRow("Pricing", "A2", &[]any{"Firewall | VPN", 3250.5, true}))
	require.NoError(t, x.SetSheetRow("Pricing", "A4", &[]any{"Total"}))
	require.NoError(t, x.SetCellFormula("Pricing", "B4", "SUM(B2:B3)"))
	require.NoError(t, x.SetCellValue("Pricing", "B4", 3250.5)) // the value a spreadsheet program would cache
	_, err := x.NewSheet("Hidden")
	require.NoError(t, err)
	require.NoError(t, x.SetCellValue("Hidden", "A1", "secret"))
	require.NoError(t, x.SetSheetVisible("Hidden", false))
	_, err = x.NewSheet("Notes")
	require.NoError(t, err)
	require.NoError(t, x.SetCellValue("Notes", "C2", "far\nright"))
	var b bytes.Buffer
	require.NoError(t, x.Write(&b))

	md, truncated, err := Markdown(b.Bytes())
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, strings.Join([]string{
		"## Pricing", "| Item | Amount | Billable |\n| --- | --- | --- |\n| Firewall \\| VPN | 3250.5 | TRUE |\n| Total | 3250.5 |  |",
		"## Notes", "|  |  | far<br>right |\n| --- | --- | --- |",
	}, "\n\n"), md)
	assert.NotContains(t, md, "secret")
}

// workbook is an XLSX of one sheet whose sheetData is rows, with the
// shared strings sst.
func workbook(rows, sst string) []byte {
	return docxtest.Zip(map[string]string{
		"xl/workbook.xml": `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="` + relNS + `">` +
			`<sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="worksheet" Target="/xl/worksheets/sheet1.xml"/></Relationships>`,
		"xl/worksheets/sheet1.xml": `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`,
		"xl/sharedStrings.xml":     `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` + sst + `</sst>`,
	})
}

// Ensure rich shared strings are joined without their phonetic runs,
// inline strings and cells without a reference read, a bad shared index
// is empty, and a sheet wider than maxColumns is cut and says so.
func TestXLSXMarkdownEdges(t *testing.T) {
	md, truncated, err := Markdown(workbook(
		`<row r="1"><c t="s"><v>0</v></c><c t="inlineStr"><is><t>inline</t></is></c><c t="s"><v>9</v></c><c t="e"><v>#DIV/0!</v></c></row>`,
		`<si><r><t>Ka</t></r><r><t>nji</t></r><rPh><t>kana</t></rPh></si>`))
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, "## S\n\n| Kanji | inline |  | #DIV/0! |\n| --- | --- | --- | --- |", md)

	md, truncated, err = Markdown(workbook(`<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"><v>2</v></c><c r="ZZZZ1"><v>3</v></c></row>`, ""))
	require.NoError(t, err)
	assert.True(t, truncated, "the cell at XFD is past the table's columns")
	assert.Equal(t, "## S\n\n| 1 |\n| --- |", md)
}

// Ensure what is no Office file, or a broken one, is an error.
func TestMarkdownRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"not a zip":      []byte("PK nothing"),
		"another zip":    docxtest.Zip(map[string]string{"readme.txt": "hello"}),
		"broken sheet":   workbook(`<row><c>`, ""),
		"no sheet rels":  docxtest.Zip(map[string]string{"xl/workbook.xml": `<workbook/>`}),
		"broken slide":   pptx(map[string]string{"slide1.xml": "<p:sld>"}, "slide1.xml"),
		"missing slide":  pptx(map[string]string{}, "slide1.xml"),
		"broken strings": docxtest.Zip(map[string]string{"xl/workbook.xml": `<workbook/>`, "xl/_rels/workbook.xml.rels": `<Relationships/>`, "xl/sharedStrings.xml": "<sst><si>"}),
	} {
		_, _, err := Markdown(b)
		assert.Error(t, err, name)
	}
	_, _, err := Markdown([]byte("PK nothing"))
	assert.ErrorIs(t, err, ErrNotOffice)
}
