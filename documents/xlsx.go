package documents

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Excel templates: the tags are in the cells' text of
// xl/worksheets/sheetN.xml, shared strings and inline strings alike. A cell
// is the engine's paragraph: before compiling, every cell whose text has a
// brace becomes an inline rich-text cell (c > is > r > t) marked with what
// it held, so the engine splits its runs as Word's. After rendering, the
// rows are numbered again (a loop repeats or drops rows), cell references
// and merged ranges follow their rows, the dimension is set, and a marked
// cell whose text, loop tags aside, was one value tag becomes a number
// cell keeping its style (its number format) when the value reads as a
// number.

var formatXLSX = &officeFormat{name: FormatXLSX, title: "XLSX", contentType: ContentTypeXLSX,
	main:    "xl/workbook.xml",
	tagPart: func(name string) bool { return numberedPart(name, "xl/worksheets/", "sheet") },
	extraPart: func(name string) bool {
		return name == sharedStringsPart || name == workbookPart || name == workbookRels
	},
	dialect: spreadsheetML, prepare: prepareSheet, finish: finishSheet, complete: finishBook}

const sharedStringsPart = "xl/sharedStrings.xml"

// cellMark is the attribute marking a cell that held tags until the sheet
// is finished: "n" when its text was one value tag, else "t".
const cellMark = "scopekit-cell"

// spreadsheetML is the dialect of cell text: a value is a run whose text
// keeps new lines (shown with the cell's wrap text).
var spreadsheetML = &dialect{para: "c", run: "r", text: "t", runProps: "rPr", preserve: true,
	label: func(part string, p *node, _ int) string {
		return fmt.Sprintf("cell %s of %s", attr(p.attrs, "r"), strings.TrimSuffix(path.Base(part), ".xml"))
	},
	value: func(w *out, d *dialect, rPr *node, s string) {
		w.WriteString("<r>")
		if rPr != nil {
			w.writeNode(rPr)
		}
		w.WriteString(`<t xml:space="preserve">`)
		escape(w, s, false)
		w.WriteString("</t></r>")
	}}

// xlsxState is what the sheets of one workbook share: the shared strings
// (the inner bytes of each si) and the template's row numbers per sheet.
type xlsxState struct {
	sst  [][]byte
	rows map[string][]int
	maps map[string]*rowMap // each finished sheet's rows
}

