package documents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// lintSchema is a JSON Schema in the shape of v2 merge data.
const lintSchema = `{"type": "object", "properties": {
  "project": {"type": "object", "properties": {
    "project_name": {"type": "string"}, "client_name": {"type": "string"},
    "msa_date": {"type": ["object", "null"], "properties": {"value": {"type": "string"}}},
    "user_defined_fields": {"type": "object", "additionalProperties": {}}}},
  "currency": {"type": "object", "properties": {"code": {"type": "string"}}},
  "phases": {"type": "array", "items": {"type": "object", "properties": {
    "name": {"type": "string"}, "total_hours": {"type": "string"},
    "services": {"type": "array", "items": {"type": "object", "properties": {
      "name": {"type": "string"}, "quantity": {"type": "string"}}}}}}}}}`

// Ensure Lint resolves each tag's path in its loop scope and names the
// misspelled ones with the tag, the paragraph and the nearest known path.
func TestLint(t *testing.T) {
	s, err := documents.NewSchema([]byte(lintSchema))
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		blocks []string
		want   []string
	}{
		{"clean", []string{p("{project.project_name} {currency.code} {phases.length} {phases[0].name | upper}"),
			p("{#phases}{name} {total_hours}{#services}{name} {quantity} {currency.code} {$index}{/services}{/phases}"),
			p("{project.user_defined_fields.anything.below} {#project.msa_date}{value}{/project.msa_date} {this.project.client_name}")},
			nil},
		{"path", []string{p("x"), p("{project.projct_name}")},
			[]string{"unknown path project.projct_name in {project.projct_name} in paragraph 2: did you mean project.project_name?"}},
		{"loop", []string{p("{#phasse}{name}{/phasse}")},
			[]string{"unknown loop phasse in {#phasse} in paragraph 1 (“{#phasse}{name}{/phasse}”): did you mean phases?"}},
		{"nested scope", []string{p("{#phases}{#services}{nmae} {quantty}{/services}{/phases}")},
			[]string{"unknown path nmae in {nmae} in paragraph 1 (“{#phases}{#services}{nmae} {quantty}{/services}{/phases}”): did you mean name?",
				"unknown path quantty in {quantty} in paragraph 1 (“{#phases}{#services}{nmae} {quantty}{/services}{/phases}”): did you mean quantity?"}},
		{"not in this scope", []string{p("{#phases}{.quantity}{/phases}")},
			[]string{"unknown path .quantity in {.quantity} in paragraph 1 (“{#phases}{.quantity}{/phases}”): did you mean name?"}},
		{"member after index", []string{p("{phases[0].nme}")},
			[]string{"unknown path phases[0].nme in {phases[0].nme} in paragraph 1: did you mean phases[0].name?"}},
		{"index outside a loop", []string{p("{$index}")}, []string{"{$index} in paragraph 1 is outside any loop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := documents.Lint(context.Background(), template(t, tc.blocks...), s)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// Ensure LintFormat lints PPTX and XLSX templates as Lint does a DOCX,
// naming the slide's paragraph or the cell.
func TestLintFormat(t *testing.T) {
	s, err := documents.NewSchema([]byte(lintSchema))
	require.NoError(t, err)
	ctx := context.Background()
	deck := pptx(t, `<p:sp><p:txBody><a:p><a:r><a:t>{project.projct_name | upper}</a:t></a:r></a:p>`+
		`<a:p><a:r><a:t>{#phases}{name}{/phases}</a:t></a:r></a:p></p:txBody></p:sp>`)
	problems, err := documents.LintFormat(ctx, documents.FormatPPTX, deck, s)
	require.NoError(t, err)
	require.Equal(t, []string{"unknown path project.projct_name in {project.projct_name | upper} in paragraph 1 of slide 1: did you mean project.project_name?"}, problems)
	book := rezip(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml", strings.Replace(string(entry(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml")),
		`<c r="A8" t="s"><v>`, `<c r="A8" t="inlineStr"><is><t>{#phases}{nme}{/phases}</t></is><v>`, 1))
	problems, err = documents.LintFormat(ctx, documents.FormatXLSX, book, s)
	require.NoError(t, err)
	require.Contains(t, problems, "unknown path nme in {nme} in cell A8 of sheet1: did you mean name?")
	_, err = documents.LintFormat(ctx, "odt", deck, s)
	require.Contains(t, err.Error(), `unknown template format "odt"`)
}

// Ensure a problem names the text a person finds its tag by, which Word
// and PowerPoint show where they number no paragraphs: the paragraph's
// opening words, the slide's title; a cell is found by its reference.
func TestLintContext(t *testing.T) {
	s, err := documents.NewSchema([]byte(lintSchema))
	require.NoError(t, err)
	ctx := context.Background()
	doc := template(t, p("Introduction"), p("The work for {project.client_nme} begins with an assessment of every site and ends with a report."))
	got, err := documents.LintProblems(ctx, documents.FormatDOCX, doc, s)
	require.NoError(t, err)
	require.Equal(t, []documents.Problem{{Tag: "{project.client_nme}", Path: "project.client_nme", Where: "paragraph 2",
		Context: "The work for {project.client_nme} begins with an assessment…", Suggestion: "project.client_name",
		Message: "unknown path project.client_nme in {project.client_nme} in paragraph 2 (“The work for {project.client_nme} begins with an assessment…”): did you mean project.client_name?"}}, got)

	deck := pptx(t, `<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr>`+
		`<p:txBody><a:p><a:r><a:t>Quarterly </a:t></a:r><a:r><a:t>review</a:t></a:r></a:p></p:txBody></p:sp>`+
		`<p:sp><p:txBody><a:p><a:r><a:t>{project.projct_name}</a:t></a:r></a:p></p:txBody></p:sp>`)
	got, err = documents.LintProblems(ctx, documents.FormatPPTX, deck, s)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, "Quarterly review", got[0].Context)
	require.Equal(t, "paragraph 2 of slide 1", got[0].Where)
	require.Contains(t, got[0].Message, "in paragraph 2 of slide 1 (“Quarterly review”): did you mean project.project_name?")

	book := rezip(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml", strings.Replace(string(entry(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml")),
		`<c r="A8" t="s"><v>`, `<c r="A8" t="inlineStr"><is><t>Client: {project.client_nme}</t></is><v>`, 1))
	got, err = documents.LintProblems(ctx, documents.FormatXLSX, book, s)
	require.NoError(t, err)
	last := got[len(got)-1] // the fixture's own cells use paths of another schema
	require.Equal(t, "{project.client_nme}", last.Tag)
	require.Equal(t, "cell A8 of sheet1", last.Where)
	require.Empty(t, last.Context, "the reference is how a cell is found")
}
