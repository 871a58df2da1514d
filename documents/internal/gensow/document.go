package main

import (
	"strings"

	"github.com/scopekit/scopekit/documents/internal/mdpaths"
)

// The Standard SOW's body, section by section. A section a project has
// nothing for is left out, not printed empty; every figure is one of merge
// data, and every table's total is the sum of the rows it shows.

// Paths used more than once.
const (
	client    = "{project.client_name}"
	account   = "{project.account_name}"
	gov       = mdpaths.Gov
	ps        = mdpaths.PS
	expenses  = "project_pricing.travel_and_expense"
	materials = "project_pricing.materials"
	managed   = "project_pricing.managed_services"
	hasGov    = mdpaths.HasGov
	phaseName = mdpaths.PhaseName
	priced    = mdpaths.Priced
)

func document() string {
	var b strings.Builder
	for _, s := range []string{cover(), summary(), scope(), deliverables(), locations(), assumptions(),
		responsibilities(), governance(), managedServices(),
		itemSection(items{title: "Travel and expense", path: expenses,
			cols:    []col{{3600, false}, {2160, false}, {1080, true}, {1080, true}, {1440, true}},
			headers: []string{"Description", "Category", "Quantity", "Rate", "Amount"},
			cells:   []string{"{description}", "{category}", "{quantity}", "{rate | money}"},
			flag:    "project.payment_term.include_expenses",
			in:      "Travel and expenses are part of the contract value.",
			out:     "Travel and expenses are estimates, invoiced separately as incurred, and not part of the contract value."}),
		itemSection(items{title: "Materials", path: materials,
			cols:    []col{{3600, false}, {1800, false}, {1080, true}, {1440, true}, {1440, true}},
			headers: []string{"Product", "SKU", "Quantity", "Unit price", "Amount"},
			cells:   []string{"{name}", "{sku}", "{quantity}", "{unit_price | money}"},
			flag:    "project.payment_term.include_hardware",
			in:      "Materials are part of the contract value.",
			out:     "Materials are quoted for information, ordered and invoiced separately, and not part of the contract value."}),
		pricingSummary(), paymentTerms(), changeControl(), generalTerms(), acceptance(),
	} {
		b.WriteString(s)
	}
	b.WriteString(`<w:sectPr><w:footerReference w:type="default" r:id="rIdFooter1"/><w:footerReference w:type="first" r:id="rIdFooter2"/>` +
		`<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1296" w:right="1440" w:bottom="1296" w:left="1440" w:header="708" w:footer="576" w:gutter="0"/>` +
		`<w:titlePg/></w:sectPr>`)
	return `<w:document ` + nsW + `><w:body>` + b.String() + `</w:body></w:document>`
}

func cover() string {
	return p("CoverBrand", r(account)) +
		pp("CoverSpacer", "") +
		t("Title", "Statement of Work") +
		t("Subtitle", "{project.project_name}") +
		pp("CoverRule", "") +
		p("CoverLabel", r("Prepared for")) + p("CoverValue", r(client)) +
		p("CoverLabel", r("Prepared by")) + p("CoverValue", r(account)) +
		p("CoverLabel", r("Date")) + p("CoverValue", r("{project.printed_on.to_long_date}")) +
		each("project.sales_executive.name",
			p("CoverLabel", r("Sales executive")), p("CoverValue", r("{project.sales_executive.name}"))) +
		each("project.presales_engineer.name",
			p("CoverLabel", r("Solution architect")), p("CoverValue", r("{project.presales_engineer.name}"))) +
		pp("CoverSpacer", "") +
		t("Note", "This statement of work is confidential. It describes the services "+account+" will deliver to "+client+
			", their price and the terms under which they are delivered.") +
		pageBreak()
}

func summary() string {
	return t("Heading1", "Executive summary") +
		each("project.executive_summary", t("", "{project.executive_summary}")) +
		unless("project.executive_summary",
			t("", account+" will deliver the services described in this statement of work for "+client+".")) +
		each("project.solution_summary", t("Heading2", "Solution"), t("", "{project.solution_summary}"))
}

