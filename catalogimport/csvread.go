package catalogimport

import (
	"bytes"
	"fmt"
)

// csvRecords splits CSV text (RFC 4180) into records, each with the line
// it starts on. It reads as encoding/csv does with the separator sep and
// any number of fields per record (empty lines skipped, a record's \r\n
// ending read as \n, a quote in an unquoted field or after a closing quote
// refused), but keeps a quoted field's text exactly: encoding/csv turns a
// \r\n inside quotes into \n, which would change a name the export wrote.
func csvRecords(data []byte, sep byte) ([]line, error) {
	var out []line
	n, i := 1, 0 // the line at i, the position
	for i < len(data) {
		if data[i] == '\n' || (data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n') || (data[i] == '\r' && i+1 == len(data)) {
			i += lineEnd(data, i)
			n++
			continue // an empty line
		}
		rec := line{n: n}
		for {
			var field []byte
			if data[i] == '"' {
				i++
				for {
					j := bytes.IndexByte(data[i:], '"')
					if j < 0 {
						return nil, &csvError{line: n + bytes.Count(data[i:], []byte("\n")), msg: `extraneous or missing " in quoted-field`}
					}
					field = append(field, data[i:i+j]...)
					n += bytes.Count(data[i:i+j], []byte("\n"))
					i += j + 1
					if i < len(data) && data[i] == '"' {
						field = append(field, '"')
						i++
						continue
					}
					break
				}
				if i < len(data) && data[i] != sep && data[i] != '\n' && !(data[i] == '\r' && (i+1 == len(data) || data[i+1] == '\n')) {
					return nil, &csvError{line: n, msg: `extraneous or missing " in quoted-field`}
				}
			} else {
				j := i
				for j < len(data) && data[j] != sep && data[j] != '\n' && !(data[j] == '\r' && (j+1 == len(data) || data[j+1] == '\n')) {
					if data[j] == '"' {
						return nil, &csvError{line: n, msg: `bare " in non-quoted-field`}
					}
					j++
				}
				field, i = data[i:j], j
			}
			rec.cells = append(rec.cells, string(field))
			if i < len(data) && data[i] == sep {
				i++
				if i == len(data) { // a separator ends the text: one empty field more
					rec.cells = append(rec.cells, "")
				}
				if i < len(data) {
					continue
				}
			}
			break
		}
		if i < len(data) {
			i += lineEnd(data, i)
			n++
		}
		out = append(out, rec)
	}
	return out, nil
}

// lineEnd returns the length of the line ending at data[i]: \n, \r\n, or
// a \r that ends the text.
func lineEnd(data []byte, i int) int {
	if data[i] == '\r' && i+1 < len(data) {
		return 2
	}
	return 1
}

// csvError is a CSV text that does not read, on a line.
type csvError struct {
	line int
	msg  string
}

func (e *csvError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }
