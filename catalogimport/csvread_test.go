package catalogimport

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"testing"
)

// Ensure csvRecords reads as encoding/csv does (records, the line each
// starts on, what it refuses), but for a \r\n inside quotes, which it
// keeps.
func FuzzCSVRecords(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "Name\n\"X\"Y\n", "\"two\nlines\",x\r\n\r\ny\n", "a;\"b\"\"c\";\n", "x,\n\n,", "\"open\n",
		"bare\"quote\n", "a\rb,c\r\n", "\"a\"\r", "\xef\xbb\xbfName\n"} {
		f.Add([]byte(s), byte(','))
	}
	f.Fuzz(func(t *testing.T, data []byte, sep byte) {
		if sep != ',' && sep != ';' && sep != '\t' {
			sep = ','
		}
		got, err := csvRecords(data, sep)
		want, werr := stdRecords(data, sep)
		if bytes.Contains(data, []byte("\r\n")) && err == nil && werr == nil {
			// encoding/csv reads a \r\n within quotes as \n
			for i := range got {
				for j := range got[i].cells {
					got[i].cells[j] = string(bytes.ReplaceAll([]byte(got[i].cells[j]), []byte("\r\n"), []byte("\n")))
				}
			}
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: error %v, encoding/csv %v", data, err, werr)
		}
		if err != nil {
			return
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d records, encoding/csv %d", data, len(got), len(want))
		}
		for i := range got {
			if got[i].n != want[i].n || !slices.Equal(got[i].cells, want[i].cells) {
				t.Fatalf("%q: record %d is %d %q, encoding/csv %d %q", data, i, got[i].n, got[i].cells, want[i].n, want[i].cells)
			}
		}
	})
}

func stdRecords(data []byte, sep byte) ([]line, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord = rune(sep), -1
	var out []line
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		n, _ := r.FieldPos(0)
		out = append(out, line{n: n, cells: rec})
	}
}
