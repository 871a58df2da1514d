// Command genproposal writes the built-in "Standard proposal" template
// (documents/standard_proposal.pptx) from the markup below, so the
// template is reviewed as code and rebuilt with `go generate ./documents`.
// Its tags are v2 merge data paths; documents' tests check each one exists.
package main

import (
	"archive/zip"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/scopekit/scopekit/documents/internal/mdpaths"
)

func main() {
	out := flag.String("o", "standard_proposal.pptx", "the file to write")
	flag.Parse()
	b, err := build()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// slides are the slides' shapes, in order.
var slides = []string{titleSlide(), summarySlide(), servicesSlide(), investmentSlide()}

// build zips the parts with a fixed time, so the output is reproducible.
func build() ([]byte, error) {
	type part struct{ name, body string }
	parts := []part{
		{"[Content_Types].xml", contentTypes(len(slides))},
		{"_rels/.rels", rootRels},
		{"docProps/core.xml", core},
		{"docProps/app.xml", app},
		{"ppt/presentation.xml", presentation(len(slides))},
		{"ppt/_rels/presentation.xml.rels", presentationRels(len(slides))},
		{"ppt/presProps.xml", presProps},
		{"ppt/viewProps.xml", viewProps},
		{"ppt/tableStyles.xml", tableStyles},
		{"ppt/theme/theme1.xml", theme},
		{"ppt/slideMasters/slideMaster1.xml", slideMaster},
		{"ppt/slideMasters/_rels/slideMaster1.xml.rels", masterRels},
		{"ppt/slideLayouts/slideLayout1.xml", slideLayout},
		{"ppt/slideLayouts/_rels/slideLayout1.xml.rels", layoutRels},
	}
	for i, s := range slides {
		parts = append(parts,
			part{fmt.Sprintf("ppt/slides/slide%d.xml", i+1), slide(s)},
			part{fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", i+1), slideRels})
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: p.name, Method: zip.Deflate, Modified: mod})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(xmlHeader + p.body)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Colours and sizes (EMU: 914400 per inch, 12700 per point).
const (
	navy           = "1F3864"
	blue           = "2E74B5"
	grey           = "595959"
	light          = "DEEAF6"
	slideW, slideH = 12192000, 6858000
	margin         = 609600
)

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// run is a run of text at size (points) in colour, bold or not.
func run(text string, size int, colour string, bold bool) string {
	b := ""
	if bold {
		b = ` b="1"`
	}
	return fmt.Sprintf(`<a:r><a:rPr lang="en-US" sz="%d"%s dirty="0"><a:solidFill><a:srgbClr val="%s"/></a:solidFill>`+
		`<a:latin typeface="Arial"/><a:cs typeface="Arial"/></a:rPr><a:t>%s</a:t></a:r>`, size*100, b, colour, esc.Replace(text))
}

// para is a paragraph of runs, aligned (l, ctr, r), with space after it
// (points).
func para(align string, after int, runs ...string) string {
	return fmt.Sprintf(`<a:p><a:pPr algn="%s"><a:spcAft><a:spcPts val="%d"/></a:spcAft></a:pPr>%s</a:p>`, align, after*100, strings.Join(runs, ""))
}

var shapeID = 1

// textBox is a text shape at x, y of w × h (EMU) holding paragraphs,
// anchored at the top (t) or middle (ctr).
func textBox(name string, x, y, w, h int, anchor string, paras ...string) string {
	shapeID++
	return fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="%d" name="%s"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>`+
		`<p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>`+
		`<p:txBody><a:bodyPr wrap="square" lIns="0" tIns="0" rIns="0" bIns="0" anchor="%s"><a:normAutofit/></a:bodyPr><a:lstStyle/>%s</p:txBody></p:sp>`,
		shapeID, name, x, y, w, h, anchor, strings.Join(paras, ""))
}

// rect is a filled rectangle.
func rect(name string, x, y, w, h int, colour string) string {
	shapeID++
	return fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="%d" name="%s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>`+
		`<p:spPr><a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom>`+
		`<a:solidFill><a:srgbClr val="%s"/></a:solidFill><a:ln><a:noFill/></a:ln></p:spPr>`+
		`<p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody></p:sp>`, shapeID, name, x, y, w, h, colour)
}

// heading is a slide's title with a rule under it.
func heading(title string) string {
	return textBox("Title", margin, 381000, slideW-2*margin, 685800, "b", para("l", 0, run(title, 30, navy, true))) +
		rect("Rule", margin, 1143000, slideW-2*margin, 38100, blue)
}

// footer is the line at the bottom of every slide but the first.
func footer() string {
	return textBox("Footer", margin, slideH-533400, slideW-2*margin, 304800, "ctr",
		para("l", 0, run("{project.project_name} · {project.client_name} · {project.account_name}", 10, grey, false)))
}

func titleSlide() string {
	return rect("Band", 0, 0, slideW, 2286000, navy) +
		rect("Accent", 0, 2286000, slideW, 76200, blue) +
		textBox("Kind", margin, 685800, slideW-2*margin, 457200, "b", para("l", 0, run("PROPOSAL", 16, light, true))) +
		textBox("Project", margin, 2743200, slideW-2*margin, 1371600, "t",
			para("l", 12, run("{project.project_name}", 40, navy, true)),
			para("l", 0, run("Prepared for {project.client_name}", 22, blue, false))) +
		textBox("From", margin, 4800600, slideW-2*margin, 1143000, "t",
			para("l", 6, run("{project.account_name}", 16, grey, true)),
			para("l", 6, run("{project.printed_on.to_long_date}", 14, grey, false)),
			para("l", 0, run("{#project.sales_executive.name}{project.sales_executive.name} · {project.sales_executive.email}{/}", 14, grey, false)))
}

// summarySlide sums the proposal up: the executive summary, the
// contract total, the effort and the scope, the phases with their hours,
// and the solution when the project has one.
func summarySlide() string {
	box := func(name string, x int, figure, label string) string {
		w := (slideW - 2*margin - 2*228600) / 3
		return rect(name+"Box", x, 2971800, w, 1143000, light) +
			textBox(name, x+152400, 3048000, w-304800, 990600, "ctr",
				para("l", 4, run(figure, 26, navy, true)),
				para("l", 0, run(label, 13, grey, false)))
	}
	third := (slideW - 2*margin - 2*228600) / 3
	return heading("Summary") +
		textBox("Summary", margin, 1447800, slideW-2*margin, 1371600, "t",
			para("l", 0, run("{project.executive_summary}{^project.executive_summary}{project.account_name} proposes the services below to {project.client_name}.{/project.executive_summary}", 18, "262626", false))) +
		box("Investment", margin, "{project_pricing.total_contract_value | money}", "contract total ({currency.code})") +
		box("Effort", margin+third+228600, "{project_pricing.professional_services.hours | number:2}", "hours of professional services") +
		box("Scope", margin+2*(third+228600), "{project.service_count | number:0}", "services scoped") +
		textBox("Phases", margin, 4343400, slideW-2*margin, 1143000, "t",
			para("l", 4, run("{#phases}{#"+mdpaths.Priced+"}{#$index > 0} · {/}"+mdpaths.PhaseName+": {service_hours | number:2} hours{/}{/phases}", 14, grey, false)),
			para("l", 0, run("{#project.solution_summary}Our solution: {project.solution_summary}{/project.solution_summary}", 14, "262626", false))) +
		footer()
}

// cell is a table cell holding one paragraph of a run, with a fill ("" none).
func cell(text string, size int, colour string, bold bool, align, fill string) string {
	f := "<a:noFill/>"
	if fill != "" {
		f = `<a:solidFill><a:srgbClr val="` + fill + `"/></a:solidFill>`
	}
	border := `<a:lnB w="6350"><a:solidFill><a:srgbClr val="BFBFBF"/></a:solidFill></a:lnB>`
	return `<a:tc><a:txBody><a:bodyPr/><a:lstStyle/>` + para(align, 0, run(text, size, colour, bold)) +
		`</a:txBody><a:tcPr marL="91440" marR="91440" marT="45720" marB="45720" anchor="ctr">` + border + f + `</a:tcPr></a:tc>`
}

// table is a graphic frame holding a table of columns widths (EMU) and
// rows (a:tr markup).
func table(name string, x, y int, widths []int, rows ...string) string {
	shapeID++
	var grid strings.Builder
	w := 0
	for _, c := range widths {
		fmt.Fprintf(&grid, `<a:gridCol w="%d"/>`, c)
		w += c
	}
	return fmt.Sprintf(`<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="%d" name="%s"/><p:cNvGraphicFramePr><a:graphicFrameLocks noGrp="1"/></p:cNvGraphicFramePr><p:nvPr/></p:nvGraphicFramePr>`+
		`<p:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">`+
		`<a:tbl><a:tblPr firstRow="1"/><a:tblGrid>%s</a:tblGrid>%s</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`,
		shapeID, name, x, y, w, 320040*len(rows), grid.String(), strings.Join(rows, ""))
}

func row(cells ...string) string { return `<a:tr h="320040">` + strings.Join(cells, "") + `</a:tr>` }

// servicesSlide lists the services by phase (each phase by its total
// alone when the project has more than fit a slide), then project
// governance and the adjustment, each under a heading row of its own, so
// that neither reads as part of the last phase; the rows add up to
// professional services.
func servicesSlide() string {
	widths := []int{6400800, 1371600, 1371600, 1828800}
	const (
		few     = "project.service_count <= 8"
		many    = "project.service_count > 8"
		priced  = mdpaths.Priced
		gov     = mdpaths.Gov
		hasGov  = mdpaths.HasGov
		adj     = mdpaths.PS + ".revenue_adjustment"
		ink     = "262626"
		section = 12
	)
	plain := func(cells ...string) string {
		return row(cell(cells[0], 11, ink, false, "l", ""), cell(cells[1], 11, ink, false, "r", ""),
			cell(cells[2], 11, ink, false, "r", ""), cell(cells[3], 11, ink, false, "r", ""))
	}
	head := func(cells ...string) string {
		return row(cell(cells[0], section, navy, true, "l", light), cell(cells[1], section, navy, true, "r", light),
			cell(cells[2], section, navy, true, "r", light), cell(cells[3], section, navy, true, "r", light))
	}
	return heading("Services") +
		table("Services", margin, 1371600, widths,
			row(cell("Service", 12, "FFFFFF", true, "l", navy), cell("Quantity", 12, "FFFFFF", true, "r", navy),
				cell("Hours", 12, "FFFFFF", true, "r", navy), cell("Price", 12, "FFFFFF", true, "r", navy)),
			// a few services: each phase, then its services (with their subservices' work)
			head("{#"+few+"}{#phases}{#"+priced+"}"+mdpaths.PhaseName+"", "", "", "{/}"),
			plain(`{#services}{#service_type != "managed_services"}{name}`, "{quantity}", "{total_hours | number:2}", "{revenue | money}{/}{/services}{/phases}{/}"),
			// many: each phase with its total
			plain("{#"+many+"}{#phases}{#"+priced+"}"+mdpaths.PhaseName+"", "", "{service_hours | number:2}", "{service_revenue | money}{/}{/phases}{/}"),
			head("{#"+hasGov+"}Project governance", "", "", ""),
			plain("{#"+gov+".items}{#hours != 0 || revenue != 0}{name}", "", "{hours | number:2}", "{revenue | money}{/}{/"+gov+".items}{/}"),
			head("{#"+adj+" != 0}Adjustment", "", "", "{"+adj+" | money}{/}"),
			row(cell("Professional services", 12, "FFFFFF", true, "l", navy), cell("", 12, "FFFFFF", true, "r", navy),
				cell("{project_pricing.professional_services.hours | number:2}", 12, "FFFFFF", true, "r", navy),
				cell("{project_pricing.professional_services.ps_revenue | money}", 12, "FFFFFF", true, "r", navy))) +
		textBox("Note", margin, 6019800, slideW-2*margin, 304800, "t",
			para("l", 0, run("{^phases}No services are scoped yet.{/phases}{#"+many+"}The statement of work lists the {project.service_count | number:0} services, phase by phase.{/}", 12, grey, false))) +
		footer()
}

func investmentSlide() string {
	widths := []int{7772400, 3200400}
	line := func(label, value string) string {
		return row(cell(label, 14, "262626", false, "l", ""), cell(value, 14, "262626", false, "r", ""))
	}
	return heading("Investment") +
		table("Investment", margin, 1447800, widths,
			line("Professional services ({project_pricing.professional_services.hours | number:2} hours)", "{project_pricing.professional_services.ps_revenue | money}"),
			line("{#project.payment_term.include_expenses && project_pricing.travel_and_expense.items.length > 0}Travel and expense", "{project_pricing.travel_and_expense.revenue | money}{/}"),
			line("{#project.payment_term.include_hardware && project_pricing.materials.items.length > 0}Hardware and materials", "{project_pricing.materials.revenue | money}{/}"),
			line("{#project_pricing.managed_services.revenue > 0}Managed services", "{project_pricing.managed_services.revenue | money}{/}"),
			row(cell("Contract total ({currency.code})", 16, "FFFFFF", true, "l", navy),
				cell("{project_pricing.total_contract_value | money}", 16, "FFFFFF", true, "r", navy))) +
		textBox("Terms", margin, 4114800, slideW-2*margin, 1371600, "t",
			para("l", 6, run("{#project_pricing.materials.items.length > 0}{^project.payment_term.include_hardware}Hardware and materials are quoted separately, "+
				"not part of the contract total: {project_pricing.materials.revenue | money}.{/}{/}", 14, "262626", false)),
			para("l", 6, run("{#project.payment_term.name}Payment terms: {project.payment_term.name}{/project.payment_term.name}", 14, grey, false)),
			para("l", 0, run(`{#project.payment_term.pricing_model == "fixed_fee"}A fixed fee, invoiced as the payment terms say.{/}{#project.payment_term.pricing_model == "time_and_materials"}Time and materials: hours are billed as worked; the figures above are an estimate.{/}`, 14, grey, false))) +
		footer()
}