// scope shows, per phase with services, a table of its services and
// under each its subservices, every row with its own hours and price, and
// the phase total adding up the rows. Managed services are listed where
// they are delivered and priced in their own section.
func scope() string {
	svc := []col{{3780, false}, {1980, false}, {1080, true}, {1080, true}, {1440, true}}
	const professional = `service_type != "managed_services"`
	return when("project.service_count > 0",
		t("Heading1", "Scope of work"),
		lead("The work is organised in the phases below. Each service, and each part of it listed under it, shows "+
			"the resource doing it, its quantity, its estimated hours and its price; the phase total adds them up. "+
			"Project governance is priced for the project as a whole, apart from the phases."),
		each("phases", when("services.length > 0",
			t("Heading2", phaseName),
			each("sow_language", lead("{sow_language}")),
			table(svc,
				row(svc, header, r("Service"), r("Resource"), r("Quantity"), r("Hours"), r("Price")),
				row(svc, body, r("{#services}{name}", bold), r("{resource_name}"), r("{quantity}"),
					r("{#"+professional+"}{extended_hours | number:2}{/}"),
					r("{#"+professional+"}{extended_revenue | money}{/}{#service_type == \"managed_services\"}recurring{/}")),
				// The closing tags share a cell with text: a cell of tags alone
				// renders two empty paragraphs, which makes the row taller.
				// A subservice's service_type is its service's.
				row(svc, sub, r("{#subservices}{name}"), r("{resource_name}"), r("{quantity}"),
					r("{#"+professional+"}{extended_hours | number:2}{/}"), r("{#"+professional+"}{revenue | money}{/}{/subservices}{/services}")),
				row(svc, total, r("{#"+priced+"}Phase total"), r(""), r(""), r("{service_hours | number:2}"), r("{service_revenue | money}{/}")),
			))))
}

// deliverables lists, per phase, each service with its description.
func deliverables() string {
	return when("project.service_count > 0",
		t("Heading1", "Deliverables"),
		each("phases", when("services.length > 0",
			t("Label", phaseName),
			each("services", p("ListBullet", r("{name}", bold), r("{#description}: {description}{/description}"))))))
}

func locations() string {
	loc := []col{{2880, false}, {3240, false}, {2160, false}, {1080, false}}
	return when("locations.length > 0",
		t("Heading1", "Locations"),
		lead("The services are delivered at the following locations."),
		table(loc,
			row(loc, header, r("Location"), r("Address"), r("City"), r("Country")),
			row(loc, body, r("{#locations}{name}", bold), r("{address}"), r("{city}{#region}, {region}{/region} {postal_code}"), r("{country}{/locations}")),
		))
}

// assumptions are the conditions the price and schedule rest on, as the
// project's records (payment term, locations, expenses) say them.
func assumptions() string {
	return t("Heading1", "Assumptions") +
		t("", "The price and schedule of this statement of work rest on the assumptions below. "+
			"When one proves wrong, either party may ask for a change (see Change control).") +
		when("project.service_count > 0",
			bullet("The hours are estimates of the effort the services take for the quantities shown.")) +
		when(`project.payment_term.pricing_model == "fixed_fee"`,
			bullet("The price is fixed for the scope this statement of work describes; work outside it is a change.")) +
		when(`project.payment_term.pricing_model == "time_and_materials"`,
			bullet("The work is billed for the hours worked; the hours and amounts shown are estimates, not a limit.")) +
		when("locations.length > 0",
			bullet("The services are delivered at the locations listed in this statement of work.")) +
		unless("locations",
			bullet("The services are delivered remotely or at "+client+"'s premises, as the parties agree when scheduling the work.")) +
		unless(expenses+".items",
			bullet("No travel or expenses are expected; none are invoiced without "+client+"'s prior written approval.")) +
		bullet(client+" gives "+account+" timely access to the sites, systems, information and people the work needs, "+
			"and takes the decisions it needs in time.") +
		bullet("All amounts are in {currency.code} and do not include taxes.")
}

