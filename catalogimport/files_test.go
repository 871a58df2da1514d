package catalogimport_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/catalogimport/catalogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// Ensure CSV files are read as a team saves them: a byte order mark,
// semicolons, quoted fields over several lines; one file names its sheet,
// a zip names each by its file name.
func TestCSVFiles(t *testing.T) {
	e := newEnv(t)
	csv := "\xef\xbb\xbfName;Position;SOW language\nPlan;1;\"Two\nlines\"\nBuild;2;\n"
	rep, err := e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte(csv)}, false)
	require.NoError(t, err, problems(rep))
	assert.Equal(t, 2, rep.Sheets["phases"].Created)
	assert.Contains(t, e.dump("acme"), "sow-language=Two\nlines")

	z := zipOf(t, "export/Resources.csv", "Name,Hourly rate\nEngineer,200\n", "__MACOSX/._Resources.csv", "junk",
		"rate_tables.csv", "Name,Currency,Default\nStandard,usd,yes\n", "rates.csv", "Rate table,Resource,Hourly rate\nStandard,Engineer,180\n")
	rep, err = e.importFile("acme", catalogimport.File{Format: catalogimport.ZipCSV, Data: z}, false)
	require.NoError(t, err, problems(rep))
	assert.Equal(t, 1, rep.Sheets["rates"].Created)
	assert.Contains(t, e.dump("acme"), "currency=USD default=true name=Standard")

	// the row number is the line a row starts on
	bad := "Name,Position\n\"A\nB\",x\n"
	rep, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "Phases", Data: []byte(bad)}, true)
	require.NoError(t, err)
	assert.Contains(t, problems(rep), `Phases row 2, Position (B2): "x" is not a number`)

	for name, tc := range map[string]struct {
		f    catalogimport.File
		code string
		msg  string
	}{
		"no sheet":     {catalogimport.File{Format: catalogimport.CSV, Data: []byte("Name\nX\n")}, scopekit.EINVALID, "a CSV file holds one sheet"},
		"latin-1":      {catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte("Name\nCaf\xe9\n")}, scopekit.EINVALID, "not UTF-8"},
		"broken quote": {catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte("Name\n\"X\"Y\n")}, scopekit.EINVALID, "line 2 is not valid CSV"},
		"not a zip":    {catalogimport.File{Format: catalogimport.ZipCSV, Data: []byte("Name\nX\n")}, scopekit.EINVALID, "not a zip of CSV files"},
		"zip of txt":   {catalogimport.File{Format: catalogimport.ZipCSV, Data: zipOf(t, "notes.txt", "hi")}, scopekit.EINVALID, "it may hold only .csv files"},
		"empty":        {catalogimport.File{Format: catalogimport.XLSX}, scopekit.EINVALID, "the file is empty"},
		"not xlsx":     {catalogimport.File{Format: catalogimport.XLSX, Data: []byte("Name\nX\n")}, scopekit.EINVALID, "not an XLSX workbook"},
		"zip not xlsx": {catalogimport.File{Format: catalogimport.XLSX, Data: zipOf(t, "phases.csv", "Name\n")}, scopekit.EINVALID, "not an XLSX workbook"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := e.importFile("acme", tc.f, true)
			require.Equal(t, tc.code, scopekit.ErrorCode(err), "%v", err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// Ensure a formula is refused, naming its cell, whatever its cached value
// (none included), and a CSV cell that starts with = too.
func TestFormulasRefused(t *testing.T) {
	e := newEnv(t)
	f := excelize.NewFile()
	require.NoError(t, f.SetSheetName("Sheet1", "Resources"))
	require.NoError(t, f.SetSheetRow("Resources", "A1", &[]any{"Name", "Hourly rate", "Hourly cost"}))
	require.NoError(t, f.SetSheetRow("Resources", "A2", &[]any{"Engineer", 200}))
	require.NoError(t, f.SetCellFormula("Resources", "C2", "B2*0.45"))
	require.NoError(t, f.SetCellFormula("Resources", "C9", "B2*2")) // past the last row with a value
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	rep, err := e.importFile("acme", xlsx(buf.Bytes()), false)
	require.NotNil(t, rep, "%v", err)
	got := problems(rep)
	assert.Contains(t, got, "Resources row 2, Hourly cost (C2): a formula: the import reads values only")
	assert.Contains(t, got, "Resources row 9, Hourly cost (C9): a formula")
	assert.Equal(t, "", e.dump("acme"))

	rep, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "resources",
		Data: []byte("Name,Hourly rate\n\"=HYPERLINK(\"\"x\"\")\",1\n")}, false)
	require.NotNil(t, rep, "%v", err)
	assert.Contains(t, problems(rep), "resources row 2, Name (A2): a formula")
}

