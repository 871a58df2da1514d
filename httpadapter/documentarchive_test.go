package httpadapter_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure an archived document downloads as it reads: only where
// filter[active] covers it (http.md "Archiving"), on v1 and v2, and again
// once restored.
func TestArchivedDocumentDownload(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	tmpl := e.newTemplate(admin, "Figures", figuresTemplate())
	id := e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", tmpl)
	require.Equal(t, scoping.DocumentFinished, e.await("/acme/v1", admin, id).attr("status"))
	file := e.download("/acme/v1/project-documents/"+id+"/download", admin)
	require.Equal(t, http.StatusOK, file.Status, "%s", file.Body)

	e.patch("/acme/v1/project-documents/"+id, admin, "project-documents", id, `{"active":false}`)
	for _, path := range []string{"/acme/v1/project-documents/" + id + "/download", "/v2/project-documents/" + id + "/download"} {
		assertError(t, e.get(strings.TrimSuffix(path, "/download"), admin), http.StatusNotFound, "")
		assertError(t, e.download(path, admin), http.StatusNotFound, "")
		assertError(t, e.download(path+"?format=docx", admin), http.StatusNotFound, "")
		assertError(t, e.download(path+"?filter[active]=true", admin), http.StatusNotFound, "")
		for _, q := range []string{"?filter[active]=false", "?filter[active]=true,false"} {
			got := e.download(path+q, admin)
			require.Equal(t, http.StatusOK, got.Status, "%s%s: %s", path, q, got.Body)
			assert.Equal(t, file.Body, got.Body)
		}
	}
	e.patch("/acme/v1/project-documents/"+id, admin, "project-documents", id, `{"active":true}`)
	require.Equal(t, http.StatusOK, e.download("/acme/v1/project-documents/"+id+"/download", admin).Status)
}
