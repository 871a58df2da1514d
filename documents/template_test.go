package documents_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// data is the merge data of the engine's tests: the shapes of v2 merge
// data (texts for figures, nested lists) in a few lines.
func data() map[string]any {
	sub := func(name, hours string) map[string]any { return map[string]any{"name": name, "hours": hours} }
	return map[string]any{
		"project": map[string]any{"name": "Globex", "client": "Globex Corporation", "notes": "line one\nline two\tend",
			"risky": `A & B <c> "d"`, "empty": "", "flag": false, "on": true},
		"currency": map[string]any{"unit": "$"},
		"count":    3,
		"amount":   "1069.25",
		"status":   "draft",
		"tags":     []any{"alpha", "beta"},
		"none":     []any{},
		"phases": []any{
			map[string]any{"name": "Plan", "services": []any{
				map[string]any{"name": "Assessment", "hours": "24.50", "subservices": []any{sub("Site survey", "4.50"), sub("Report", "4.00")}},
			}},
			map[string]any{"name": "Implement", "services": []any{
				map[string]any{"name": "Firewall deployment", "hours": "16.25", "subservices": []any{}},
			}},
		},
	}
}

// Ensure each construct of the tag syntax renders as documents.md says,
// and as the golden document.xml under testdata/ shows.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name   string
		blocks []string
		want   []string // the text of each paragraph of the result
	}{
		{"value", []string{p("Project: ", "{project.name}")}, []string{"Project: Globex"}},
		{"split_runs", []string{p(r("Client: "), r("{proj", "<w:b/>"), `<w:proofErr w:type="spellStart"/>`, r("ect.cli"),
			`<w:bookmarkStart w:id="0" w:name="x"/><w:bookmarkEnd w:id="0"/>`, r("ent} and more", "<w:i/>"))},
			[]string{"Client: Globex Corporation and more"}},
		{"split_section_tags", []string{p(r("{#ta"), r("gs}{.}"), r(" {/"), r("tags", "<w:b/>"), r("}!"))}, []string{"alpha beta !"}},
		{"missing_path", []string{p("[", "{project.nope}", "{nothing.at.all}", "{phases.7.name}", "]")}, []string{"[]"}},
		{"escaping_and_newlines", []string{p("{project.risky}"), p("{project.notes}")},
			[]string{`A & B <c> "d"`, "line one⏎line two→end"}},
		{"inline_loop", []string{p("Tags: {#tags}{.}; {/tags}end")}, []string{"Tags: alpha; beta; end"}},
		{"paragraph_loop", []string{p("{#phases}"), p("Phase ", "{name}"), p("{/phases}"), p("after")},
			[]string{"Phase Plan", "Phase Implement", "after"}},
		{"nested_loops", []string{p("{#phases}"), p("{name}:"), p("{#services}"), p("- {name} for {project.name}"),
			p("{/services}"), p("{/phases}")},
			[]string{"Plan:", "- Assessment for Globex", "Implement:", "- Firewall deployment for Globex"}},
		{"table_row_loop", []string{tbl(tr(tc("Phase"), tc("Services")), tr(tc("{#phases}{name}"), tc("{services.length}{/phases}")))},
			[]string{"Phase", "Services", "Plan", "1", "Implement", "1"}},
		{"nested_row_loops", []string{tbl(
			tr(tc("{#phases}{#services}{name}"), tc("{hours}")),
			tr(tc("{#subservices}  {name}"), tc("{hours}{/subservices}{/services}{/phases}")))},
			[]string{"Assessment", "24.50", "  Site survey", "4.50", "  Report", "4.00", "Firewall deployment", "16.25"}},
		{"paragraph_loop_in_cell", []string{tbl(tr(tc("{#tags}", "{.}", "{/tags}"), tc("{#none}", "{.}", "{/none}")))},
			[]string{"alpha", "beta", ""}},
		{"loop_over_table", []string{p("{#phases}"), p("{name}"), tbl(tr(tc("{#services}{name}"), tc("{hours}{/services}"))), p("{/phases}")},
			[]string{"Plan", "Assessment", "24.50", "Implement", "Firewall deployment", "16.25"}},
		{"inverted", []string{p("{^none}No items.{/none}"), p("{^tags}hidden{/tags}"), p("{^project.flag}flag off{/project.flag}"),
			p("{^project.nope}missing{/project.nope}")},
			[]string{"No items.", "", "flag off", "missing"}},
		{"conditions", []string{
			p(`{#count > 2 && status == "draft"}A{/}`), p(`{#count > 5 || amount >= 1069.25}B{/}`),
			p(`{#amount < 999}C{/}`), p(`{#status != "draft"}D{/}`), p(`{#!(count <= 2)}E{/}`),
			p(`{#status == “draft”}F{/}`), p(`{#amount == "1069.250"}G{/}`), p(`{#project.nope == ""}H{/}`),
			p(`{#count > 2 && status == "won" || tags.length == 2}I{/}`), p(`{#amount > 10000}J{/}`)},
			[]string{"A", "B", "", "", "E", "F", "G", "H", "I", ""}},
		{"length", []string{p("{tags.length} tags, {none.length} none, {project.name.length} letters"), p("{#phases.length > 1}many{/}")},
			[]string{"2 tags, 0 none, 6 letters", "many"}},
		{"sections_over_values", []string{p("{#project}{name} for {client}{/project}"),
			p("{#project.on}on{/project.on}{#project.empty}empty{/project.empty}{#project.flag}flag{/project.flag}")},
			[]string{"Globex for Globex Corporation", "on"}},
		{"close_any", []string{p("{#tags}{.}{/}")}, []string{"alphabeta"}},
		{"spaces_in_tags", []string{p("{ project.name }{# tags }<{ . }>{/ tags }")}, []string{"Globex<alpha><beta>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl := template(t, tc.blocks...)
			_, err := documents.Tags(context.Background(), tpl)
			require.NoError(t, err)
			out, err := documents.Render(context.Background(), tpl, data())
			require.NoError(t, err)
			xml := entry(t, out, "word/document.xml")
			require.Equal(t, tc.want, paragraphs(xml))
			golden(t, tc.name+".document.xml", xml)
		})
	}
}

