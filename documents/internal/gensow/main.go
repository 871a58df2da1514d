// Command gensow writes the built-in "Standard SOW" template
// (documents/standard_sow.docx) from the markup below, so the template is
// reviewed as code and rebuilt with `go generate ./documents`. Its tags are
// v2 merge data paths; documents' tests check each one exists.
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
)

func main() {
	out := flag.String("o", "standard_sow.docx", "the file to write")
	flag.Parse()
	b, err := build()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		log.Fatal(err)
	}
}

// build zips the parts with a fixed time, so the output is reproducible.
func build() ([]byte, error) {
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", rootRels},
		{"docProps/core.xml", core},
		{"docProps/app.xml", app},
		{"word/document.xml", document()},
		{"word/styles.xml", stylesXML},
		{"word/settings.xml", settings},
		{"word/fontTable.xml", fontTable},
		{"word/footer1.xml", footer()},
		{"word/footer2.xml", emptyFooter},
		{"word/_rels/document.xml.rels", documentRels},
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

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const nsW = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`

var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// r is a run of text with optional run properties (inner markup).
func r(text string, props ...string) string {
	pr := ""
	if len(props) > 0 {
		pr = "<w:rPr>" + strings.Join(props, "") + "</w:rPr>"
	}
	return `<w:r>` + pr + `<w:t xml:space="preserve">` + esc.Replace(text) + `</w:t></w:r>`
}

// p is a paragraph of a style (a style id, "" for Normal) with runs;
// text given as a plain string becomes one run.
func p(style string, runs ...string) string {
	return pp(style, "", runs...)
}

// pp is p with more paragraph properties (inner markup after the style).
func pp(style, props string, runs ...string) string {
	pr := props
	if style != "" {
		pr = `<w:pStyle w:val="` + style + `"/>` + pr
	}
	if pr != "" {
		pr = "<w:pPr>" + pr + "</w:pPr>"
	}
	return "<w:p>" + pr + strings.Join(runs, "") + "</w:p>"
}

// t is a paragraph of one plain run.
func t(style, text string) string { return p(style, r(text)) }

// tag is a paragraph holding only a section tag (not written out).
func tag(s string) string { return p("", r(s)) }

const (
	bold   = "<w:b/>"
	italic = "<w:i/>"
	muted  = `<w:color w:val="595959"/>`
)

// col is a table column: its width in twentieths of a point and whether
// its figures align right.
type col struct {
	w     int
	right bool
}

// table is a table in the ScopeKit style; the first row repeats on each
// page as the header.
func table(cols []col, rows ...string) string {
	var sb strings.Builder
	total := 0
	for _, c := range cols {
		total += c.w
	}
	sb.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="ScopeKitTable"/><w:tblW w:w="` + fmt.Sprint(total) + `" w:type="dxa"/>` +
		`<w:tblLayout w:type="fixed"/><w:tblLook w:val="04A0" w:firstRow="1" w:lastRow="0" w:firstColumn="0" w:lastColumn="0" w:noHBand="0" w:noVBand="1"/></w:tblPr><w:tblGrid>`)
	for _, c := range cols {
		sb.WriteString(`<w:gridCol w:w="` + fmt.Sprint(c.w) + `"/>`)
	}
	sb.WriteString(`</w:tblGrid>`)
	for _, row := range rows {
		sb.WriteString(row)
	}
	sb.WriteString(`</w:tbl>`)
	return sb.String()
}

// row kinds.
const (
	header = iota
	body
	sub
	total
	sign // a signature line: tall, the text at the bottom
)

