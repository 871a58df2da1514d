package documents

import (
	"sort"
	"strconv"
	"strings"
)

// References in formulas. A sheet whose loops repeat or leave out rows
// moves the references to its rows the way a spreadsheet moves them on
// inserting and deleting rows: a reference below a loop shifts, a range
// spanning a loop's row grows to its last copy, a reference to a row a
// loop left out is #REF! (a range loses those rows, and is #REF! when none
// is left). A formula in a repeated row refers, in each copy, to the same
// copy of its own row and of the rows repeated with it, as filling down
// does.

// ref is a reference as a formula writes it: a cell (A1), a range (A1:B2),
// whole rows (5:7) or whole columns (A:C), each part with $ where absolute.
type ref struct {
	col1, col2       string // "" for whole rows
	row1, row2       int    // 0 for whole columns
	absC1, absC2     bool
	absR1, absR2     bool
	isRange, noSheet bool
}

// String writes the reference back.
func (r ref) String() string {
	part := func(col string, absC bool, row int, absR bool) string {
		var b strings.Builder
		if col != "" {
			if absC {
				b.WriteByte('$')
			}
			b.WriteString(col)
		}
		if row > 0 {
			if absR {
				b.WriteByte('$')
			}
			b.WriteString(strconv.Itoa(row))
		}
		return b.String()
	}
	s := part(r.col1, r.absC1, r.row1, r.absR1)
	if r.isRange {
		s += ":" + part(r.col2, r.absC2, r.row2, r.absR2)
	}
	return s
}

