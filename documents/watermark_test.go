package documents_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// part reads a part of a zip file.
func part(t *testing.T, file []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == name {
			rc, err := f.Open()
			require.NoError(t, err)
			b, _ := io.ReadAll(rc)
			rc.Close()
			return string(b)
		}
	}
	t.Fatalf("no part %s", name)
	return ""
}

// twoSheets is a workbook of two sheets, one with a footer of its own.
func twoSheets(t *testing.T) []byte {
	f := excelize.NewFile()
	require.NoError(t, f.SetCellValue("Sheet1", "A1", "Figures"))
	_, err := f.NewSheet("Second")
	require.NoError(t, err)
	require.NoError(t, f.SetCellValue("Second", "A1", "More"))
	require.NoError(t, f.SetHeaderFooter("Second", &excelize.HeaderFooterOptions{OddFooter: "&CPage &P"}))
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	return buf.Bytes()
}

// Ensure the draft watermark in each format: every header of a DOCX (the
// sections' own, and one added where a section has none of a kind),
// every slide of a PPTX, every sheet's header of an XLSX; the result
// opens (and with LibreOffice, every page of its PDF says DRAFT).
func TestWatermarkDraft(t *testing.T) {
	sow, err := documents.WatermarkDraft(documents.FormatDOCX, documents.StandardSOW())
	require.NoError(t, err)
	doc := part(t, sow, "word/document.xml")
	for _, kind := range []string{"default", "first", "even"} {
		require.Contains(t, doc, `<w:headerReference w:type="`+kind+`" r:id="rIdScopeKitDraft"/>`)
	}
	require.Contains(t, part(t, sow, "word/header_scopekit_draft.xml"), `string="DRAFT"`)
	require.Contains(t, part(t, sow, "[Content_Types].xml"), "/word/header_scopekit_draft.xml")
	_, err = documents.TagsFormat(context.Background(), documents.FormatDOCX, sow)
	require.NoError(t, err, "still a DOCX the engine reads")

	deck, err := documents.WatermarkDraft(documents.FormatPPTX, documents.StandardProposal())
	require.NoError(t, err)
	for _, s := range []string{"ppt/slides/slide1.xml", "ppt/slides/slide2.xml"} {
		require.Contains(t, part(t, deck, s), `<a:t>DRAFT</a:t>`)
	}
	book, err := documents.WatermarkDraft(documents.FormatXLSX, twoSheets(t))
	require.NoError(t, err)
	for _, s := range []string{"xl/worksheets/sheet1.xml", "xl/worksheets/sheet2.xml"} {
		require.Contains(t, part(t, book, s), `DRAFT</oddHeader>`)
	}
	_, err = excelize.OpenReader(bytes.NewReader(book))
	require.NoError(t, err)
	_, err = documents.WatermarkDraft("odt", sow)
	require.Error(t, err)

	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed")
	}
	conv := officetest.Cold(t)
	pdf, err := conv.ToPDF(context.Background(), book)
	require.NoError(t, err)
	keep(t, "draft-book.pdf", pdf)
	pages := strings.Split(strings.TrimRight(pdfToText(t, pdf), "\f\n"), "\f")
	require.Len(t, pages, 2)
	for i, p := range pages {
		require.Contains(t, p, "DRAFT", "the workbook's page %d", i+1)
	}
	// a DOCX's watermark is a shape, and a slide's word is turned: drawn
	// rather than read as text, so every page of the marked file differs
	// from the same page unmarked in many pixels, wherever the word falls
	// (on a light background or a dark table row); the watermark adds no
	// page
	for name, files := range map[string][2][]byte{"sow": {documents.StandardSOW(), sow}, "deck": {documents.StandardProposal(), deck}} {
		plain, err := conv.ToPDF(context.Background(), files[0])
		require.NoError(t, err)
		marked, err := conv.ToPDF(context.Background(), files[1])
		require.NoError(t, err)
		keep(t, "draft-"+name+".pdf", marked)
		a, b := greyPages(t, plain), greyPages(t, marked)
		require.Equal(t, len(a), len(b), "%s: the same pages", name)
		for i := range a {
			require.Equal(t, len(a[i]), len(b[i]), "%s page %d: the same size", name, i+1)
			changed := 0
			for j := range a[i] {
				if d := int(a[i][j]) - int(b[i][j]); d > 16 || d < -16 {
					changed++
				}
			}
			require.Greater(t, changed, 1000, "%s page %d: %d pixels changed by the watermark", name, i+1, changed)
		}
	}
}

func keep(t *testing.T, name string, b []byte) {
	if dir := os.Getenv("SCOPEKIT_KEEP_DOCS"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
}

// greyPages renders each page of a PDF in grey at 30 dpi and returns
// each page's pixels.
func greyPages(t *testing.T, pdf []byte) [][]byte {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "d.pdf")
	require.NoError(t, os.WriteFile(in, pdf, 0o600))
	out, err := exec.Command("pdftoppm", "-r", "30", "-gray", in, filepath.Join(dir, "p")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	files, err := filepath.Glob(filepath.Join(dir, "p-*.pgm"))
	require.NoError(t, err)
	var pages [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		// P5 <w> <h> 255 and the pixels
		fields, rest := 0, b
		for fields < 4 {
			i := bytes.IndexAny(rest, " \n")
			if i > 0 {
				fields++
			}
			rest = rest[i+1:]
		}
		pages = append(pages, rest)
	}
	return pages
}
