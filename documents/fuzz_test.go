package documents_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
)

// FuzzTemplate builds a template from arbitrary text (a "|" starts a new
// run, a new line a new paragraph, a tab a new table cell) and checks that
// Tags and Render never panic, that a template Tags accepts renders, and
// that the result is well-formed XML.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{
		"{project.name}", "{#phases}\n{name}|{#services}{name}{/services}\n{/phases}",
		"{#tags}\t{.}{/tags}", "{^none}x{/}", `{#count > 2 && status == "draft" || !(amount <= 1)}y{/}`,
		"{pro|ject.na|me}", "{#a}{#b}{/a}{/b}", "{", "}", "{{}}", "{#phases}\t{name}\n\t{/phases}",
		"{tags.length}{phases.0.name}{.}", "{#project}{name}{/}", "a & <b>{project.risky}",
	} {
		f.Add(s)
	}
	d := data()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 2000 {
			return
		}
		var blocks []string
		for _, line := range strings.Split(s, "\n") {
			cells := strings.Split(line, "\t")
			if len(cells) > 1 {
				var tcs []string
				for _, c := range cells {
					tcs = append(tcs, tc(runs(c)))
				}
				blocks = append(blocks, tbl(tr(tcs...)))
				continue
			}
			blocks = append(blocks, runs(line))
		}
		tpl := template(t, blocks...)
		slow := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("slow input %q", s)) })
		defer slow.Stop()
		_, tagsErr := documents.Tags(context.Background(), tpl)
		out, err := documents.Render(context.Background(), tpl, d)
		if tagsErr != nil {
			if err == nil {
				t.Fatalf("Tags refuses the template (%v) but Render accepts it", tagsErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("Tags accepts the template but Render fails: %v", err)
		}
		dec := xml.NewDecoder(bytes.NewReader(entry(t, out, "word/document.xml")))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("the rendered document is not well-formed XML: %v", err)
			}
		}
	})
}

// runs is a paragraph whose runs are the "|"-separated parts of s, with
// invalid XML characters left out, as Word never writes them.
func runs(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0xFFFE || r == 0xFFFF || (r >= 0xD800 && r <= 0xDFFF) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	var rs []string
	for _, part := range strings.Split(s, "|") {
		rs = append(rs, r(part))
	}
	return p(rs...)
}

// FuzzPartXML takes arbitrary bytes as a template's document.xml and
// checks that the part reader never panics, accepts only what a strict
// XML reader (encoding/xml) accepts, and that what it accepts renders to
// well-formed XML.
func FuzzPartXML(f *testing.F) {
	for _, s := range []string{
		documentXML(p("{project.name}")), documentXML(p("a &amp; b &#233; &#x1F600;"), "<!-- c -->", "<?pi x?>"),
		`<?xml version="1.0" encoding="UTF-8"?><w:document><w:body><w:p/><w:p w:a='1' b="2"></w:p></w:body></w:document>`,
		`<a><![CDATA[{x}]]></a>`, `<a b="&lt;"/>`, "<a>\r\n</a>", `<!DOCTYPE a><a/>`, `<a><b></a>`, `<a>&bogus;</a>`,
	} {
		f.Add(s)
	}
	d := data()
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4000 {
			return
		}
		tpl := docx(t, "word/document.xml", s)
		_, tagsErr := documents.Tags(context.Background(), tpl)
		if tagsErr != nil {
			return
		}
		if err := wellFormed([]byte(s)); err != nil {
			t.Fatalf("Tags accepts a part encoding/xml refuses (%v)", err)
		}
		out, err := documents.Render(context.Background(), tpl, d)
		if err != nil {
			t.Fatalf("Tags accepts the template but Render fails: %v", err)
		}
		if err := wellFormed(entry(t, out, "word/document.xml")); err != nil {
			t.Fatalf("the rendered document is not well-formed XML: %v", err)
		}
	})
}

// wellFormed reads b with encoding/xml's strict decoder.
func wellFormed(b []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(b))
	for {
		if _, err := dec.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
