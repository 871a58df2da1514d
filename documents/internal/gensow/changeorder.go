package main

import "strings"

// The Standard change order's body: what changes, line by line with the
// price before and after, the contract before and after the change, and
// the signature block. Every figure is one of merge data's change_order.

const co = "change_order"

func changeOrderDocument() string {
	var b strings.Builder
	for _, s := range []string{coHeader(), coReason(), coChanges(), coTotals(), coAcceptance()} {
		b.WriteString(s)
	}
	b.WriteString(`<w:sectPr><w:footerReference w:type="default" r:id="rIdFooter1"/><w:footerReference w:type="first" r:id="rIdFooter1"/>` +
		`<w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1296" w:right="1440" w:bottom="1296" w:left="1440" w:header="708" w:footer="576" w:gutter="0"/>` +
		`</w:sectPr>`)
	return `<w:document ` + nsW + `><w:body>` + b.String() + `</w:body></w:document>`
}

func coHeader() string {
	return p("CoverBrand", r(account)) +
		t("Title", "Change order {"+co+".number}") +
		t("Subtitle", "{"+co+".title}") +
		p("CoverLabel", r("Project")) + p("CoverValue", r("{project.project_name} for "+client)) +
		p("CoverLabel", r("Changes")) +
		p("CoverValue", r("Version {"+co+".base_version.number}{#"+co+".base_version.name} ({"+co+".base_version.name}){/} of the project's scope")) +
		p("CoverLabel", r("Date")) + p("CoverValue", r("{project.printed_on.to_long_date}"))
}

func coReason() string {
	return t("Heading1", "Reason for the change") +
		each(co+".reason", t("", "{"+co+".reason}")) +
		unless(co+".reason", t("", client+" and "+account+" agree to change the scope of {project.project_name} as described below."))
}

// coChanges lists each line the change adds, changes or removes with its
// price before and after, and the change.
func coChanges() string {
	cols := []col{{3600, false}, {1800, true}, {1800, true}, {2160, true}}
	return t("Heading1", "What changes") +
		when(co+".lines.length > 0",
			lead("Each line below is added to, changed in or removed from the scope. Prices include the work listed under a service."),
			table(cols,
				row(cols, header, r("Item"), r("Before"), r("After"), r("Change")),
				row(cols, body, r("{#"+co+".lines}{kind}: {name}", bold), r(`{#change != "added"}{before.revenue | money}{/}`),
					r(`{#change != "removed"}{after.revenue | money}{/}`), r("{delta.revenue | money}")),
				row(cols, sub, r(`{#change == "added"}Added{/}{#change == "removed"}Removed{/}{details}`),
					r(`{#has_hours && change != "added"}{before.hours | number:2} h{/}`), r(`{#has_hours && change != "removed"}{after.hours | number:2} h{/}`),
					r("{#has_hours}{delta.hours | number:2} h{/}{/"+co+".lines}")),
			)) +
		unless(co+".lines", t("", "This change order changes no line of the scope."))
}

// coTotals are the contract before and after the change.
func coTotals() string {
	cols := []col{{5760, false}, {1440, true}, {2160, true}}
	totals := co + ".total"
	return t("Heading1", "The contract after the change") +
		lead("All amounts are in {currency.code}.") +
		table(cols,
			row(cols, header, r("Item"), r("Hours"), r("Amount")),
			row(cols, body|keep, r("Contract value before this change"), r("{"+totals+".before.hours | number:2}"), money(totals+".before.revenue")),
			row(cols, body|keep, r("This change"), r("{"+totals+".delta.hours | number:2}"), money(totals+".delta.revenue")),
			row(cols, total, r("New contract value"), r("{"+totals+".after.hours | number:2}"), money(totals+".after.revenue")),
		) +
		t("Note", "The terms of the statement of work apply to the work this change order adds; where the two differ, this change order prevails for that work.")
}

func coAcceptance() string {
	sig := []col{{4680, false}, {4680, false}}
	return pp("Heading1", `<w:keepNext/>`, r("Acceptance")) +
		t("", "By signing below, the parties agree to change order {"+co+".number} for {project.project_name}, which changes the contract value by "+
			"{"+co+".total.delta.revenue | money} to {"+co+".total.after.revenue | money} ({currency.code}).") +
		table(sig,
			row(sig, header, r(client), r(account)),
			row(sig, sign, r("Signature"), r("Signature")),
			row(sig, sign, r("Name"), r("Name")),
			row(sig, sign, r("Title"), r("Title")),
			row(sig, sign, r("Date"), r("Date")),
		)
}