// row is a table row of cells, each cell's content being runs.
func row(cols []col, kind int, cells ...string) string {
	var sb strings.Builder
	sb.WriteString("<w:tr>")
	trPr := `<w:cantSplit/>`
	if kind == sign {
		trPr += `<w:trHeight w:val="680"/>`
	}
	if kind == header {
		trPr += `<w:tblHeader/>`
	}
	sb.WriteString("<w:trPr>" + trPr + "</w:trPr>")
	for i, c := range cells {
		props := ""
		if kind == sub && i == 0 {
			props = `<w:ind w:left="284"/>`
		}
		if cols[i].right {
			props += `<w:jc w:val="right"/>`
		}
		style := "TableText"
		switch kind {
		case sign:
			style = "SignatureLine"
		case header:
			style = "TableHeading"
		case sub:
			style = "TableSubText"
		case total:
			style = "TableTotal"
		}
		tcPr := `<w:tcW w:w="` + fmt.Sprint(cols[i].w) + `" w:type="dxa"/>`
		switch kind {
		case header:
			tcPr += `<w:shd w:val="clear" w:color="auto" w:fill="1F3864"/>`
		case sign:
			tcPr += `<w:tcBorders><w:top w:val="nil"/><w:bottom w:val="nil"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/><w:vAlign w:val="bottom"/>`
		}
		if kind == total {
			tcPr += `<w:tcBorders><w:top w:val="single" w:sz="8" w:space="0" w:color="1F3864"/></w:tcBorders><w:shd w:val="clear" w:color="auto" w:fill="FFFFFF"/>`
		}
		sb.WriteString("<w:tc><w:tcPr>" + tcPr + "</w:tcPr>" + pp(style, props, c) + "</w:tc>")
	}
	sb.WriteString("</w:tr>")
	return sb.String()
}

func pageBreak() string { return `<w:p><w:r><w:br w:type="page"/></w:r></w:p>` }

// money is a figure path shown with the currency's symbol.
func money(path string) string { return r("{currency.unit}{" + path + "}") }

