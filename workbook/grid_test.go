package workbook_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// A grid is a sheet read back as a reader sees it, for the sums test: each
// row's raw cell values, its outline level, and its kind, which the style
// of its first cell shows:
//
//   - a header has a fill and starts a block;
//   - a subtotal has a thin rule above it: the sum of the lines since the
//     header or the previous subtotal, and one line of the total below it;
//   - a total has a medium rule above it: the sum of the lines of its block
//     (its subtotals in place of the lines they sum);
//   - any other row is a line.
//
// A total's figures are its cells that hold numbers; its text cells are
// labels. The cells it sums hold numbers or nothing (0).
type grid struct {
	t     *testing.T
	f     *excelize.File
	sheet string
	rows  []gridRow
	figs  map[int]bool // style ids: whether the style has a number format
}

type rowKind int

const (
	line rowKind = iota
	header
	subtotal
	total
)

type gridRow struct {
	n     int // the row's number on the sheet
	kind  rowKind
	level uint8
	cells []string
}

func openBook(t *testing.T, xlsx []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func readGrid(t *testing.T, f *excelize.File, sheet string) *grid {
	t.Helper()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	require.NoError(t, err, sheet)
	g := &grid{t: t, f: f, sheet: sheet, figs: map[int]bool{}}
	kinds := map[int]rowKind{}
	for i, cells := range rows {
		n := i + 1
		id, err := f.GetCellStyle(sheet, ref(1, n))
		require.NoError(t, err)
		kind, ok := kinds[id]
		if !ok {
			st, err := f.GetStyle(id)
			require.NoError(t, err)
			kind = kindOf(st)
			kinds[id] = kind
		}
		level, err := f.GetRowOutlineLevel(sheet, n)
		require.NoError(t, err)
		g.rows = append(g.rows, gridRow{n: n, kind: kind, level: level, cells: cells})
	}
	return g
}

func kindOf(st *excelize.Style) rowKind {
	if st.Fill.Pattern != 0 {
		return header
	}
	for _, b := range st.Border {
		if b.Type == "top" {
			if b.Style == 1 {
				return subtotal
			}
			return total
		}
	}
	return line
}

func ref(col, row int) string {
	s, _ := excelize.CoordinatesToCellName(col, row)
	return s
}

// value returns the figure in column c (0-based) of row r and whether the
// cell holds one. A number must be stored as a number (not text) with a
// number format; an empty cell is no figure.
func (g *grid) value(r gridRow, c int) (decimal.Decimal, bool) {
	g.t.Helper()
	if c >= len(r.cells) || r.cells[c] == "" {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(r.cells[c])
	if err != nil {
		return decimal.Zero, false
	}
	at := ref(c+1, r.n)
	typ, err := g.f.GetCellType(g.sheet, at)
	require.NoError(g.t, err)
	require.NotContains(g.t, []excelize.CellType{excelize.CellTypeSharedString, excelize.CellTypeInlineString}, typ,
		"%s!%s: the figure %s is stored as text", g.sheet, at, r.cells[c])
	id, err := g.f.GetCellStyle(g.sheet, at)
	require.NoError(g.t, err)
	fmtd, ok := g.figs[id]
	if !ok {
		st, err := g.f.GetStyle(id)
		require.NoError(g.t, err)
		fmtd = st.CustomNumFmt != nil && *st.CustomNumFmt != ""
		g.figs[id] = fmtd
	}
	require.True(g.t, fmtd, "%s!%s: the figure %s has no number format", g.sheet, at, r.cells[c])
	return d, true
}

// addend is what a line contributes to a sum in column c: its figure, or 0
// when the cell is empty; text where a figure is summed fails.
func (g *grid) addend(r gridRow, c int) decimal.Decimal {
	g.t.Helper()
	d, ok := g.value(r, c)
	if !ok && c < len(r.cells) {
		require.Empty(g.t, r.cells[c], "%s!%s: summed into a total but no figure", g.sheet, ref(c+1, r.n))
	}
	return d
}

// sumsTo checks that the figure in column c (0-based) of row tot, when
// it has one, is base plus the same column of rows, and reports whether
// it had one.
func (g *grid) sumsTo(tot gridRow, c int, base decimal.Decimal, rows []gridRow) bool {
	g.t.Helper()
	want, ok := g.value(tot, c)
	if !ok {
		return false
	}
	got := base
	for _, r := range rows {
		got = got.Add(g.addend(r, c))
	}
	require.True(g.t, want.Equal(got), "%s!%s (%s): %s, while %s and the %d rows it sums add up to %s",
		g.sheet, ref(c+1, tot.n), tot.cells[0], want, base, len(rows), got)
	return true
}

// sums checks each figure of row tot against the same column of lines,
// and returns how many figures it checked.
func (g *grid) sums(tot gridRow, lines []gridRow) int {
	g.t.Helper()
	checked := 0
	for c := 1; c < len(tot.cells); c++ {
		if g.sumsTo(tot, c, decimal.Zero, lines) {
			checked++
		}
	}
	return checked
}

// checkBlocks checks every subtotal and total of the sheet against the
// lines of its block, and returns how many figures it checked.
func (g *grid) checkBlocks() int {
	g.t.Helper()
	var lines []gridRow   // of the open block, subtotals in place of their lines
	mark, checked := 0, 0 // lines[mark:] are the next subtotal's
	for _, r := range g.rows {
		switch r.kind {
		case header:
			lines, mark = nil, 0
		case line:
			lines = append(lines, r)
		case subtotal:
			checked += g.sums(r, lines[mark:])
			lines = append(lines[:mark], r)
			mark = len(lines)
		case total:
			checked += g.sums(r, lines)
			lines, mark = nil, 0
		}
	}
	return checked
}

// checkOutline checks a sheet whose rows are grouped by outline level
// under a header, as the breakdown is. A row's children are the rows one
// level deeper below it, up to the next row at its level or above. A group
// (a row at level 0) and any row with children total them: its "Total
// hours" is its "Line hours" plus its children's "Total hours", and a
// group's "Revenue" is its children's. A total sums the groups since the
// header or the previous total. It returns how many figures it checked.
func (g *grid) checkOutline() int {
	g.t.Helper()
	start := slices.IndexFunc(g.rows, func(r gridRow) bool { return r.kind == header })
	require.GreaterOrEqual(g.t, start, 0, "%s has no header", g.sheet)
	col := func(name string) int {
		c := slices.Index(g.rows[start].cells, name)
		require.GreaterOrEqual(g.t, c, 0, "%s has no column %q", g.sheet, name)
		return c
	}
	lineHours, totalHours, revenue := col("Line hours"), col("Total hours"), col("Revenue")
	body := g.rows[start+1:]
	checked, groups := 0, []gridRow{}
	for i, r := range body {
		if r.kind == total {
			checked += g.sums(r, groups)
			groups = groups[:0]
			continue
		}
		var children []gridRow
		for _, c := range body[i+1:] {
			if c.kind == total || c.level <= r.level {
				break
			}
			if c.level == r.level+1 {
				children = append(children, c)
			}
		}
		if r.level > 0 && len(children) == 0 {
			continue // a line
		}
		if g.sumsTo(r, totalHours, g.addend(r, lineHours), children) {
			checked++
		}
		if r.level > 0 {
			continue
		}
		groups = append(groups, r)
		if g.sumsTo(r, revenue, decimal.Zero, children) {
			checked++
		}
	}
	return checked
}

// row returns the first row labelled label, and whether there is one.
func (g *grid) row(label string) (gridRow, bool) {
	for _, r := range g.rows {
		if len(r.cells) > 0 && r.cells[0] == label {
			return r, true
		}
	}
	return gridRow{}, false
}

// expect checks the figures of the row labelled label, from its second
// cell on, against the pricing figures want (pricing.Fixed); a nil
// skips a cell.
func (g *grid) expect(label string, want ...any) {
	g.t.Helper()
	r, ok := g.row(label)
	require.True(g.t, ok, "no row %q on %s", label, g.sheet)
	for i, v := range want {
		if v == nil {
			continue
		}
		w := v.(pricing.Fixed)
		got, ok := g.value(r, i+1)
		require.True(g.t, ok, "%s!%s (%s): no figure, want %s", g.sheet, ref(i+2, r.n), label, w)
		require.True(g.t, w.Equal(got), "%s!%s (%s): %s, the pricing figure is %s", g.sheet, ref(i+2, r.n), label, got, w)
	}
}
