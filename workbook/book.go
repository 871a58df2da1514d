// Package workbook builds the domain workbooks of a project: pricing and
// breakdown, built with excelize from a views.Snapshot and its pricing
// run. They live beside the domain, not in package documents, so that the
// template engine stays pure; every figure is the pricing run's (or its v2
// merge data's), so a workbook shows what the pricing endpoint shows.
package workbook

import (
	"fmt"
	"strings"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// book is a workbook being written: one sheet at a time, row by row
// through excelize's stream writer, with the styles of figures in the
// project's currency. The first error stops every later write and is
// returned by bytes.
type book struct {
	f     *excelize.File
	sw    *excelize.StreamWriter
	sheet string
	row   int
	st    styles
	err   error
}

// styles are the cell styles of a book.
type styles struct {
	title, label, header, headerRight, text, bold, money, hours, percent int
	totalText, totalMoney, totalHours, totalPercent                      int
	subText, subMoney, subHours                                          int
	indent1, indent2                                                     int
}

func newBook(cur pricing.Currency) (*book, error) {
	b := &book{f: excelize.NewFile()}
	money := "#,##0"
	if cur.MinorUnits > 0 {
		money += "." + strings.Repeat("0", cur.MinorUnits)
	}
	sym := strings.ReplaceAll(mergedata.CurrencySymbol(cur.Code), `"`, "")
	money = fmt.Sprintf(`"%s"%s;-"%s"%s`, sym, money, sym, money)
	hours, percent := "#,##0.00", "0.00%"
	// A total has a medium rule above it, a subtotal (a total that a
	// total below it counts as one line) a thin one.
	top := []excelize.Border{{Type: "top", Color: "1F3864", Style: 2}}
	thin := []excelize.Border{{Type: "top", Color: "1F3864", Style: 1}}
	font := func(bold bool) *excelize.Font {
		return &excelize.Font{Family: "Arial", Size: 10, Bold: bold, Color: "262626"}
	}
	mk := func(s *excelize.Style) int {
		if b.err != nil {
			return 0
		}
		id, err := b.f.NewStyle(s)
		b.err = err
		return id
	}
	navy := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1F3864"}}
	white := &excelize.Font{Family: "Arial", Size: 10, Bold: true, Color: "FFFFFF"}
	b.st = styles{
		title:        mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 14, Bold: true, Color: "1F3864"}}),
		label:        mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 10, Color: "595959"}}),
		header:       mk(&excelize.Style{Font: white, Fill: navy}),
		headerRight:  mk(&excelize.Style{Font: white, Fill: navy, Alignment: &excelize.Alignment{Horizontal: "right"}}),
		text:         mk(&excelize.Style{Font: font(false)}),
		bold:         mk(&excelize.Style{Font: font(true)}),
		money:        mk(&excelize.Style{Font: font(false), CustomNumFmt: &money}),
		hours:        mk(&excelize.Style{Font: font(false), CustomNumFmt: &hours}),
		percent:      mk(&excelize.Style{Font: font(false), CustomNumFmt: &percent}),
		totalText:    mk(&excelize.Style{Font: font(true), Border: top}),
		totalMoney:   mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &money}),
		totalHours:   mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &hours}),
		totalPercent: mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &percent}),
		subText:      mk(&excelize.Style{Font: font(true), Border: thin}),
		subMoney:     mk(&excelize.Style{Font: font(true), Border: thin, CustomNumFmt: &money}),
		subHours:     mk(&excelize.Style{Font: font(true), Border: thin, CustomNumFmt: &hours}),
		indent1:      mk(&excelize.Style{Font: font(false), Alignment: &excelize.Alignment{Indent: 1}}),
		indent2:      mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 10, Color: "595959"}, Alignment: &excelize.Alignment{Indent: 2}}),
	}
	return b, b.err
}

// cell is a value with its style: a string, or a figure (a decimal written
// as a number with exactly its places, so the file holds what pricing says).
type cell struct {
	v     any
	style int
}

