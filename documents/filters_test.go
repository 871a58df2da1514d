package documents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// renderText renders one paragraph per tag text over data and returns the
// paragraphs' text.
func renderText(t *testing.T, data any, tags ...string) []string {
	t.Helper()
	blocks := make([]string, len(tags))
	for i, tg := range tags {
		blocks[i] = p(tg)
	}
	out, err := documents.Render(context.Background(), template(t, blocks...), data)
	require.NoError(t, err)
	return paragraphs(entry(t, out, "word/document.xml"))
}

// moneyData is merge data with a currency, a locale and figures.
func moneyData(code string, minor int, locale string) map[string]any {
	return map[string]any{
		"locale":   locale,
		"currency": map[string]any{"code": code, "unit": "?", "minor_units": minor},
		"value":    "10794.25", "neg": "-250.00", "big": "1234567.5", "margin": "0.4723", "none": "",
		"name": "Globex", "when": map[string]any{"value": "2026-11-22"},
	}
}

// Ensure each filter formats with the currency's symbol and minor units
// and the locale's marks, over USD, EUR in de-DE, JPY and accounts'
// locales (en-IN, fr-FR); dates with the locale's names and long date
// (TestCLDRLocales has 20 more).
func TestFilters(t *testing.T) {
	tags := []string{"{value | money}", "{neg | money}", "{big | number:2}", "{big | number}", "{value | number:0}",
		"{margin | percent}", "{margin | percent:1}", `{when | date:"2 January 2006"}`, "{when | date}",
		"{name | upper}", "{name | lower}", `{none | default:"n/a"}`, `{name | default:"n/a"}`, "{missing | money}"}
	for _, tc := range []struct {
		name  string
		data  map[string]any
		wants []string
	}{
		{"USD en-US", moneyData("USD", 2, "en-US"), []string{"$10,794.25", "-$250.00", "1,234,567.50", "1,234,567.50", "10,794",
			"47%", "47.2%", "22 November 2026", "November 22, 2026", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"EUR de-DE", moneyData("EUR", 2, "de-DE"), []string{"10.794,25\u00a0€", "-250,00\u00a0€", "1.234.567,50", "1.234.567,50", "10.794",
			"47\u00a0%", "47,2\u00a0%", "22 November 2026", "22. November 2026", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"JPY ja-JP", moneyData("JPY", 0, "ja-JP"), []string{"￥10,794", "-￥250", "1,234,567.50", "1,234,567.50", "10,794",
			"47%", "47.2%", "22 11月 2026", "2026年11月22日", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"JPY en-US", moneyData("JPY", 0, "en-US"), []string{"¥10,794", "-¥250", "1,234,567.50", "1,234,567.50", "10,794",
			"47%", "47.2%", "22 November 2026", "November 22, 2026", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"USD en-IN (the account's)", moneyData("USD", 2, "en-IN"), []string{"$10,794.25", "-$250.00", "12,34,567.50",
			"12,34,567.50", "10,794", "47%", "47.2%", "22 November 2026", "November 22, 2026", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"EUR fr-FR (the account's)", moneyData("EUR", 2, "fr-FR"), []string{"10\u202f794,25\u00a0€", "-250,00\u00a0€",
			"1\u00a0234\u00a0567,50", "1\u00a0234\u00a0567,50", "10\u00a0794", "47\u00a0%", "47,2\u00a0%", "22 novembre 2026",
			"22 novembre 2026", "GLOBEX", "globex", "n/a", "Globex", ""}},
		// locales whose digits are not ASCII: every digit is the locale's,
		// the decimals too
		{"USD mr (Devanagari digits)", moneyData("USD", 2, "mr"), []string{"$१०,७९४.२५", "-$२५०.००", "१२,३४,५६७.५०",
			"१२,३४,५६७.५०", "१०,७९४", "४७%", "४७.२%", "२२ नोव्हेंबर २०२६", "२२ नोव्हेंबर, २०२६", "GLOBEX", "globex", "n/a", "Globex", ""}},
		{"USD en-US-u-nu-arab", moneyData("USD", 2, "en-US-u-nu-arab"), []string{"$١٠٬٧٩٤٫٢٥", "-$٢٥٠٫٠٠", "١٬٢٣٤٬٥٦٧٫٥٠",
			"١٬٢٣٤٬٥٦٧٫٥٠", "١٠٬٧٩٤", "٤٧٪\u061c", "٤٧٫٢٪\u061c", "٢٢ November ٢٠٢٦", "November ٢٢, ٢٠٢٦", "GLOBEX", "globex", "n/a", "Globex", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.wants, renderText(t, tc.data, tags...))
		})
	}
}

// Ensure the anchor's expression syntax renders as docxtemplater's
// angular parser does.
func TestAngularSyntax(t *testing.T) {
	d := data()
	got := renderText(t, d, "{phases[0].name}", "{phases[1].services[0].name}", `{project.on ? "yes" : "no"}`,
		`{project.flag ? "yes" : "no"}`, `{project.name + " / " + project.client}`, `{status === "draft" ? "D" : "-"}`,
		`{status !== "draft"}`, "{#phases}{$index}:{name} {/phases}", "{#phases}{this.name};{/phases}",
		`{project.empty || "none"}`, "{count + 1}")
	require.Equal(t, []string{"Plan", "Firewall deployment", "yes", "no", "Globex / Globex Corporation", "D",
		"false", "0:Plan 1:Implement ", "Plan;Implement;", "none", "4"}, got)
}

// Ensure a required value that is missing fails the rendering, naming the
// tag and its paragraph, and a present one renders.
func TestRequired(t *testing.T) {
	tpl := template(t, p("{project.name | required}"), p("{project.empty | required}"))
	_, err := documents.Render(context.Background(), tpl, data())
	requireInvalid(t, err, "a required value is missing: {project.empty | required} in paragraph 2 has no value")
	require.Equal(t, []string{"Globex"}, renderText(t, data(), "{project.name | required}"))
}

// Ensure an unknown filter and {@raw} are refused at upload with what to
// use instead.
func TestRefusedSyntax(t *testing.T) {
	for tag, msg := range map[string]string{
		"{x | currency}":           `bad tag {x | currency} in paragraph 1: unknown filter "currency" (the filters are money, number, percent, date, upper, lower, default, required)`,
		"{@raw}":                   "bad tag {@raw} in paragraph 1: raw XML insertion ({@…}) is not supported: a value is always inserted as text; use {raw}",
		"{x | number:1:2}":         "filter number takes 1 argument(s), as in {x | number:2}",
		"{x | upper:1}":            "filter upper takes no argument",
		"{x | number:-1}":          "bad tag {x | number:-1} in paragraph 1: filter number takes the number of decimals, a whole number from 0 to 20, as in {x | number:2}",
		"{x | number:1.5}":         "filter number takes the number of decimals, a whole number from 0 to 20",
		`{x | number:"abc"}`:       "filter number takes the number of decimals, a whole number from 0 to 20",
		"{x | number:1000000000}":  "filter number takes the number of decimals, a whole number from 0 to 20",
		"{x | number:places}":      "filter number takes the number of decimals, a whole number from 0 to 20",
		"{x | percent:5}":          "bad tag {x | percent:5} in paragraph 1: filter percent takes the number of decimals, 0 or 1, as in {x | percent:1}",
		"{x | date:5}":             `bad tag {x | date:5} in paragraph 1: filter date takes a layout in quotes, as in {d | date:"2 January 2006"}`,
		"{x | date:layout}":        "filter date takes a layout in quotes",
		`{-"a"}`:                   `bad tag {-"a"} in paragraph 1: - may only lead a number`,
		"{-x}":                     "- may only lead a number",
		"{#phases | upper}x{/}":    "bad tag {#phases | upper} in paragraph 1: a filter formats a value a tag shows ({x | money}); a loop, section or condition cannot use one",
		`{^(x | default:"a")}x{/}`: "a loop, section or condition cannot use one",
		`{#a == (b | upper)}x{/}`:  "a loop, section or condition cannot use one",
	} {
		_, err := documents.Tags(context.Background(), template(t, p(tag)))
		requireInvalid(t, err, msg)
	}
}

// Ensure filters format values in PPTX and XLSX templates too: a filtered
// figure in a cell stays text (in A7: the loop without phases above it
// took its row), and a missing required value names the slide's
// paragraph.
func TestOfficeFilters(t *testing.T) {
	ctx := context.Background()
	data := moneyData("USD", 2, "en-US")
	deck := pptx(t, `<p:sp><p:txBody><a:p><a:r><a:t>{value | money} {name | upper}</a:t></a:r></a:p></p:txBody></p:sp>`)
	out, err := documents.RenderFormat(ctx, documents.FormatPPTX, deck, data)
	require.NoError(t, err)
	require.Equal(t, []string{"$10,794.25 GLOBEX"}, slidesText(t, out))
	_, err = documents.RenderFormat(ctx, documents.FormatPPTX,
		pptx(t, `<p:sp><p:txBody><a:p><a:r><a:t>x</a:t></a:r></a:p><a:p><a:r><a:t>{missing | required}</a:t></a:r></a:p></p:txBody></p:sp>`), data)
	require.ErrorContains(t, err, "{missing | required} in paragraph 2 of slide 1 has no value")
	book := rezip(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml", strings.Replace(string(entry(t, xlsxTemplate(t), "xl/worksheets/sheet1.xml")),
		`<c r="A8" t="s"><v>`, `<c r="A8" t="inlineStr"><is><t>{value | money}</t></is><v>`, 1))
	out, err = documents.RenderFormat(ctx, documents.FormatXLSX, book, data)
	require.NoError(t, err)
	require.Contains(t, cells(t, out), `A7 type=5 format= "$10,794.25"`)
}
