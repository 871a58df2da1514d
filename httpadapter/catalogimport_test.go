package httpadapter_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/catalogimport/catalogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// importFile posts a file to /v1/catalog-import (query: "?dry-run=true"...).
func (e *testEnv) importFile(token, query, contentType string, data []byte) *resp {
	e.t.Helper()
	return e.req(http.MethodPost, "/v1/catalog-import"+query, token, string(data), "Content-Type", contentType)
}

// fetchFile gets a file route and checks it answers a file of the media
// type, whatever the Accept.
func (e *testEnv) fetchFile(path, token, mediaType string) []byte {
	e.t.Helper()
	r := e.req(http.MethodGet, path, token, "", "Accept", mediaType)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(e.t, mediaType, r.Header.Get("Content-Type"))
	require.Contains(e.t, r.Header.Get("Content-Disposition"), "attachment; filename=")
	return r.Body
}

func (e *testEnv) catalog(slug string) string { return catalogtest.Dump(e.t, e.svc, e.accts[slug]) }

// Ensure the template downloads and imports (dry run first, then for
// real), a second import changes nothing, and the export of one account
// imports into another to the same catalog: as a workbook, as a zip of
// CSV files and as one CSV file.
func TestCatalogImportEndToEnd(t *testing.T) {
	e := mustEnv(t)
	acme, globex := e.admin(), e.token("globex", "admin@globex.test", "Account Admin")

	tpl := e.fetchFile("/v1/catalog-import/template", acme, catalogimport.MediaXLSX)
	r := e.importFile(acme, "?dry-run=true", catalogimport.MediaXLSX, tpl)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, true, r.meta("dry-run"))
	assert.Equal(t, false, r.meta("written"))
	assert.Equal(t, []any{}, r.meta("row-errors"))
	assert.Equal(t, map[string]any{"rows": 1.0, "created": 1.0, "updated": 0.0, "unchanged": 0.0, "refused": 0.0},
		r.meta("sheets").(map[string]any)["services"])
	assert.Equal(t, "", e.catalog("acme"), "a dry run writes nothing")

	r = e.importFile(acme, "", catalogimport.MediaXLSX, tpl)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, true, r.meta("written"))
	before := e.catalog("acme")
	assert.Contains(t, before, "services: active=true description=A survey of the sites and a report. hours=8 line-of-business=Network name=Assessment")

	r = e.importFile(acme, "", catalogimport.MediaXLSX, tpl)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for key, c := range r.meta("sheets").(map[string]any) {
		assert.Equal(t, 1.0, c.(map[string]any)["unchanged"], key)
	}
	assert.Equal(t, before, e.catalog("acme"), "importing the same file again changes nothing")

	export := e.fetchFile("/v1/catalog-export", acme, catalogimport.MediaXLSX)
	r = e.importFile(globex, "", catalogimport.MediaXLSX, export)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, before, e.catalog("globex"), "the export reproduces the catalog in another account")

	zipped := e.fetchFile("/v1/catalog-export?format=zip", globex, catalogimport.MediaZip)
	r = e.importFile(acme, "?dry-run=true", catalogimport.MediaZip, zipped)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	for key, c := range r.meta("sheets").(map[string]any) {
		assert.Equal(t, 1.0, c.(map[string]any)["unchanged"], key)
	}

	// one CSV file: a changed row updates its record
	r = e.importFile(acme, "?sheet=resources", "text/csv; charset=utf-8", []byte("Name,Hourly rate\nEngineer,215.50\n"))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, 1.0, r.meta("sheets").(map[string]any)["resources"].(map[string]any)["updated"])
	assert.Contains(t, e.catalog("acme"), "hourly-rate=215.5 name=Engineer")
	assert.Equal(t, before, e.catalog("globex"))
}

