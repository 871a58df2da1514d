package docgen_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the configured lint checks against v2 merge data: the built-in
// Standard SOW and Standard proposal have no problems, a misspelled path
// has one with the nearest path.
func TestConfigLint(t *testing.T) {
	lint := docgen.New(nil).Config().Lint
	require.NotNil(t, lint)
	problems, err := lint(context.Background(), documents.FormatDOCX, documents.StandardSOW())
	require.NoError(t, err)
	require.Empty(t, problems)
	problems, err = lint(context.Background(), documents.FormatPPTX, documents.StandardProposal())
	require.NoError(t, err)
	require.Empty(t, problems)
	problems, err = lint(context.Background(), documents.FormatDOCX, docxtest.Build("{#phases}{#services}{revenu | money}{/services}{/phases}"))
	require.NoError(t, err)
	require.Len(t, problems, 1)
	require.Equal(t, scoping.TemplateProblem{Tag: "{revenu | money}", Path: "revenu", Where: "paragraph 1",
		Context: "{#phases}{#services}{revenu | money}{/services}{/phases}", Suggestion: "revenue",
		Message: "unknown path revenu in {revenu | money} in paragraph 1 (“{#phases}{#services}{revenu | money}{/services}{/phases}”): did you mean revenue?"},
		problems[0])
}

// Ensure the configured preview fills the template from the project and
// converts it, says what is wrong with a template it cannot fill, and
// says when the server makes no PDFs.
func TestConfigPreview(t *testing.T) {
	e := mustEnv(t)
	ctx := context.Background()
	e.pool.Converter = fakeConverter{pdf: []byte("%PDF-1.7")}
	f, err := e.svc.PreviewTemplate(ctx, e.actor, e.template, e.project)
	require.NoError(t, err)
	require.Equal(t, "%PDF-1.7", string(f.Data))

	e.pool.Converter = fakeConverter{err: fmt.Errorf("x: %w", office.ErrNoConverter)}
	_, err = e.svc.PreviewTemplate(ctx, e.actor, e.template, e.project)
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	e.pool.Converter = nil
	_, err = e.svc.PreviewTemplate(ctx, e.actor, e.template, e.project)
	require.ErrorContains(t, err, "no PDF converter")

	e.pool.Converter = fakeConverter{pdf: []byte("%PDF-1.7")}
	tmpl, err := e.svc.Create(ctx, e.actor, "document-templates", &engine.Input{Attrs: map[string]json.RawMessage{
		"name": json.RawMessage(`"Needs a date"`), "lenient": json.RawMessage("true")}}, engine.Options{})
	require.NoError(t, err)
	_, err = e.svc.UploadTemplateFile(ctx, e.actor, tmpl.Records[0].ID, "", "", docxtest.Build("{project.msa_date.to_long_date | required}"))
	require.NoError(t, err)
	_, err = e.svc.PreviewTemplate(ctx, e.actor, tmpl.Records[0].ID, e.project)
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	require.ErrorContains(t, err, "the template could not be filled: a required value is missing")
}
