package documents_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// xlsxTemplate is a workbook template built with excelize: shared strings
// (one of them rich text with a tag split over two runs), an inline
// string, number formats on the figure cells, a merged title, and a row
// loop over phases and their services between a header and a total row.
func xlsxTemplate(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	const sh = "Sheet1"
	money, err := f.NewStyle(&excelize.Style{CustomNumFmt: ptr(`"$"#,##0.00`)})
	require.NoError(t, err)
	hours, err := f.NewStyle(&excelize.Style{NumFmt: 4}) // #,##0.00
	require.NoError(t, err)
	set := func(cell string, v any, style int) {
		require.NoError(t, f.SetCellValue(sh, cell, v))
		if style != 0 {
			require.NoError(t, f.SetCellStyle(sh, cell, cell, style))
		}
	}
	require.NoError(t, f.SetColWidth(sh, "A", "A", 40))
	require.NoError(t, f.SetColWidth(sh, "B", "C", 16))
	set("A1", "Services of {project.project_name}", 0)
	require.NoError(t, f.MergeCell(sh, "A1", "C1"))
	set("A2", "Service", 0)
	set("B2", "Hours", 0)
	set("C2", "Price", 0)
	set("A3", "{#phases}{#services}{name}", 0)
	set("B3", "{total_hours}", hours)
	set("C3", "{revenue}{/services}{/phases}", money)
	set("A4", "Total", 0)
	set("B4", "{project_pricing.professional_services.hours}", hours)
	set("C4", "{ project_pricing.total_contract_value }", money)
	require.NoError(t, f.SetCellRichText(sh, "A5", []excelize.RichTextRun{
		{Text: "Client: {project.", Font: &excelize.Font{Bold: true}}, {Text: "client_name}"}}))
	set("B5", 42, hours)
	set("A6", "{#locations}{name}; {/locations}", 0)
	set("A7", "{project.status}", 0)
	set("A8", "end", 0)
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	return inlineString(t, buf.Bytes(), "A7")
}

func ptr[T any](v T) *T { return &v }

// inlineString turns the shared-string cell ref of a workbook's first
// sheet into an inline string cell, as other programs write them.
func inlineString(t *testing.T, b []byte, ref string) []byte {
	f, err := excelize.OpenReader(bytes.NewReader(b))
	require.NoError(t, err)
	v, err := f.GetCellValue("Sheet1", ref)
	require.NoError(t, err)
	sheet := string(entry(t, b, "xl/worksheets/sheet1.xml"))
	i := strings.Index(sheet, `<c r="`+ref+`"`)
	require.GreaterOrEqual(t, i, 0)
	j := strings.Index(sheet[i:], "</c>") + i + 4
	sheet = sheet[:i] + `<c r="` + ref + `" t="inlineStr"><is><t>` + v + `</t></is></c>` + sheet[j:]
	return rezip(t, b, "xl/worksheets/sheet1.xml", sheet)
}

// cells lists every cell of a workbook's first sheet: its reference, type,
// number format and value, a line each; and the merged cells.
func cells(t *testing.T, b []byte) string {
	f, err := excelize.OpenReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer f.Close()
	rows, err := f.GetRows("Sheet1", excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	var sb strings.Builder
	for r, row := range rows {
		for c, v := range row {
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			typ, err := f.GetCellType("Sheet1", ref)
			require.NoError(t, err)
			style, _ := f.GetCellStyle("Sheet1", ref)
			format := ""
			if style != 0 {
				st, err := f.GetStyle(style)
				require.NoError(t, err)
				format = fmt.Sprint(st.NumFmt)
				if st.CustomNumFmt != nil {
					format = *st.CustomNumFmt
				}
			}
			if v == "" && format == "" {
				continue
			}
			fmt.Fprintf(&sb, "%s type=%d format=%s %q\n", ref, typ, format, v)
		}
	}
	merged, err := f.GetMergeCells("Sheet1")
	require.NoError(t, err)
	for _, m := range merged {
		fmt.Fprintf(&sb, "merged %s:%s\n", m.GetStartAxis(), m.GetEndAxis())
	}
	dim, err := f.GetSheetDimension("Sheet1")
	require.NoError(t, err)
	fmt.Fprintf(&sb, "dimension %s\n", dim)
	return sb.String()
}

// Ensure an XLSX template fills from the demo project: the row loop
// repeats its row per service and the rows below move down (the merged
// title and the dimension with them), a cell that was one tag resolving to
// a number is a number keeping its number format, text stays text, and a
// tag split over rich-text runs works.
func TestXLSXTemplate(t *testing.T) {
	tpl := xlsxTemplate(t)
	tags, err := documents.TagsFormat(context.Background(), documents.FormatXLSX, tpl)
	require.NoError(t, err)
	require.Equal(t, []string{"locations", "name", "phases", "project.client_name", "project.project_name", "project.status",
		"project_pricing.professional_services.hours", "project_pricing.total_contract_value", "revenue", "services", "total_hours"}, tags)
	data := mergedata.BuildV2(mustEnv(t).demo(), now)
	out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, data)
	require.NoError(t, err)
	golden(t, "xlsx_template.cells", []byte(cells(t, out)))
	// a loop with no items leaves no row: the rows below move up
	data.Phases = nil
	out, err = documents.RenderFormat(context.Background(), documents.FormatXLSX, tpl, data)
	require.NoError(t, err)
	golden(t, "xlsx_template_empty.cells", []byte(cells(t, out)))
}

