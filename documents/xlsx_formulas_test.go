package documents_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// formulaBook is a workbook whose Items sheet has a header, a row loop
// over items (name, amount, a formula doubling the amount, a running
// total), a Total row summing the loop's row and a shared formula below
// it; a Summary sheet and a defined name refer to the total; the loop's
// row has a conditional format, a data validation and a hyperlink.
func formulaBook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	require.NoError(t, f.SetSheetName("Sheet1", "Items"))
	_, err := f.NewSheet("Summary")
	require.NoError(t, err)
	set := func(sheet, cell string, v any) { require.NoError(t, f.SetCellValue(sheet, cell, v)) }
	formula := func(sheet, cell, fx string, opts ...excelize.FormulaOpts) {
		require.NoError(t, f.SetCellFormula(sheet, cell, fx, opts...))
	}
	set("Items", "A1", "Item")
	set("Items", "B1", "Amount")
	set("Items", "A2", "{#items}{name}")
	set("Items", "B2", "{amount}")
	formula("Items", "C2", "B2*2")
	formula("Items", "D2", "SUM($B$2:B2)")
	set("Items", "E2", "{/items}")
	set("Items", "A3", "Total")
	formula("Items", "B3", "SUM(B2:B2)")
	shared := excelize.STCellFormulaTypeShared
	ref := "C3:C4"
	formula("Items", "C3", "B3+1", excelize.FormulaOpts{Type: &shared, Ref: &ref})
	formula("Items", "A5", `"B2 stays text: "&B3`)
	set("Summary", "A1", "Grand total")
	formula("Summary", "B1", "Items!B3*1")
	formula("Summary", "B2", "'Items'!B2")
	require.NoError(t, f.SetDefinedName(&excelize.DefinedName{Name: "Total", RefersTo: "Items!$B$3"}))
	style, err := f.NewConditionalStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	require.NoError(t, err)
	require.NoError(t, f.SetConditionalFormat("Items", "B2", []excelize.ConditionalFormatOptions{
		{Type: "cell", Criteria: ">", Format: &style, Value: "B$3/100"}}))
	dv := excelize.NewDataValidation(true)
	dv.Sqref = "B2:B2"
	require.NoError(t, dv.SetRange(0, 1000000, excelize.DataValidationTypeDecimal, excelize.DataValidationOperatorBetween))
	require.NoError(t, f.AddDataValidation("Items", dv))
	require.NoError(t, f.SetCellHyperLink("Items", "A2", "https://example.com/item", "External"))
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}

// items are n items of amounts 1000, 1100, ... (10 sum to 14,500).
func items(n int) map[string]any {
	var list []any
	for i := range n {
		list = append(list, map[string]any{"name": "Item " + string(rune('A'+i)), "amount": 1000 + 100*i})
	}
	return map[string]any{"items": list}
}

// Ensure formulas move as a spreadsheet moves them when a loop's row
// becomes ten: the Total's =SUM(B2:B2) sums the ten (B2:B11), a formula
// in the loop's row refers to its own copy's cells (a running total keeps
// its absolute start), a shared formula below and another sheet's and the
// defined name's references follow the Total down, text in strings stays,
// the conditional format, the data validation and the hyperlink cover
// each copy; with no items the sum's range is #REF!, as in a
// spreadsheet. Cached values are dropped and the workbook recalculates
// when opened.
func TestXLSXFormulasFollowRows(t *testing.T) {
	tpl := formulaBook(t)
	out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, items(10))
	require.NoError(t, err)
	f, err := excelize.OpenReader(bytes.NewReader(out))
	require.NoError(t, err)
	defer f.Close()
	fx := func(sheet, cell string) string {
		s, err := f.GetCellFormula(sheet, cell)
		require.NoError(t, err)
		return s
	}
	require.Equal(t, "SUM(B2:B11)", fx("Items", "B12"), "the Total sums the ten rows")
	require.Equal(t, "B2*2", fx("Items", "C2"))
	require.Equal(t, "B7*2", fx("Items", "C7"))
	require.Equal(t, "SUM($B$2:B11)", fx("Items", "D11"))
	require.Equal(t, "B12+1", fx("Items", "C12"))
	require.Equal(t, "B13+1", fx("Items", "C13"), "the shared formula's second cell, moved")
	require.Equal(t, `"B2 stays text: "&B12`, fx("Items", "A14"))
	require.Equal(t, "Items!B12*1", fx("Summary", "B1"))
	require.Equal(t, "'Items'!B2", fx("Summary", "B2"))
	names := f.GetDefinedName()
	require.Len(t, names, 1)
	require.Equal(t, "Items!$B$12", names[0].RefersTo)
	sheet := string(entry(t, out, "xl/worksheets/sheet1.xml"))
	require.Contains(t, sheet, `<conditionalFormatting sqref="B2:B11">`)
	require.Contains(t, sheet, `<formula>B$12/100</formula>`)
	require.Contains(t, sheet, `sqref="B2:B11"`)
	require.Equal(t, 10, strings.Count(sheet, "<hyperlink "), "the link repeats with its row")
	require.NotContains(t, sheet, "</f><v>", "no stale cached value")
	require.Contains(t, sheet, `<hyperlink r:id="rId1" ref="A11"/>`)
	require.Contains(t, string(entry(t, out, "xl/workbook.xml")), `fullCalcOnLoad="1"`)

	out, err = documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, items(0))
	require.NoError(t, err)
	f2, err := excelize.OpenReader(bytes.NewReader(out))
	require.NoError(t, err)
	defer f2.Close()
	s, err := f2.GetCellFormula("Items", "B2")
	require.NoError(t, err)
	require.Equal(t, "SUM(#REF!)", s)
	s, err = f2.GetCellFormula("Summary", "B1")
	require.NoError(t, err)
	require.Equal(t, "Items!B2*1", s)
	require.NotContains(t, string(entry(t, out, "xl/worksheets/sheet1.xml")), "<hyperlink ")
}

// Ensure LibreOffice computes the moved formulas: the Total of ten items
// is 14,500 (it printed the one row's 1,000 before), on the Summary
// sheet too (skipped without soffice).
func TestXLSXFormulasComputed(t *testing.T) {
	if _, err := exec.LookPath("soffice"); err != nil {
		t.Skip("LibreOffice not installed")
	}
	out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, formulaBook(t), items(10))
	require.NoError(t, err)
	dir := t.TempDir()
	in := filepath.Join(dir, "book.xlsx")
	require.NoError(t, writeFile(in, out))
	cmd := exec.Command("soffice", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"), "--headless",
		"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1", "--outdir", dir, in)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, string(msg))
	items := readFileString(t, filepath.Join(dir, "book-Items.csv"))
	require.Contains(t, items, "Total,14500,14501", items)
	require.Contains(t, items, "Item J,1900,3800,14500", items)
	require.Contains(t, readFileString(t, filepath.Join(dir, "book-Summary.csv")), "Grand total,14500")
}

func writeFile(name string, b []byte) error { return os.WriteFile(name, b, 0o600) }

func readFileString(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	require.NoError(t, err)
	return string(b)
}
