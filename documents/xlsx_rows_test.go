package documents_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// sheetOf is a workbook (xlsxTemplate's, whose first sheet is replaced)
// whose first sheet holds the rows and, after them, the tail
// (mergeCells).
func sheetOf(t *testing.T, rows, tail string) []byte {
	t.Helper()
	sheet := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="A1"/><sheetData>` +
		rows + `</sheetData>` + tail + `</worksheet>`
	return rezip(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml", sheet)
}

// row is a sheet row numbered n ("" for none) of inline string cells
// "A1=text" (a cell without "=" is written without a reference).
func row(n string, cells ...string) string {
	var sb strings.Builder
	if n == "" {
		sb.WriteString("<row>")
	} else {
		fmt.Fprintf(&sb, `<row r="%s">`, n)
	}
	for _, c := range cells {
		ref, text, ok := strings.Cut(c, "=")
		if !ok {
			ref, text = "", c
		}
		if ref != "" {
			ref = ` r="` + ref + `"`
		}
		fmt.Fprintf(&sb, `<c%s t="inlineStr"><is><t>%s</t></is></c>`, ref, xmlEsc.Replace(text))
	}
	sb.WriteString("</row>")
	return sb.String()
}

func renderSheet(t *testing.T, tpl []byte, data any) string {
	t.Helper()
	out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, data)
	require.NoError(t, err)
	return string(entry(t, out, "xl/worksheets/sheet1.xml"))
}

var mergeRE = regexp.MustCompile(`<mergeCell ref="([^"]+)"/>`)