// Ensure a PPTX template's loops repeat paragraphs and table rows, and
// values keep the formatting of their tag's run.
func TestPPTXTemplate(t *testing.T) {
	tpl := pptx(t,
		`<p:sp><p:txBody><a:bodyPr/>`+
			`<a:p><a:r><a:rPr b="1"/><a:t>{project.</a:t></a:r><a:r><a:t>project_name} for {project.client_name}</a:t></a:r></a:p>`+
			`<a:p><a:r><a:t>{#phases}</a:t></a:r></a:p>`+
			`<a:p><a:r><a:t>Phase {name}: {#services}{name}, {/services}</a:t></a:r></a:p>`+
			`<a:p><a:r><a:t>{/phases}</a:t></a:r></a:p>`+
			`<a:p><a:r><a:t>{project.executive_summary}</a:t></a:r></a:p></p:txBody></p:sp>`+
			`<p:graphicFrame><a:graphic><a:graphicData><a:tbl>`+
			`<a:tr><a:tc><a:txBody><a:p><a:r><a:t>Service</a:t></a:r></a:p></a:txBody></a:tc><a:tc><a:txBody><a:p><a:r><a:t>Hours</a:t></a:r></a:p></a:txBody></a:tc></a:tr>`+
			`<a:tr><a:tc><a:txBody><a:p><a:r><a:t>{#phases}{#services}{name}</a:t></a:r></a:p></a:txBody></a:tc>`+
			`<a:tc><a:txBody><a:p><a:r><a:t>{total_hours}{/services}{/phases}</a:t></a:r></a:p></a:txBody></a:tc></a:tr>`+
			`</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`)
	e := mustEnv(t)
	data := mergedata.BuildV2(e.demo(), now)
	data.Project.ExecutiveSummary = "Line one\nLine two"
	out, err := documents.RenderFormat(context.Background(), documents.FormatPPTX, tpl, data)
	require.NoError(t, err)
	golden(t, "pptx_template.slide1.xml", entry(t, out, "ppt/slides/slide1.xml"))
	golden(t, "pptx_template.text", []byte(strings.Join(slidesText(t, out), "\n----\n")+"\n"))
}

const pNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// pptx is a minimal PPTX whose first slide's shape tree holds shapes.
func pptx(t testing.TB, shapes string) []byte {
	return docx(t, "ppt/presentation.xml", `<p:presentation `+pNS+`/>`,
		"ppt/slides/slide1.xml", `<p:sld `+pNS+`><p:cSld><p:spTree>`+shapes+`</p:spTree></p:cSld></p:sld>`)
}

// Ensure uploads of each format are refused for what is not a file of the
// format, a bad zip, and a malformed tag, naming the slide's paragraph or
// the cell.
func TestOfficeTemplateRefusals(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		format string
		file   []byte
		want   string
	}{
		{"pptx", []byte("PK not a zip"), "the template is not a PPTX file (not a zip archive)"},
		{"xlsx", []byte("PK not a zip"), "the template is not a XLSX file (not a zip archive)"},
		{"pptx", template(t, p("x")), "the template is not a PPTX file (no ppt/presentation.xml)"},
		{"xlsx", documents.StandardProposal(), "the template is not a XLSX file (no xl/workbook.xml)"},
		{"docx", documents.StandardProposal(), "the template is not a DOCX file (no word/document.xml)"},
		{"pptx", pptx(t, `<p:sp><p:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p><a:p><a:r><a:t>{#phases}</a:t></a:r></a:p></p:txBody></p:sp>`),
			"unclosed loop {#phases} in paragraph 2 of slide 1"},
		{"xlsx", rezip(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml", strings.Replace(string(entry(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml")),
			`<c r="A8" t="s"><v>`, `<c r="A8" t="inlineStr"><is><t>{#total &gt;}</t></is><v>`, 1)),
			"bad tag {#total >} in cell A8 of sheet1: incomplete expression"},
		{"pptx", docx(t, "ppt/presentation.xml", "<p/>", "../evil", "x"), `unsafe name`},
	}
	for _, c := range cases {
		_, err := documents.TagsFormat(ctx, c.format, c.file)
		require.Error(t, err, c.want)
		require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), c.want)
		require.Contains(t, err.Error(), c.want)
	}
	_, err := documents.TagsFormat(ctx, "odt", template(t, p("x")))
	require.Contains(t, err.Error(), `unknown template format "odt"`)
	require.Equal(t, "pptx", documents.Detect(documents.StandardProposal()))
	require.Equal(t, "xlsx", documents.Detect(xlsxTemplate(t)))
	require.Equal(t, "docx", documents.Detect(documents.StandardSOW()))
}

// Ensure an XLSX filled from a template converts to PDF (skipped without
// LibreOffice with its calc package, and poppler).
func TestXLSXTemplatePDF(t *testing.T) {
	e := mustEnv(t)
	out, err := documents.RenderFormat(context.Background(), documents.FormatXLSX, xlsxTemplate(t), mergedata.BuildV2(e.demo(), now))
	require.NoError(t, err)
	_, txt := pdfText(t, out)
	for _, want := range []string{"Firewall deployment", "$10,794.25", "Client: Globex Corporation"} {
		require.Contains(t, txt, want)
	}
}

// rezip returns the zip b with the entry name's content replaced.
func rezip(t testing.TB, b []byte, name, content string) []byte {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	var entries []string
	for _, f := range zr.File {
		data := content
		if f.Name != name {
			data = string(entry(t, b, f.Name))
		}
		entries = append(entries, f.Name, data)
	}
	return docx(t, entries...)
}
