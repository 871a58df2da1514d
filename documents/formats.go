package documents

import (
	"context"
	"path"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/internal/ooxml"
)

// Template formats: the value of a document template's format.
const (
	FormatDOCX = "docx"
	FormatPPTX = "pptx"
	FormatXLSX = "xlsx"
)

// officeFormat is what the engine needs of one file format: where the
// tags are, the dialect of their parts, and the format's own steps before
// compiling a part and after rendering it.
type officeFormat struct {
	name, title string // "docx", "DOCX"
	contentType string
	main        string // the entry every file of the format has
	tagPart     func(name string) bool
	// extraPart: other entries the format reads (nil: none)
	extraPart func(name string) bool
	dialect   *dialect
	// prepare returns the part as it is compiled (nil: as it is)
	prepare func(ctx context.Context, d *docx, name string, b []byte) ([]byte, error)
	// finish returns the rendered part as it is written (nil: as it is)
	finish func(d *docx, name string, b []byte) ([]byte, error)
	// complete, once every part is finished, may change any part (in
	// outs, by name) or the format's extra parts (nil: none)
	complete func(ctx context.Context, d *docx, outs map[string][]byte) error
}

var formatDOCX = &officeFormat{name: FormatDOCX, title: "DOCX", contentType: ContentTypeDOCX, main: mainPart,
	tagPart: isTagPart, extraPart: func(string) bool { return false }, dialect: wordML}

// formats are the template formats by name.
var formats = map[string]*officeFormat{FormatDOCX: formatDOCX, FormatPPTX: formatPPTX, FormatXLSX: formatXLSX}

// formatOf returns the format named name ("" is DOCX).
func formatOf(name string) (*officeFormat, error) {
	if name == "" {
		return formatDOCX, nil
	}
	if f, ok := formats[name]; ok {
		return f, nil
	}
	return nil, scopekit.FieldErrorf(scopekit.EINVALID, "format", "unknown template format %q: docx, pptx or xlsx", name)
}

// ContentType returns the media type of files of a template format (docx,
// pptx, xlsx), or "" for another name.
func ContentType(format string) string {
	if f, ok := formats[format]; ok {
		return f.contentType
	}
	return ""
}

// RenderFormat fills a template of the given format (docx, pptx or xlsx;
// "" is docx) from a merge-data tree, as Render does a DOCX: the same tags,
// over slide text and table rows of a PPTX, and over cell text and rows of
// an XLSX (docs/templates.md).
//
// Errors: as Render's; EINVALID (field "format") for an unknown format.
func RenderFormat(ctx context.Context, format string, template []byte, data any) ([]byte, error) {
	f, err := formatOf(format)
	if err != nil {
		return nil, err
	}
	return render(ctx, f, template, data)
}

// TagsFormat validates a template of the given format as Tags does a DOCX
// and returns the paths its tags use.
//
// Errors: as Tags's; EINVALID (field "format") for an unknown format.
func TagsFormat(ctx context.Context, format string, template []byte) ([]string, error) {
	f, err := formatOf(format)
	if err != nil {
		return nil, err
	}
	return tags(ctx, f, template)
}

// LintFormat lints a template of the given format as Lint does a DOCX.
//
// Errors: as Lint's; EINVALID (field "format") for an unknown format.
func LintFormat(ctx context.Context, format string, template []byte, s *Schema) ([]string, error) {
	f, err := formatOf(format)
	if err != nil {
		return nil, err
	}
	return lint(ctx, f, template, s)
}

// numberedPart reports whether name is dir/prefix<n>.xml.
func numberedPart(name, dir, prefix string) bool {
	d, file := path.Split(name)
	n := strings.TrimSuffix(strings.TrimPrefix(file, prefix), ".xml")
	return d == dir && strings.HasPrefix(file, prefix) && strings.HasSuffix(file, ".xml") && n != "" && digits(n) == len(n)
}

// Detect returns the format of an Office file (docx, pptx or xlsx) by
// the main part it has, or "" when it is none of them (or not a zip).
func Detect(file []byte) string { return ooxml.Format(file) }