// Ensure merged ranges follow their rows: a range on a loop's row is
// repeated with the row and left out with it, a range below moves with
// its rows, one across the loop stretches or shrinks, one ending on a row
// without a row element moves too, and the count follows (mergeCells is
// left out when no range is left). Excel reads the result.
func TestXLSXMerges(t *testing.T) {
	tpl := sheetOf(t, row("1", "A1=Head", "C1=side")+row("2", "A2={#list}{.}", "C2={/list}")+
		row("3", "A3=after", "B3=hidden?")+row("4", "A4=below")+row("6", "A6=last"),
		`<mergeCells count="4"><mergeCell ref="A2:B2"/><mergeCell ref="A4:B4"/><mergeCell ref="C1:C3"/><mergeCell ref="A5:B5"/></mergeCells>`)
	for _, tc := range []struct {
		name   string
		list   []any
		merges []string
		cells  []string
	}{
		{"two items", []any{"alpha", "beta"}, []string{"A2:B2", "A3:B3", "A5:B5", "C1:C4", "A6:B6"},
			[]string{`A2 type=5 format= "alpha"`, `A3 type=5 format= "beta"`, `A4 type=5 format= "after"`, `B4 type=5 format= "hidden?"`, `A7 type=5 format= "last"`}},
		{"no items", []any{}, []string{"A3:B3", "C1:C2", "A4:B4"},
			[]string{`A2 type=5 format= "after"`, `B2 type=5 format= "hidden?"`, `A3 type=5 format= "below"`, `A5 type=5 format= "last"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, map[string]any{"list": tc.list})
			require.NoError(t, err)
			sheet := string(entry(t, out, "xl/worksheets/sheet1.xml"))
			var got []string
			for _, m := range mergeRE.FindAllStringSubmatch(sheet, -1) {
				got = append(got, m[1])
			}
			require.ElementsMatch(t, tc.merges, got)
			require.Contains(t, sheet, fmt.Sprintf(`<mergeCells count="%d">`, len(tc.merges)))
			read := cells(t, out)
			for _, c := range tc.cells {
				require.Contains(t, read, c)
			}
		})
	}
	// a range on a loop's only row with no items: no mergeCells at all
	tpl = sheetOf(t, row("1", "A1={#list}{.}", "C1={/list}")+row("2", "A2=after"),
		`<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>`)
	sheet := renderSheet(t, tpl, map[string]any{"list": []any{}})
	require.NotContains(t, sheet, "mergeCell")
	require.Contains(t, sheet, `<row r="1"><c t="inlineStr" r="A1"><is><t>after</t></is></c></row>`)
}

// Ensure only plain decimals become number cells: merge data's figures
// do; an exponent, a leading zero, a negative zero or more digits than a
// spreadsheet keeps stay text as written.
func TestXLSXNumbers(t *testing.T) {
	tpl := sheetOf(t, row("1", "A1={v}"), "")
	for v, number := range map[string]bool{
		"1069.25": true, "-250": true, "3": true, "0": true, "0.00": true, "-0.5": true, "123456789012345": true,
		"1000000000000000000": true, "1E5": false, "1e400": false, "0.1e-400": false, "-0": false, "-0.00": false,
		"02139": false, "1234567890123456": false, ".5": false, "1.": false, "+3": false, "Globex": false,
	} {
		t.Run(v, func(t *testing.T) {
			sheet := renderSheet(t, tpl, map[string]any{"v": v})
			if number {
				require.Contains(t, sheet, `<c r="A1"><v>`+v+`</v></c>`)
			} else {
				require.Contains(t, sheet, `<c t="inlineStr" r="A1"><is><r><t xml:space="preserve">`+v+`</t></r></is></c>`)
			}
		})
	}
}

// Ensure a cell without a reference is named by its place (its column
// within the row, the row's number or place) in errors, and keeps that
// place when rendered.
func TestXLSXCellsWithoutReference(t *testing.T) {
	for _, tc := range []struct {
		name, rows, want string
	}{
		{"second cell", row("3", "x", "{#a >}"), "bad tag {#a >} in cell B3 of sheet1"},
		{"after a referenced cell", row("3", "C3=x", "{#a >}"), "in cell D3 of sheet1"},
		{"row without a number", row("2", "A2=x") + row("", "x", "y", "{#a >}"), "in cell C3 of sheet1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := documents.TagsFormat(context.Background(), documents.FormatXLSX, sheetOf(t, tc.rows, ""))
			requireInvalid(t, err, tc.want)
		})
	}
	sheet := renderSheet(t, sheetOf(t, row("1", "{#list}{.}", "{/list}")+row("2", "x", "{list.length}"), ""),
		map[string]any{"list": []any{"alpha", "beta"}})
	require.Contains(t, sheet, `<c t="inlineStr" r="A2"><is><r><t xml:space="preserve">beta</t></r></is></c>`)
	require.Contains(t, sheet, `<c r="B3"><v>2</v></c>`)
}

// Ensure a loop cannot push rows past a sheet's last row (1,048,576):
// the rendering fails saying so; up to the last row it renders.
func TestXLSXTooManyRows(t *testing.T) {
	tpl := sheetOf(t, row("1048575", "A1048575={#list}{.}", "B1048575={/list}"), "")
	sheet := renderSheet(t, tpl, map[string]any{"list": []any{"a", "b"}})
	require.Contains(t, sheet, `<row r="1048576">`)
	_, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, map[string]any{"list": []any{"a", "b", "c"}})
	requireInvalid(t, err, "the sheet rendered from xl/worksheets/sheet1.xml would have more than 1048576 rows")
}

// Ensure a sheet whose extent (last row times last column) passes 10⁸
// cells, or with a cell beyond column XFD, fails its rendering saying so
// (two cells at A1 and XFD1048576 kept LibreOffice 42 s on its PDF); up
// to the bound it renders.
func TestXLSXSheetExtent(t *testing.T) {
	for _, tc := range []struct{ name, rows, want string }{
		{"far corner", row("1", "A1={name}") + row("1048576", "XFD1048576=x"),
			"the sheet rendered from xl/worksheets/sheet1.xml reaches cell XFD1048576: 1048576 rows by 16384 columns is more than 100000000 cells"},
		{"a loop pushing wide rows down", row("1", "A1={#list}{.}", "CW1={/list}") + row("1000000", "CW1000000=x"),
			"reaches cell CW1000002: 1000002 rows by 101 columns"},
		{"beyond XFD", row("1", "XFE1={name}"), "has a cell beyond column XFD, a sheet's last"},
		{"far beyond XFD", row("1", "ZZZZZZZZZZZZZZZ1=x"), "has a cell beyond column XFD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, sheetOf(t, tc.rows, ""),
				map[string]any{"name": "Globex", "list": []any{"a", "b", "c"}})
			requireInvalid(t, err, tc.want)
		})
	}
	sheet := renderSheet(t, sheetOf(t, row("1", "A1={name}")+row("100000", "ALL100000=x"), ""), map[string]any{"name": "Globex"})
	require.Contains(t, sheet, `<dimension ref="A1:ALL100000"/>`, "10⁸ cells render")
}

// Ensure two loops over one table row, one after the other, are refused
// (they would fill the row with the second loop's items) in each format,
// as two sharing a paragraph are; loops nesting over one row still work.
func TestLoopsSharingARow(t *testing.T) {
	const want = "{#tags} in %s begins in the block where loop {#phases} of %s ends"
	cells := []string{"{#phases}{name}", "{/phases}{#tags}{.}", "{/tags}"}
	ctx := context.Background()
	_, err := documents.TagsFormat(ctx, documents.FormatXLSX, sheetOf(t, row("1", "A1="+cells[0], "B1="+cells[1], "C1="+cells[2])+row("2", "A2=after"), ""))
	requireInvalid(t, err, fmt.Sprintf(want, "cell B1 of sheet1", "cell A1 of sheet1"))
	_, err = documents.Tags(ctx, template(t, tbl(tr(tc(cells[0]), tc(cells[1]), tc(cells[2])))))
	requireInvalid(t, err, fmt.Sprintf(want, "paragraph 2", "paragraph 1"))
	var pcells []string
	for _, c := range cells {
		pcells = append(pcells, `<a:tc><a:txBody><a:p><a:r><a:t>`+c+`</a:t></a:r></a:p></a:txBody></a:tc>`)
	}
	_, err = documents.TagsFormat(ctx, documents.FormatPPTX, pptx(t, `<p:graphicFrame><a:graphic><a:graphicData><a:tbl><a:tr>`+
		strings.Join(pcells, "")+`</a:tr></a:tbl></a:graphicData></a:graphic></p:graphicFrame>`))
	requireInvalid(t, err, fmt.Sprintf(want, "paragraph 2 of slide 1", "paragraph 1 of slide 1"))
	// a row loop next to a loop over rows that begins in its row
	_, err = documents.Tags(ctx, template(t, tbl(tr(tc("{#phases}{name}"), tc("{/phases}{#tags}{.}")), tr(tc("x"), tc("{/tags}")))))
	requireInvalid(t, err, fmt.Sprintf(want, "paragraph 2", "paragraph 1"))

	out, err := documents.Render(ctx, template(t, tbl(tr(tc("{#phases}{#services}{name}"), tc("{hours}{/services}{/phases}")))), data())
	require.NoError(t, err)
	require.Equal(t, []string{"Assessment", "24.50", "Firewall deployment", "16.25"}, paragraphs(entry(t, out, "word/document.xml")))
}
