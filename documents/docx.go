package documents

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/semaphore"

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
// appear in (for a DOCX the body, headers, footers, footnotes and
// endnotes) and the other parts its format reads (extra).
type docx struct {
	f     *officeFormat
	zr    *zip.Reader
	parts map[string][]byte // by entry name
	extra map[string][]byte // by entry name
	aux   any               // the format's own state (an XLSX's shared strings)
	// release returns the unpacked bytes reserved for this package to
	// unpackBudget; close calls it once the package is done with.
	release func()
}

// unpackBudget bounds the template bytes unpacked at once in the process
// (by every validation and rendering together): a template reserves the
// unpacked size of the entries it keeps before unpacking them and
// returns it when done, waiting (or stopping with its context) while the
// budget is spent. Eight uploads of 60 MiB of whitespace at once thus
// unpack three at a time, not eight. One template at its limits
// (MaxUnpackedSize) fits.
var unpackBudget = semaphore.NewWeighted(unpackBudgetBytes)

const unpackBudgetBytes = 192 << 20

// close releases what the package reserved of unpackBudget.
func (d *docx) close() {
	if d != nil && d.release != nil {
		d.release()
		d.release = nil
	}
}

// isTagPart reports whether tags are looked for in the entry name of a
// DOCX.
func isTagPart(name string) bool {
	if name == mainPart || name == "word/footnotes.xml" || name == "word/endnotes.xml" {
		return true
	}
	dir, file := path.Split(name)
	return dir == "word/" && strings.HasSuffix(file, ".xml") &&
		(strings.HasPrefix(file, "header") || strings.HasPrefix(file, "footer"))
}

// openPackage checks b is a file of format f within the limits and unpacks its tag parts.
// With verify, every other entry is unpacked too (to io.Discard), so a
// corrupt entry or one whose data exceeds its declared size is found: the
// zip reader refuses to read past an entry's declared size, so checking
// declared sizes bounds the work of reading. Entry names must be safe
// paths, and no XML part may hold a DOCTYPE (checked with or without
// verify: those parts are copied into every generated file).
func openPackage(ctx context.Context, f *officeFormat, b []byte, verify bool) (*docx, error) {
	if len(b) > MaxTemplateSize {
		return nil, invalid("the template is %d bytes; the limit is %d MiB", len(b), MaxTemplateSize>>20)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, invalid("the template is not a %s file (not a zip archive)", f.title)
	}
	if len(zr.File) > MaxEntries {
		return nil, invalid("the template has %d zip entries; the limit is %d", len(zr.File), MaxEntries)
	}
	var total uint64
	seen := map[string]bool{}
	for _, f := range zr.File {
		if why := unsafeName(f.Name); why != "" {
			return nil, invalid("the template's zip entry %q has an unsafe name (%s)", f.Name, why)
		}
		if m := f.Mode(); !m.IsRegular() && !m.IsDir() {
			return nil, invalid("the template's zip entry %q is a %s; a template holds only files and folders", f.Name, entryKind(m))
		}
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
	var kept int64
	for _, e := range zr.File {
		if f.tagPart(e.Name) || f.extraPart(e.Name) {
			kept += int64(e.UncompressedSize64)
		}
	}
	kept = min(kept, unpackBudgetBytes)
	if err := unpackBudget.Acquire(ctx, kept); err != nil {
		return nil, err
	}
	d := &docx{f: f, zr: zr, parts: map[string][]byte{}, extra: map[string][]byte{},
		release: func() { unpackBudget.Release(kept) }}
	ok := false
	defer func() {
		if !ok {
			d.close()
		}
	}()
	for _, f := range zr.File {
		tagPart, xmlPart := d.f.tagPart(f.Name), isXMLPart(f.Name)
		keep := tagPart || d.f.extraPart(f.Name)
		if !keep && !xmlPart && !verify {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rc, err := f.Open()
		if err != nil {
			return nil, invalid("the template's entry %q cannot be read: %v", f.Name, err)
		}
		var buf bytes.Buffer
		var dst io.Writer = io.Discard
		if keep {
			buf.Grow(int(f.UncompressedSize64))
			dst = &buf
		}
		var dt doctypeFinder
		if xmlPart {
			dst = io.MultiWriter(dst, &dt)
		}
		_, err = io.Copy(dst, ctxReader{ctx, rc})
		rc.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, invalid("the template's entry %q is corrupt: %v", f.Name, err)
		}
		if dt.found {
			return nil, invalid("the template's %s has a DOCTYPE declaration; a template may not have one", f.Name)
		}
		switch {
		case tagPart:
			d.parts[f.Name] = buf.Bytes()
		case keep:
			d.extra[f.Name] = buf.Bytes()
		}
	}
	if !seen[d.f.main] {
		return nil, invalid("the template is not a %s file (no %s)", d.f.title, d.f.main)
	}
	ok = true
	return d, nil
}

// unsafeName says why a zip entry's name is not a safe relative path
// (absolute, with a .. segment or a backslash, empty segments, control
// characters), or "".
// Such a name would be copied into every file generated from the template
// and could write outside a folder where the file is unpacked.
func unsafeName(name string) string {
	switch {
	case strings.ContainsRune(name, '\\'):
		return "a backslash"
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "a control character"
	case strings.HasPrefix(name, "/") || (len(name) > 1 && name[1] == ':'):
		return "an absolute path"
	case slices.Contains(strings.Split(name, "/"), ".."):
		return "a .. segment"
	case !fs.ValidPath(strings.TrimSuffix(name, "/")):
		return "not a plain relative path"
	}
	return ""
}

// entryKind names what a zip entry that is neither a file nor a folder is
// (its mode from the entry's external attributes): a link, unpacked,
// would point outside the folder it is unpacked in.
func entryKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// isXMLPart reports whether the entry name is an XML part of the package,
// checked for a DOCTYPE.
func isXMLPart(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".xml" || ext == ".rels" || ext == ".vml"
}

// doctypeFinder is a writer that looks for "<!DOCTYPE" in any case across
// writes, skipping NUL bytes so UTF-16 text is matched too.
type doctypeFinder struct {
	matched int
	found   bool
}

const doctype = "<!doctype"

func (d *doctypeFinder) Write(p []byte) (int, error) {
	for i := 0; i < len(p) && !d.found; i++ {
		if d.matched == 0 {
			j := bytes.IndexByte(p[i:], '<')
			if j < 0 {
				break
			}
			i += j
		}
		c := p[i]
		if c == 0 {
			continue
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch {
		case c == doctype[d.matched]:
			d.matched++
			d.found = d.matched == len(doctype)
		case c == '<':
			d.matched = 1
		default:
			d.matched = 0
		}
	}
	return len(p), nil
}

// ctxReader reads r until ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// partNames returns the tag parts in a fixed order: the main part first
// (a DOCX's body), then the others by name, numbers by value
// (slide2 before slide10).
func (d *docx) partNames() []string {
	names := make([]string, 0, len(d.parts))
	for n := range d.parts {
		if n != d.f.main {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	if _, ok := d.parts[d.f.main]; ok {
		return append([]string{d.f.main}, names...)
	}
	return names
}

// naturalLess orders names by their text, digit runs by their value.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

// digits is the length of the run of ASCII digits s begins with.
func digits(s string) int {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
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