func responsibilities() string {
	return when("project.our_responsibilities || project.client_responsibilities",
		t("Heading1", "Responsibilities"),
		each("project.our_responsibilities", t("Heading2", account), t("", "{project.our_responsibilities}")),
		each("project.client_responsibilities", t("Heading2", client), t("", "{project.client_responsibilities}"))) +
		each("project.out_of_scope",
			t("Heading1", "Out of scope"),
			// one paragraph, so that the lead-in never ends a page alone
			p("", r("The following is not part of this statement of work:"), `<w:r><w:br/></w:r>`, r("{project.out_of_scope}")))
}

// governance lists the governance items with hours or a price.
func governance() string {
	cols := []col{{4320, false}, {2520, false}, {1080, true}, {1440, true}}
	return when(hasGov,
		t("Heading1", "Project governance"),
		lead("Project management and governance keep the work on schedule and the stakeholders informed. "+
			"They are priced for the project as a whole, apart from the phases."),
		table(cols,
			row(cols, header, r("Activity"), r("Resource"), r("Hours"), r("Amount")),
			row(cols, body, r("{#"+gov+".items}{#hours != 0 || revenue != 0}{name}"), r("{resource_name}"), r("{hours | number:2}"),
				r("{revenue | money}{/}{/"+gov+".items}")),
			row(cols, total, r("Total project governance"), r(""), r("{"+gov+".hours | number:2}"), money(gov+".revenue")),
		))
}

func managedServices() string {
	cols := []col{{3240, false}, {1620, false}, {1080, true}, {1620, true}, {1800, true}}
	return when(managed+".items.length > 0",
		t("Heading1", "Managed services"),
		lead("The managed services below recur for the periods shown: the amount of each is its price per period times its periods."),
		table(cols,
			row(cols, header, r("Service"), r("Frequency"), r("Periods"), r("Per period"), r("Amount")),
			row(cols, body, r("{#"+managed+".items}{name}"), r("{payment_frequency}"), r("{periods}"),
				r("{period_revenue | money}"), r("{revenue | money}{/"+managed+".items}")),
			row(cols, total, r("Total managed services"), r(""), r(""), r(""), money(managed+".revenue")),
		))
}

// items is a section of priced items (expenses, products): a table of the
// items of path with their revenue and the section's total, and a note on
// whether the contract includes them (flag); left out without items.
type items struct {
	title, path    string
	cols           []col
	headers, cells []string // cells: all but the last (the revenue)
	flag           string
	in, out        string
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
	line = append(line, r("{revenue | money}{/"+list+"}"))
	headers := make([]string, len(it.headers))
	for i, h := range it.headers {
		headers[i] = r(h)
	}
	totals := []string{r("Total " + strings.ToLower(it.title))}
	for len(totals) < len(it.cols)-1 {
		totals = append(totals, r(""))
	}
	totals = append(totals, money(it.path+".revenue"))
	return when(list+".length > 0",
		t("Heading1", it.title),
		table(it.cols, row(it.cols, header, headers...), row(it.cols, body, line...), row(it.cols, total, totals...)),
		each(it.flag, t("Note", it.in)),
		unless(it.flag, t("Note", it.out)))
}