// Ensure each bad file, and each bad request, is refused with a clear
// error and writes nothing.
func TestCatalogImportRefusals(t *testing.T) {
	e := mustEnv(t)
	acme := e.admin()
	tpl := e.fetchFile("/v1/catalog-import/template", acme, catalogimport.MediaXLSX)
	require.Equal(t, http.StatusOK, e.importFile(acme, "", catalogimport.MediaXLSX, tpl).Status)
	e.seed("globex", "phases", `{"name":"Secret phase"}`)
	before, globexBefore := e.catalog("acme"), e.catalog("globex")
	readOnly := e.token("acme", "viewer@acme.test", "Read Only")

	xlsx := catalogimport.MediaXLSX
	for name, tc := range map[string]struct {
		token, query, media string
		body                []byte
		status              int
		detail              string
		meta                map[string]any // of the first error
	}{
		"wrong columns": {acme, "", xlsx, sheet(t, "Services", []any{"Name", "Hours", "Colour"}, []any{"X", 1, "red"}), 422,
			`Services row 1, Colour (C1): unknown column "Colour"`, map[string]any{"sheet": "Services", "row": 1.0, "column": "Colour", "cell": "C1"}},
		"bad numbers": {acme, "", xlsx, sheet(t, "Resources", []any{"Name", "Hourly rate"}, []any{"Engineer", "$200"}), 422,
			`Resources row 2, Hourly rate (B2): "$200" is not a number`, map[string]any{"sheet": "Resources", "row": 2.0, "column": "Hourly rate", "cell": "B2"}},
		"duplicates": {acme, "", xlsx, sheet(t, "Phases", []any{"Name"}, []any{"Plan"}, []any{"PLAN"}), 422,
			"Phases row 3: a duplicate of row 2 (the same Name)", map[string]any{"sheet": "Phases", "row": 3.0}},
		"a type's own rule": {acme, "", xlsx, sheet(t, "Rate tables", []any{"Name", "Currency"}, []any{"Euro rates", "EUR"}, []any{"Standard USD", "USD"}), 422,
			"Rate tables row 2, Currency (B2): currency EUR is not set up in this account", map[string]any{"sheet": "Rate tables", "row": 2.0, "column": "Currency", "cell": "B2"}},
		"formula": {acme, "", xlsx, formulaBook(t), 422, "Resources row 2, Hourly cost (C2): a formula", nil},
		"another account's name": {acme, "", xlsx, sheet(t, "Services", []any{"Name", "Phase"}, []any{"New", "Secret phase"}), 422,
			`no phase named "Secret phase" in this file or in the account`, nil},
		"100 MB sheet":   {acme, "", xlsx, catalogtest.HugeSheet(t, tpl), 413, "the file unzips to more than", nil},
		"zip bomb":       {acme, "", catalogimport.MediaZip, catalogtest.ZipBomb(t, "phases.csv", 256<<20), 413, "phases.csv alone is", nil},
		"not a workbook": {acme, "", xlsx, []byte("Name\nPlan\n"), 422, "the file is not an XLSX workbook", nil},
		"no permission":  {readOnly, "", xlsx, tpl, 403, "needs the catalog permission at manage level", nil},
		"media type":     {acme, "", "application/json", tpl, 415, "Content-Type must be", nil},
		"dry-run":        {acme, "?dry-run=yes", xlsx, tpl, 400, "dry-run must be true or false", nil},
		"sheet":          {acme, "?sheet=phases", xlsx, tpl, 400, "sheet names the sheet of a CSV body", nil},
		"csv no sheet":   {acme, "", "text/csv", []byte("Name\nPlan\n"), 422, "a CSV file holds one sheet", nil},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.importFile(tc.token, tc.query, tc.media, tc.body)
			first := assertError(t, r, tc.status, "")
			assert.Contains(t, first["detail"], tc.detail)
			if tc.status == http.StatusUnprocessableEntity && tc.meta != nil {
				assert.Equal(t, tc.meta, first["meta"])
				assert.Equal(t, false, r.meta("written"))
				// a dry run reports the same cell in its meta
				r = e.importFile(tc.token, "?dry-run=true", tc.media, tc.body)
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
				got := r.meta("row-errors").([]any)[0].(map[string]any)
				assert.True(t, strings.HasSuffix(first["detail"].(string), ": "+got["detail"].(string)), "%v", got)
				for k, v := range tc.meta {
					assert.Equal(t, v, got[k], k)
				}
			}
			assert.Equal(t, before, e.catalog("acme"))
			assert.Equal(t, globexBefore, e.catalog("globex"))
		})
	}

	// a body over 10 MiB is refused on its Content-Length
	req := e.newRequest(e.srv.URL, http.MethodPost, "/v1/catalog-import", acme, "", "Content-Type", xlsx)
	req.Body, req.ContentLength = io.NopCloser(io.LimitReader(catalogtest.Zeros{}, 100<<20)), 100<<20
	assertError(t, e.send(req), http.StatusRequestEntityTooLarge, "")

	// the export needs view access only; the template any member
	e.fetchFile("/v1/catalog-export", readOnly, xlsx)
	e.fetchFile("/v1/catalog-import/template?format=zip", readOnly, catalogimport.MediaZip)
	assertError(t, e.get("/v1/catalog-export?format=csv", acme), http.StatusBadRequest, "format")
	assert.Equal(t, before, e.catalog("acme"))
}

// sheet builds a workbook of one sheet.
func sheet(t *testing.T, name string, rows ...[]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	require.NoError(t, f.SetSheetName("Sheet1", name))
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		require.NoError(t, f.SetSheetRow(name, cell, &row))
	}
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}

// formulaBook is a resources sheet whose cost is a formula.
func formulaBook(t *testing.T) []byte {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(sheet(t, "Resources", []any{"Name", "Hourly rate", "Hourly cost"}, []any{"Engineer", 200})))
	require.NoError(t, err)
	require.NoError(t, f.SetCellFormula("Resources", "C2", "B2*0.45"))
	buf, err := f.WriteToBuffer()
	require.NoError(t, err)
	return buf.Bytes()
}
