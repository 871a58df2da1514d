package catalogimport

import (
	"bytes"
	"errors"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// table is one sheet of a file as read: its rows of text, the header first.
type table struct {
	name     string // the sheet's name, or the CSV file's
	rows     []line
	formulas []cellPos // cells holding a formula (refused)
}

// line is one row of a table: its number in the sheet (CSV: the line it
// starts on) and its cells.
type line struct {
	n     int
	cells []string
}

// readFile reads the sheets of f, within the limits.
func readFile(f File) ([]*table, error) {
	if len(f.Data) > MaxFileBytes {
		return nil, tooLarge("the file is larger than %d bytes", MaxFileBytes)
	}
	if len(f.Data) == 0 {
		return nil, invalid("the file is empty")
	}
	var tables []*table
	var err error
	switch f.Format {
	case XLSX:
		tables, err = readXLSX(f.Data)
	case CSV:
		if strings.TrimSpace(f.Sheet) == "" {
			return nil, invalid("a CSV file holds one sheet: name it (one of %s)", kindTitles())
		}
		var t *table
		t, err = readCSV(f.Sheet, f.Data)
		tables = []*table{t}
	case ZipCSV:
		tables, err = readZipCSV(f.Data)
	default:
		return nil, invalid("unknown file format")
	}
	if err != nil {
		return nil, err
	}
	rows := 0
	for _, t := range tables {
		for _, l := range t.rows[min(1, len(t.rows)):] {
			if !blankRow(l.cells) {
				rows++
			}
		}
	}
	if rows > MaxRows {
		return nil, tooLarge("the file has %d rows; at most %d are imported at once: split it", rows, MaxRows)
	}
	return tables, nil
}

// readXLSX reads every sheet of a workbook, with the raw values of its
// cells (numbers as stored, not as formatted).
func readXLSX(data []byte) ([]*table, error) {
	zr, err := openZip(data, "an XLSX workbook")
	if err != nil {
		return nil, err
	}
	formulas, err := scanXLSX(zr)
	if err != nil {
		return nil, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{RawCellValue: true,
		UnzipSizeLimit: MaxUnzippedBytes, UnzipXMLSizeLimit: MaxUnzippedBytes})
	if err != nil {
		return nil, invalid("the file is not a readable XLSX workbook (password-protected or damaged)")
	}
	defer f.Close()
	var tables []*table
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name)
		if err != nil {
			return nil, invalid("the sheet %q cannot be read: %v", name, err)
		}
		t := &table{name: name, formulas: formulas[name]}
		for i, r := range rows {
			t.rows = append(t.rows, line{n: i + 1, cells: r})
		}
		tables = append(tables, t)
	}
	return tables, nil
}

// readZipCSV reads the CSV files of a zip, each named after its sheet.
func readZipCSV(data []byte) ([]*table, error) {
	zr, err := openZip(data, "a zip of CSV files")
	if err != nil {
		return nil, err
	}
	var tables []*table
	for _, f := range zr.File {
		base := path.Base(f.Name)
		if f.FileInfo().IsDir() || strings.HasPrefix(f.Name, "__MACOSX/") || strings.HasPrefix(base, ".") {
			continue // folders and the metadata archivers add
		}
		if !strings.EqualFold(path.Ext(base), ".csv") {
			return nil, invalid("the zip holds %s: it may hold only .csv files, named after their sheets (%s)", f.Name, kindTitles())
		}
		b, err := readEntry(f)
		if err != nil {
			return nil, err
		}
		t, err := readCSV(base, b)
		if err != nil {
			return nil, err
		}
		tables = append(tables, t)
	}
	if len(tables) == 0 {
		return nil, invalid("the zip holds no .csv file")
	}
	return tables, nil
}

// readCSV reads one CSV file: UTF-8 (a byte order mark is dropped),
// separated by commas, or by semicolons or tabs when its first line has
// more of those; a cell the export neutralised is read as it was.
func readCSV(name string, data []byte) (*table, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return nil, invalid("%s is not UTF-8 text: save it as \"CSV UTF-8\"", name)
	}
	recs, err := csvRecords(data, separator(data))
	var ce *csvError
	if errors.As(err, &ce) {
		return nil, invalid("%s line %d is not valid CSV: %s", name, ce.line, ce.msg)
	}
	if err != nil {
		return nil, invalid("%s cannot be read: %v", name, err)
	}
	t := &table{name: name}
	cells := 0
	for _, rec := range recs {
		if cells += len(rec.cells); cells > MaxCells {
			return nil, tooLarge("%s has more than %d cells: split it", name, MaxCells)
		}
		for i, v := range rec.cells {
			if strings.HasPrefix(v, "=") { // a formula saved as text: values only
				t.formulas = append(t.formulas, cellPos{rec.n, i})
			}
			rec.cells[i] = unneutralise(v)
		}
		t.rows = append(t.rows, rec)
	}
	return t, nil
}

// separator guesses the CSV separator from the first line.
func separator(data []byte) byte {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	best, sep := bytes.Count(first, []byte(",")), byte(',')
	for _, c := range []byte{';', '\t'} {
		if n := bytes.Count(first, []byte{c}); n > best {
			best, sep = n, c
		}
	}
	return sep
}

// blankRow reports whether every cell of a row is blank.
func blankRow(cells []string) bool {
	for _, c := range cells {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}
