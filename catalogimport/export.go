package catalogimport

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/xuri/excelize/v2"
)

// The files the import reads, written: the template (the columns of each
// sheet and one example row) and the export of an account's catalog, so
// that an export imports back to no change, in the same account or into a
// new one.

// out is a sheet to write: the kind's columns and rows of cell texts.
type out struct {
	kind *kind
	rows [][]string
}

// Template returns the template file: each sheet with its columns and
// one example row (a catalog that imports as it is into an account whose
// currency is USD).
func Template(schema *engine.Schema, format Format) ([]byte, error) {
	sheets := make([]out, len(kinds))
	for i, k := range kinds {
		ex := make([]string, len(k.cols))
		for ci, c := range k.cols {
			ex[ci] = c.example
		}
		sheets[i] = out{kind: k, rows: [][]string{ex}}
	}
	return write(schema, format, sheets)
}

// Export returns the active records of the kinds in the actor's account,
// in format, as the import reads them: records named by name. It needs
// view access to each kind.
func Export(ctx context.Context, e *engine.Engine, a *engine.Actor, format Format) ([]byte, error) {
	for _, k := range kinds {
		if _, err := e.ReadableType(a, k.typ); err != nil {
			return nil, err
		}
	}
	var sheets []out
	err := e.Read(ctx, a, engine.Options{}, func(c *engine.Call) error {
		names := map[string]map[string]string{} // type -> id -> name, archived records included
		exported := map[string]bool{}           // type + id of the records exported
		for _, k := range kinds {
			for _, col := range k.cols {
				if col.ref == "" || names[col.ref] != nil {
					continue
				}
				recs, err := c.Find(col.ref)
				if err != nil {
					return err
				}
				names[col.ref] = map[string]string{}
				for _, r := range recs {
					names[col.ref][r.ID] = r.Str(views.NameName)
				}
			}
		}
		for _, k := range kinds {
			recs, err := c.Find(k.typ)
			if err != nil {
				return err
			}
			o := out{kind: k}
			for _, r := range recs {
				if !r.Active() || !keysExported(k, r, exported) {
					continue // a subservice of an archived service, a rate of an archived table
				}
				exported[k.typ+"/"+r.ID] = true
				cells := make([]string, len(k.cols))
				for ci, col := range k.cols {
					if col.attr != "" {
						cells[ci] = text(r.Attrs[col.attr])
					} else if id := r.Rel(col.rel); id != "" {
						cells[ci] = names[col.ref][id]
					}
				}
				o.rows = append(o.rows, cells)
			}
			sortRows(k, o.rows)
			sheets = append(sheets, o)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return write(e.Schema(), format, sheets)
}

// keysExported reports whether the records a record's key columns name
// are exported too (its kind's rows could not be imported otherwise).
func keysExported(k *kind, r *engine.Record, exported map[string]bool) bool {
	for _, c := range k.cols {
		if c.key && c.ref != "" && !exported[c.ref+"/"+r.Rel(c.rel)] {
			return false
		}
	}
	return true
}

// sortRows orders exported rows as a team would read them: by the
// references of their key, then position, then name.
func sortRows(k *kind, rows [][]string) {
	pos, nameCol := -1, -1
	for ci, c := range k.cols {
		switch c.attr {
		case views.NamePosition:
			pos = ci
		case views.NameName:
			nameCol = ci
		}
	}
	slices.SortStableFunc(rows, func(a, b []string) int {
		for ci, c := range k.cols {
			if c.key && c.ref != "" {
				if d := strings.Compare(fold(a[ci]), fold(b[ci])); d != 0 {
					return d
				}
			}
		}
		if pos >= 0 {
			if d := cmp.Compare(position(a[pos]), position(b[pos])); d != 0 {
				return d
			}
		}
		if nameCol >= 0 {
			return strings.Compare(fold(a[nameCol]), fold(b[nameCol]))
		}
		return 0
	})
}

// position orders rows without a position last.
func position(s string) float64 {
	d, ok := parseNumber(s)
	if !ok {
		return 1e18
	}
	return d.InexactFloat64()
}

// MediaType is the media type of a format's files.
func MediaType(f Format) string {
	switch f {
	case CSV:
		return MediaCSV
	case ZipCSV:
		return MediaZip
	}
	return MediaXLSX
}

// Ext is the file name extension of a format's files.
func Ext(f Format) string {
	switch f {
	case CSV:
		return ".csv"
	case ZipCSV:
		return ".zip"
	}
	return ".xlsx"
}

// write writes sheets in format (a single CSV holds one sheet only).
func write(schema *engine.Schema, format Format, sheets []out) ([]byte, error) {
	switch format {
	case XLSX:
		return writeXLSX(schema, sheets)
	case ZipCSV:
		return writeZipCSV(sheets)
	}
	return nil, invalid("a CSV file holds one sheet: ask for a zip of CSV files or a workbook")
}

// writeZipCSV writes one CSV file per sheet, named after its kind
// (phases.csv, rate-tables.csv), each cell a spreadsheet would run
// neutralised (csvcells.go).
func writeZipCSV(sheets []out) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, s := range sheets {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: s.kind.key + ".csv", Method: zip.Deflate})
		if err != nil {
			return nil, err
		}
		cw := csv.NewWriter(w)
		header := make([]string, len(s.kind.cols))
		for ci, c := range s.kind.cols {
			header[ci] = c.title
		}
		if err := cw.Write(header); err != nil {
			return nil, err
		}
		for _, row := range s.rows {
			cells := make([]string, len(row))
			for ci, v := range row {
				cells[ci] = neutralise(v)
			}
			if err := cw.Write(cells); err != nil {
				return nil, err
			}
		}
		if cw.Flush(); cw.Error() != nil {
			return nil, cw.Error()
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeXLSX writes a workbook of one sheet per kind: a bold header, the
// rows (numbers as numbers), and drop-down lists on the columns of a few
// values.
func writeXLSX(schema *engine.Schema, sheets []out) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, err
	}
	for i, s := range sheets {
		name := s.kind.title
		if i == 0 {
			err = f.SetSheetName("Sheet1", name)
		} else {
			_, err = f.NewSheet(name)
		}
		if err != nil {
			return nil, err
		}
		def, _ := schema.Lookup(s.kind.typ)
		for ci, c := range s.kind.cols {
			col, _ := excelize.ColumnNumberToName(ci + 1)
			cell := col + "1"
			if err := f.SetCellStr(name, cell, c.title); err != nil {
				return nil, err
			}
			var at *engine.AttrDef
			if c.attr != "" {
				at, _ = def.Attr(c.attr)
			}
			for ri, row := range s.rows {
				if err := setCell(f, name, col, ri+2, at, row[ci]); err != nil {
					return nil, err
				}
			}
			if err := dropDown(f, name, col, at); err != nil {
				return nil, err
			}
			if err := f.SetColWidth(name, col, col, float64(max(12, len(c.title)+4))); err != nil {
				return nil, err
			}
		}
		last, _ := excelize.ColumnNumberToName(len(s.kind.cols))
		if err := f.SetCellStyle(name, "A1", last+"1", bold); err != nil {
			return nil, err
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// setCell writes one cell: numbers as numbers (their exact decimal text),
// booleans as booleans, the rest as text (never as a formula).
func setCell(f *excelize.File, sheet, col string, row int, at *engine.AttrDef, v string) error {
	cell := col + strconv.Itoa(row)
	switch {
	case v == "":
		return nil
	case at != nil && (at.Kind == engine.KindDecimal || at.Kind == engine.KindInt):
		return f.SetCellDefault(sheet, cell, v)
	case at != nil && at.Kind == engine.KindBool:
		return f.SetCellBool(sheet, cell, v == "true")
	}
	return f.SetCellStr(sheet, cell, v)
}

// dropDown offers the values of an enumeration or a boolean column.
func dropDown(f *excelize.File, sheet, col string, at *engine.AttrDef) error {
	var values []string
	switch {
	case at == nil:
		return nil
	case at.Kind == engine.KindEnum:
		values = at.Enum
	case at.Kind == engine.KindBool:
		values = []string{"TRUE", "FALSE"}
	default:
		return nil
	}
	dv := excelize.NewDataValidation(true)
	dv.Sqref = col + "2:" + col + strconv.Itoa(MaxRows+1)
	if err := dv.SetDropList(values); err != nil {
		return err
	}
	return f.AddDataValidation(sheet, dv)
}
