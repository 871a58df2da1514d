package httpadapter_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the name an upload's Content-Disposition gives keeps the rule of
// a PATCH of filename (at most 255 characters, counted as characters):
// over it the upload is a 422 naming filename and stores nothing.
func TestTemplateFileUploadFilenameLimit(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	id := e.newTemplate(admin, "Figures", figuresTemplate())
	path := "/acme/v1/document-templates/" + id + "/file"
	sha := e.get("/acme/v1/document-templates/"+id, admin).attr("sha256")
	utf8Name := func(n int) string { // n characters, 2n bytes
		return "attachment; filename*=UTF-8''" + strings.Repeat(url.PathEscape("é"), n)
	}
	for _, tc := range []struct {
		name, disposition string
		ok                bool
	}{
		{"255 characters", `attachment; filename="` + strings.Repeat("a", 250) + `.docx"`, true},
		{"256 characters", `attachment; filename="` + strings.Repeat("a", 251) + `.docx"`, false},
		{"255 two-byte characters", utf8Name(255), true},
		{"256 two-byte characters", utf8Name(256), false},
		{"long path, short last element", `attachment; filename="` + strings.Repeat("d/", 200) + `f.docx"`, true},
	} {
		r := e.upload(path, admin, []byte(e.download(path, admin).Body), "Content-Disposition", tc.disposition)
		if tc.ok {
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", tc.name, r.Body)
			continue
		}
		er := assertError(t, r, http.StatusUnprocessableEntity, "")
		assert.Contains(t, er["detail"], "filename is too long (at most 255 characters)", tc.name)
		assert.Equal(t, sha, e.get("/acme/v1/document-templates/"+id, admin).attr("sha256"), tc.name)
	}
	// the same rule as a PATCH
	assertError(t, e.req(http.MethodPatch, "/acme/v1/document-templates/"+id, admin,
		doc("document-templates", id, `{"filename":"`+strings.Repeat("a", 256)+`"}`)), http.StatusUnprocessableEntity, "/data/attributes/filename")
	assert.Equal(t, "f.docx", e.get("/acme/v1/document-templates/"+id, admin).attr("filename"))
}

// Ensure the /file routes follow the template's archiving as its GET
// does (http.md, "Archiving"): once archived (PATCH active false, or a
// DELETE while a download type names it) GET and PUT of its file answer
// 404; a GET whose filter[active] covers it reads the file; restored, both
// work again.
func TestTemplateFileArchived(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	file := figuresTemplate()
	for _, tc := range []struct {
		name    string
		archive func(id string)
	}{
		{"PATCH active false", func(id string) {
			e.patch("/acme/v1/document-templates/"+id, admin, "document-templates", id, `{"active":false}`)
		}},
		{"DELETE of a template a download type names", func(id string) {
			e.create("/acme/v1/project-download-types", admin, "project-download-types", `{"name":"SOW `+id+`","document-type":"sow","format":"docx"}`,
				"document-template", "document-templates", id)
			require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/document-templates/"+id, admin, "").Status)
		}},
	} {
		id := e.newTemplate(admin, tc.name, file)
		rec, path := "/acme/v1/document-templates/"+id, "/acme/v1/document-templates/"+id+"/file"
		tc.archive(id)
		assertError(t, e.get(rec, admin), http.StatusNotFound, "")
		assertError(t, e.download(path, admin), http.StatusNotFound, "")
		assertError(t, e.upload(path, admin, file), http.StatusNotFound, "")
		for _, q := range []string{"?filter[active]=false", "?filter[active]=true,false"} {
			r := e.download(path+q, admin)
			require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", tc.name, q, r.Body)
			assert.Equal(t, file, r.Body, tc.name)
		}
		assertError(t, e.download(path+"?filter[active]=true", admin), http.StatusNotFound, "")

		e.patch(rec, admin, "document-templates", id, `{"active":true}`)
		assert.Equal(t, http.StatusOK, e.download(path, admin).Status, tc.name)
		assert.Equal(t, http.StatusOK, e.upload(path, admin, file).Status, tc.name)
	}
}
