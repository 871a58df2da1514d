// Package documents is the tag-template engine of ScopeKit: statements of
// work and proposals filled from DOCX, PPTX and XLSX tag templates, and
// the built-in Standard SOW and Standard proposal. Making PDFs of them is
// package office's (LibreOffice and its processes).
//
// One engine serves the three formats: it finds tags on a paragraph's
// joined text and builds sections over runs, paragraphs and table rows,
// with each format's element names given by a dialect (dialect.go); the
// format-specific steps are in docx.go, pptx.go and xlsx.go (an XLSX cell
// is the engine's paragraph; its rows are numbered again after rendering
// and a one-tag cell holding a number becomes a number cell).
//
// The package is pure: it takes bytes and values and returns bytes; it
// knows nothing of HTTP, storage or the domain (it imports only the root
// package for its error codes; imports_test.go keeps it so). Render fills a
// template from a merge-data tree (any JSON-like value; the service passes
// v2 merge data); Tags validates a template and lists the paths its tags
// use; both take time linear in the template's size and stop when their
// context ends. Templates compute nothing: every
// value comes from merge data, so a document always shows what the pricing
// endpoint shows. The pricing and breakdown workbooks are the domain's
// (package workbook).
//
// Tag syntax (docs/templates.md has the full reference):
//
//	{project.project_name}          a value by dotted path; missing → empty
//	{#phases}…{/phases}             a loop over a list, a section over any other truthy value
//	{^phases}…{/phases}             an inverted section: shown when the value is missing, false or empty
//	{#a.b == "x" && n > 1}…{/}      a condition: == != > < >= <= && || ! and parentheses
//	{.}  {phases.length}            the current item; the length of a list or text
//	{phases[0].name} {$index} {this.name} {a ? b : c} {a + b} {a === b}
//	{x | money} {x | number:2} {x | percent} {d | date:"2 January 2006"}
//	{x | upper} {x | lower} {x | default:"…"} {x | required}
//
// The syntax is the anchor's (docxtemplater's angular parser). Lint
// checks a template's paths against a Schema of the merge data (v2's
// generated JSON Schema); filters format with golang.org/x/text in merge
// data's locale and currency; a required value that is missing fails
// Render.
//
// Tags are found on a paragraph's joined text, so a tag Word split over
// several runs still works; the value takes the formatting of the tag's
// first run. A loop whose tags sit in one paragraph repeats the text between
// them, one spanning paragraphs repeats the paragraphs (and tables) between
// them, and one whose tags sit in different cells of one table row repeats
// the row.
package documents

import "github.com/scopekit/scopekit/internal/ooxml"

// Content types of the generated documents: DOCX, PPTX and XLSX from this
// package (XLSX also from package workbook), PDF from package office.
const (
	ContentTypeDOCX = ooxml.MediaDOCX
	ContentTypePPTX = ooxml.MediaPPTX
	ContentTypePDF  = "application/pdf"
	ContentTypeXLSX = ooxml.MediaXLSX
)

// Limits of a template. A template over MaxTemplateSize, or whose entries
// would unpack to more than the limits below (a zip bomb), is refused.
const (
	MaxTemplateSize = 20 << 20  // bytes of the .docx file
	MaxEntries      = 2000      // entries in the zip
	MaxEntrySize    = 64 << 20  // uncompressed bytes of one entry
	MaxUnpackedSize = 160 << 20 // uncompressed bytes of all entries together
	// MaxOutputPart bounds the rendered size of one document part, so a
	// template nesting loops over large lists cannot grow without limit.
	MaxOutputPart = 64 << 20
	// MaxNesting bounds the loops, sections and conditions open at once:
	// each level multiplies the work of the levels inside it and the
	// scopes a path is looked up in, so a template nesting thousands of
	// loops would keep a worker busy for hours.
	MaxNesting = 50
)
