package documents

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// Formulas of a rendered workbook (xlsxrefs.go says how references
// move). Before compiling, every shared formula of a sheet is written as
// a formula of its own cell (a loop may move its cells apart). After every
// sheet is finished, when a loop moved rows, the references of every
// sheet's formulas, conditional formats, data validations and internal
// hyperlinks, and of the workbook's defined names, are moved; the cached
// values of formulas are dropped and the workbook asks to be calculated
// when opened (LibreOffice and Excel then compute them).

const workbookPart, workbookRels = "xl/workbook.xml", "xl/_rels/workbook.xml.rels"

// attrsOf reads a start token's attributes.
func attrsOf(tok xtoken) []xml.Attr { return decodeAttrs(tok.attrs) }

// textUntil reads the text of the element tok opens, up to its end, and
// returns it decoded and the end of the element.
func textUntil(s *scanner, tok xtoken) (string, int, error) {
	if tok.empty {
		return "", tok.end, nil
	}
	start, depth := tok.end, 1
	for {
		t, err := s.next()
		if err != nil {
			return "", 0, err
		}
		switch t.kind {
		case tokStart:
			if !t.empty {
				depth++
			}
		case tokEnd:
			if depth--; depth == 0 {
				return decode(s.b[start:t.start]), t.end, nil
			}
		}
	}
}

// cellAt returns the column and row of a cell reference attribute.
func cellAt(attrs []xml.Attr) (int, int) {
	col, row := splitRef(attr(attrs, "r"))
	return colNumber(col), row
}