// pricingSummary adds the contract value up from its parts: each phase's
// services, project governance and the adjustment make professional
// services; then what else the contract includes.
func pricingSummary() string {
	cols := []col{{5760, false}, {1440, true}, {2160, true}}
	adj := ps + ".revenue_adjustment"
	line := func(cond, label, hours, amount string) string {
		return row(cols, body|keep, r("{#"+cond+"}"+label), r(hours), r(amount+"{/}"))
	}
	return t("Heading1", "Pricing summary") +
		lead("The contract value adds up from the parts below. All amounts are in {currency.code}.") +
		table(cols,
			row(cols, header, r("Item"), r("Hours"), r("Amount")),
			row(cols, body|keep, r("{#phases}{#"+priced+"}"+phaseName), r("{service_hours | number:2}"), r("{service_revenue | money}{/}{/phases}")),
			line(hasGov, "Project governance", "{"+gov+".hours | number:2}", "{"+gov+".revenue | money}"),
			line(adj+" != 0", "Adjustment", "", "{"+adj+" | money}"),
			row(cols, subtotal|keep, r("Professional services"), r("{"+ps+".hours | number:2}"), money(ps+".ps_revenue")),
			line("project.payment_term.include_expenses && "+expenses+".items.length > 0", "Travel and expense", "", "{"+expenses+".revenue | money}"),
			line("project.payment_term.include_hardware && "+materials+".items.length > 0", "Materials", "", "{"+materials+".revenue | money}"),
			line(managed+".items.length > 0", "Managed services", "", "{"+managed+".revenue | money}"),
			row(cols, total, r("Total contract value"), r(""), money("project_pricing.total_contract_value")),
		)
}

func paymentTerms() string {
	return t("Heading1", "Payment terms") +
		each("project.payment_term.name", t("", "Payment term: {project.payment_term.name}.")) +
		when(`project.payment_term.pricing_model == "fixed_fee" && project.service_count > 0`,
			t("", "The work is billed at the fixed fee of {project_pricing.total_contract_value | money}, invoiced at the completion of each phase in proportion to its share of the work.")) +
		when(`project.payment_term.pricing_model == "fixed_fee" && !project.service_count`,
			t("", "The work is billed at the fixed fee of {project_pricing.total_contract_value | money}, invoiced at its completion.")) +
		when(`project.payment_term.pricing_model == "time_and_materials"`,
			t("", "The work is billed monthly for the hours worked at the agreed rates; the contract value of {project_pricing.total_contract_value | money} is an estimate.")) +
		t("", "Invoices are payable within 30 days of receipt.")
}

// changeControl says how the scope changes, with the project's hourly
// rates for the work a change adds.
func changeControl() string {
	cols := []col{{6480, false}, {2880, true}}
	return t("Heading1", "Change control") +
		t("", "Either party may ask in writing for a change to the scope, schedule or price of this statement of work. "+
			account+" then describes the change and its effect on the scope, schedule and price in a change order. "+
			"A change takes effect only when both parties have signed its change order; until then the work continues as this statement of work describes it.") +
		when("project_pricing.resources.length > 1",
			lead("Work a change adds is priced at the hourly rates below, unless its change order says otherwise."),
			table(cols,
				row(cols, header, r("Resource"), r("Hourly rate")),
				row(cols, body, r(`{#project_pricing.resources}{#resource_slug != "project_total"}{resource_name}`),
					r("{hourly_rate | money}{/}{/project_pricing.resources}")),
			))
}

// generalTerms are the master agreement the work falls under, when the
// project or its client has one, and the account's general terms.
func generalTerms() string {
	return when("general_terms.length > 0 || project.msa_date",
		t("Heading1", "General terms"),
		each("project.msa_date",
			t("", "This statement of work is issued under the master services agreement between "+client+" and "+account+
				" dated {project.msa_date.to_long_date}, which governs it. Where the two differ, the agreement prevails "+
				"unless this statement of work expressly says otherwise.")),
		each("general_terms", t("Heading2", "{name}"), t("", "{body}")))
}

func acceptance() string {
	sig := []col{{4680, false}, {4680, false}}
	return pp("Heading1", `<w:pageBreakBefore/>`, r("Acceptance")) +
		t("", "By signing below, the parties agree to this statement of work for {project.project_name}, including the scope, "+
			"the price of {project_pricing.total_contract_value | money} ({currency.code}) and the terms it describes.") +
		table(sig,
			row(sig, header, r(client), r(account)),
			row(sig, sign, r("Signature"), r("Signature")),
			row(sig, sign, r("Name"), r("Name")),
			row(sig, sign, r("Title"), r("Title")),
			row(sig, sign, r("Date"), r("Date")),
		)
}