// Ensure the value keeps the formatting of the tag's first run and the text
// around it keeps its own.
func TestRenderKeepsRunFormatting(t *testing.T) {
	tpl := template(t, p(r("Client: "), r("{proj", "<w:b/>"), r("ect.client}", "<w:i/>"), r(" and more", "<w:u w:val=\"single\"/>")))
	out, err := documents.Render(context.Background(), tpl, data())
	require.NoError(t, err)
	xml := string(entry(t, out, "word/document.xml"))
	require.Contains(t, xml, `<w:r><w:rPr><w:b/></w:rPr><w:t xml:space="preserve">Globex Corporation</w:t></w:r>`)
	require.Contains(t, xml, `<w:r><w:rPr><w:u w:val="single"/></w:rPr><w:t xml:space="preserve"> and more</w:t></w:r>`)
	require.NotContains(t, xml, "{")
}

// Ensure headers and footers are filled too, and parts without tags are
// copied as they are.
func TestRenderHeadersAndFooters(t *testing.T) {
	footer := `<w:ftr ` + wNS + `>` + p("Page of {project.name}") + `</w:ftr>`
	styles := `<w:styles ` + wNS + `><!-- {not a tag} --></w:styles>`
	tpl := docx(t, "word/document.xml", documentXML(p("body")), "word/footer1.xml", footer, "word/styles.xml", styles)
	tags, err := documents.Tags(context.Background(), tpl)
	require.NoError(t, err)
	require.Equal(t, []string{"project.name"}, tags)
	out, err := documents.Render(context.Background(), tpl, data())
	require.NoError(t, err)
	require.Equal(t, []string{"Page of Globex"}, paragraphs(entry(t, out, "word/footer1.xml")))
	require.Equal(t, styles, string(entry(t, out, "word/styles.xml")))
}

// Ensure Tags lists the distinct paths as written, sorted.
func TestTags(t *testing.T) {
	tpl := template(t, p("{project.name} {project.name}"), p(`{#phases}{name}{#services.length > 1 && status == "x"}{.}{/}{/phases}`),
		p("{^none}{/none}"))
	tags, err := documents.Tags(context.Background(), tpl)
	require.NoError(t, err)
	require.Equal(t, []string{"name", "none", "phases", "project.name", "services", "status"}, tags)
}

