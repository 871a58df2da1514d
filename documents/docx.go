package documents

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/scopekit/scopekit"
)

// mainPart is the body of a WordprocessingML document.
const mainPart = "word/document.xml"

// invalid is the error of a template that cannot be used: EINVALID about
// the field "file" (the uploaded template).
func invalid(format string, args ...any) error {
	return scopekit.FieldErrorf(scopekit.EINVALID, "file", format, args...)
}

// docx is an opened template: its zip and, unpacked, the parts tags may
// appear in (the body, headers, footers, footnotes and endnotes).
type docx struct {
	zr    *zip.Reader
	parts map[string][]byte // by entry name
}

// isTagPart reports whether tags are looked for in the entry name.
func isTagPart(name string) bool {
	if name == mainPart || name == "word/footnotes.xml" || name == "word/endnotes.xml" {
		return true
	}
	dir, file := path.Split(name)
	return dir == "word/" && strings.HasSuffix(file, ".xml") &&
		(strings.HasPrefix(file, "header") || strings.HasPrefix(file, "footer"))
}

// openDOCX checks b is a DOCX within the limits and unpacks its tag parts.
// With verify, every other entry is unpacked too (to io.Discard), so a
// corrupt entry or one whose data exceeds its declared size is found: the
// zip reader refuses to read past an entry's declared size, so checking
// declared sizes bounds the work of reading.
func openDOCX(b []byte, verify bool) (*docx, error) {
	if len(b) > MaxTemplateSize {
		return nil, invalid("the template is %d bytes; the limit is %d MiB", len(b), MaxTemplateSize>>20)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, invalid("the template is not a DOCX file (not a zip archive)")
	}
	if len(zr.File) > MaxEntries {
		return nil, invalid("the template has %d zip entries; the limit is %d", len(zr.File), MaxEntries)
	}
	var total uint64
	seen := map[string]bool{}
	for _, f := range zr.File {
		if f.UncompressedSize64 > MaxEntrySize {
			return nil, invalid("the template's entry %q unpacks to %d bytes; the limit is %d MiB", f.Name, f.UncompressedSize64, MaxEntrySize>>20)
		}
		total += f.UncompressedSize64
		if total > MaxUnpackedSize {
			return nil, invalid("the template unpacks to more than %d MiB", MaxUnpackedSize>>20)
		}
		if seen[f.Name] {
			return nil, invalid("the template has the zip entry %q twice", f.Name)
		}
		seen[f.Name] = true
	}
	d := &docx{zr: zr, parts: map[string][]byte{}}
	for _, f := range zr.File {
		if !isTagPart(f.Name) && !verify {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, invalid("the template's entry %q cannot be read: %v", f.Name, err)
		}
		var buf bytes.Buffer
		var dst io.Writer = io.Discard
		if isTagPart(f.Name) {
			buf.Grow(int(f.UncompressedSize64))
			dst = &buf
		}
		_, err = io.Copy(dst, rc)
		rc.Close()
		if err != nil {
			return nil, invalid("the template's entry %q is corrupt: %v", f.Name, err)
		}
		if isTagPart(f.Name) {
			d.parts[f.Name] = buf.Bytes()
		}
	}
	if _, ok := d.parts[mainPart]; !ok {
		return nil, invalid("the template is not a DOCX file (no %s)", mainPart)
	}
	return d, nil
}

// partNames returns the tag parts in a fixed order: the body first, then
// the others by name.
func (d *docx) partNames() []string {
	names := make([]string, 0, len(d.parts))
	for n := range d.parts {
		if n != mainPart {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append([]string{mainPart}, names...)
}

// write returns the template with the given parts replaced; every other
// entry is copied as it is, still compressed.
func (d *docx) write(out map[string][]byte) ([]byte, error) {
	// The copied entries keep their size; the new parts compress well.
	size := 1 << 12
	for _, f := range d.zr.File {
		if data, ok := out[f.Name]; ok {
			size += len(data)/4 + len(f.Name) + 100
		} else {
			size += int(f.CompressedSize64) + 2*len(f.Name) + 200
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	zw := zip.NewWriter(buf)
	for _, f := range d.zr.File {
		data, ok := out[f.Name]
		if !ok {
			if err := zw.Copy(f); err != nil {
				return nil, fmt.Errorf("documents: copy %s: %w", f.Name, err)
			}
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: f.Modified})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// errTooLarge is the error of a rendering that outgrew MaxOutputPart.
var errTooLarge = errors.New("too large")

// errComplex is the error of a part with more than maxNodes nodes.
var errComplex = errors.New("too complex")
