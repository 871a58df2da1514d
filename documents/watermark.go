package documents

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
)

// WatermarkDraft marks every page of a rendered document (DOCX, PPTX or
// XLSX) "DRAFT" (docs/lifecycle.md): a DOCX gets a header shape, a
// diagonal grey word behind the text, in every header of every section
// (a section without a header of a kind gets one); a PPTX gets the word
// across each slide, above its content; an XLSX gets it in the header of
// every sheet, printed on every page. A PDF converted from the result
// carries it too. Other parts are copied as they are.
func WatermarkDraft(format string, file []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		return nil, fmt.Errorf("documents: watermark: %w", err)
	}
	parts := map[string][]byte{}
	var order []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(rc, MaxEntrySize+1))
		rc.Close()
		if err != nil {
			return nil, err
		}
		parts[f.Name] = b
		order = append(order, f.Name)
	}
	switch format {
	case FormatDOCX, "":
		order = watermarkDOCX(parts, order)
	case FormatPPTX:
		watermarkPPTX(parts)
	case FormatXLSX:
		watermarkXLSX(parts)
	default:
		return nil, fmt.Errorf("documents: watermark: unknown format %q", format)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, name := range order {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(parts[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// draftShape is the DOCX watermark: Word's own kind (a VML text path in a
// header paragraph, behind the text, turned 315 degrees).
const draftShape = `<w:p><w:r><w:pict><v:shapetype id="_x0000_t136" coordsize="21600,21600" o:spt="136" adj="10800" path="m@7,l@8,m@5,21600l@6,21600e">` +
	`<v:path textpathok="t" o:connecttype="custom"/><v:textpath on="t" fitshape="t"/></v:shapetype>` +
	`<v:shape id="ScopeKitDraft" o:spid="_x0000_s9999" type="#_x0000_t136" style="position:absolute;margin-left:0;margin-top:0;width:468pt;height:156pt;rotation:315;z-index:-251657216;mso-position-horizontal:center;mso-position-horizontal-relative:margin;mso-position-vertical:center;mso-position-vertical-relative:margin" fillcolor="#c0c0c0" stroked="f">` +
	`<v:fill opacity=".5"/><v:textpath style="font-family:&quot;Arial&quot;;font-size:1pt" string="DRAFT"/></v:shape></w:pict></w:r></w:p>`

const vmlNS = ` xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"`

var (
	sectPr     = regexp.MustCompile(`<w:sectPr(\s[^>]*)?>`)
	headerRef  = regexp.MustCompile(`<w:headerReference [^>]*w:type="(default|first|even)"[^>]*r:id="([^"]+)"[^>]*/>|<w:headerReference [^>]*r:id="([^"]+)"[^>]*w:type="(default|first|even)"[^>]*/>`)
	sectPrFull = regexp.MustCompile(`(?s)<w:sectPr(\s[^>]*)?>.*?</w:sectPr>`)
	relTarget  = regexp.MustCompile(`<Relationship [^>]*Id="([^"]+)"[^>]*Target="([^"]+)"[^>]*/>`)
)

// watermarkDOCX puts the shape in every header the document's sections
// name, and a header of the shape alone where a section names none of a
// kind; it returns the parts' order with the new header added.
func watermarkDOCX(parts map[string][]byte, order []string) []string {
	doc := string(parts["word/document.xml"])
	rels := string(parts["word/_rels/document.xml.rels"])
	targets := map[string]string{}
	for _, m := range relTarget.FindAllStringSubmatch(rels, -1) {
		targets[m[1]] = m[2]
	}
	marked := map[string]bool{}
	own := false
	doc = sectPrFull.ReplaceAllStringFunc(doc, func(sec string) string {
		kinds := map[string]bool{}
		for _, m := range headerRef.FindAllStringSubmatch(sec, -1) {
			kind, id := m[1], m[2]
			if kind == "" {
				kind, id = m[4], m[3]
			}
			kinds[kind] = true
			if target := targets[id]; target != "" && !marked[target] {
				name := path.Join("word", target)
				if hdr, ok := parts[name]; ok {
					parts[name] = []byte(withShape(string(hdr)))
					marked[target] = true
				}
			}
		}
		var add strings.Builder
		for _, kind := range []string{"default", "first", "even"} {
			if !kinds[kind] {
				add.WriteString(`<w:headerReference w:type="` + kind + `" r:id="rIdScopeKitDraft"/>`)
				own = true
			}
		}
		open := sectPr.FindString(sec)
		return open + add.String() + sec[len(open):]
	})
	if !own {
		parts["word/document.xml"] = []byte(doc)
		return order
	}
	if root := doc[strings.Index(doc, "<w:document"):]; !strings.Contains(root[:strings.Index(root, ">")], "xmlns:r=") {
		doc = strings.Replace(doc, "<w:document ", `<w:document xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" `, 1)
	}
	parts["word/document.xml"] = []byte(doc)
	parts["word/header_scopekit_draft.xml"] = []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"` + vmlNS + `>` + draftShape + `</w:hdr>`)
	parts["word/_rels/document.xml.rels"] = []byte(strings.Replace(rels, "</Relationships>",
		`<Relationship Id="rIdScopeKitDraft" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header_scopekit_draft.xml"/></Relationships>`, 1))
	ct := string(parts["[Content_Types].xml"])
	parts["[Content_Types].xml"] = []byte(strings.Replace(ct, "</Types>",
		`<Override PartName="/word/header_scopekit_draft.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/></Types>`, 1))
	return append(order, "word/header_scopekit_draft.xml")
}

// withShape adds the watermark's paragraph to a header part (and the VML
// namespaces to its root when missing).
func withShape(hdr string) string {
	start := strings.Index(hdr, "<w:hdr")
	end := strings.Index(hdr[start:], ">") + start
	root := hdr[start:end]
	if !strings.Contains(root, "xmlns:v=") {
		root += vmlNS
	}
	hdr = hdr[:start] + root + hdr[end:]
	return strings.Replace(hdr, "</w:hdr>", draftShape+"</w:hdr>", 1)
}

var slidePart = regexp.MustCompile(`^ppt/slides/slide\d+\.xml$`)

// pptxDraft is a slide's watermark: a text box across the slide, turned,
// grey and half transparent, added last so that it is above the content.
const pptxDraft = `<p:sp><p:nvSpPr><p:cNvPr id="9999" name="ScopeKit draft"/><p:cNvSpPr txBox="1"/><p:nvPr userDrawn="1"/></p:nvSpPr>` +
	`<p:spPr><a:xfrm rot="-2700000"><a:off x="1524000" y="2286000"/><a:ext cx="9144000" cy="2286000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>` +
	`<p:txBody><a:bodyPr wrap="none" anchor="ctr"/><a:lstStyle/><a:p><a:pPr algn="ctr"/><a:r><a:rPr lang="en-US" sz="12000" b="1">` +
	`<a:solidFill><a:srgbClr val="A6A6A6"><a:alpha val="45000"/></a:srgbClr></a:solidFill><a:latin typeface="Arial"/></a:rPr><a:t>DRAFT</a:t></a:r></a:p></p:txBody></p:sp>`

func watermarkPPTX(parts map[string][]byte) {
	for name, b := range parts {
		if slidePart.MatchString(name) {
			parts[name] = []byte(strings.Replace(string(b), "</p:spTree>", pptxDraft+"</p:spTree>", 1))
		}
	}
}

var (
	sheetPart    = regexp.MustCompile(`^xl/worksheets/sheet\d+\.xml$`)
	headerFooter = regexp.MustCompile(`(?s)<headerFooter[^>]*/>|<headerFooter[^>]*>.*?</headerFooter>`)
	afterHF      = regexp.MustCompile(`<(rowBreaks|colBreaks|customProperties|cellWatches|ignoredErrors|smartTags|drawing|legacyDrawing|legacyDrawingHF|drawingHF|picture|oleObjects|controls|webPublishItems|tableParts|extLst)[\s>/]`)
)

// xlsxDraft is a sheet's header: DRAFT, large and grey, on every page
// (first, odd and even).
const xlsxDraft = `<headerFooter differentFirst="0"><oddHeader>&amp;C&amp;"Arial,Bold"&amp;28&amp;K9B9B9BDRAFT</oddHeader>` +
	`<evenHeader>&amp;C&amp;"Arial,Bold"&amp;28&amp;K9B9B9BDRAFT</evenHeader></headerFooter>`

func watermarkXLSX(parts map[string][]byte) {
	for name, b := range parts {
		if !sheetPart.MatchString(name) {
			continue
		}
		s := string(b)
		switch {
		case headerFooter.MatchString(s):
			s = headerFooter.ReplaceAllString(s, xlsxDraft)
		case afterHF.MatchString(s):
			loc := afterHF.FindStringIndex(s)
			s = s[:loc[0]] + xlsxDraft + s[loc[0]:]
		default:
			s = strings.Replace(s, "</worksheet>", xlsxDraft+"</worksheet>", 1)
		}
		parts[name] = []byte(s)
	}
}