// Ensure a malformed template is EINVALID about "file", naming the tag and
// its paragraph, from Tags and Render alike.
func TestMalformed(t *testing.T) {
	footer := `<w:ftr ` + wNS + `>` + p("x") + p("{#a}") + `</w:ftr>`
	for _, tc := range []struct {
		name string
		tpl  []byte
		msg  string
	}{
		{"unclosed loop", template(t, p("intro"), p("{#phases}"), p("{name}")), "unclosed loop {#phases} in paragraph 2"},
		{"unclosed loop split over runs", template(t, p("intro"), p(r("{#pha"), r("ses}", "<w:b/>"))), "unclosed loop {#phases} in paragraph 2"},
		{"unclosed inverted section", template(t, p("{^phases}")), "unclosed inverted section {^phases} in paragraph 1"},
		{"unclosed condition", template(t, tbl(tr(tc("a", "{#count > 1}"))), p("x")), "unclosed condition {#count > 1} in paragraph 2"},
		{"unclosed tag", template(t, p("Hello {project.name")), "unbalanced braces: unclosed tag {project.name in paragraph 1"},
		{"tag in a tag", template(t, p("Hello {project.{name}}")), "unbalanced braces: unclosed tag {project. in paragraph 1"},
		{"stray }", template(t, p("a"), p("a } b")), "unbalanced braces: a } without { in paragraph 2"},
		{"stray close", template(t, p("{/phases}")), "unbalanced tags: {/phases} in paragraph 1 closes nothing"},
		{"wrong close", template(t, p("{#phases}"), p("{/services}")),
			"unbalanced tags: {/services} in paragraph 2 does not close loop {#phases} of paragraph 1"},
		{"bad expression", template(t, p("{#count ==}{/}")), "bad tag {#count ==} in paragraph 1: incomplete expression"},
		{"empty tag", template(t, p("{}")), "bad tag {} in paragraph 1: empty tag"},
		{"bad character", template(t, p("{a * b}")), `bad tag {a * b} in paragraph 1: unexpected '*'`},
		{"unterminated string", template(t, p(`{#a == "x}{/}`)), "unterminated string"},
		{"loops nested too deeply", template(t, p(strings.Repeat("{#phases}", documents.MaxNesting+1)+"x"+strings.Repeat("{/phases}", documents.MaxNesting+1))),
			fmt.Sprintf("{#phases} in paragraph 1 is nested too deeply: at most %d loops", documents.MaxNesting)},
		{"negations nested too deeply", template(t, p("{#"+strings.Repeat("!", 60)+"a}x{/}")), "expression nested too deeply"},
		{"in a footer", docx(t, "word/document.xml", documentXML(p("ok")), "word/footer2.xml", footer),
			"unclosed loop {#a} in paragraph 2 of word/footer2.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, call := range []func() error{
				func() error { _, err := documents.Tags(context.Background(), tc.tpl); return err },
				func() error { _, err := documents.Render(context.Background(), tc.tpl, data()); return err },
			} {
				err := call()
				requireInvalid(t, err, tc.msg)
			}
		})
	}
}

// zeroEntry adds an entry of mib MiB of zeros, deflated, without
// compressing them all: one MiB is compressed and its block repeated (a
// deflate block of zeros refers only to zeros before it, so repeating it
// is a valid stream of more zeros).
func zeroEntry(t *testing.T, zw *zip.Writer, name string, mib int) {
	t.Helper()
	zeros := make([]byte, 1<<20)
	var block, tail bytes.Buffer
	fw, err := flate.NewWriter(&block, flate.BestSpeed)
	require.NoError(t, err)
	_, err = fw.Write(zeros)
	require.NoError(t, err)
	require.NoError(t, fw.Flush())
	fw.Reset(&tail)
	require.NoError(t, fw.Close()) // the final, empty block
	crc := uint32(0)
	for range mib {
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(mib*block.Len() + tail.Len()), UncompressedSize64: uint64(mib) << 20})
	require.NoError(t, err)
	for range mib {
		_, err = w.Write(block.Bytes())
		require.NoError(t, err)
	}
	_, err = w.Write(tail.Bytes())
	require.NoError(t, err)
}

func requireInvalid(t *testing.T, err error, msg string) {
	t.Helper()
	var e *scopekit.Error
	require.True(t, errors.As(err, &e), "want a *scopekit.Error, got %v", err)
	require.Equal(t, scopekit.EINVALID, e.Code)
	require.Equal(t, "file", e.Field)
	require.Contains(t, e.Message, msg)
}

