package ooxml

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// xlsx reads the visible sheets of a workbook in its order, each under its
// name as a table of its cells.
func (w *mdWriter) xlsx(zr *zip.Reader) error {
	sheets, names, err := partsInOrder(zr, MainPart[XLSX], "sheet")
	if err != nil {
		return err
	}
	b, err := zipPart(zr, "xl/sharedStrings.xml")
	if err != nil && !errors.Is(err, errNoPart) {
		return err
	}
	shared, err := sharedStrings(b)
	if err != nil {
		return err
	}
	return w.eachPart(zr, sheets, func(i int, b []byte) error {
		tb, err := w.sheet(b, shared)
		if err != nil {
			return err
		}
		w.block("## " + names[i])
		if md := tb.markdown(); md != "" {
			w.block(md)
		}
		return nil
	})
}

// sharedStrings returns the shared strings of a workbook: the text of each
// si, its runs joined (phonetic runs left out).
func sharedStrings(b []byte) ([]string, error) {
	var out []string
	if len(b) == 0 {
		return out, nil
	}
	var cur strings.Builder
	err := textOf(b, "si", "rPh", func(text string, end bool) {
		cur.WriteString(text)
		if end {
			out = append(out, cur.String())
			cur.Reset()
		}
	})
	return out, err
}

// textOf calls fn with the text of each t element inside an elem element
// (skipping those inside skip), and with end true at each elem's end.
func textOf(b []byte, elem, skip string, fn func(text string, end bool)) error {
	inText, skipping := false, 0
	return eachToken(b, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case skip:
				skipping++
			case "t":
				inText = skipping == 0
			}
		case xml.EndElement:
			switch t.Name.Local {
			case skip:
				skipping--
			case "t":
				inText = false
			case elem:
				fn("", true)
			}
		case xml.CharData:
			if inText {
				fn(string(t), false)
			}
		}
	})
}

// sheet reads the cells of a worksheet into a table, its rows in order,
// empty rows left out.
func (w *mdWriter) sheet(b []byte, shared []string) (*mdTable, error) {
	tb := &mdTable{}
	var row []string
	col, typ := -1, ""
	var val strings.Builder
	inVal := false
	err := eachToken(b, func(tok xml.Token) {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row, col = nil, -1
			case "c":
				if c, ok := column(plainAttr(t, "r")); ok {
					col = c
				} else {
					col++ // a cell without a reference follows the one before
				}
				typ = plainAttr(t, "t")
				val.Reset()
			case "v", "t": // a value, or an inline string's text
				inVal = true
			}
		case xml.CharData:
			if inVal {
				val.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v", "t":
				inVal = false
			case "c":
				row = w.cell(row, col, cellText(typ, val.String(), shared))
			case "row":
				if len(row) > 0 {
					tb.rows = append(tb.rows, row)
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return tb, nil
}

// cell puts the text of the cell in column col into row, escaped for a
// Markdown table; a cell past maxColumns is left out, and said so.
func (w *mdWriter) cell(row []string, col int, text string) []string {
	if text == "" {
		return row
	}
	if col >= maxColumns {
		w.cut = true
		return row
	}
	for len(row) <= col {
		row = append(row, "")
	}
	row[col] = strings.ReplaceAll(strings.ReplaceAll(text, "|", `\|`), "\n", "<br>")
	return row
}

// cellText is the text of a cell of type typ holding v.
func cellText(typ, v string, shared []string) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(shared) {
			return ""
		}
		return shared[i]
	case "b":
		if strings.TrimSpace(v) == "1" {
			return "TRUE"
		}
		return "FALSE"
	}
	return v // a number, an error, a formula's string, an inline string
}

// column returns the zero-based column of a cell reference (C7 is 2).
func column(ref string) (int, bool) {
	n, i := 0, 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		n = n*26 + int(ref[i]-'A'+1)
		if n > 1<<14 { // past XFD
			return 0, false
		}
	}
	if i == 0 || i == len(ref) {
		return 0, false
	}
	return n - 1, true
}