func attr(attrs []xml.Attr, name string) string {
	for _, a := range attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// setAttr returns attrs with name set to value ("" removes it).
func setAttr(attrs []xml.Attr, name, value string) []xml.Attr {
	out := make([]xml.Attr, 0, len(attrs)+1)
	for _, a := range attrs {
		if a.Name.Space != "" || a.Name.Local != name {
			out = append(out, a)
		}
	}
	if value != "" {
		out = append(out, xml.Attr{Name: xml.Name{Local: name}, Value: value})
	}
	return out
}

// state returns the workbook's shared state, reading the shared strings
// the first time.
func xlsxStateOf(d *docx) (*xlsxState, error) {
	if st, ok := d.aux.(*xlsxState); ok {
		return st, nil
	}
	st := &xlsxState{rows: map[string][]int{}, maps: map[string]*rowMap{}}
	if b := d.extra[sharedStringsPart]; b != nil {
		start := -1
		err := tokens(context.Background(), &scanner{b: b}, func(tok xtoken) error {
			switch {
			case tok.kind == tokStart && string(tok.name) == "si" && tok.empty:
				st.sst = append(st.sst, nil)
			case tok.kind == tokStart && string(tok.name) == "si":
				start = tok.end
			case tok.kind == tokEnd && string(tok.name) == "si" && start >= 0:
				st.sst, start = append(st.sst, b[start:tok.start]), -1
			}
			return nil
		})
		if err != nil {
			return nil, invalid("the template's %s is not well-formed XML: %v", sharedStringsPart, err)
		}
	}
	d.aux = st
	return st, nil
}

// prepareSheet turns the cells whose text has a brace into marked inline
// rich-text cells (with their reference, computed from their place when
// they have none, so errors name them), gives rows without a number
// theirs, adds an empty row where a merged range begins or ends on a row
// the sheet does not have, and notes the template's row numbers.
func prepareSheet(ctx context.Context, d *docx, name string, b []byte) ([]byte, error) {
	st, err := xlsxStateOf(d)
	if err != nil {
		return nil, err
	}
	bad := func(err error) error {
		return invalid("the template's %s is not well-formed XML: %v", name, err)
	}
	if b, err = expandShared(ctx, b); err != nil {
		return nil, bad(err)
	}
	w := &out{}
	w.Grow(len(b) + len(b)/8)
	s := &scanner{b: b}
	copied, lastRow, col := 0, 0, 0
	var rows []int
	// the rows merged ranges begin or end on that have no row element get
	// an empty one, so each merged range follows rows of the template
	merged, pending := mergedRows(b), 0
	addRows := func(before, at int) {
		for ; pending < len(merged) && merged[pending] < before; pending++ {
			if k := merged[pending]; k > lastRow {
				w.Write(b[copied:at])
				copied = at
				w.startTag("row", []xml.Attr{{Name: xml.Name{Local: "r"}, Value: strconv.Itoa(k)}}, true)
				lastRow, rows = k, append(rows, k)
			}
		}
	}
	err = tokens(ctx, s, func(tok xtoken) error {
		if tok.kind == tokEnd && string(tok.name) == "sheetData" {
			addRows(math.MaxInt, tok.start)
		}
		if tok.kind != tokStart {
			return nil
		}
		switch string(tok.name) {
		case "row":
			attrs := decodeAttrs(tok.attrs)
			n, err := strconv.Atoi(attr(attrs, "r"))
			if err == nil && n > lastRow {
				addRows(n, tok.start)
			} else {
				n = lastRow + 1
				w.Write(b[copied:tok.start])
				w.startTag("row", setAttr(attrs, "r", strconv.Itoa(n)), tok.empty)
				copied = tok.end
			}
			lastRow, col = n, 0
			rows = append(rows, n)
		case "c":
			// a cell without a reference follows the one before it
			attrs := decodeAttrs(tok.attrs)
			if c, _ := splitRef(attr(attrs, "r")); c != "" {
				col = colNumber(c)
			} else {
				col++
				attrs = setAttr(attrs, "r", colName(col)+strconv.Itoa(lastRow))
			}
			if tok.empty {
				return nil
			}
			c, err := readCell(s, tok)
			if err != nil {
				return err
			}
			var inner []byte
			switch attr(attrs, "t") {
			case "s":
				if i, err := strconv.Atoi(strings.TrimSpace(decode(c.v))); err == nil && i >= 0 && i < len(st.sst) {
					inner = st.sst[i]
				}
			case "inlineStr":
				inner = c.is
			}
			if !bytes.ContainsAny(inner, "{}") {
				return nil
			}
			runs, text, err := richRuns(ctx, inner)
			if err != nil {
				return err
			}
			mark := "t"
			if oneValueTag(text) {
				mark = "n"
			}
			w.Write(b[copied:tok.start])
			w.startTag("c", setAttr(setAttr(attrs, "t", "inlineStr"), cellMark, mark), false)
			w.WriteString("<is>")
			w.Write(runs)
			w.WriteString("</is></c>")
			copied = c.end
		}
		return nil
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, bad(err)
	}
	w.Write(b[copied:])
	st.rows[name] = rows
	return w.Bytes(), nil
}

// tokens calls fn with each token of s until the end, an error of the
// scanner or of fn, or the end of ctx.
func tokens(ctx context.Context, s *scanner, fn func(xtoken) error) error {
	for i := 0; ; i++ {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		tok, err := s.next()
		if err == io.EOF {
			return nil
		}
		if err == nil {
			err = fn(tok)
		}
		if err != nil {
			return err
		}
	}
}

// cell is a cell element read by readCell: its end and the bytes of its
// value (v) and inline string (is) contents.
type cell struct {
	end    int
	v, is  []byte
	f      *string    // the formula's text, decoded (nil: none)
	fAttrs []xml.Attr // the formula's attributes
}

// readCell reads the tokens of the cell that tok opens, up to its end.
func readCell(s *scanner, tok xtoken) (cell, error) {
	c := cell{}
	depth, vStart, isStart, fStart := 1, -1, -1, -1
	for depth > 0 {
		t, err := s.next()
		if err == io.EOF {
			return c, fmt.Errorf("<c> is not closed")
		}
		if err != nil {
			return c, err
		}
		switch {
		case t.kind == tokStart && !t.empty:
			depth++
			if depth == 2 && string(t.name) == "v" {
				vStart = t.end
			}
			if depth == 2 && string(t.name) == "is" {
				isStart = t.end
			}
			if depth == 2 && string(t.name) == "f" {
				fStart, c.fAttrs = t.end, decodeAttrs(t.attrs)
			}
		case t.kind == tokStart && depth == 1 && string(t.name) == "f": // <f/>
			empty := ""
			c.f, c.fAttrs = &empty, decodeAttrs(t.attrs)
		case t.kind == tokEnd:
			depth--
			if depth == 1 && string(t.name) == "v" && vStart >= 0 {
				c.v = s.b[vStart:t.start]
			}
			if depth == 1 && string(t.name) == "is" && isStart >= 0 {
				c.is = s.b[isStart:t.start]
			}
			if depth == 1 && string(t.name) == "f" && fStart >= 0 {
				text := decode(s.b[fStart:t.start])
				c.f = &text
			}
			if depth == 0 && string(t.name) != "c" {
				return c, s.errorf(t.start, "unexpected </%s>", t.name)
			}
			c.end = t.end
		}
	}
	return c, nil
}

// richRuns returns the content of a shared or inline string (plain t, or
// runs r) as runs, phonetic hints left out, and its text.
func richRuns(ctx context.Context, inner []byte) ([]byte, string, error) {
	root, err := parseXML(ctx, inner, "")
	if err != nil {
		return nil, "", err
	}
	var w out
	var text strings.Builder
	for _, k := range root.kids {
		switch {
		case k.kind == kElem && k.name == "t":
			w.WriteString("<r>")
			w.writeNode(k)
			w.WriteString("</r>")
			text.WriteString(textOf(k))
		case k.kind == kElem && k.name == "r":
			w.writeNode(k)
			for _, t := range k.kids {
				if t.kind == kElem && t.name == "t" {
					text.WriteString(textOf(t))
				}
			}
		}
	}
	return w.Bytes(), text.String(), nil
}

// oneValueTag reports whether text is, loop and section tags aside, one
// value tag and nothing else but spaces.
func oneValueTag(text string) bool {
	values := 0
	for {
		i := strings.IndexByte(text, '{')
		if strings.TrimSpace(text[:max(i, 0)]) != "" || (i < 0 && strings.TrimSpace(text) != "") {
			return false
		}
		if i < 0 {
			return values == 1
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			return false
		}
		body := strings.TrimSpace(text[i+1 : i+j])
		if body == "" || !strings.ContainsRune("#^/", rune(body[0])) {
			values++
		}
		text = text[i+j+1:]
	}
}

// numberText is a plain decimal: merge data's figures (1069.25, -250, 3).
var numberText = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`)

// maxNumberDigits are the significant digits a spreadsheet keeps of a
// number (a double's 15).
const maxNumberDigits = 15

// cellNumber reports whether a value's text becomes a number cell: a plain
// decimal, as merge data writes figures, that a spreadsheet keeps exactly.
// An exponent (1E5, 1e400), a leading zero (02139), a negative zero (-0)
// or more significant digits than a spreadsheet keeps stay text.
func cellNumber(s string) bool {
	if !numberText.MatchString(s) {
		return false
	}
	sig := strings.Trim(strings.Map(func(r rune) rune {
		if r == '-' || r == '.' {
			return -1
		}
		return r
	}, s), "0")
	if sig == "" {
		return s[0] != '-'
	}
	return len(sig) <= maxNumberDigits
}

// finishSheet numbers the rendered sheet's rows again, moves the cell
// references and merged ranges with their rows, sets the dimension, and
// turns the marked cells into number, text or empty cells.
func finishSheet(d *docx, name string, b []byte) ([]byte, error) {
	st, err := xlsxStateOf(d)
	if err != nil {
		return nil, err
	}
	tpl := st.rows[name]
	// below counts the template's rows before row n
	below := func(n int) int { return sort.SearchInts(tpl, n) }
	w := &out{}
	w.Grow(len(b) + len(b)/16)
	s := &scanner{b: b}
	copied := 0
	prevOrig, prevNew, cur, maxRow, maxCol, lastCol := 0, 0, 0, 0, 0, 0
	copies := map[int][]int{} // each template row's rows in the result, in order
	var merges [][]xml.Attr   // each merged range's attributes
	dimAt, dimFrom := -1, "A1"
	err = tokens(context.Background(), s, func(tok xtoken) error {
		if tok.kind == tokEnd && string(tok.name) == "mergeCells" {
			writeMerges(w, merges, copies)
			copied = tok.end
		}
		if tok.kind != tokStart {
			return nil
		}
		switch string(tok.name) {
		case "dimension":
			w.Write(b[copied:tok.start])
			dimAt, copied = w.Len(), tok.end
			if from, _, _ := strings.Cut(attr(decodeAttrs(tok.attrs), "ref"), ":"); from != "" {
				dimFrom = from
			}
		case "row":
			attrs := decodeAttrs(tok.attrs)
			orig, _ := strconv.Atoi(attr(attrs, "r"))
			n := prevNew + 1
			if orig > prevOrig {
				n = prevNew + (orig - prevOrig) - (below(orig) - below(prevOrig+1))
			}
			if n > maxSheetRows {
				return errTooManyRows
			}
			prevOrig, prevNew, cur, maxRow, lastCol = orig, n, n, max(maxRow, n), 0
			copies[orig] = append(copies[orig], n)
			w.Write(b[copied:tok.start])
			w.startTag("row", setAttr(attrs, "r", strconv.Itoa(n)), tok.empty)
			copied = tok.end
		case "c":
			attrs := decodeAttrs(tok.attrs)
			lastCol++ // a cell without a reference is the next one
			if col, _ := splitRef(attr(attrs, "r")); col != "" {
				attrs = setAttr(attrs, "r", col+strconv.Itoa(cur))
				lastCol = colNumber(col)
			}
			if lastCol > maxSheetCols {
				return errTooManyCols
			}
			maxCol = max(maxCol, lastCol)
			mark := attr(attrs, cellMark)
			w.Write(b[copied:tok.start])
			copied = tok.end
			if mark == "" || tok.empty {
				w.startTag("c", setAttr(attrs, cellMark, ""), tok.empty)
				return nil
			}
			c, err := readCell(s, tok)
			if err != nil {
				return err
			}
			copied = c.end
			writeCell(w, setAttr(attrs, cellMark, ""), mark, c.is)
		case "mergeCells":
			// written again at its end, with the ranges moved
			w.Write(b[copied:tok.start])
			copied = tok.end
			if tok.empty {
				w.Write(b[tok.start:tok.end])
			}
		case "mergeCell":
			merges = append(merges, decodeAttrs(tok.attrs))
		}
		return nil
	})
	if errors.Is(err, errTooManyRows) {
		return nil, invalid("the sheet rendered from %s would have more than %d rows, a sheet's limit (a loop over a long list)", name, maxSheetRows)
	}
	if errors.Is(err, errTooManyCols) {
		return nil, invalid("the sheet rendered from %s has a cell beyond column %s, a sheet's last", name, colName(maxSheetCols))
	}
	if err != nil {
		return nil, fmt.Errorf("documents: rendered %s: %w", name, err)
	}
	if maxRow*maxCol > maxSheetCells {
		return nil, invalid("the sheet rendered from %s reaches cell %s%d: %d rows by %d columns is more than %d cells, "+
			"too far for its PDF to be made in time; keep the sheet's cells nearer to A1", name, colName(maxCol), maxRow, maxRow, maxCol, maxSheetCells)
	}
	w.Write(b[copied:])
	st.maps[name] = &rowMap{tpl: tpl, copies: copies}
	res := w.Bytes()
	if dimAt >= 0 {
		dim := fmt.Sprintf(`<dimension ref="%s:%s%d"/>`, dimFrom, colName(max(maxCol, 1)), max(maxRow, 1))
		res = append(res[:dimAt:dimAt], append([]byte(dim), res[dimAt:]...)...)
	}
	return res, nil
}

// writeCell writes a rendered marked cell: empty (its style kept) when
// its text is, a number cell when it was one value tag that reads as a
// number, else an inline string cell.
func writeCell(w *out, attrs []xml.Attr, mark string, is []byte) {
	root, err := parseXML(context.Background(), is, "")
	text := ""
	if err == nil {
		var sb strings.Builder
		walk(root, func(n *node) bool {
			if n.kind == kElem && n.name == "t" {
				sb.WriteString(textOf(n))
				return false
			}
			return true
		})
		text = sb.String()
	}
	switch {
	case text == "":
		w.startTag("c", setAttr(attrs, "t", ""), true)
	case mark == "n" && cellNumber(strings.TrimSpace(text)):
		w.startTag("c", setAttr(attrs, "t", ""), false)
		w.WriteString("<v>")
		w.WriteString(strings.TrimSpace(text))
		w.WriteString("</v></c>")
	default:
		w.startTag("c", attrs, false)
		w.WriteString("<is>")
		w.Write(is)
		w.WriteString("</is></c>")
	}
}
