package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a template whose tags misspell merge data's paths is a 422 at
// upload naming the tag, its paragraph and the nearest path, and nothing
// is stored; a lenient template is stored with its problems listed.
func TestTemplateLint(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	bad := docxtest.Build("SOW for {project.projct_name}", "{#phasse}{name}{/phasse}")
	id := e.create("/acme/v1/document-templates", admin, "document-templates", `{"name":"Misspelled"}`)
	r := e.upload("/acme/v1/document-templates/"+id+"/file", admin, bad)
	errObj := assertError(t, r, http.StatusUnprocessableEntity, "")
	detail, _ := errObj["detail"].(string)
	assert.Contains(t, detail, "unknown path project.projct_name in {project.projct_name} in paragraph 1 (“SOW for {project.projct_name}”): did you mean project.project_name?")
	assert.Contains(t, detail, "unknown loop phasse in {#phasse} in paragraph 2 (“{#phasse}{name}{/phasse}”): did you mean phases?")
	assert.Equal(t, http.StatusNotFound, e.download("/acme/v1/document-templates/"+id+"/file", admin).Status, "nothing stored")

	e.patch("/acme/v1/document-templates/"+id, admin, "document-templates", id, `{"lenient":true}`)
	r = e.upload("/acme/v1/document-templates/"+id+"/file", admin, bad)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []any{"unknown path project.projct_name in {project.projct_name} in paragraph 1 (“SOW for {project.projct_name}”): did you mean project.project_name?",
		"unknown loop phasse in {#phasse} in paragraph 2 (“{#phasse}{name}{/phasse}”): did you mean phases?"}, r.attr("problems"))

	unknown := e.upload("/acme/v1/document-templates/"+id+"/file", admin, docxtest.Build("{project.project_name | bold}"))
	assertError(t, unknown, http.StatusUnprocessableEntity, "")
	assert.Contains(t, string(unknown.Body), `unknown filter \"bold\"`)
}

// Ensure a template marking a value required fails generation with a
// clear error-text when the project lacks it, and formats figures with
// the filters when it has them.
func TestTemplateRequiredAndMoney(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	pid := e.seedWorkedExample().ProjectID
	ok := e.newTemplate(admin, "Money", docxtest.Build("Total {project_pricing.total_contract_value | money}"))
	id := e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", ok)
	r := e.await("/acme/v1", admin, id)
	require.Equal(t, scoping.DocumentFinished, r.attr("status"), "%s", r.Body)
	assert.Contains(t, docxText(t, e.download("/acme/v1/project-documents/"+id+"/download", admin).Body), "Total $10,794.25")

	req := e.newTemplate(admin, "Required", docxtest.Build("MSA of {project.msa_date.to_long_date | required}"))
	id = e.generate("/acme/v1", admin, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", req)
	r = e.await("/acme/v1", admin, id)
	require.Equal(t, scoping.DocumentError, r.attr("status"), "%s", r.Body)
	assert.Equal(t, "the template could not be filled: a required value is missing: {project.msa_date.to_long_date | required} in paragraph 1 has no value (the data has nothing at project.msa_date.to_long_date)",
		r.attr("error-text"))
}