// newSheet starts a sheet with column widths, whose first frozen rows
// stay in view when scrolling; the first sheet renames the default one.
func (b *book) newSheet(name string, frozen int, widths ...float64) {
	b.flush()
	if b.err != nil {
		return
	}
	if b.sheet == "" {
		b.err = b.f.SetSheetName("Sheet1", name)
	} else {
		_, b.err = b.f.NewSheet(name)
	}
	b.sheet, b.row = name, 0
	if b.err == nil {
		b.sw, b.err = b.f.NewStreamWriter(name)
	}
	for i, w := range widths {
		if b.err == nil {
			b.err = b.sw.SetColWidth(i+1, i+1, w)
		}
	}
	if b.err == nil && frozen > 0 {
		ref, _ := excelize.CoordinatesToCellName(1, frozen+1)
		b.err = b.sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: frozen, TopLeftCell: ref, ActivePane: "bottomLeft"})
	}
}

// flush ends the sheet being written.
func (b *book) flush() {
	if b.sw != nil && b.err == nil {
		b.err = b.sw.Flush()
	}
	b.sw = nil
}

// line writes the next row.
func (b *book) line(cells ...cell) { b.outlined(0, cells...) }

// outlined writes the next row at an outline level (a group of rows that
// can be collapsed).
func (b *book) outlined(level uint8, cells ...cell) {
	b.row++
	if b.err != nil {
		return
	}
	row := make([]any, len(cells))
	for i, c := range cells {
		var v any = c.v
		if d, ok := v.(decimal.Decimal); ok {
			v, _ = d.Float64()
		}
		row[i] = excelize.Cell{StyleID: c.style, Value: v}
	}
	ref, _ := excelize.CoordinatesToCellName(1, b.row)
	b.err = b.sw.SetRow(ref, row, excelize.RowOpts{OutlineLevel: int(level)})
}

// total writes a total row of width columns: the label, then empty cells
// up to the figures at the end.
func (b *book) total(label string, width int, figures ...cell) {
	cells := []cell{{label, b.st.totalText}}
	for len(cells)+len(figures) < width {
		cells = append(cells, cell{nil, b.st.totalText})
	}
	b.line(append(cells, figures...)...)
}

// header writes a header row; columns from right onwards align right.
func (b *book) header(right int, names ...string) {
	cells := make([]cell, len(names))
	for i, n := range names {
		cells[i] = cell{n, b.st.header}
		if i >= right {
			cells[i].style = b.st.headerRight
		}
	}
	b.line(cells...)
}

func (b *book) text(s string) cell          { return cell{s, b.st.text} }
func (b *book) money(f pricing.Fixed) cell  { return cell{f.Decimal, b.st.money} }
func (b *book) hours(f pricing.Fixed) cell  { return cell{f.Decimal, b.st.hours} }
func (b *book) tmoney(f pricing.Fixed) cell { return cell{f.Decimal, b.st.totalMoney} }
func (b *book) thours(f pricing.Fixed) cell { return cell{f.Decimal, b.st.totalHours} }

// sum adds figures (a total the pricing result has no field for).
func sum(fs ...pricing.Fixed) pricing.Fixed {
	d := fs[0].Decimal
	for _, f := range fs[1:] {
		d = d.Add(f.Decimal)
	}
	return pricing.Fixed{Decimal: d}
}

// diff is a - b.
func diff(a, b pricing.Fixed) pricing.Fixed { return pricing.Fixed{Decimal: a.Sub(b.Decimal)} }

// bytes returns the workbook as an XLSX file.
func (b *book) bytes() ([]byte, error) {
	defer b.f.Close()
	b.flush()
	if b.err != nil {
		return nil, fmt.Errorf("workbook: %w", b.err)
	}
	buf, err := b.f.WriteToBuffer()
	if err != nil {
		return nil, fmt.Errorf("workbook: %w", err)
	}
	return buf.Bytes(), nil
}
