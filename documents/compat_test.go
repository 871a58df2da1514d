package documents_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// compatCorpus are templates in the anchor's syntax, one paragraph per
// line, over v2 merge data (the demo project's golden tree). Both engines
// must give the same paragraph texts; the deliberate differences
// (docs/templates.md, "Differences from docxtemplater") are not here.
var compatCorpus = map[string][]string{
	"values":     {"SOW for {project.project_name} ({project.client_name})", "Printed {project.printed_on.to_long_date}", "{currency.code} {currency.unit}"},
	"missing":    {"[{project.nothing}][{nothing.at.all}][{project.msa_date.to_long_date}]"},
	"loops":      {"{#phases}", "Phase {name}: {total_hours} h", "{#services}", "- {name} ({resource_name}) {quantity} × {unit_hours}", "{/services}", "{/phases}"},
	"inline":     {"Team: {#project.teammates}{name} <{email}>; {/project.teammates}"},
	"inverted":   {"{^project.solution_summary}No solution summary.{/project.solution_summary}", "{^phases}none{/phases}"},
	"sections":   {"{#project.payment_term}{name}, {pricing_model}{/project.payment_term}", "{#project.executive_summary}Summary: {project.executive_summary}{/project.executive_summary}"},
	"index":      {"{phases[0].name} / {phases[1].services[0].name} / {phases[0].services[0].subservices[1].name}"},
	"length":     {"{phases.length} phases, {project.teammates.length} teammates"},
	"ternary":    {`{project.payment_term.include_expenses ? "Expenses included." : "Expenses billed."}`, `{project.solution_summary ? "yes" : "no"}`},
	"plus":       {`{project.project_name + " for " + project.client_name}`, `{currency.minor_units + 1}`},
	"strict":     {`{#project.status === "draft"}Draft{/}`, `{#project.status !== "draft"}Not draft{/}`, `{#project.payment_term.pricing_model == "fixed_fee"}Fixed fee{/}`},
	"dollarIdx":  {"{#phases}{$index}. {name}; {/phases}"},
	"this":       {"{#phases}{this.name} {/phases}", "{#project.teammates}{this.email}{/project.teammates}"},
	"logic":      {`{#project.payment_term.include_expenses && phases.length}both{/}`, `{project.solution_summary || "no summary"}`, `{#!project.solution_summary}empty{/}`},
	"paraloop":   {"Before", "{#locations}", "Location {name}", "{/locations}", "After"},
	"rowsbyname": {"{#project_pricing.project_governance.items}{name}: {hours} h at {hourly_rate}{/project_pricing.project_governance.items}"},
}

// Ensure the corpus renders with docxtemplater (angular parser,
// paragraphLoop) as with ScopeKit. CI (.ci/run) installs docxtemplater
// and sets SCOPEKIT_DOCXTEMPLATER to its node_modules.
func TestDocxtemplaterCompat(t *testing.T) {
	modules := os.Getenv("SCOPEKIT_DOCXTEMPLATER")
	if modules == "" {
		t.Skip("SCOPEKIT_DOCXTEMPLATER is not set (.ci/run installs docxtemplater with npm and sets it): not comparing with docxtemplater")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: not comparing with docxtemplater")
	}
	data, err := os.ReadFile(filepath.Join("..", "mergedata", "testdata", "demo_v2.json"))
	require.NoError(t, err)
	templates := map[string]string{}
	files := map[string][]byte{}
	for name, lines := range compatCorpus {
		blocks := make([]string, len(lines))
		for i, l := range lines {
			blocks[i] = p(l)
		}
		files[name] = template(t, blocks...)
		templates[name] = base64.StdEncoding.EncodeToString(files[name])
	}
	in, err := json.Marshal(map[string]any{"data": json.RawMessage(data), "templates": templates})
	require.NoError(t, err)
	outFile := filepath.Join(t.TempDir(), "out.json")
	cmd := exec.Command(node, filepath.Join("testdata", "compat", "render.js"), outFile)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), "%s", stderr.String())
	outJSON, err := os.ReadFile(outFile)
	require.NoError(t, err)
	var theirs map[string]struct{ Docx, Error string }
	require.NoError(t, json.Unmarshal(outJSON, &theirs))
	for name := range compatCorpus {
		t.Run(name, func(t *testing.T) {
			res := theirs[name]
			require.Empty(t, res.Error, "docxtemplater")
			b, err := base64.StdEncoding.DecodeString(res.Docx)
			require.NoError(t, err)
			ours, err := documents.Render(context.Background(), files[name], json.RawMessage(data))
			require.NoError(t, err)
			require.Equal(t, unescaped(paragraphs(entry(t, b, "word/document.xml"))), unescaped(paragraphs(entry(t, ours, "word/document.xml"))))
		})
	}
}

// unescaped reads the XML entities of texts (docxtemplater writes ' as
// &apos;, ScopeKit as it is: the same text).
func unescaped(texts []string) []string {
	for i, s := range texts {
		texts[i] = html.UnescapeString(s)
	}
	return texts
}