// Ensure files over the limits are refused before they are parsed: a
// sheet that unzips to 100 MB, a zip bomb, an entry that unzips past its
// declared size, too many rows.
func TestLimits(t *testing.T) {
	e := newEnv(t)
	tpl, err := catalogimport.Template(e.svc.Schema(), catalogimport.XLSX)
	require.NoError(t, err)

	// a sheet of 100 MB (a few hundred KB zipped)
	huge := catalogtest.HugeSheet(t, tpl)
	require.Less(t, len(huge), catalogimport.MaxFileBytes)
	_, err = e.importFile("acme", xlsx(huge), true)
	require.Equal(t, scopekit.ETOOLARGE, scopekit.ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "xl/worksheets/sheet1.xml alone is")

	// a zip bomb of CSV
	bomb := catalogtest.ZipBomb(t, "phases.csv", 200<<20)
	_, err = e.importFile("acme", catalogimport.File{Format: catalogimport.ZipCSV, Data: bomb}, true)
	require.Equal(t, scopekit.ETOOLARGE, scopekit.ErrorCode(err))

	// an entry that lies about its size
	for _, tc := range []struct {
		format catalogimport.Format
		data   []byte
	}{
		{catalogimport.ZipCSV, lyingZip(t, nil, "phases.csv", "Name\n"+strings.Repeat("x", 50<<20))},
		{catalogimport.XLSX, lyingZip(t, tpl, "xl/worksheets/sheet1.xml", catalogtest.SheetXML(strings.Repeat(" ", 50<<20)))},
	} {
		_, err = e.importFile("acme", catalogimport.File{Format: tc.format, Data: tc.data}, true)
		require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
		assert.Contains(t, err.Error(), "does not match its declared size")
	}

	// over the file size
	_, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: make([]byte, catalogimport.MaxFileBytes+1)}, true)
	require.Equal(t, scopekit.ETOOLARGE, scopekit.ErrorCode(err))

	// too many rows, and too many cells
	rows := "Name\n" + strings.Repeat("a\n", catalogimport.MaxRows+1)
	_, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte(rows)}, true)
	require.Equal(t, scopekit.ETOOLARGE, scopekit.ErrorCode(err))
	assert.Contains(t, err.Error(), "at most 10000")
	cells := strings.Repeat(`<row><c/><c/><c/><c/><c/><c/><c/><c/><c/><c/></row>`, catalogimport.MaxCells/10+1)
	_, err = e.importFile("acme", xlsx(catalogtest.ReplaceEntry(t, tpl, "xl/worksheets/sheet1.xml", catalogtest.SheetXML(cells))), true)
	require.Equal(t, scopekit.ETOOLARGE, scopekit.ErrorCode(err))
	assert.Equal(t, "", e.dump("acme"))
}

// lyingZip returns the zip data (nil: an empty zip) with the entry name
// holding content while declaring 1 KB.
func lyingZip(t *testing.T, data []byte, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if data != nil {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err)
		for _, f := range zr.File {
			if f.Name != name {
				require.NoError(t, zw.Copy(f))
			}
		}
	}
	var raw bytes.Buffer
	fw, err := flate.NewWriter(&raw, flate.BestSpeed)
	require.NoError(t, err)
	_, err = io.WriteString(fw, content)
	require.NoError(t, err)
	require.NoError(t, fw.Close())
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(content)),
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: 1024})
	require.NoError(t, err)
	_, err = w.Write(raw.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}
