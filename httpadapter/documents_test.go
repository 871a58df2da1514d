package httpadapter_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/internal/ooxml"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// figuresTemplate is a template that prints the project's name and every
// contract figure of pricing.md's worked example.
func figuresTemplate() []byte {
	return docxtest.Build("SOW for {project.project_name} ({currency.code})",
		"Contract value {project_pricing.total_contract_value}",
		"Contract cost {project_pricing.total_contract_cost}",
		"Contract profit {project_pricing.total_contract_profit}",
		"Contract margin {project_pricing.total_contract_margin}",
		"{#phases}Phase {name}: {total_hours} h{/phases}")
}

// upload PUTs a template file with the DOCX media type (headers may
// override it).
func (e *testEnv) upload(path, token string, file []byte, headers ...string) *resp {
	e.t.Helper()
	r := e.newRequest(e.srv.URL, http.MethodPut, path, token, "")
	r.Body = io.NopCloser(bytes.NewReader(file))
	r.ContentLength = int64(len(file))
	r.Header.Set("Content-Type", scoping.ContentTypeDOCX)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			r.Header.Del(headers[i])
		} else {
			r.Header.Set(headers[i], headers[i+1])
		}
	}
	return e.send(r)
}

// newTemplate creates a document template with the file uploaded.
func (e *testEnv) newTemplate(token, name string, file []byte) string {
	e.t.Helper()
	id := e.create("/acme/v1/document-templates", token, "document-templates", `{"name":`+strconv.Quote(name)+`}`)
	r := e.upload("/acme/v1/document-templates/"+id+"/file", token, file)
	require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
	return id
}

// generate POSTs a project document and returns its id, failing unless 202.
func (e *testEnv) generate(prefix, token, attrs string, rels ...string) string {
	e.t.Helper()
	r := e.req(http.MethodPost, prefix+"/project-documents", token, doc("project-documents", "", attrs, rels...))
	require.Equal(e.t, http.StatusAccepted, r.Status, "%s", r.Body)
	require.Equal(e.t, scoping.DocumentQueued, r.attr("status"))
	id := r.data()["id"].(string)
	require.Equal(e.t, e.srv.URL+prefix+"/project-documents/"+id, r.Header.Get("Location"))
	return id
}

// await polls a project document until it leaves queued and generating.
func (e *testEnv) await(prefix, token, id string) *resp {
	e.t.Helper()
	var r *resp
	require.Eventually(e.t, func() bool {
		r = e.get(prefix+"/project-documents/"+id, token)
		require.Equal(e.t, http.StatusOK, r.Status, "%s", r.Body)
		st := r.attr("status")
		return st == scoping.DocumentFinished || st == scoping.DocumentError
	}, 20*time.Second, 20*time.Millisecond, "document %s was not generated", id)
	return r
}

// download GETs a file route and returns the response (not JSON:API on
// success).
func (e *testEnv) download(path, token string) *resp {
	e.t.Helper()
	return e.req(http.MethodGet, path, token, "")
}

func docxText(t *testing.T, b []byte) string {
	t.Helper()
	text, _, err := ooxml.Markdown(b)
	require.NoError(t, err)
	return text
}

