package catalogimport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// Reading the tables of a file into rows of a kind: the sheets and their
// headers first (an unknown sheet or column, a missing required column,
// stops the import there), then every cell by the kind of its attribute,
// required cells and duplicate rows. What needs the account (references,
// names taken, the types' own rules) is checked when the rows are applied.

// sheet is a table matched to its kind.
type sheet struct {
	kind  *kind
	name  string
	table *table
	at    []int // per column of the kind: its index in the file, -1 when absent
	rows  []*row
}

// row is one data row of a sheet.
type row struct {
	sheet *sheet
	n     int
	text  []string       // per column of the kind: the cell as written ("" blank or absent)
	vals  map[string]any // per attribute given: its canonical value (nil: blank)
	bad   bool           // refused (as read, or as applied)
}

// plan is a file read into rows, the sheets in the order of kinds.
type plan struct {
	sheets []*sheet
	// named maps a type and a folded name to the row of the file that
	// defines it (the first), so that a reference to a refused row says so.
	named map[string]map[string]*row
}

// fold is how names are compared: case and surrounding spaces do not
// matter (unique names are unique case-insensitively).
func fold(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// problem records a problem about column ci of the kind (-1: the row).
func (s *sheet) problem(rep *Report, n, ci int, format string, args ...any) {
	p := Problem{Sheet: s.name, Row: n, Detail: fmt.Sprintf(format, args...)}
	if ci >= 0 {
		p.Column = s.kind.cols[ci].title
		if fc := s.at[ci]; fc >= 0 {
			p.Cell, _ = excelize.CoordinatesToCellName(fc+1, max(n, 1))
		}
	}
	rep.add(p)
}

// parse reads the tables; it returns nil when the sheets or their headers
// are wrong (each reported), as no row can be read then.
func parse(schema *engine.Schema, tables []*table, rep *Report) *plan {
	byKind := map[*kind]*sheet{}
	var structural bool
	for _, t := range tables {
		k := kindNamed(t.name)
		if k == nil {
			if !emptyTable(t) {
				rep.add(Problem{Sheet: t.name, Detail: "unknown sheet: the sheets are " + kindTitles()})
				structural = true
			}
			continue
		}
		if prev := byKind[k]; prev != nil {
			rep.add(Problem{Sheet: t.name, Detail: fmt.Sprintf("a second sheet of %s (the first is %s)", k.title, prev.name)})
			structural = true
			continue
		}
		s := &sheet{kind: k, name: t.name, table: t}
		byKind[k] = s
		if !s.header(rep) {
			structural = true
		}
	}
	if structural {
		return nil
	}
	p := &plan{named: map[string]map[string]*row{}}
	for _, k := range kinds {
		s := byKind[k]
		if s == nil {
			continue
		}
		p.sheets = append(p.sheets, s)
		s.read(schema, rep, p)
	}
	return p
}

func emptyTable(t *table) bool {
	for _, l := range t.rows {
		if !blankRow(l.cells) {
			return false
		}
	}
	return len(t.formulas) == 0
}

// header matches the table's first row to the kind's columns, reporting
// unknown, repeated and missing columns; false when it found any.
func (s *sheet) header(rep *Report) bool {
	k, t := s.kind, s.table
	s.at = make([]int, len(k.cols))
	for i := range s.at {
		s.at[i] = -1
	}
	var head []string
	if len(t.rows) > 0 {
		head = t.rows[0].cells
	}
	ok := true
	for fc, h := range head {
		if strings.TrimSpace(h) == "" {
			continue
		}
		cell, _ := excelize.CoordinatesToCellName(fc+1, 1)
		ci := k.columnNamed(h)
		switch {
		case ci < 0:
			rep.add(Problem{Sheet: s.name, Row: 1, Column: h, Cell: cell,
				Detail: fmt.Sprintf("unknown column %q: the columns of %s are %s", h, k.title, k.titles())})
			ok = false
		case s.at[ci] >= 0:
			rep.add(Problem{Sheet: s.name, Row: 1, Column: h, Cell: cell, Detail: fmt.Sprintf("the column %s appears twice", k.cols[ci].title)})
			ok = false
		default:
			s.at[ci] = fc
		}
	}
	for ci, c := range k.cols {
		if c.required && s.at[ci] < 0 {
			rep.add(Problem{Sheet: s.name, Row: 1, Column: c.title, Detail: fmt.Sprintf("the column %s is missing (it is required)", c.title)})
			ok = false
		}
	}
	return ok
}

// read reads the data rows of the sheet's table.
func (s *sheet) read(schema *engine.Schema, rep *Report, p *plan) {
	k, t := s.kind, s.table
	def, _ := schema.Lookup(k.typ)
	counts := rep.counts(k.key)
	formulaAt, formulaRows := map[cellPos]bool{}, map[int]bool{}
	for _, f := range t.formulas {
		formulaAt[f], formulaRows[f.row] = true, true
		pr := Problem{Sheet: s.name, Row: f.row, Detail: "a formula: the import reads values only (paste the values instead)"}
		if f.row > 0 && f.col >= 0 {
			pr.Cell, _ = excelize.CoordinatesToCellName(f.col+1, f.row)
			if ci := slices.Index(s.at, f.col); ci >= 0 {
				pr.Column = k.cols[ci].title
			}
		}
		rep.add(pr)
	}
	seen := map[string]int{} // key -> row
	single := map[int]int{}  // column whose true value is once per file -> row
	for _, l := range t.rows[min(1, len(t.rows)):] {
		if blankRow(l.cells) && !formulaRows[l.n] {
			continue
		}
		counts.Rows++
		r := &row{sheet: s, n: l.n, text: make([]string, len(k.cols)), vals: map[string]any{}, bad: formulaRows[l.n]}
		for fc, v := range l.cells {
			if strings.TrimSpace(v) != "" && !slices.Contains(s.at, fc) && !formulaAt[cellPos{l.n, fc}] {
				cell, _ := excelize.CoordinatesToCellName(fc+1, l.n)
				rep.add(Problem{Sheet: s.name, Row: l.n, Cell: cell, Detail: "a value in a column without a header"})
				r.bad = true
			}
		}
		for ci, c := range k.cols {
			fc := s.at[ci]
			if fc < 0 || formulaAt[cellPos{l.n, fc}] {
				continue
			}
			var txt string
			if fc < len(l.cells) && strings.TrimSpace(l.cells[fc]) != "" {
				txt = l.cells[fc] // kept as written: a name may start with spaces
			}
			r.text[ci] = txt
			switch {
			case txt == "" && c.required:
				s.problem(rep, l.n, ci, "%s is required", c.title)
				r.bad = true
			case txt == "" && c.attr != "":
				r.vals[c.attr] = nil
			case txt != "" && c.attr != "":
				at, _ := def.Attr(c.attr)
				v, msg := parseValue(at, txt, c.upper)
				if msg != "" {
					s.problem(rep, l.n, ci, "%s", msg)
					r.bad = true
					continue
				}
				r.vals[c.attr] = v
				if v == true && c.attr == singleTrue[k.typ] {
					if prev, dup := single[ci]; dup {
						s.problem(rep, l.n, ci, "only one row may be %s (row %d is)", c.title, prev)
						r.bad = true
					} else {
						single[ci] = l.n
					}
				}
			}
		}
		s.checkKey(rep, r, seen, p)
		s.rows = append(s.rows, r)
	}
}

// singleTrue names, per type, the boolean attribute at most one row may
// set (one default rate table per account).
var singleTrue = map[string]string{views.TypeRateTables: views.NameDefault}

// checkKey refuses a row whose key repeats an earlier row's and records
// the names rows define.
func (s *sheet) checkKey(rep *Report, r *row, seen map[string]int, p *plan) {
	var parts, titles []string
	for ci, c := range s.kind.cols {
		if c.key {
			parts, titles = append(parts, fold(r.text[ci])), append(titles, c.title)
		}
	}
	key := strings.Join(parts, "\x00")
	if strings.Trim(key, "\x00") == "" {
		return // reported as required
	}
	if prev, dup := seen[key]; dup {
		s.problem(rep, r.n, -1, "a duplicate of row %d (the same %s)", prev, strings.Join(titles, " and "))
		r.bad = true
		return
	}
	seen[key] = r.n
	if len(parts) == 1 && s.kind.cols[0].attr != "" { // a kind named by its name: others may refer to it
		names := p.named[s.kind.typ]
		if names == nil {
			names = map[string]*row{}
			p.named[s.kind.typ] = names
		}
		names[key] = r
	}
}

// parseValue reads the text of a cell as the attribute's value: its
// canonical form, or a message saying what is wrong. Text is kept as
// written; numbers, booleans, choices and codes are read without the
// spaces around them.
func parseValue(at *engine.AttrDef, cell string, upper bool) (any, string) {
	var raw []byte
	txt := strings.TrimSpace(cell)
	switch at.Kind {
	case engine.KindDecimal, engine.KindInt:
		d, ok := parseNumber(txt)
		if !ok {
			return nil, fmt.Sprintf("%q is not a number: write a plain decimal such as 1234.5 (no thousands separators or currency signs)", txt)
		}
		if at.Kind == engine.KindInt {
			if !d.IsInteger() {
				return nil, fmt.Sprintf("%q is not a whole number", txt)
			}
			raw = []byte(d.String())
		} else {
			raw, _ = json.Marshal(d.String())
		}
	case engine.KindBool:
		switch strings.ToLower(txt) {
		case "true", "yes", "y", "1", "x":
			raw = []byte("true")
		case "false", "no", "n", "0":
			raw = []byte("false")
		default:
			return nil, fmt.Sprintf("%q is not true or false (yes and no are fine too)", txt)
		}
	case engine.KindEnum:
		raw, _ = json.Marshal(strings.ReplaceAll(strings.ToLower(txt), " ", "_"))
	case engine.KindString, engine.KindText:
		if upper {
			cell = strings.ToUpper(txt)
		}
		raw, _ = json.Marshal(cell)
	default:
		raw, _ = json.Marshal(txt)
	}
	v, e := engine.DecodeAttr(at, raw)
	if e != nil {
		return nil, e.Message
	}
	return v, ""
}

// parseNumber reads a plain decimal, or a number in exponent notation as
// a spreadsheet may store it (1E-3), within the engine's digits.
func parseNumber(txt string) (decimal.Decimal, bool) {
	if d, err := engine.ParseDecimal(txt); err == nil {
		return d, true
	}
	if !strings.ContainsAny(txt, "eE") || len(txt) > 64 {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(txt)
	if err != nil || d.Exponent() < -40 || d.Exponent() > 40 {
		return decimal.Zero, false
	}
	d, err = engine.ParseDecimal(d.String())
	return d, err == nil
}
