package client_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/client"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a template is uploaded from a file (created, then its file put),
// listed and read back; that a refused file is a 422 whose problems
// TemplateProblems lists and leaves no template behind; that a lenient
// template lists its problems; and that another file replaces a
// template's.
func TestTemplates(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	good := docxtest.Build("Statement of work for {project.project_name}", "Total: {project_pricing.total_contract_value}")
	tpl, err := c.UploadTemplate(ctx(t), "Client test SOW", "client test.docx", good, false)
	require.NoError(t, err)
	assert.Equal(t, "docx", tpl.Format)
	assert.Equal(t, "client test.docx", tpl.Filename)
	assert.EqualValues(t, len(good), tpl.Size)
	assert.Contains(t, tpl.Tags, "project.project_name")
	assert.Empty(t, tpl.Problems)

	var names []string
	for tp, err := range c.ListTemplates(ctx(t), url.Values{"filter[name]": {"SOW"}}) {
		require.NoError(t, err)
		names = append(names, tp.Name)
	}
	assert.Contains(t, names, "Client test SOW")
	assert.Contains(t, names, "Standard SOW", "the built-in one")
	got, err := c.GetTemplate(ctx(t), tpl.ID)
	require.NoError(t, err)
	assert.Equal(t, tpl.Sha256, got.Sha256)
	self, _ := got.Resource.Links["self"].(string)
	f, err := c.Download(ctx(t), self+"/file", nil)
	require.NoError(t, err)
	assert.Equal(t, good, f.Data)

	// a misspelled path: refused, nothing left behind
	before := len(collect(t, c.ListTemplates(ctx(t), nil)))
	bad := docxtest.Build("Dear {project.projet_name},")
	_, err = c.UploadTemplate(ctx(t), "Misspelled", "misspelled.docx", bad, false)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusUnprocessableEntity, e.StatusCode)
	problems := client.TemplateProblems(err)
	require.NotEmpty(t, problems)
	assert.Contains(t, strings.Join(problems, "\n"), "project.projet_name")
	assert.Len(t, collect(t, c.ListTemplates(ctx(t), nil)), before, "no template left behind")
	assert.Nil(t, client.TemplateProblems(errors.New("another error")))

	// lenient: stored, with its problems listed
	lenient, err := c.UploadTemplate(ctx(t), "Lenient", "lenient.docx", bad, true)
	require.NoError(t, err)
	assert.True(t, lenient.Lenient)
	require.NotEmpty(t, lenient.Problems)
	assert.Contains(t, strings.Join(lenient.Problems, "\n"), "project.projet_name")

	// a new file for the same template; a refused one keeps the old
	replaced, err := c.UploadTemplateFile(ctx(t), tpl.ID, "v2.docx", docxtest.Build("{project.project_name} v2"))
	require.NoError(t, err)
	assert.Equal(t, "v2.docx", replaced.Filename)
	assert.NotEqual(t, tpl.Sha256, replaced.Sha256)
	_, err = c.UploadTemplateFile(ctx(t), tpl.ID, "v3.docx", bad)
	require.ErrorAs(t, err, &e)
	got, err = c.GetTemplate(ctx(t), tpl.ID)
	require.NoError(t, err)
	assert.Equal(t, replaced.Sha256, got.Sha256, "a refused file changes nothing")

	_, err = c.UploadTemplate(ctx(t), "Notes", "notes.txt", []byte("x"), false)
	assert.ErrorContains(t, err, `"notes.txt" is not a template file`)
}

// Ensure a catalog service is added to a project by its name, in any
// case, and that a name no service has is an error naming the services
// whose names hold it.
func TestAddServiceByName(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	cl, err := c.CreateClient(ctx(t), "Hooli", nil)
	require.NoError(t, err)
	p, err := c.CreateProject(ctx(t), "Hooli firewalls", cl.ID, nil)
	require.NoError(t, err)
	ps, err := c.AddServiceByName(ctx(t), p.ID, "firewall DEPLOYMENT", "3")
	require.NoError(t, err)
	assert.Equal(t, "Firewall deployment", ps.Name)
	assert.Equal(t, "3", ps.Quantity)
	assert.Equal(t, p.ID, ps.ProjectID)

	_, err = c.AddServiceByName(ctx(t), p.ID, "firewall", "")
	assert.ErrorContains(t, err, `no catalog service is named "firewall"; names that hold it: "Firewall deployment" (id `)
	_, err = c.AddServiceByName(ctx(t), p.ID, "quantum", "")
	assert.EqualError(t, err, `scopekit: no catalog service is named "quantum"`)
	assert.Len(t, collect(t, c.ListProjectServices(ctx(t), p.ID, nil)), 1)
}