// Ensure what is not a usable DOCX is refused with a clear EINVALID: not a
// zip, no word/document.xml, a zip bomb, an oversized file, too many
// entries, a corrupt entry, a body that is not XML.
func TestBadInput(t *testing.T) {
	// A bomb declaring its true size: 80 MiB of zeros in 80 KiB.
	var bomb bytes.Buffer
	zw := zip.NewWriter(&bomb)
	zeroEntry(t, zw, "word/document.xml", 80)
	require.NoError(t, zw.Close())
	require.Less(t, bomb.Len(), 1<<20)
	// The trick makes real zeros: a small one unpacks to its size and CRC.
	var small bytes.Buffer
	zw = zip.NewWriter(&small)
	zeroEntry(t, zw, "zeros", 3)
	require.NoError(t, zw.Close())
	zr, err := zip.NewReader(bytes.NewReader(small.Bytes()), int64(small.Len()))
	require.NoError(t, err)
	rc, err := zr.File[0].Open()
	require.NoError(t, err)
	n, err := io.Copy(io.Discard, rc)
	require.NoError(t, err)
	require.Equal(t, int64(3<<20), n)

	// A bomb whose entries each stay under the entry limit but add up.
	var wide bytes.Buffer
	zw = zip.NewWriter(&wide)
	for i := range 4 {
		zeroEntry(t, zw, fmt.Sprintf("word/media/zeros%d.bin", i), 50)
	}
	w, err := zw.Create("word/document.xml")
	require.NoError(t, err)
	_, err = w.Write([]byte(documentXML(p("x"))))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	// A header lying about its size (the data is bigger than declared).
	var liar bytes.Buffer
	zw = zip.NewWriter(&liar)
	body := []byte(documentXML(p("the body is longer than its header says")))
	lw, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store,
		CompressedSize64: uint64(len(body)), UncompressedSize64: 10, CRC32: crc32.ChecksumIEEE(body)})
	require.NoError(t, err)
	_, err = lw.Write(body)
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	// A corrupt entry: the CRC does not match.
	var corrupt bytes.Buffer
	zw = zip.NewWriter(&corrupt)
	cw, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Store,
		CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(body)), CRC32: 12345})
	require.NoError(t, err)
	_, err = cw.Write(body)
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	many := []string{"word/document.xml", documentXML(p("x"))}
	for i := range documents.MaxEntries {
		many = append(many, fmt.Sprintf("word/media/%d.txt", i), "x")
	}

	for _, tc := range []struct {
		name string
		b    []byte
		msg  string
	}{
		{"empty", nil, "not a DOCX file (not a zip archive)"},
		{"not a zip", []byte("%PDF-1.7 hello"), "not a DOCX file (not a zip archive)"},
		{"no document.xml", docx(t, "word/other.xml", "<x/>"), "not a DOCX file (no word/document.xml)"},
		{"oversized", make([]byte, documents.MaxTemplateSize+1), "the limit is 20 MiB"},
		{"zip bomb", bomb.Bytes(), `entry "word/document.xml" unpacks to 83886080 bytes; the limit is 64 MiB`},
		{"wide zip bomb", wide.Bytes(), "unpacks to more than 160 MiB"},
		{"size lie", liar.Bytes(), `entry "word/document.xml" is corrupt`},
		{"corrupt", corrupt.Bytes(), `entry "word/document.xml" is corrupt`},
		{"too many entries", docx(t, many...), "zip entries; the limit is 2000"},
		{"body not XML", docx(t, "word/document.xml", "<w:document><w:body></w:document>"), "word/document.xml is not well-formed XML"},
		{"content after the root", docx(t, "word/document.xml", documentXML(p("{x}"))+"<x/>"),
			"word/document.xml is not well-formed XML: <x> after the root element"},
		{"text after the root", docx(t, "word/document.xml", documentXML(p("x"))+" tail"),
			"word/document.xml is not well-formed XML: text outside the root element"},
		{"empty body", docx(t, "word/document.xml", ""), "word/document.xml is not well-formed XML: no root element"},
		{"comment only", docx(t, "word/document.xml", `<?xml version="1.0"?><!-- x -->`), "is not well-formed XML: no root element"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := documents.Tags(context.Background(), tc.b)
			requireInvalid(t, err, tc.msg)
			if tc.name != "corrupt" { // Render copies other entries unread; the body is read
				_, err = documents.Render(context.Background(), tc.b, data())
				requireInvalid(t, err, tc.msg)
			}
		})
	}
}

