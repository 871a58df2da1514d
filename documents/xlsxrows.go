package documents

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Rows of a rendered sheet: how merged ranges follow the rows a loop
// repeats or leaves out, and the number of rows a sheet may have.

// maxSheetRows is the last row of a sheet (Excel's 1,048,576).
const maxSheetRows = 1 << 20

// errTooManyRows stops the finishing of a sheet whose rows would pass
// maxSheetRows.
var errTooManyRows = errors.New("too many rows")

// maxSheetCols is the last column of a sheet (Excel's XFD).
const maxSheetCols = 1 << 14

// errTooManyCols stops the finishing of a sheet with a cell beyond
// maxSheetCols.
var errTooManyCols = errors.New("too many columns")

// maxSheetCells bounds a rendered sheet's extent: its last row times its
// last column. LibreOffice's time to make a PDF of a sheet grows with
// that extent, not with the cells filled (two cells, at A1 and
// XFD1048576, took 42 s; 10⁸ cells about 1 s), and a document worker is
// busy for all of it.
const maxSheetCells = 100_000_000

// mergedRows returns the rows the sheet's merged ranges begin and end on,
// sorted, without repeats. The ranges (mergeCells) follow the rows
// (sheetData) in a sheet; a part whose ranges do not read has none here,
// and the part's errors are found where its tokens are read.
func mergedRows(b []byte) []int {
	i := bytes.LastIndex(b, []byte("<mergeCells"))
	if i < 0 {
		return nil
	}
	var rows []int
	_ = tokens(context.Background(), &scanner{b: b, pos: i}, func(tok xtoken) error {
		switch {
		case tok.kind == tokEnd && string(tok.name) == "mergeCells":
			return errors.New("done")
		case tok.kind == tokStart && string(tok.name) == "mergeCell":
			from, to, _ := strings.Cut(attr(decodeAttrs(tok.attrs), "ref"), ":")
			for _, ref := range []string{from, to} {
				if _, r := splitRef(ref); r > 0 {
					rows = append(rows, r)
				}
			}
		}
		return nil
	})
	slices.Sort(rows)
	return slices.Compact(rows)
}

// writeMerges writes the merged ranges of a rendered sheet, each moved
// with its rows (copies: the rows each template row became, in order): a
// range is repeated with rows a loop repeats and left out with rows a loop
// leaves out. With no range left, mergeCells is left out too (it may not
// be empty).
func writeMerges(w *out, merges [][]xml.Attr, copies map[int][]int) {
	var refs []string
	var attrs [][]xml.Attr
	for _, a := range merges {
		for _, ref := range moveMerge(attr(a, "ref"), copies) {
			refs, attrs = append(refs, ref), append(attrs, a)
		}
	}
	if len(refs) == 0 {
		return
	}
	w.startTag("mergeCells", []xml.Attr{{Name: xml.Name{Local: "count"}, Value: strconv.Itoa(len(refs))}}, false)
	for i, ref := range refs {
		w.startTag("mergeCell", setAttr(attrs[i], "ref", ref), true)
	}
	w.endTag("mergeCells")
}

// moveMerge returns the ranges the template's merged range ref becomes:
// one for each copy of its first row whose last row has a copy at or
// after it and before the first row's next copy (prepareSheet gave every
// row a range begins or ends on a row element). A reference that does not
// read is kept as it is.
func moveMerge(ref string, copies map[int][]int) []string {
	from, to, ok := strings.Cut(ref, ":")
	if !ok {
		to = from
	}
	c1, r1 := splitRef(from)
	c2, r2 := splitRef(to)
	firsts, lasts := copies[r1], copies[r2]
	if r1 == 0 || r2 < r1 {
		return []string{ref}
	}
	var out []string
	for i, n := range firsts {
		next := math.MaxInt
		if i+1 < len(firsts) {
			next = firsts[i+1]
		}
		if j := sort.SearchInts(lasts, n); j < len(lasts) && lasts[j] < next {
			out = append(out, c1+strconv.Itoa(n)+":"+c2+strconv.Itoa(lasts[j]))
		}
	}
	return out
}

// splitRef splits a cell reference ("AB12", "$A$3") into its column and
// row.
func splitRef(ref string) (col string, row int) {
	ref = strings.ReplaceAll(ref, "$", "")
	i := 0
	for i < len(ref) && ('A' <= ref[i] && ref[i] <= 'Z' || 'a' <= ref[i] && ref[i] <= 'z') {
		i++
	}
	row, _ = strconv.Atoi(ref[i:])
	return strings.ToUpper(ref[:i]), row
}

func colNumber(col string) int {
	if len(col) > 3 {
		return maxSheetCols + 1 // beyond XFD, and no overflow
	}
	n := 0
	for _, c := range col {
		n = n*26 + int(c-'A'+1)
	}
	return n
}

func colName(n int) string {
	s := ""
	for ; n > 0; n = (n - 1) / 26 {
		s = string(rune('A'+(n-1)%26)) + s
	}
	return s
}