// Ensure a template is uploaded, validated and read back, and that every
// bad upload is a clear 4xx that stores nothing.
func TestDocumentTemplateFile(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	file := figuresTemplate()
	id := e.create("/acme/v1/document-templates", admin, "document-templates", `{"name":"Figures"}`)
	fresh := e.get("/acme/v1/document-templates/"+id, admin)
	assert.Nil(t, fresh.attr("size"))
	assert.Equal(t, "docx", fresh.attr("format"))
	assert.Equal(t, "v2", fresh.attr("template-format"))
	assert.Equal(t, false, fresh.attr("builtin"))
	assertError(t, e.download("/acme/v1/document-templates/"+id+"/file", admin), http.StatusNotFound, "")

	r := e.upload("/acme/v1/document-templates/"+id+"/file", admin, file, "Content-Disposition", `attachment; filename="../figures.docx"`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	sum := sha256.Sum256(file)
	assert.Equal(t, float64(len(file)), r.attr("size"))
	assert.Equal(t, hex.EncodeToString(sum[:]), r.attr("sha256"))
	assert.Equal(t, "figures.docx", r.attr("filename"), "only the last path element of a client's name")
	tags, _ := r.attr("tags").([]any)
	assert.Contains(t, tags, "project.project_name")
	assert.Contains(t, tags, "project_pricing.total_contract_value")

	got := e.download("/acme/v1/document-templates/"+id+"/file", admin)
	require.Equal(t, http.StatusOK, got.Status)
	assert.Equal(t, file, got.Body)
	assert.Equal(t, scoping.ContentTypeDOCX, got.Header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename="figures.docx"; filename*=UTF-8''figures.docx`, got.Header.Get("Content-Disposition"))
	// a filename cleared by a PATCH falls back to the template's name, as on upload
	e.patch("/acme/v1/document-templates/"+id, admin, "document-templates", id, `{"filename":null}`)
	unnamed := e.download("/acme/v1/document-templates/"+id+"/file", admin)
	require.Equal(t, http.StatusOK, unnamed.Status)
	assert.Equal(t, `attachment; filename="Figures.docx"; filename*=UTF-8''Figures.docx`, unnamed.Header.Get("Content-Disposition"))
	e.patch("/acme/v1/document-templates/"+id, admin, "document-templates", id, `{"filename":"figures.docx"}`)

	// every account starts with the built-in Standard SOW, file and all
	std := e.get("/acme/v1/document-templates?filter[name]=Standard%20SOW", admin)
	require.Len(t, std.list(), 1, "%s", std.Body)
	stdID := std.ids()[0]
	assert.Equal(t, true, std.list()[0]["attributes"].(map[string]any)["builtin"])
	stdFile := e.download("/acme/v1/document-templates/"+stdID+"/file", admin)
	require.Equal(t, http.StatusOK, stdFile.Status)
	assert.Equal(t, documents.StandardSOW(), stdFile.Body)

	viewer := e.token("acme", "viewer@acme.test", "Read Only")
	other := e.token("globex", "admin@globex.test", "Account Admin")
	fileURL := "/acme/v1/document-templates/" + id + "/file"
	for _, tc := range []struct {
		name    string
		path    string
		token   string
		body    []byte
		headers []string
		status  int
		detail  string
	}{
		{"not a DOCX", fileURL, admin, []byte("just some text, not a zip"), nil, http.StatusUnprocessableEntity, "DOCX"},
		{"a zip without a document", fileURL, admin, docxtest.Zip(map[string]string{"hello.txt": "hi"}), nil, http.StatusUnprocessableEntity, ""},
		{"a zip bomb", fileURL, admin, zipBomb(t), nil, http.StatusUnprocessableEntity, ""},
		{"a 30 MiB file", fileURL, admin, bytes.Repeat([]byte("x"), 30<<20), nil, http.StatusRequestEntityTooLarge, "20971520"},
		{"an unclosed loop", fileURL, admin, docxtest.Build("Intro", "{#phases}", "{name}"), nil, http.StatusUnprocessableEntity, "{#phases}"},
		{"unbalanced braces", fileURL, admin, docxtest.Build("Total {project_pricing.total_contract_value"), nil, http.StatusUnprocessableEntity, "paragraph"},
		{"an empty body", fileURL, admin, nil, nil, http.StatusUnprocessableEntity, "empty"},
		{"the JSON:API media type", fileURL, admin, file, []string{"Content-Type", "application/vnd.api+json"}, http.StatusUnsupportedMediaType, "Content-Type"},
		{"no Content-Type", fileURL, admin, file, []string{"Content-Type", ""}, http.StatusBadRequest, "Content-Type"},
		{"a view-only role", fileURL, viewer, file, nil, http.StatusForbidden, ""},
		{"another account's admin under acme", fileURL, other, file, nil, http.StatusForbidden, ""},
		{"another account's admin under its own slug", "/globex/v1/document-templates/" + id + "/file", other, file, nil, http.StatusNotFound, ""},
		{"a missing template", "/acme/v1/document-templates/999/file", admin, file, nil, http.StatusNotFound, ""},
		{"v2", "/v2/document-templates/" + id + "/file", admin, file, nil, http.StatusNotFound, ""},
		{"a relationship", "/acme/v1/projects/1/project-services", admin, file, nil, http.StatusMethodNotAllowed, ""},
		{"nothing", "/acme/v1/projects/1/file", admin, file, nil, http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.upload(tc.path, tc.token, tc.body, tc.headers...)
			er := assertError(t, r, tc.status, "")
			assert.Contains(t, er["detail"], tc.detail)
			// nothing stored: the template keeps its first file
			now := e.get("/acme/v1/document-templates/"+id, admin)
			assert.Equal(t, hex.EncodeToString(sum[:]), now.attr("sha256"))
			assert.Equal(t, file, e.download(fileURL, admin).Body)
		})
	}
	// the unclosed loop names its paragraph
	r = e.upload(fileURL, admin, docxtest.Build("Intro", "{#phases}", "{name}"))
	assert.Contains(t, assertError(t, r, http.StatusUnprocessableEntity, "")["detail"], "paragraph 2")
}

// zipBomb is a DOCX-shaped zip whose document unpacks to 200 MiB.
func zipBomb(t *testing.T) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"[Content_Types].xml", "_rels/.rels"} {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, _ = w.Write([]byte("<x/>"))
	}
	w, err := zw.Create("word/document.xml")
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for range 200 {
		_, err := w.Write(chunk)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.Less(t, buf.Len(), 1<<20, "the bomb is small on the wire")
	return buf.Bytes()
}

// Ensure a SOW, a pricing workbook and a breakdown workbook are generated
// for pricing.md's worked example and downloaded with the right figures,
// on v1 and v2, each status change recorded as an event.
func TestProjectDocumentGeneration(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	seeded := e.seedWorkedExample()
	pid := seeded.ProjectID
	tmpl := e.newTemplate(admin, "Figures", figuresTemplate())

	id := e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", tmpl)
	r := e.await("/acme/v1", admin, id)
	require.Equal(t, scoping.DocumentFinished, r.attr("status"), "%s", r.Body)
	self := e.srv.URL + "/acme/v1/project-documents/" + id
	assert.Equal(t, self+"/download", r.attr("document-url"))
	assert.Nil(t, r.attr("pdf-url"))
	assert.Nil(t, r.attr("error-text"))
	assert.Equal(t, "Globex firewall refresh - SOW.docx", r.attr("filename"))
	assert.Equal(t, documents.ContentTypeDOCX, r.attr("content-type"))
	assert.NotEmpty(t, r.attr("generated-at"))
	assert.NotEmpty(t, r.rel("requested-by"))

	dl := e.download("/acme/v1/project-documents/"+id+"/download", admin)
	require.Equal(t, http.StatusOK, dl.Status, "%s", dl.Body)
	assert.Equal(t, documents.ContentTypeDOCX, dl.Header.Get("Content-Type"))
	assert.Equal(t, `attachment; filename="Globex firewall refresh - SOW.docx"; filename*=UTF-8''Globex%20firewall%20refresh%20-%20SOW.docx`,
		dl.Header.Get("Content-Disposition"))
	assert.Equal(t, r.attr("size"), float64(len(dl.Body)))
	text := docxText(t, dl.Body)
	for _, want := range []string{"SOW for Globex firewall refresh (USD)", "Contract value 10794.25", "Contract cost 5696.30",
		"Contract profit 5097.95", "Contract margin 0.4723", "Phase Plan: ", "Phase Implement: "} {
		assert.Contains(t, text, want)
	}
	// the same file on v2; no PDF was asked for
	v2 := e.download("/v2/project-documents/"+id+"/download", admin)
	require.Equal(t, http.StatusOK, v2.Status, "%s", v2.Body)
	assert.Equal(t, dl.Body, v2.Body)
	assert.Equal(t, e.srv.URL+"/v2/project-documents/"+id+"/download", e.get("/v2/project-documents/"+id, admin).attr("document-url"))
	nopdf := assertError(t, e.download("/acme/v1/project-documents/"+id+"/download?format=pdf", admin), http.StatusNotFound, "")
	assert.Equal(t, "project-documents "+id+" has no PDF (it was generated with generate-pdf false)", nopdf["detail"])
	assertError(t, e.download("/acme/v1/project-documents/"+id+"/download?format=xlsx", admin), http.StatusBadRequest, "format")
	assertError(t, e.download("/acme/v1/project-documents/"+id+"/download?format=docx&format=pdf", admin), http.StatusBadRequest, "format")
	require.Equal(t, http.StatusOK, e.download("/acme/v1/project-documents/"+id+"/download?format=docx", admin).Status)
	// a file route takes any Accept (a JSON:API route would answer 406)
	r = e.req(http.MethodGet, "/acme/v1/project-documents/"+id+"/download", admin, "", "Accept", documents.ContentTypeDOCX)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assertError(t, e.req(http.MethodGet, "/acme/v1/project-documents/"+id, admin, "", "Accept", documents.ContentTypeDOCX), http.StatusNotAcceptable, "")

	// one event per status change, in order, in the outbox
	events, err := e.svc.Events(context.Background(), "", 0)
	require.NoError(t, err)
	var changes []string
	for _, ev := range events {
		if ev.Str("event-type") == views.EventDocumentStatusChanged && ev.Str("subject-id") == id {
			changes = append(changes, ev.Str("old-status")+">"+ev.Str("new-status"))
			assert.Equal(t, pid, ev.Rel("project"))
			assert.Equal(t, "project-documents", ev.Str("subject-type"))
		}
	}
	assert.Equal(t, []string{">queued", "queued>generating", "generating>finished"}, changes)

	// the built-in Standard SOW, through v2
	std := e.get("/acme/v1/document-templates?filter[name]=Standard", admin).ids()[0]
	sid := e.generate("/v2", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", std)
	require.Equal(t, scoping.DocumentFinished, e.await("/v2", admin, sid).attr("status"))
	stdText := docxText(t, e.download("/v2/project-documents/"+sid+"/download", admin).Body)
	assert.Contains(t, stdText, "Globex firewall refresh")
	assert.Contains(t, stdText, "$10,794.25") // the money filter

	// the workbooks hold the figures of /pricing
	pricing := e.get("/acme/v1/projects/"+pid+"/pricing", admin)
	require.Equal(t, http.StatusOK, pricing.Status)
	wid := e.generate("/acme/v1", admin, `{"document-type":"pricing"}`, "project", "projects", pid)
	w := e.await("/acme/v1", admin, wid)
	require.Equal(t, scoping.DocumentFinished, w.attr("status"), "%s", w.Body)
	assert.Equal(t, "Globex firewall refresh - Pricing.xlsx", w.attr("filename"))
	xl := e.download("/acme/v1/project-documents/"+wid+"/download?format=xlsx", admin)
	require.Equal(t, http.StatusOK, xl.Status)
	assert.Equal(t, documents.ContentTypeXLSX, xl.Header.Get("Content-Type"))
	cells := workbookValues(t, xl.Body)
	figures := pricingFigures(t, pricing)
	require.NotEmpty(t, figures)
	for name, want := range figures {
		found := false
		for _, c := range cells {
			if d, err := decimal.NewFromString(c); err == nil && d.Equal(want) {
				found = true
				break
			}
		}
		assert.True(t, found, "the pricing workbook lacks %s = %s", name, want)
	}
	assertError(t, e.download("/acme/v1/project-documents/"+wid+"/download?format=pdf", admin), http.StatusBadRequest, "format")

	bid := e.generate("/acme/v1", admin, `{"document-type":"breakdown"}`, "project", "projects", pid)
	require.Equal(t, scoping.DocumentFinished, e.await("/acme/v1", admin, bid).attr("status"))
	bcells := strings.Join(workbookValues(t, e.download("/acme/v1/project-documents/"+bid+"/download", admin).Body), "|")
	for _, name := range []string{"Plan", "Implement", "Assessment", "Firewall deployment", "Site survey", "Report", "Engineer", "Architect"} {
		assert.Contains(t, bcells, name)
	}

	// listing and filtering like any resource
	list := e.get("/acme/v1/project-documents?filter[project]="+pid+"&filter[document-type]=pricing,breakdown", admin)
	require.Equal(t, http.StatusOK, list.Status)
	assert.ElementsMatch(t, []string{wid, bid}, list.ids())
	// deleting a document deletes its files
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-documents/"+bid, admin, "").Status)
	assertError(t, e.download("/acme/v1/project-documents/"+bid+"/download", admin), http.StatusNotFound, "")
	require.NoError(t, e.db.View(context.Background(), func(tx engine.Tx) error {
		_, err := tx.Blob(e.accts["acme"], scoping.BlobDocumentFile, bid)
		assert.Error(t, err, "the file went with its record")
		return nil
	}))
}

// workbookValues returns the raw value of every cell of every sheet.
func workbookValues(t *testing.T, b []byte) []string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	require.NoError(t, err)
	defer f.Close()
	var out []string
	for _, sheet := range f.GetSheetList() {
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		require.NoError(t, err)
		for _, row := range rows {
			out = append(out, row...)
		}
	}
	return out
}

// pricingFigures are the contract totals, the section figures and the
// resources table's revenues of a /pricing response.
func pricingFigures(t *testing.T, r *resp) map[string]decimal.Decimal {
	t.Helper()
	attrs, _ := r.data()["attributes"].(map[string]any)
	out := map[string]decimal.Decimal{}
	add := func(name string, v any) {
		if s, ok := v.(string); ok {
			d, err := decimal.NewFromString(s)
			require.NoError(t, err, name)
			out[name] = d
		}
	}
	for _, k := range []string{"total_contract_value", "total_contract_cost", "total_contract_profit"} {
		add(k, attrs[k])
	}
	for _, sec := range []string{"professional_services", "project_governance", "travel_and_expense", "materials"} {
		m, _ := attrs[sec].(map[string]any)
		add(sec+".revenue", m["revenue"])
		add(sec+".cost", m["cost"])
	}
	res, _ := attrs["resources"].([]any)
	for _, x := range res {
		m, _ := x.(map[string]any)
		if name, _ := m["resource_name"].(string); name != "" {
			add(name+".revenue", m["revenue"])
			add(name+".hours", m["hours"])
		}
	}
	require.Len(t, out, 18, "every figure is in /pricing")
	return out
}

// Ensure PDFs: with LibreOffice the PDF is served beside the DOCX; without
// a converter the document ends in error with a clear text and the DOCX
// still served.
func TestProjectDocumentPDF(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	tmpl := e.newTemplate(admin, "Figures", figuresTemplate())

	id := e.generate("/acme/v1", admin, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", pid, "document-template", "document-templates", tmpl)
	r := e.await("/acme/v1", admin, id)
	assert.Equal(t, scoping.DocumentError, r.attr("status"))
	assert.Contains(t, r.attr("error-text"), "no PDF")
	assert.Contains(t, r.attr("error-text"), "the DOCX is available")
	assert.Nil(t, r.attr("pdf-url"))
	require.Equal(t, http.StatusOK, e.download("/acme/v1/project-documents/"+id+"/download", admin).Status)
	er := assertError(t, e.download("/acme/v1/project-documents/"+id+"/download?format=pdf", admin), http.StatusNotFound, "")
	assert.Contains(t, er["detail"], "no PDF")

	conv, err := office.NewLibreOffice("")
	if err != nil {
		t.Skipf("LibreOffice (soffice) is not installed, so PDFs are not made here: %v", err)
	}
	// the same with the warm converter (LibreOffice kept running)
	converters := []office.Converter{conv}
	warm, err := office.NewPool(conv)
	if err == nil {
		defer warm.Close()
		require.NoError(t, warm.Ready(t.Context()))
		converters = append(converters, warm)
	} else {
		t.Logf("no warm converter here (Debian: python3-uno): %v", err)
	}
	for _, c := range converters {
		e.converter = c
		e.restart()
		admin = e.admin()
		id = e.generate("/acme/v1", admin, `{"document-type":"sow","generate-pdf":true}`, "project", "projects", pid, "document-template", "document-templates", tmpl)
		r = e.await("/acme/v1", admin, id)
		require.Equal(t, scoping.DocumentFinished, r.attr("status"), "%s", r.Body)
		assert.Equal(t, e.srv.URL+"/acme/v1/project-documents/"+id+"/download?format=pdf", r.attr("pdf-url"))
		pdf := e.download("/acme/v1/project-documents/"+id+"/download?format=pdf", admin)
		require.Equal(t, http.StatusOK, pdf.Status)
		assert.True(t, bytes.HasPrefix(pdf.Body, []byte("%PDF")), "a PDF: %q", pdf.Body[:min(16, len(pdf.Body))])
		assert.Equal(t, "application/pdf", pdf.Header.Get("Content-Type"))
		assert.Contains(t, pdf.Header.Get("Content-Disposition"), `filename="Globex firewall refresh - SOW.pdf"`)
		assert.Equal(t, r.attr("pdf-size"), float64(len(pdf.Body)))
	}
	if warm != nil {
		w, c := warm.Counts()
		assert.Equal(t, [2]int64{1, 0}, [2]int64{w, c}, "made by a listener")
	}
}

// Ensure the rules of project documents: what a sow needs, what workbooks
// refuse, what cannot change, and that other accounts and users outside
// the project's visibility see nothing; refused requests store nothing.
func TestProjectDocumentRules(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	tmpl := e.newTemplate(admin, "Figures", figuresTemplate())
	empty := e.create("/acme/v1/document-templates", admin, "document-templates", `{"name":"Empty"}`)
	gclient := e.seed("globex", "clients", `{"name":"Initech"}`)
	gpid := e.seed("globex", "projects", `{"project-name":"Globex own"}`, "client", "clients", gclient)
	gtmpl := e.get("/globex/v1/document-templates", e.token("globex", "admin@globex.test", "Account Admin")).ids()[0]

	count := func() int {
		r := e.get("/acme/v1/project-documents?filter[active]=true,false", admin)
		require.Equal(t, http.StatusOK, r.Status)
		return len(r.list())
	}
	for _, tc := range []struct {
		name, attrs string
		rels        []string
		status      int
		pointer     string
	}{
		{"sow without template", `{"document-type":"sow"}`, []string{"project", "projects", pid}, 422, "/data/relationships/document-template"},
		{"sow with a template without file", `{"document-type":"sow"}`, []string{"project", "projects", pid, "document-template", "document-templates", empty}, 422, "/data/relationships/document-template"},
		{"sow with another account's template", `{"document-type":"sow"}`, []string{"project", "projects", pid, "document-template", "document-templates", gtmpl}, 422, "/data/relationships/document-template"},
		{"no project", `{"document-type":"pricing"}`, nil, 422, "/data/relationships/project"},
		{"another account's project", `{"document-type":"pricing"}`, []string{"project", "projects", gpid}, 422, "/data/relationships/project"},
		{"no document-type", `{}`, []string{"project", "projects", pid}, 422, "/data/attributes/document-type"},
		{"unknown document-type", `{"document-type":"poem"}`, []string{"project", "projects", pid}, 422, "/data/attributes/document-type"},
		{"pricing with a template", `{"document-type":"pricing"}`, []string{"project", "projects", pid, "document-template", "document-templates", tmpl}, 422, "/data/relationships/document-template"},
		{"breakdown as PDF", `{"document-type":"breakdown","generate-pdf":true}`, []string{"project", "projects", pid}, 422, "/data/attributes/generate-pdf"},
		{"status set by the client (v2)", `{"document-type":"pricing","status":"finished"}`, []string{"project", "projects", pid}, 400, "/data/attributes/status"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := count()
			prefix := "/acme/v1"
			if strings.Contains(tc.name, "v2") {
				prefix = "/v2"
			}
			r := e.req(http.MethodPost, prefix+"/project-documents", admin, doc("project-documents", "", tc.attrs, tc.rels...))
			assertError(t, r, tc.status, tc.pointer)
			assert.Equal(t, before, count(), "nothing stored")
		})
	}

	id := e.generate("/acme/v1", admin, `{"document-type":"pricing"}`, "project", "projects", pid)
	e.await("/acme/v1", admin, id)
	r := e.req(http.MethodPatch, "/acme/v1/project-documents/"+id, admin, doc("project-documents", id, `{"document-type":"breakdown"}`))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/document-type")

	// other accounts and users who cannot see the project: 404 everywhere
	other := e.token("globex", "admin@globex.test", "Account Admin")
	engineer := e.token("acme", "engineer@acme.test", "Engineer") // sees assigned projects only
	readOnly := e.token("acme", "reader@acme.test", "Read Only")
	for _, tc := range []struct {
		who, token, path string
		status           int
	}{
		{"globex admin", other, "/globex/v1/project-documents/" + id, 404},
		{"globex admin", other, "/globex/v1/project-documents/" + id + "/download", 404},
		{"globex admin", other, "/v2/project-documents/" + id, 404},
		{"globex admin", other, "/v2/project-documents/" + id + "/download", 404},
		{"globex admin", other, "/acme/v1/project-documents/" + id + "/download", 403},
		{"engineer", engineer, "/acme/v1/project-documents/" + id, 404},
		{"engineer", engineer, "/acme/v1/project-documents/" + id + "/download", 404},
		{"read only", readOnly, "/acme/v1/project-documents/" + id + "/download", 200},
	} {
		r := e.download(tc.path, tc.token)
		assert.Equal(t, tc.status, r.Status, "%s GET %s: %s", tc.who, tc.path, r.Body)
	}
	assert.Empty(t, e.get("/acme/v1/project-documents", engineer).list(), "the engineer lists none of them")
	r = e.req(http.MethodPost, "/acme/v1/project-documents", engineer, doc("project-documents", "", `{"document-type":"pricing"}`, "project", "projects", pid))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/project")
	r = e.req(http.MethodPost, "/acme/v1/project-documents", readOnly, doc("project-documents", "", `{"document-type":"pricing"}`, "project", "projects", pid))
	assertError(t, r, http.StatusForbidden, "")

	// a document not generated yet cannot be downloaded
	e.stopDocs()
	queued := e.generate("/acme/v1", admin, `{"document-type":"pricing"}`, "project", "projects", pid)
	er := assertError(t, e.download("/acme/v1/project-documents/"+queued+"/download", admin), http.StatusConflict, "")
	assert.Contains(t, er["detail"], "queued")
}

// Ensure generation is throttled per IP and per account: 429 with an
// integer Retry-After and {"error": ...}, and nothing stored.
func TestProjectDocumentThrottle(t *testing.T) {
	e := mustEnv(t)
	e.docThrottle.Rate, e.docThrottle.Burst = 0.001, 2
	e.restart()
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	e.generate("/acme/v1", admin, `{"document-type":"pricing"}`, "project", "projects", pid)
	e.generate("/v2", admin, `{"document-type":"breakdown"}`, "project", "projects", pid)
	r := e.req(http.MethodPost, "/acme/v1/project-documents", admin, doc("project-documents", "", `{"document-type":"pricing"}`, "project", "projects", pid))
	require.Equal(t, http.StatusTooManyRequests, r.Status, "%s", r.Body)
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q is an integer", r.Header.Get("Retry-After"))
	assert.Greater(t, secs, 0)
	var body map[string]string
	require.NoError(t, json.Unmarshal(r.Body, &body), "%s", r.Body)
	assert.Contains(t, body["error"], "too many document generations")
	assert.Len(t, e.get("/acme/v1/project-documents", admin).list(), 2, "the refused request stored nothing")
	// ordinary calls are never throttled
	for range 5 {
		require.Equal(t, http.StatusOK, e.get("/acme/v1/project-documents", admin).Status)
	}
}

// Ensure accounts made before the built-in templates existed get them
// from EnsureBuiltinTemplates (what the example server runs at start),
// once; an archived built-in stays archived, a deleted one comes back.
func TestBuiltinTemplatesForExistingAccounts(t *testing.T) {
	e := mustEnv(t)
	ctx := context.Background()
	cfg := e.svc.Documents
	cfg.Builtins = cfg.Builtins[:1]            // the Standard SOW alone: the Standard proposal is ensured the same way
	e.svc.Documents = scoping.DocumentConfig{} // as a server without documents made it
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("initech", "Initech", "USD")
		if err == nil {
			e.accts["initech"] = acct.ID
		}
		return err
	}))
	e.svc.Documents = cfg
	tok := e.token("initech", "admin@initech.test", "Account Admin")
	all := "/initech/v1/document-templates?filter[active]=true,false"
	require.Empty(t, e.get(all, tok).list())

	for range 2 { // idempotent
		require.NoError(t, e.svc.EnsureBuiltinTemplates(ctx))
		r := e.get(all, tok)
		require.Len(t, r.list(), 1, "%s", r.Body)
		attrs := r.list()[0]["attributes"].(map[string]any)
		assert.Equal(t, documents.StandardSOWName, attrs["name"])
		assert.Equal(t, true, attrs["builtin"])
		assert.Equal(t, float64(len(documents.StandardSOW())), attrs["size"])
	}
	assert.Len(t, e.get("/acme/v1/document-templates?filter[active]=true,false", e.admin()).list(), 3, "acme already had them (with the Standard proposal and change order)")

	id := e.get(all, tok).ids()[0]
	e.patch("/initech/v1/document-templates/"+id, tok, "document-templates", id, `{"active":false}`)
	require.NoError(t, e.svc.EnsureBuiltinTemplates(ctx))
	r := e.get(all, tok)
	require.Len(t, r.list(), 1)
	assert.Equal(t, false, r.list()[0]["attributes"].(map[string]any)["active"], "an archived built-in stays archived")

	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/initech/v1/document-templates/"+id, tok, "").Status)
	require.Empty(t, e.get(all, tok).list())
	require.NoError(t, e.svc.EnsureBuiltinTemplates(ctx))
	require.Len(t, e.get(all, tok).list(), 1, "a deleted built-in comes back")
}