// Ensure nested loops over long lists cannot make a rendering grow without
// bound: it stops with EINVALID, quickly (limits lowered to 2 MiB and
// 200,000 nodes so the test is fast; the real ones are 32 and 100 times
// those).
func TestRenderBounded(t *testing.T) {
	documents.SetRenderLimits(t, 2<<20, 200_000)
	items := make([]any, 300)
	for i := range items {
		items[i] = map[string]any{"n": strings.Repeat("x", 20)}
	}
	d := map[string]any{"l": items}
	for _, tc := range []struct {
		name string
		tpl  []byte
	}{
		{"output", template(t, p("{#l}{#l}{#l}{#l}{n}{/l}{/l}{/l}{/l}"))},
		{"steps", template(t, p("{#l}{#l}{#l}{#l}{/l}{/l}{/l}{/l}"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := documents.Render(context.Background(), tc.tpl, d)
			requireInvalid(t, err, "would be too large")
			require.Less(t, time.Since(start), 20*time.Second)
		})
	}
}

// Ensure data is taken as JSON: a struct, raw JSON bytes and a map give the
// same document; data that does not marshal is an error.
func TestRenderData(t *testing.T) {
	tpl := template(t, p("{project.name} {count}"))
	type project struct {
		Name string `json:"name"`
	}
	for _, d := range []any{
		struct {
			Project project `json:"project"`
			Count   float64 `json:"count"`
		}{project{"Globex"}, 3},
		[]byte(`{"project":{"name":"Globex"},"count":3}`),
		data(),
	} {
		out, err := documents.Render(context.Background(), tpl, d)
		require.NoError(t, err)
		require.Equal(t, []string{"Globex 3"}, paragraphs(entry(t, out, "word/document.xml")))
	}
	_, err := documents.Render(context.Background(), tpl, map[string]any{"f": func() {}})
	require.Error(t, err)
}

// Ensure one loop can end and the next begin in one paragraph of tags, and
// that a loop ending where another begins amid text is refused.
func TestLoopsSharingAParagraph(t *testing.T) {
	tpl := template(t, p("{#tags}"), p("{.}"), p("{/tags}{#phases}"), p("{name}"), p("{/phases}"))
	out, err := documents.Render(context.Background(), tpl, data())
	require.NoError(t, err)
	require.Equal(t, []string{"alpha", "beta", "Plan", "Implement"}, paragraphs(entry(t, out, "word/document.xml")))

	tpl = template(t, p("{#tags}"), p("{.}"), p("end {/tags}{#phases}"), p("{name}"), p("{/phases}"))
	_, err = documents.Tags(context.Background(), tpl)
	requireInvalid(t, err, "{#phases} in paragraph 3 begins in the block where loop {#tags} of paragraph 1 ends")
}

// Ensure validating and rendering stay linear in the template's size: tens
// of thousands of loops over paragraphs, and a paragraph of thousands of
// runs each holding a tag.
func TestManyTags(t *testing.T) {
	var blocks []string
	for range 15000 {
		blocks = append(blocks, p("{#tags}"), p("{.}"), p("{/tags}"))
	}
	var runs []string
	for range 15000 {
		runs = append(runs, r("{project."), r("name}"))
	}
	blocks = append(blocks, p(runs...))
	tpl := template(t, blocks...)
	start := time.Now()
	_, err := documents.Tags(context.Background(), tpl)
	require.NoError(t, err)
	out, err := documents.Render(context.Background(), tpl, data())
	require.NoError(t, err)
	t.Logf("%d KiB template validated and rendered in %v", len(tpl)>>10, time.Since(start))
	ps := paragraphs(entry(t, out, "word/document.xml"))
	require.Len(t, ps, 30001)
	require.Equal(t, strings.Repeat("Globex", 15000), ps[30000])
	require.Less(t, time.Since(start), 30*time.Second)
}

// Ensure a part is parsed into nodes only where tags are: a paragraph
// without braces stays bytes, one node (a large body costs little), and a
// part with too many nodes is refused.
func TestPartComplexity(t *testing.T) {
	var blocks []string
	for i := range 2000 {
		blocks = append(blocks, p(fmt.Sprintf("Plain paragraph %d with no tags.", i)))
	}
	blocks = append(blocks, p("{project.name}"), tbl(tr(tc("a", "b"), tc("{#tags}{.}{/tags}"))))
	tpl := template(t, blocks...)
	documents.SetMaxNodes(t, 2100)
	out, err := documents.Render(context.Background(), tpl, data())
	require.NoError(t, err)
	ps := paragraphs(entry(t, out, "word/document.xml"))
	require.Equal(t, []string{"Plain paragraph 1999 with no tags.", "Globex", "a", "b", "alphabeta"}, ps[1999:])

	blocks = nil
	for range 600 {
		blocks = append(blocks, p("{project.name}"))
	}
	_, err = documents.Tags(context.Background(), template(t, blocks...))
	requireInvalid(t, err, "the template's word/document.xml is too complex: more than 2100 XML nodes")
	// Paragraph numbers count the paragraphs kept as bytes.
	_, err = documents.Tags(context.Background(), template(t, append(blocks[:0], p("a"), p("b"), p("{#x}"))...))
	requireInvalid(t, err, "unclosed loop {#x} in paragraph 3")
}
