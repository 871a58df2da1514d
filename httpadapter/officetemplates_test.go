package httpadapter_test

import (
	"archive/zip"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// zipEntry returns the text of one entry of a zip.
func zipEntry(t *testing.T, b []byte, name string) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	f, err := zr.Open(name)
	require.NoError(t, err)
	defer f.Close()
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(data)
}

// Ensure PowerPoint and Excel templates work end to end over HTTP: each
// uploads with its own media type (another format's is 415, a bad zip, a
// malformed tag or an unknown path 422 naming the slide's paragraph or the
// cell), fills for
// the demo project, and downloads as its format; a template's format does
// not change under its file.
func TestOfficeTemplatesOverHTTP(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	ct := func(v string) []string { return []string{"Content-Type", v} }

	// PowerPoint: the built-in Standard proposal, uploaded as the account's own
	pptx := e.create("/acme/v1/document-templates", admin, "document-templates", `{"name":"Our proposal","format":"pptx"}`)
	file := "/acme/v1/document-templates/" + pptx + "/file"
	r := e.upload(file, admin, documents.StandardProposal())
	require.Equal(t, http.StatusUnsupportedMediaType, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "is a pptx template: Content-Type must be "+scoping.ContentTypePPTX)
	r = e.upload(file, admin, []byte("PK not a zip"), ct(scoping.ContentTypePPTX)...)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "not a PPTX file")
	r = e.upload(file, admin, documents.StandardSOW(), ct(scoping.ContentTypePPTX)...)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "not a PPTX file (no ppt/presentation.xml)")
	broken := replaceEntry(t, documents.StandardProposal(), "ppt/slides/slide2.xml", func(s string) string {
		return strings.Replace(s, "{/project.solution_summary}", "{/phases}", 1)
	})
	r = e.upload(file, admin, broken, ct(scoping.ContentTypePPTX)...)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "of slide 2")
	misspelled := replaceEntry(t, documents.StandardProposal(), "ppt/slides/slide1.xml", func(s string) string {
		return strings.Replace(s, "{project.client_name}", "{project.client_nme | upper}", 1)
	})
	r = e.upload(file, admin, misspelled, ct(scoping.ContentTypePPTX)...)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "unknown path project.client_nme in {project.client_nme | upper} in paragraph 5 of slide 1: did you mean project.client_name?")
	r = e.upload(file, admin, documents.StandardProposal(), ct(scoping.ContentTypePPTX+"; charset=binary")...)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "Our proposal.pptx", r.attr("filename"))
	assert.Contains(t, r.attr("tags"), "project_pricing.total_contract_value")
	got := e.download(file, admin)
	assert.Equal(t, scoping.ContentTypePPTX, got.Header.Get("Content-Type"))
	r = e.req(http.MethodPatch, "/acme/v1/document-templates/"+pptx, admin, doc("document-templates", pptx, `{"format":"docx"}`))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "the template's file is a pptx")

	id := e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", pptx)
	r = e.await("/acme/v1", admin, id)
	require.Equal(t, scoping.DocumentFinished, r.attr("status"), "%s", r.Body)
	assert.Equal(t, "Globex firewall refresh - Proposal.pptx", r.attr("filename"))
	assert.Equal(t, scoping.ContentTypePPTX, r.attr("content-type"))
	dl := e.download("/acme/v1/project-documents/"+id+"/download?format=pptx", admin)
	require.Equal(t, http.StatusOK, dl.Status, "%s", dl.Body)
	assert.Equal(t, scoping.ContentTypePPTX, dl.Header.Get("Content-Type"))
	assert.Contains(t, dl.Header.Get("Content-Disposition"), "Proposal.pptx")
	assert.Contains(t, zipEntry(t, dl.Body, "ppt/slides/slide1.xml"), "Globex firewall refresh")
	assert.Contains(t, zipEntry(t, dl.Body, "ppt/slides/slide4.xml"), "$10,794.25")
	bad := e.download("/acme/v1/project-documents/"+id+"/download?format=docx", admin)
	require.Equal(t, http.StatusBadRequest, bad.Status)
	assert.Contains(t, bad.firstError()["detail"], "format must be pptx or pdf")

	// Excel: a row loop over the services, the figures numbers
	f := excelize.NewFile()
	money, err := f.NewStyle(&excelize.Style{NumFmt: 4})
	require.NoError(t, err)
	require.NoError(t, f.SetSheetRow("Sheet1", "A1", &[]any{"Service", "Hours"}))
	require.NoError(t, f.SetSheetRow("Sheet1", "A2", &[]any{"{#phases}{#services}{name}", "{total_hours}{/services}{/phases}"}))
	require.NoError(t, f.SetSheetRow("Sheet1", "A3", &[]any{"Total", "{project_pricing.total_contract_value}"}))
	require.NoError(t, f.SetCellStyle("Sheet1", "B2", "B3", money))
	var buf bytes.Buffer
	require.NoError(t, f.Write(&buf))
	xlsx := e.create("/acme/v1/document-templates", admin, "document-templates", `{"name":"Figures sheet","format":"xlsx"}`)
	r = e.upload("/acme/v1/document-templates/"+xlsx+"/file", admin, buf.Bytes(), ct(scoping.ContentTypeXLSX)...)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	unknown := replaceEntry(t, buf.Bytes(), "xl/sharedStrings.xml", func(s string) string { return strings.Replace(s, "{/phases}", "", 1) })
	r = e.upload("/acme/v1/document-templates/"+xlsx+"/file", admin, unknown, ct(scoping.ContentTypeXLSX)...)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Contains(t, r.firstError()["detail"], "unclosed loop {#phases} in cell A2 of sheet1")

	id = e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", xlsx)
	r = e.await("/acme/v1", admin, id)
	require.Equal(t, scoping.DocumentFinished, r.attr("status"), "%s", r.Body)
	assert.Equal(t, "Globex firewall refresh - SOW.xlsx", r.attr("filename"))
	dl = e.download("/acme/v1/project-documents/"+id+"/download", admin)
	require.Equal(t, http.StatusOK, dl.Status, "%s", dl.Body)
	assert.Equal(t, scoping.ContentTypeXLSX, dl.Header.Get("Content-Type"))
	out, err := excelize.OpenReader(bytes.NewReader(dl.Body))
	require.NoError(t, err)
	rows, err := out.GetRows("Sheet1")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{"Service", "Hours"}, {"Assessment", "24.50"}, {"Firewall deployment", "16.25"}, {"Total", "10,794.25"}}, rows)
	typ, err := out.GetCellType("Sheet1", "B4")
	require.NoError(t, err)
	assert.Equal(t, excelize.CellTypeUnset, typ, "a number cell (no t attribute)")
}

// replaceEntry returns the zip b with the text of entry name changed by fn.
func replaceEntry(t *testing.T, b []byte, name string, fn func(string) string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		w, err := zw.Create(f.Name)
		require.NoError(t, err)
		data := zipEntry(t, b, f.Name)
		if f.Name == name {
			data = fn(data)
		}
		_, err = io.WriteString(w, data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}