func document() string {
	var b strings.Builder
	add := func(s ...string) {
		for _, x := range s {
			b.WriteString(x)
		}
	}
	// Cover.
	add(p("CoverBrand", r("{project.account_name}")),
		pp("CoverSpacer", ""),
		t("Title", "Statement of Work"),
		t("Subtitle", "{project.project_name}"),
		pp("CoverRule", ""),
		p("CoverLabel", r("Prepared for")), p("CoverValue", r("{project.client_name}")),
		p("CoverLabel", r("Prepared by")), p("CoverValue", r("{project.account_name}")),
		p("CoverLabel", r("Date")), p("CoverValue", r("{project.printed_on.to_long_date}")),
		tag("{#project.sales_executive.name}"),
		p("CoverLabel", r("Sales executive")), p("CoverValue", r("{project.sales_executive.name}")),
		tag("{/project.sales_executive.name}"),
		tag("{#project.presales_engineer.name}"),
		p("CoverLabel", r("Solution architect")), p("CoverValue", r("{project.presales_engineer.name}")),
		tag("{/project.presales_engineer.name}"),
		pp("CoverSpacer", ""),
		t("Note", "This statement of work is confidential. It describes the services {project.account_name} will deliver to {project.client_name}, their price and the terms under which they are delivered."),
		pageBreak())

	// 1. Executive summary.
	add(t("Heading1", "Executive summary"),
		t("", "{project.executive_summary}"),
		tag("{^project.executive_summary}"),
		t("", "{project.account_name} will deliver the services described in this statement of work for {project.client_name}."),
		tag("{/project.executive_summary}"),
		tag("{#project.solution_summary}"),
		t("Heading2", "Solution"),
		t("", "{project.solution_summary}"),
		tag("{/project.solution_summary}"))

	// 2. Scope: phases with services and subservices.
	svc := []col{{4680, false}, {2160, false}, {1080, true}, {1440, true}}
	add(t("Heading1", "Scope of work"),
		t("", "The work is organised in the phases below. Hours are estimates for the quantities shown."),
		tag("{#phases}"),
		t("Heading2", "{name}"),
		tag("{#sow_language}"), t("", "{sow_language}"), tag("{/sow_language}"),
		table(svc,
			row(svc, header, r("Service"), r("Resource"), r("Quantity"), r("Hours")),
			row(svc, body, r("{#services}{name}", bold), r("{resource_name}"), r("{quantity}"), r("{total_hours}")),
			row(svc, sub, r("{#subservices}"+"{name}"), r("{resource_name}"), r("{quantity}"), r("{extended_hours}{/subservices}{/services}")),
			row(svc, total, r("Phase total, project management included"), r(""), r(""), r("{total_hours}")),
		),
		tag("{/phases}"))

	// 3. Locations.
	loc := []col{{2880, false}, {3240, false}, {2160, false}, {1080, false}}
	add(t("Heading1", "Locations"),
		tag("{#locations}"),
		pp("", `<w:keepNext/>`, r("The services are delivered at the following locations.")),
		tag("{/locations}"),
		tag("{#locations.length > 0}"),
		table(loc,
			row(loc, header, r("Location"), r("Address"), r("City"), r("Country")),
			row(loc, body, r("{#locations}{name}", bold), r("{address}"), r("{city}{#region}, {region}{/region} {postal_code}"), r("{country}{/locations}")),
		),
		tag("{/}"),
		tag("{^locations}"),
		t("", "The services are delivered remotely or at {project.client_name}'s premises, as the parties agree when scheduling the work."),
		tag("{/locations}"))

	// 4. Responsibilities and out of scope.
	add(tag("{#project.our_responsibilities || project.client_responsibilities || project.out_of_scope}"),
		t("Heading1", "Responsibilities"),
		tag("{#project.our_responsibilities}"), t("Heading2", "{project.account_name}"), t("", "{project.our_responsibilities}"), tag("{/project.our_responsibilities}"),
		tag("{#project.client_responsibilities}"), t("Heading2", "{project.client_name}"), t("", "{project.client_responsibilities}"), tag("{/project.client_responsibilities}"),
		tag("{#project.out_of_scope}"), t("Heading2", "Out of scope"), t("", "{project.out_of_scope}"), tag("{/project.out_of_scope}"),
		tag("{/}"))

	// 5. Governance.
	gov := []col{{4320, false}, {2520, false}, {1080, true}, {1440, true}}
	add(t("Heading1", "Project governance"),
		tag("{#project_pricing.project_governance.items.length > 0}"),
		t("", "Project management and governance keep the work on schedule and the stakeholders informed."),
		table(gov,
			row(gov, header, r("Activity"), r("Resource"), r("Hours"), r("Amount")),
			row(gov, body, r("{#project_pricing.project_governance.items}{name}"), r("{resource_name}"), r("{hours}"), r("{currency.unit}{revenue}{/project_pricing.project_governance.items}")),
			row(gov, total, r("Total governance"), r(""), r("{project_pricing.project_governance.hours}"), money("project_pricing.project_governance.revenue")),
		),
		tag("{/}"),
		tag("{^project_pricing.project_governance.items}"),
		t("", "Governance is part of the services above."),
		tag("{/project_pricing.project_governance.items}"))

	// 6. Travel and expense; 7. Materials.
	add(itemSection(items{title: "Travel and expense", path: "project_pricing.travel_and_expense",
		cols:    []col{{3600, false}, {2160, false}, {1080, true}, {1080, true}, {1440, true}},
		headers: []string{"Description", "Category", "Quantity", "Rate", "Amount"},
		cells:   []string{"{description}", "{category}", "{quantity}", "{currency.unit}{rate}"},
		flag:    "project.payment_term.include_expenses",
		in:      "Travel and expenses are part of the contract value.",
		out:     "Travel and expenses are estimates, invoiced separately as incurred, and not part of the contract value.",
		none:    "No travel or expenses are expected."}))
	add(itemSection(items{title: "Materials", path: "project_pricing.materials",
		cols:    []col{{3600, false}, {1800, false}, {1080, true}, {1440, true}, {1440, true}},
		headers: []string{"Product", "SKU", "Quantity", "Unit price", "Amount"},
		cells:   []string{"{name}", "{sku}", "{quantity}", "{currency.unit}{unit_price}"},
		flag:    "project.payment_term.include_hardware",
		in:      "Materials are part of the contract value.",
		out:     "Materials are quoted for information, ordered and invoiced separately, and not part of the contract value.",
		none:    "No materials are part of this statement of work."}))

	// 8. Pricing summary.
	sum := []col{{6480, false}, {2880, true}}
	add(t("Heading1", "Pricing summary"),
		t("", "All amounts are in {currency.code}."),
		table(sum,
			row(sum, header, r("Item"), r("Amount")),
			row(sum, body, r("Professional services ({project_pricing.professional_services.hours} hours)"), money("project_pricing.professional_services.ps_revenue")),
			row(sum, body, r("{#project.payment_term.include_expenses}Travel and expense"), r("{currency.unit}{project_pricing.travel_and_expense.revenue}{/}")),
			row(sum, body, r("{#project.payment_term.include_hardware}Materials"), r("{currency.unit}{project_pricing.materials.revenue}{/}")),
			row(sum, body, r("{#project_pricing.managed_services.revenue > 0}Managed services"), r("{currency.unit}{project_pricing.managed_services.revenue}{/}")),
			row(sum, total, r("Total contract value"), money("project_pricing.total_contract_value")),
		))

	// 9. Payment term.
	add(t("Heading1", "Payment terms"),
		t("", "Payment term: {project.payment_term.name}."),
		tag(`{#project.payment_term.pricing_model == "fixed_fee"}`),
		t("", "The work is billed at the fixed fee of {currency.unit}{project_pricing.total_contract_value}, invoiced at the completion of each phase in proportion to its share of the work."),
		tag("{/}"),
		tag(`{#project.payment_term.pricing_model == "time_and_materials"}`),
		t("", "The work is billed monthly for the hours worked at the agreed rates; the contract value of {currency.unit}{project_pricing.total_contract_value} is an estimate."),
		tag("{/}"),
		t("", "Invoices are payable within 30 days of receipt."))

	// 10. Acceptance.
	sig := []col{{4680, false}, {4680, false}}
	add(pp("Heading1", `<w:pageBreakBefore/>`, r("Acceptance")),
		t("", "By signing below, the parties agree to this statement of work for {project.project_name}, including the scope, the price of {currency.unit}{project_pricing.total_contract_value} ({currency.code}) and the payment terms it describes."),
		table(sig,
			row(sig, header, r("{project.client_name}"), r("{project.account_name}")),
			row(sig, sign, r("Signature"), r("Signature")),
			row(sig, sign, r("Name"), r("Name")),
			row(sig, sign, r("Title"), r("Title")),
			row(sig, sign, r("Date"), r("Date")),
		))

	add(`<w:sectPr><w:footerReference w:type="default" r:id="rIdFooter1"/><w:footerReference w:type="first" r:id="rIdFooter2"/>` +
		`<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1296" w:right="1440" w:bottom="1296" w:left="1440" w:header="708" w:footer="576" w:gutter="0"/>` +
		`<w:titlePg/></w:sectPr>`)
	return `<w:document ` + nsW + `><w:body>` + b.String() + `</w:body></w:document>`
}

