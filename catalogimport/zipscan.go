package catalogimport

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strings"

	"github.com/xuri/excelize/v2"
)

// The checks of an archive made before anything in it is parsed: its
// declared sizes (a zip bomb, or a sheet of 100 MB, is refused here; the
// zip reader then refuses any entry that unzips past its declared size),
// and for a workbook a streamed pass over its sheets that counts rows and
// cells and finds the cells holding a formula.

// maxEntries bounds the entries of an archive.
const maxEntries = 1000

// openZip opens data as a zip archive (what names the format for
// messages) and checks its declared sizes.
func openZip(data []byte, what string) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, invalid("the file is not %s (it is not a zip archive)", what)
	}
	if len(zr.File) > maxEntries {
		return nil, invalid("the file holds %d entries; at most %d are read", len(zr.File), maxEntries)
	}
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if f.UncompressedSize64 > MaxUnzippedBytes || total > MaxUnzippedBytes {
			return nil, tooLarge("the file unzips to more than %d bytes (%s alone is %d bytes): split it or remove what is not the catalog",
				MaxUnzippedBytes, f.Name, f.UncompressedSize64)
		}
	}
	return zr, nil
}

// readEntry reads one entry of an archive; the zip reader fails on data
// past the entry's declared size.
func readEntry(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, invalid("%s cannot be read from the archive", f.Name)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, MaxUnzippedBytes+1))
	if err != nil || len(b) > MaxUnzippedBytes {
		return nil, invalid("%s is damaged in the archive (its data does not match its declared size)", f.Name)
	}
	return b, nil
}

// cellPos is a cell of a table: its row number (1 is the first row; 0
// unknown) and its column (0 is the first; -1 unknown).
type cellPos struct{ row, col int }

// scanXLSX streams through the worksheets and the shared strings of a
// workbook, refusing more than MaxCells cells or 2*MaxRows rows before
// excelize builds anything of them, and returns the cells that hold a
// formula, by sheet name.
func scanXLSX(zr *zip.Reader) (map[string][]cellPos, error) {
	names, err := sheetParts(zr)
	if err != nil {
		return nil, err
	}
	formulas := map[string][]cellPos{}
	var rows, cells, strs int
	for _, f := range zr.File {
		part := strings.ToLower(f.Name)
		isSheet := strings.HasPrefix(part, "xl/worksheets/") && strings.HasSuffix(part, ".xml")
		if !isSheet && part != "xl/sharedstrings.xml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, invalid("%s cannot be read from the workbook", f.Name)
		}
		d := xml.NewDecoder(rc)
		var cur string // the reference of the cell being read
		for {
			tok, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rc.Close()
				if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
					return nil, invalid("%s is damaged in the archive (its data does not match its declared size)", f.Name)
				}
				return nil, invalid("the workbook is damaged: %s is not well-formed XML", f.Name)
			}
			se, ok := tok.(xml.StartElement)
			if !ok {
				continue
			}
			switch se.Name.Local {
			case "row":
				rows++
			case "c":
				cells++
				cur = attr(se, "r")
			case "f":
				if isSheet {
					pos := cellPos{0, -1} // a cell without its reference: the sheet is refused
					if col, row, err := excelize.CellNameToCoordinates(cur); err == nil {
						pos = cellPos{row, col - 1}
					}
					formulas[names[part]] = append(formulas[names[part]], pos)
				}
			case "si":
				strs++
			}
			if rows > 2*MaxRows || cells > MaxCells || strs > MaxCells {
				rc.Close()
				return nil, tooLarge("the workbook has more than %d rows or %d cells: split it", MaxRows, MaxCells)
			}
		}
		rc.Close()
	}
	return formulas, nil
}

func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// sheetParts maps the worksheet parts of a workbook (lower case) to their
// sheet names, from xl/workbook.xml and its relationships.
func sheetParts(zr *zip.Reader) (map[string]string, error) {
	var wb struct {
		Sheets []struct {
			Name string `xml:"name,attr"`
			RID  string `xml:"http://schemas.openxmlformats.org/officeDocument/2006/relationships id,attr"`
		} `xml:"sheets>sheet"`
	}
	var rels struct {
		Rels []struct {
			ID     string `xml:"Id,attr"`
			Target string `xml:"Target,attr"`
		} `xml:"Relationship"`
	}
	for _, p := range []struct {
		name string
		v    any
	}{{"xl/workbook.xml", &wb}, {"xl/_rels/workbook.xml.rels", &rels}} {
		f := entry(zr, p.name)
		if f == nil {
			return nil, invalid("the file is not an XLSX workbook (it has no %s)", p.name)
		}
		b, err := readEntry(f)
		if err != nil {
			return nil, err
		}
		if xml.Unmarshal(b, p.v) != nil {
			return nil, invalid("the workbook is damaged: %s is not well-formed XML", p.name)
		}
	}
	targets := map[string]string{}
	for _, r := range rels.Rels {
		t := r.Target
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		targets[r.ID] = strings.ToLower(t)
	}
	names := map[string]string{}
	for _, s := range wb.Sheets {
		names[targets[s.RID]] = s.Name
	}
	return names, nil
}

// entry returns the archive's entry named name (case-insensitively).
func entry(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}
