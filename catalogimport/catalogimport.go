// Package catalogimport reads an account's catalog and rate tables from
// the sheets a team already keeps: a workbook (XLSX, one sheet per kind:
// phases, resources, services, subservices, rate tables, rates), one CSV
// file of one kind, or a zip of such CSV files. It reports every row it
// refuses with its sheet, row, column and reason, and writes the rest in one
// store transaction through the engine's create and update use cases, so
// that validation, permissions and the types' hooks hold as they do for the
// API; a file with any refused row writes nothing. Rows are matched to
// records by name, so importing the same file twice changes nothing. It
// also writes the template workbook and the export of an account's catalog
// in the same format (docs/import.md). It knows nothing of HTTP.
package catalogimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/internal/ooxml"
)

// Limits of an import file. A file over MaxFileBytes, or an archive that
// would unzip to more than MaxUnzippedBytes, is ETOOLARGE before anything
// is parsed (a zip bomb declares its size, and the zip reader refuses data
// past the declared size); so is a file of more than MaxRows rows or
// MaxCells cells.
const (
	MaxFileBytes     = 10 << 20
	MaxUnzippedBytes = 32 << 20
	MaxRows          = 10000
	MaxCells         = 400000
	// MaxProblems is how many refused cells a report lists; the others
	// are counted (Report.More).
	MaxProblems = 500
)

// Format is the format of an import or export file.
type Format int

// The formats: a workbook, one CSV file (of one sheet), or a zip of CSV
// files named after their sheets.
const (
	XLSX Format = iota
	CSV
	ZipCSV
)

// Media types of the formats.
const (
	MediaXLSX = ooxml.MediaXLSX
	MediaCSV  = "text/csv"
	MediaZip  = "application/zip"
)

// FormatOf returns the format of a media type (without parameters).
func FormatOf(mediaType string) (Format, bool) {
	switch strings.ToLower(mediaType) {
	case MediaXLSX:
		return XLSX, true
	case MediaCSV:
		return CSV, true
	case MediaZip, "application/x-zip-compressed":
		return ZipCSV, true
	}
	return 0, false
}

// File is a file to import.
type File struct {
	Format Format
	Data   []byte
	// Sheet names the kind a lone CSV file holds ("services", "Rate
	// tables"); the other formats name their sheets themselves.
	Sheet string
}

// Problem is one refused cell, row or sheet of a file.
type Problem struct {
	Sheet  string `json:"sheet"`            // as the file names it
	Row    int    `json:"row,omitempty"`    // 1 is the header row
	Column string `json:"column,omitempty"` // the column's header
	Cell   string `json:"cell,omitempty"`   // its reference, e.g. "D4"
	Detail string `json:"detail"`
}

// String is the problem as one line: where, then why.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Sheet)
	if p.Row > 0 {
		fmt.Fprintf(&b, " row %d", p.Row)
	}
	if p.Column != "" {
		fmt.Fprintf(&b, ", %s", p.Column)
	}
	if p.Cell != "" {
		fmt.Fprintf(&b, " (%s)", p.Cell)
	}
	return b.String() + ": " + p.Detail
}

// Counts are what an import did (or would do) with the rows of one kind.
type Counts struct {
	Rows      int `json:"rows"`
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Refused   int `json:"refused"`
}

// Report is the outcome of an import: per kind (phases, resources, services, subservices, rate-tables, rates,
// plus lines-of-business and service-categories created for services) what
// was or would be done, and the problems found.
type Report struct {
	DryRun   bool               `json:"dry-run"`
	Written  bool               `json:"written"`
	Sheets   map[string]*Counts `json:"sheets"`
	Problems []Problem          `json:"row-errors"`
	More     int                `json:"more-row-errors,omitempty"` // problems not listed
}

func newReport(dryRun bool) *Report {
	r := &Report{DryRun: dryRun, Sheets: map[string]*Counts{}, Problems: []Problem{}}
	return r
}

// counts returns the counts of a kind, created on first use.
func (r *Report) counts(key string) *Counts {
	c := r.Sheets[key]
	if c == nil {
		c = &Counts{}
		r.Sheets[key] = c
	}
	return c
}

// add records a problem, listing at most MaxProblems.
func (r *Report) add(p Problem) {
	if len(r.Problems) >= MaxProblems {
		r.More++
		return
	}
	r.Problems = append(r.Problems, p)
}

// Text is the report as lines: the counts of each kind in order, the
// problems, and whether anything was written.
func (r *Report) Text() string {
	var b strings.Builder
	keys := make([]string, 0, len(kinds)+len(autoTypes))
	for _, k := range kinds {
		keys = append(keys, k.key)
	}
	keys = append(keys, slices.Sorted(maps.Keys(autoTypes))...)
	for _, key := range keys {
		if c := r.Sheets[key]; c != nil {
			fmt.Fprintf(&b, "%s: %d rows, %d created, %d updated, %d unchanged, %d refused\n",
				key, c.Rows, c.Created, c.Updated, c.Unchanged, c.Refused)
		}
	}
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	if r.More > 0 {
		fmt.Fprintf(&b, "(and %d more errors)\n", r.More)
	}
	switch {
	case r.Written:
		b.WriteString("written\n")
	case r.DryRun:
		b.WriteString("dry run: nothing was written\n")
	default:
		b.WriteString("nothing was written\n")
	}
	return b.String()
}

// Refused reports whether any problem was found.
func (r *Report) Refused() bool { return len(r.Problems) > 0 }

// refusedError is the error of an import that refused rows.
func (r *Report) refusedError() error {
	n := len(r.Problems) + r.More
	return scopekit.Errorf(scopekit.EINVALID, "the file has %d %s; nothing was written", n, plural(n, "error", "errors"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func invalid(format string, args ...any) error {
	return scopekit.Errorf(scopekit.EINVALID, format, args...)
}

func tooLarge(format string, args ...any) error {
	return scopekit.Errorf(scopekit.ETOOLARGE, format, args...)
}
