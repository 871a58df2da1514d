package webapp_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/require"
)

// postFile sends a file form (multipart) to path: the fields and the file.
func (b *browser) postFile(path string, fields url.Values, name string, data []byte) *page {
	b.e.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			require.NoError(b.e.t, mw.WriteField(k, v))
		}
	}
	if name != "" {
		fw, err := mw.CreateFormFile("file", name)
		require.NoError(b.e.t, err)
		_, _ = fw.Write(data)
	}
	require.NoError(b.e.t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, b.e.srv.URL+path, &body)
	require.NoError(b.e.t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

// Ensure a template is created with its file, checked at once: a file
// whose tags merge data does not have is refused with each problem's tag,
// place, text around it and suggestion, leaving no template; a lenient
// one is stored with them; a good one downloads as sent and previews as a
// PDF filled from a project.
func TestSettingsTemplates(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	bad := docxtest.Build("Statement of work", "Prepared for {project.client_nme} by our team, with care.")
	form := b.get("/app/acme/settings/templates/new").hidden()
	form.Set("name", "Ours")
	p := b.postFile("/app/acme/settings/templates/new", form, "ours.docx", bad)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, `<tr><td><code>{project.client_nme}</code></td><td>paragraph 2</td><td>Prepared for {project.client_nme} by our team, with care.</td><td><code>project.client_name</code></td></tr>`)
	require.Equal(t, 0, e.count("acme", "document-templates", "name", "Ours"), "a refused file leaves no template")

	form = b.get("/app/acme/settings/templates/new").hidden()
	form.Set("name", "Ours")
	form.Set("lenient", "true")
	p = b.postFile("/app/acme/settings/templates/new", form, "ours.docx", bad)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "The template is lenient")
	require.Contains(t, p.Body, "<td>Prepared for {project.client_nme} by our team, with care.</td>")

	good := docxtest.Build("Statement of work for {project.client_name}")
	form = b.get("/app/acme/settings/templates/new").hidden()
	form.Set("name", "Good")
	p = b.postFile("/app/acme/settings/templates/new", form, "good.docx", good)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	base := strings.TrimSuffix(p.URL[strings.Index(p.URL, "/app/"):], "?done=created")
	dl := b.get(base + "/download")
	require.Equal(t, http.StatusOK, dl.Status)
	require.Equal(t, string(good), dl.Body)
	require.Contains(t, dl.Header.Get("Content-Disposition"), "good.docx")

	// a new file refused keeps the old one
	p = b.postFile(base+"/file", url.Values{"csrf": {p.csrf(t)}}, "worse.docx", bad)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, "The file was refused")
	require.Equal(t, string(good), b.get(base+"/download").Body)
	p = b.postFile(base+"/file", url.Values{"csrf": {p.csrf(t)}}, "", nil)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, "Choose the template&#39;s file.")

	pid := e.seeded["acme"].ProjectID
	page := b.get(base + "?project=" + pid)
	require.Contains(t, page.Body, `<iframe class="preview" src="`+base+`/preview?project=`+pid+`"`)
	require.Contains(t, page.Header.Get("Content-Security-Policy"), "frame-src 'self'")
	if !e.pdf {
		t.Log("LibreOffice is not installed: the preview itself is not made")
		return
	}
	pdf := b.get(base + "/preview?project=" + pid)
	require.Equal(t, http.StatusOK, pdf.Status, pdf.Body)
	require.Equal(t, "application/pdf", pdf.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(pdf.Body, "%PDF-"))
	require.Equal(t, "SAMEORIGIN", pdf.Header.Get("X-Frame-Options"))
	require.Contains(t, pdf.Header.Get("Content-Security-Policy"), "frame-ancestors 'self'")
	require.Equal(t, 0, e.count("acme", "project-documents", "project", pid), "a preview stores no document")
}

// Ensure the catalog import's page checks a file (every refused cell by
// sheet, row and column; nothing written), then imports it (the API reads
// what it wrote), and the export downloads the catalog.
func TestSettingsImport(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	csrf := b.get("/app/acme/settings/import").csrf(t)
	bad := []byte("Name,Phase,Hours\nCabling,Plan,4\nSurvey,Nowhere,x\n")
	p := b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "check"), "Services.csv", bad)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, `<tr><td>Services</td><td class="num">3</td><td>Hours</td><td class="hide-narrow">C3</td>`)
	require.Contains(t, p.Body, `<td>Phase</td><td class="hide-narrow">B3</td><td>no phase named &#34;Nowhere&#34;`)
	p = b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "import"), "Services.csv", bad)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, "nothing was written")
	require.Equal(t, 0, e.count("acme", "services", "name", "Cabling"))

	good := []byte("Name,Phase,Hours\nCabling,Plan,4\n")
	p = b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "check"), "Services.csv", good)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Nothing refused: the file can be imported.")
	require.Equal(t, 0, e.count("acme", "services", "name", "Cabling"), "a check writes nothing")
	p = b.postFile("/app/acme/settings/import", formOf("csrf", csrf, "mode", "import", "sheet", "Services"), "catalog.csv", good)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "The catalog was imported.")
	require.Equal(t, 1, e.count("acme", "services", "name", "Cabling"))

	x := b.get("/app/acme/settings/export")
	require.Equal(t, http.StatusOK, x.Status)
	require.True(t, strings.HasPrefix(x.Body, "PK"), "a workbook")
	require.Contains(t, x.Header.Get("Content-Disposition"), "catalog-acme.xlsx")
	require.True(t, strings.HasPrefix(b.get("/app/acme/settings/import/template?format=zip").Body, "PK"))
}