// items is a section of priced items (expenses, products): a table of the
// items of path with their revenue and the section's total, a note on
// whether the contract includes them (flag), or a sentence when there are
// none.
type items struct {
	title, path    string
	cols           []col
	headers, cells []string // cells: all but the last (the revenue)
	flag           string
	in, out, none  string
}

func itemSection(it items) string {
	list := it.path + ".items"
	line := make([]string, 0, len(it.cols))
	for i, c := range it.cells {
		if i == 0 {
			c = "{#" + list + "}" + c
		}
		line = append(line, r(c))
	}
	line = append(line, r("{currency.unit}{revenue}{/"+list+"}"))
	headers := make([]string, len(it.headers))
	for i, h := range it.headers {
		headers[i] = r(h)
	}
	totals := []string{r("Total " + strings.ToLower(it.title))}
	for len(totals) < len(it.cols)-1 {
		totals = append(totals, r(""))
	}
	totals = append(totals, money(it.path+".revenue"))
	return t("Heading1", it.title) +
		tag("{#"+list+".length > 0}") +
		table(it.cols, row(it.cols, header, headers...), row(it.cols, body, line...), row(it.cols, total, totals...)) +
		tag("{#"+it.flag+"}") + t("Note", it.in) + tag("{/"+it.flag+"}") +
		tag("{^"+it.flag+"}") + t("Note", it.out) + tag("{/"+it.flag+"}") +
		tag("{/}") +
		tag("{^"+list+"}") + t("", it.none) + tag("{/"+list+"}")
}

func field(instr string) string {
	return `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> ` + instr +
		` </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>`
}

func footer() string {
	return `<w:ftr ` + nsW + `>` +
		pp("Footer", `<w:tabs><w:tab w:val="right" w:pos="9360"/></w:tabs>`,
			r("{project.project_name} · Statement of Work"), `<w:r><w:tab/></w:r>`, r("Page "), field("PAGE"), r(" of "), field("NUMPAGES")) +
		`</w:ftr>`
}

const emptyFooter = `<w:ftr ` + nsW + `><w:p><w:pPr><w:pStyle w:val="Footer"/></w:pPr></w:p></w:ftr>`