// refChar reports whether c may be part of a name or reference token.
func refChar(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c == '\\' || c >= 0x80 ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// refPart reads "$A$1", "A", "$5" at the start of s: its column, row and
// length (0 when it is none).
func refPart(s string) (col string, absC bool, row int, absR bool, n int) {
	i := 0
	if i < len(s) && s[i] == '$' {
		absC, i = true, i+1
	}
	j := i
	for j < len(s) && j-i < 3 && ('a' <= s[j] && s[j] <= 'z' || 'A' <= s[j] && s[j] <= 'Z') {
		j++
	}
	col = strings.ToUpper(s[i:j])
	if col == "" {
		absC = false
		i = 0
	} else {
		i = j
	}
	k := i
	if k < len(s) && s[k] == '$' {
		absR, k = true, k+1
	}
	d := k
	for d < len(s) && d-k < 7 && '0' <= s[d] && s[d] <= '9' {
		d++
	}
	if d > k {
		row, _ = strconv.Atoi(s[k:d])
		i = d
	} else {
		absR = false
	}
	if col == "" && row == 0 || row == 0 && absR {
		return "", false, 0, false, 0
	}
	if col == "" && absC {
		return "", false, 0, false, 0
	}
	return col, absC, row, absR, i
}

// parseRef reads a reference at the start of s and its length (0: none).
// What follows it may not continue a name (LOG10( is a function, A1B a
// name).
func parseRef(s string) (ref, int) {
	var r ref
	col, absC, row, absR, n := refPart(s)
	if n == 0 {
		return r, 0
	}
	r.col1, r.absC1, r.row1, r.absR1 = col, absC, row, absR
	if n < len(s) && s[n] == ':' {
		col2, absC2, row2, absR2, m := refPart(s[n+1:])
		if m > 0 && (col == "") == (col2 == "") && (row == 0) == (row2 == 0) {
			r.isRange, r.col2, r.absC2, r.row2, r.absR2 = true, col2, absC2, row2, absR2
			n += 1 + m
		}
	}
	if !r.isRange && (r.col1 == "" || r.row1 == 0) {
		return r, 0 // a lone 5 or A is a number or a name
	}
	if n < len(s) && (refChar(s[n]) || s[n] == '(' || s[n] == '!') {
		return r, 0
	}
	return r, n
}

// rewriteRefs calls fn with each reference of a formula and the sheet it
// names ("" for the formula's own), and writes fn's text in its place;
// strings, external and structured references are left as they are.
func rewriteRefs(f string, fn func(sheet string, r ref) string) string {
	var b strings.Builder
	b.Grow(len(f) + 8)
	for i := 0; i < len(f); {
		c := f[i]
		switch {
		case c == '"': // a string: "" is a quote in it
			j := i + 1
			for j < len(f) {
				if f[j] == '"' {
					if j+1 < len(f) && f[j+1] == '"' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			end := min(j+1, len(f))
			b.WriteString(f[i:end])
			i = end
		case c == '[': // an external workbook or a table's column: as it is
			depth, j := 0, i
			for ; j < len(f); j++ {
				if f[j] == '[' {
					depth++
				} else if f[j] == ']' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			j = min(j+1, len(f))
			for j < len(f) && (refChar(f[j]) || f[j] == '!' || f[j] == ':') { // [1]Sheet1!A1
				j++
			}
			b.WriteString(f[i:j])
			i = j
		case c == '\'': // a quoted sheet name: 'My sheet'!A1
			j := i + 1
			var name strings.Builder
			for j < len(f) {
				if f[j] == '\'' {
					if j+1 < len(f) && f[j+1] == '\'' {
						name.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				name.WriteByte(f[j])
				j++
			}
			if j+1 < len(f) && f[j+1] == '!' {
				if r, n := parseRef(f[j+2:]); n > 0 {
					b.WriteString(f[i : j+2])
					b.WriteString(fn(name.String(), r))
					i = j + 2 + n
					continue
				}
			}
			end := min(j+1, len(f))
			b.WriteString(f[i:end])
			i = end
		case refChar(c):
			j := i
			for j < len(f) && refChar(f[j]) {
				j++
			}
			if j < len(f) && f[j] == '!' {
				if r, n := parseRef(f[j+1:]); n > 0 {
					b.WriteString(f[i : j+1])
					b.WriteString(fn(f[i:j], r))
					i = j + 1 + n
					continue
				}
				b.WriteString(f[i : j+1])
				i = j + 1
				continue
			}
			if r, n := parseRef(f[i:]); n > 0 && (i == 0 || !refChar(f[i-1])) {
				b.WriteString(fn("", r))
				i += n
				continue
			}
			b.WriteString(f[i:j])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// shiftRefs moves a formula's relative references by dr rows and dc
// columns, as a spreadsheet copies a formula (a shared formula's cells);
// one moved off the sheet is #REF!.
func shiftRefs(f string, dr, dc int) string {
	if dr == 0 && dc == 0 {
		return f
	}
	return rewriteRefs(f, func(_ string, r ref) string {
		ok := true
		mv := func(col *string, absC bool, row *int, absR bool) {
			if *col != "" && !absC {
				n := colNumber(*col) + dc
				ok = ok && n >= 1 && n <= maxSheetCols
				*col = colName(n)
			}
			if *row > 0 && !absR {
				*row += dr
				ok = ok && *row >= 1 && *row <= maxSheetRows
			}
		}
		mv(&r.col1, r.absC1, &r.row1, r.absR1)
		if r.isRange {
			mv(&r.col2, r.absC2, &r.row2, r.absR2)
		}
		if !ok {
			return "#REF!"
		}
		return r.String()
	})
}

// rowMap is how a rendered sheet's rows follow its template's: the
// template's rows, sorted, and the rows each became, in order (none: a
// loop left it out). A nil rowMap is a sheet whose rows did not move.
type rowMap struct {
	tpl    []int
	copies map[int][]int
}

// moved reports whether any row of the sheet moved, was repeated or left
// out.
func (m *rowMap) moved() bool {
	if m == nil {
		return false
	}
	for _, r := range m.tpl {
		if c := m.copies[r]; len(c) != 1 || c[0] != r {
			return true
		}
	}
	return false
}

// pos returns where row r of the template is in the result: its first
// copy, or for a row left out the row that now follows where it was; and
// whether r is a row a loop left out.
func (m *rowMap) pos(r int) (int, bool) {
	if m == nil {
		return r, false
	}
	if c := m.copies[r]; len(c) > 0 {
		return c[0], false
	}
	i := sort.SearchInts(m.tpl, r)
	dropped := i < len(m.tpl) && m.tpl[i] == r
	for j := i - 1; j >= 0; j-- {
		if c := m.copies[m.tpl[j]]; len(c) > 0 {
			p := m.tpl[j]
			return c[len(c)-1] + (r - p) - (i - j - 1), dropped
		}
	}
	return r - i, dropped
}

// last returns where a range ending on row r of the template ends.
func (m *rowMap) last(r int) int {
	if m != nil {
		if c := m.copies[r]; len(c) > 0 {
			return c[len(c)-1]
		}
	}
	n, dropped := m.pos(r)
	if dropped {
		return n - 1
	}
	return n
}

// cellPlace names a formula's place: its template row and which copy of it.
type cellPlace struct{ row, copy int }

// sameBlock reports whether rows r and own of the template were repeated
// together (by one loop over several rows): as many copies, each at the
// same distance.
func (m *rowMap) sameBlock(r, own int) bool {
	if m == nil {
		return false
	}
	a, b := m.copies[r], m.copies[own]
	if len(a) != len(b) || len(a) < 2 {
		return false
	}
	for i := range a {
		if a[i]-b[i] != r-own {
			return false
		}
	}
	return true
}

// moveRef moves a reference to the sheet of m, written in a formula at
// place (own: on that sheet).
func (m *rowMap) moveRef(r ref, own bool, place cellPlace) string {
	if m == nil || r.row1 == 0 {
		return r.String() // whole columns keep their place
	}
	follow := func(row int, abs bool) (int, bool) {
		if own && !abs && m.sameBlock(row, place.row) {
			return m.copies[row][place.copy], true
		}
		return 0, false
	}
	if !r.isRange {
		if n, ok := follow(r.row1, r.absR1); ok {
			r.row1 = n
			return r.String()
		}
		n, dropped := m.pos(r.row1)
		if dropped {
			return "#REF!"
		}
		r.row1 = n
		return r.String()
	}
	first, ok := follow(r.row1, r.absR1)
	if !ok {
		first, _ = m.pos(r.row1)
	}
	end, ok := follow(r.row2, r.absR2)
	if !ok {
		end = m.last(r.row2)
	}
	if end < first {
		return "#REF!"
	}
	r.row1, r.row2 = first, end
	return r.String()
}