// expandShared writes each shared formula of a sheet (<f t="shared"
// si="0" ref="F5:F9">…</f>, and <f t="shared" si="0"/> in the cells it
// fills) as the formula of its own cell, moved as a spreadsheet copies it.
func expandShared(ctx context.Context, b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte(`"shared"`)) {
		return b, nil
	}
	type master struct {
		text     string
		col, row int
	}
	masters := map[string]master{}
	var w out
	w.Grow(len(b) + len(b)/8)
	s := &scanner{b: b}
	copied, col, row := 0, 0, 0
	err := tokens(ctx, s, func(tok xtoken) error {
		if tok.kind != tokStart {
			return nil
		}
		switch string(tok.name) {
		case "c":
			col, row = cellAt(attrsOf(tok))
		case "f":
			attrs := attrsOf(tok)
			if attr(attrs, "t") != "shared" {
				return nil
			}
			text, end, err := textUntil(s, tok)
			if err != nil {
				return err
			}
			si := attr(attrs, "si")
			if strings.TrimSpace(text) != "" {
				masters[si] = master{text, col, row}
			} else if m, ok := masters[si]; ok {
				text = shiftRefs(m.text, row-m.row, col-m.col)
			}
			w.Write(b[copied:tok.start])
			keep := setAttr(setAttr(setAttr(attrs, "t", ""), "si", ""), "ref", "")
			w.startTag("f", keep, false)
			escape(&w, text, false)
			w.endTag("f")
			copied = end
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.Write(b[copied:])
	return w.Bytes(), nil
}

// bookRefs is what moving a workbook's references needs: each sheet's
// rows by its name (folded), and the sheets' names by part.
type bookRefs struct {
	maps  map[string]*rowMap
	names map[string]string // part -> sheet name
	// inverse: per sheet part, the template row and copy of each row of
	// the result
	inverse map[string]map[int]cellPlace
}

// formula moves the references of a formula written on the sheet own (""
// for the workbook's defined names) at place.
func (bk *bookRefs) formula(f, own string, place cellPlace) string {
	return rewriteRefs(f, func(sheet string, r ref) string {
		name := strings.ToLower(sheet)
		if sheet == "" {
			if own == "" {
				return r.String()
			}
			name = strings.ToLower(own)
		}
		m, ok := bk.maps[name]
		if !ok {
			return r.String()
		}
		return m.moveRef(r, name == strings.ToLower(own), place)
	})
}

// sqref moves a list of ranges ("E5 G5:G9") as ranges over the rows the
// loops made: each grows to the last copy of its last row; ranges left
// with no row are left out.
func (bk *bookRefs) sqref(list, own string) string {
	m := bk.maps[strings.ToLower(own)]
	var out []string
	for _, part := range strings.Fields(list) {
		r, n := parseRef(part)
		if n != len(part) {
			out = append(out, part)
			continue
		}
		if !r.isRange {
			r.isRange, r.col2, r.row2 = true, r.col1, r.row1
		}
		moved := m.moveRef(r, false, cellPlace{})
		if moved == "#REF!" {
			continue
		}
		if mr, _ := parseRef(moved); mr.col1 == mr.col2 && mr.row1 == mr.row2 {
			moved = mr.col1 + strconv.Itoa(mr.row1)
		}
		out = append(out, moved)
	}
	return strings.Join(out, " ")
}

// finishBook moves the references of every sheet and of the defined names
// once every sheet is rendered, when a loop moved rows of a sheet.
func finishBook(ctx context.Context, d *docx, outs map[string][]byte) error {
	st, err := xlsxStateOf(d)
	if err != nil {
		return err
	}
	anyMoved := false
	for _, m := range st.maps {
		anyMoved = anyMoved || m.moved()
	}
	if !anyMoved {
		return nil
	}
	bk := &bookRefs{maps: map[string]*rowMap{}, names: sheetNames(d), inverse: map[string]map[int]cellPlace{}}
	for part, name := range bk.names {
		m := st.maps[part]
		bk.maps[strings.ToLower(name)] = m
		inv := map[int]cellPlace{}
		if m != nil {
			for _, r := range m.tpl {
				for k, n := range m.copies[r] {
					inv[n] = cellPlace{r, k}
				}
			}
		}
		bk.inverse[part] = inv
	}
	for _, part := range d.partNames() {
		b, rendered := outs[part]
		if !rendered {
			if b, err = expandShared(ctx, d.parts[part]); err != nil {
				return invalid("the template's %s is not well-formed XML: %v", part, err)
			}
		}
		if outs[part], err = bk.sheet(ctx, part, b); err != nil {
			return fmt.Errorf("documents: rendered %s: %w", part, err)
		}
	}
	if wb := d.extra[workbookPart]; wb != nil {
		if outs[workbookPart], err = bk.workbook(ctx, wb); err != nil {
			return fmt.Errorf("documents: %s: %w", workbookPart, err)
		}
	}
	return nil
}

// sheetNames maps each sheet part to its sheet's name, from the workbook
// and its relationships.
func sheetNames(d *docx) map[string]string {
	targets := map[string]string{}
	_ = tokens(context.Background(), &scanner{b: d.extra[workbookRels]}, func(tok xtoken) error {
		if tok.kind == tokStart && string(tok.name) == "Relationship" {
			a := attrsOf(tok)
			t := attr(a, "Target")
			if !strings.HasPrefix(t, "/") {
				t = path.Join("xl", t)
			}
			targets[attr(a, "Id")] = strings.TrimPrefix(t, "/")
		}
		return nil
	})
	names := map[string]string{}
	_ = tokens(context.Background(), &scanner{b: d.extra[workbookPart]}, func(tok xtoken) error {
		if tok.kind == tokStart && string(tok.name) == "sheet" {
			for _, a := range attrsOf(tok) {
				if a.Name.Local == "id" && a.Name.Space != "" {
					if part := targets[a.Value]; part != "" {
						names[part] = attr(attrsOf(tok), "name")
					}
				}
			}
		}
		return nil
	})
	return names
}

// sheet moves the references of one finished sheet: formulas (their
// cached values dropped), conditional formats, data validations and
// hyperlinks.
func (bk *bookRefs) sheet(ctx context.Context, part string, b []byte) ([]byte, error) {
	own, inv, m := bk.names[part], bk.inverse[part], bk.maps[strings.ToLower(bk.names[part])]
	var w out
	w.Grow(len(b) + len(b)/16)
	s := &scanner{b: b}
	copied, row := 0, 0
	place := func(row int) cellPlace {
		if p, ok := inv[row]; ok {
			return p
		}
		return cellPlace{row, 0}
	}
	validations, countAt := 0, -1
	err := tokens(ctx, s, func(tok xtoken) error {
		if tok.kind != tokStart {
			return nil
		}
		switch string(tok.name) {
		case "c":
			attrs := attrsOf(tok)
			_, row = cellAt(attrs)
			if tok.empty || !bytes.HasPrefix(bytes.TrimLeft(b[tok.end:], " \t\r\n"), []byte("<f")) {
				return nil // a formula is a cell's first element
			}
			c, err := readCell(s, tok)
			if err != nil || c.f == nil {
				return err
			}
			w.Write(b[copied:tok.start])
			w.startTag("c", setAttr(attrs, "t", ""), false)
			fa := c.fAttrs
			if ref := attr(fa, "ref"); ref != "" {
				fa = setAttr(fa, "ref", bk.sqref(ref, own))
			}
			w.startTag("f", fa, false)
			escape(&w, bk.formula(*c.f, own, place(row)), false)
			w.WriteString("</f></c>")
			copied = c.end
		case "dataValidations":
			w.Write(b[copied:tok.start])
			countAt, copied = w.Len(), tok.end
			w.startTag("dataValidations", setAttr(attrsOf(tok), "count", ""), tok.empty)
		case "conditionalFormatting", "dataValidation":
			attrs := attrsOf(tok)
			sq := bk.sqref(attr(attrs, "sqref"), own)
			top, _ := parseRef(sq)
			end, err := bk.formulasOf(s, tok, &w, b, copied, setAttr(attrs, "sqref", sq), own, cellPlace{top.row1, 0}, sq == "")
			if err != nil {
				return err
			}
			if tok.name[0] == 'd' && sq != "" {
				validations++
			}
			copied = end
		case "hyperlink":
			attrs := attrsOf(tok)
			w.Write(b[copied:tok.start])
			copied = tok.end
			if !tok.empty {
				return fmt.Errorf("<hyperlink> has content")
			}
			if loc := attr(attrs, "location"); loc != "" {
				attrs = setAttr(attrs, "location", bk.formula(loc, own, cellPlace{}))
			}
			if m == nil {
				w.startTag("hyperlink", attrs, true)
				return nil
			}
			// a link on a loop's row is repeated with it, as merged cells
			single := !strings.Contains(attr(attrs, "ref"), ":")
			for _, ref := range moveMerge(attr(attrs, "ref"), m.copies) {
				if single {
					ref, _, _ = strings.Cut(ref, ":")
				}
				w.startTag("hyperlink", setAttr(attrs, "ref", ref), true)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.Write(b[copied:])
	res := w.Bytes()
	if countAt >= 0 { // the count of the validations left
		tag := []byte(fmt.Sprintf(` count="%d"`, validations))
		i := countAt + len("<dataValidations")
		res = append(res[:i:i], append(tag, res[i:]...)...)
	}
	return res, nil
}

// formulasOf writes a conditional format or data validation (tok) with
// attrs and its formulas moved, or nothing when drop; it returns the end
// of the element in b.
func (bk *bookRefs) formulasOf(s *scanner, tok xtoken, w *out, b []byte, copied int, attrs []xml.Attr, own string, place cellPlace, drop bool) (int, error) {
	w.Write(b[copied:tok.start])
	if !drop {
		w.startTag(string(tok.name), attrs, tok.empty)
	}
	if tok.empty {
		return tok.end, nil
	}
	last, depth := tok.end, 1
	for depth > 0 {
		t, err := s.next()
		if err != nil {
			return 0, err
		}
		switch {
		case t.kind == tokStart && (string(t.name) == "formula" || string(t.name) == "formula1" || string(t.name) == "formula2"):
			text, end, err := textUntil(s, t)
			if err != nil {
				return 0, err
			}
			if !drop {
				w.Write(b[last:t.start])
				w.startTag(string(t.name), attrsOf(t), false)
				escape(w, bk.formula(text, own, place), false)
				w.endTag(string(t.name))
			}
			last = end
		case t.kind == tokStart && !t.empty:
			depth++
		case t.kind == tokEnd:
			depth--
			if depth == 0 {
				if !drop {
					w.Write(b[last:t.end])
				}
				return t.end, nil
			}
		}
	}
	return last, nil
}

// workbook moves the references of the defined names and asks for the
// workbook to be calculated when opened.
func (bk *bookRefs) workbook(ctx context.Context, b []byte) ([]byte, error) {
	var w out
	w.Grow(len(b) + 64)
	s := &scanner{b: b}
	copied, calc := 0, false
	afterNames := -1
	err := tokens(ctx, s, func(tok xtoken) error {
		switch {
		case tok.kind == tokStart && string(tok.name) == "definedName":
			text, end, err := textUntil(s, tok)
			if err != nil {
				return err
			}
			w.Write(b[copied:tok.start])
			w.startTag("definedName", attrsOf(tok), false)
			escape(&w, bk.formula(text, "", cellPlace{}), false)
			w.endTag("definedName")
			copied = end
		case tok.kind == tokStart && string(tok.name) == "calcPr":
			w.Write(b[copied:tok.start])
			w.startTag("calcPr", setAttr(attrsOf(tok), "fullCalcOnLoad", "1"), tok.empty)
			copied, calc = tok.end, true
		case tok.kind == tokEnd && (string(tok.name) == "sheets" || string(tok.name) == "functionGroups" ||
			string(tok.name) == "externalReferences" || string(tok.name) == "definedNames"):
			w.Write(b[copied:tok.end])
			copied, afterNames = tok.end, w.Len()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.Write(b[copied:])
	res := w.Bytes()
	if !calc && afterNames >= 0 {
		res = append(res[:afterNames:afterNames], append([]byte(`<calcPr fullCalcOnLoad="1"/>`), res[afterNames:]...)...)
	}
	return res, nil
}
