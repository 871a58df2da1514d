package workbook

import (
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Pricing returns the pricing of a snapshot as an XLSX workbook:
// a Summary sheet (the sections, what the contract includes, the contract
// value, cost, profit and margin), Resources (the resources table, its
// total and blended rates, the contract's cost by kind), Phases (labor and
// governance per phase), and one sheet per section with items: Governance,
// Travel and expense, Materials, Managed services. Figures are numbers
// with the currency's format; every one is the pricing run's. Every total
// is the sum of the rows above it in its block (a subtotal, with a thin
// rule, counts as one row of the total below it); what the payment term
// leaves out of the contract is listed apart, after the contract's total.
func Pricing(snap *views.Snapshot) ([]byte, error) {
	res := snap.Pricing
	b, err := newBook(res.Currency)
	if err != nil {
		return nil, err
	}
	term := mergedata.BuildV2(snap, time.Time{}).Project.PaymentTerm
	st := b.st
	ps := res.ProfessionalServices

	b.newSheet("Summary", 6, 34, 16, 16, 16, 12, 12)
	b.line(cell{snap.Project.ProjectName(), st.title})
	client := ""
	if snap.Client != nil {
		client = snap.Client.Name()
	}
	b.line(cell{"Client", st.label}, b.text(client))
	b.line(cell{"Currency", st.label}, b.text(res.Currency.Code))
	b.line(cell{"Payment term", st.label}, b.text(term.Name))
	b.row++
	b.header(1, "Section", "Revenue", "Cost", "Profit", "Hours", "In contract")
	b.line(b.text("Services"), b.money(ps.ServiceRevenue), b.money(ps.ServiceCost), b.money(diff(ps.ServiceRevenue, ps.ServiceCost)), b.hours(ps.ServiceHours), b.text("Yes"))
	b.line(b.text("Project governance"), b.money(ps.PMRevenue), b.money(ps.PMCost), b.money(res.ProjectGovernance.Profit), b.hours(ps.PMHours), b.text("Yes"))
	b.line(b.text("Adjustment"), b.money(ps.RevenueAdjustment), b.money(ps.CostAdjustment),
		b.money(diff(ps.RevenueAdjustment, ps.CostAdjustment)), cell{}, b.text("Yes"))
	b.line(cell{"Professional services", st.subText}, cell{ps.PSRevenue.Decimal, st.subMoney}, cell{ps.PSCost.Decimal, st.subMoney},
		cell{ps.PSProfit.Decimal, st.subMoney}, cell{ps.Hours.Decimal, st.subHours}, cell{"Yes", st.subText})
	in, out := contractSections(res, term)
	for _, s := range in {
		b.line(b.text(s.name), b.money(s.revenue), b.money(s.cost), b.money(s.profit), cell{}, b.text("Yes"))
	}
	b.line(cell{"Total contract", st.totalText}, b.tmoney(res.TotalContractValue), b.tmoney(res.TotalContractCost), b.tmoney(res.TotalContractProfit), cell{nil, st.totalText}, cell{nil, st.totalText})
	b.line(cell{"Contract margin", st.label}, cell{res.TotalContractMargin.Decimal, st.percent})
	if len(out) > 0 {
		b.row++
		b.header(1, "Not in the contract", "Revenue", "Cost", "Profit", "Hours", "In contract")
		for _, s := range out {
			b.line(b.text(s.name), b.money(s.revenue), b.money(s.cost), b.money(s.profit), cell{}, b.text("No"))
		}
	}

	// The resources table totals its rows: labor and governance. Lines
	// without a resource are priced at 0 and belong to no row, so their
	// hours get a row of their own.
	laborRevenue, laborCost := sum(ps.ServiceRevenue, ps.PMRevenue), sum(ps.ServiceCost, ps.PMCost)
	b.newSheet("Resources", 1, 28, 12, 14, 14, 16, 16, 16)
	b.header(1, "Resource", "Hours", "Hourly rate", "Hourly cost", "Revenue", "Cost", "Profit")
	t := res.Resources.Total
	unassigned := t.Hours
	for _, r := range res.Resources.Rows {
		b.line(b.text(r.ResourceName), b.hours(r.Hours), b.money(r.HourlyRate), b.money(r.HourlyCost), b.money(r.Revenue), b.money(r.Cost), b.money(r.Profit))
		unassigned = diff(unassigned, r.Hours)
	}
	if !unassigned.IsZero() {
		var zero pricing.Fixed
		b.line(b.text("No resource (priced at 0)"), b.hours(unassigned), cell{}, cell{}, b.money(zero), b.money(zero), b.money(zero))
	}
	b.line(cell{"Total", st.totalText}, b.thours(t.Hours), cell{nil, st.totalText}, cell{nil, st.totalText},
		b.tmoney(laborRevenue), b.tmoney(laborCost), b.tmoney(diff(laborRevenue, laborCost)))
	b.line(cell{"Blended hourly rate and cost", st.label}, cell{}, b.money(t.HourlyRate), b.money(t.HourlyCost))

	// The contract's cost by kind: what the payment term leaves out is
	// listed apart, so that Total cost (the contract's) is the sum of the
	// lines above it.
	b.row++
	b.header(5, "Cost of the contract", "", "", "", "", "Cost")
	costs := []section{{name: "Services", cost: t.ServiceCost}, {name: "Project governance", cost: t.PMCost},
		{name: "Cost adjustment", cost: t.CostAdjustment}}
	for _, s := range append(costs, in...) {
		b.line(cell{s.name, st.indent1}, cell{}, cell{}, cell{}, cell{}, b.money(s.cost))
	}
	b.total("Total cost", 6, b.tmoney(t.TotalCost))
	if len(out) > 0 {
		b.row++
		b.header(5, "Not in the contract", "", "", "", "", "Cost")
		for _, s := range out {
			b.line(cell{s.name, st.indent1}, cell{}, cell{}, cell{}, cell{}, b.money(s.cost))
		}
	}

	b.newSheet("Phases", 1, 28, 13, 15, 15, 13, 15, 15, 12, 15, 15, 15)
	b.header(1, "Phase", "Service hours", "Service revenue", "Service cost", "Governance hours", "Governance revenue",
		"Governance cost", "Hours", "Revenue", "Cost", "Profit")
	for _, ph := range res.Phases {
		name := ph.Name
		if ph.PhaseID == "" {
			name = "No phase"
		}
		b.line(b.text(name), b.hours(ph.ServiceHours), b.money(ph.ServiceRevenue), b.money(ph.ServiceCost), b.hours(ph.GovernanceHours),
			b.money(ph.GovernanceRevenue), b.money(ph.GovernanceCost), b.hours(ph.Hours), b.money(ph.Revenue), b.money(ph.Cost), b.money(ph.Profit))
	}
	b.line(cell{"Total", st.totalText}, b.thours(ps.ServiceHours), b.tmoney(ps.ServiceRevenue), b.tmoney(ps.ServiceCost), b.thours(ps.PMHours),
		b.tmoney(ps.PMRevenue), b.tmoney(ps.PMCost), b.thours(ps.Hours), b.tmoney(laborRevenue), b.tmoney(laborCost), b.tmoney(diff(laborRevenue, laborCost)))

	gov := res.ProjectGovernance
	b.newSheet("Governance", 1, 30, 22, 12, 14, 14, 16, 16, 16)
	b.header(2, "Item", "Resource", "Hours", "Hourly rate", "Hourly cost", "Revenue", "Cost", "Profit")
	for _, g := range gov.Items {
		b.line(b.text(g.Name), b.text(g.ResourceName), b.hours(g.Hours), b.money(g.HourlyRate), b.money(g.HourlyCost), b.money(g.Revenue), b.money(g.Cost), b.money(g.Profit))
	}
	b.line(cell{"Total", st.totalText}, cell{nil, st.totalText}, b.thours(gov.Hours), cell{nil, st.totalText}, cell{nil, st.totalText},
		b.tmoney(gov.Revenue), b.tmoney(gov.Cost), b.tmoney(gov.Profit))

	tne := res.TravelAndExpense
	b.newSheet("Travel and expense", 1, 30, 20, 12, 14, 14, 16, 16, 16)
	b.header(2, "Description", "Category", "Quantity", "Rate", "Unit cost", "Revenue", "Cost", "Profit")
	for _, x := range tne.Items {
		b.line(b.text(x.Description), b.text(x.Category), b.hours(x.Quantity), b.money(x.Rate), b.money(x.UnitCost), b.money(x.Revenue), b.money(x.Cost), b.money(x.Profit))
	}
	b.total("Total", 8, b.tmoney(tne.Revenue), b.tmoney(tne.Cost), b.tmoney(tne.Profit))

	mat := res.Materials
	b.newSheet("Materials", 1, 30, 16, 12, 14, 14, 16, 16, 16)
	b.header(2, "Product", "SKU", "Quantity", "Unit price", "Unit cost", "Revenue", "Cost", "Profit")
	for _, m := range mat.Items {
		b.line(b.text(m.Name), b.text(m.SKU), b.hours(m.Quantity), b.money(m.UnitPrice), b.money(m.UnitCost), b.money(m.Revenue), b.money(m.Cost), b.money(m.Profit))
	}
	b.total("Total", 8, b.tmoney(mat.Revenue), b.tmoney(mat.Cost), b.tmoney(mat.Profit))

	if ms := res.ManagedServices; len(ms.Items) > 0 {
		b.newSheet("Managed services", 1, 30, 16, 10, 12, 15, 15, 16, 16, 16)
		b.header(1, "Service", "Frequency", "Periods", "Hours per period", "Revenue per period", "Cost per period", "Revenue", "Cost", "Profit")
		for _, m := range ms.Items {
			b.line(b.text(m.Name), b.text(m.PaymentFrequency), b.hours(m.Periods), b.hours(m.Hours), b.money(m.PeriodRevenue),
				b.money(m.PeriodCost), b.money(m.Revenue), b.money(m.Cost), b.money(m.Profit))
		}
		b.total("Total", 9, b.tmoney(ms.Revenue), b.tmoney(ms.Cost), b.tmoney(ms.Profit))
	}
	return b.bytes()
}

// section is a section's figures as the contract counts them.
type section struct {
	name                  string
	revenue, cost, profit pricing.Fixed
}

// contractSections returns the sections besides professional services,
// those the contract counts (managed services always; travel and expense
// and materials as the payment term says) and those it leaves out.
func contractSections(res *pricing.Result, term mergedata.PaymentTerm) (in, out []section) {
	tne, mat, ms := res.TravelAndExpense, res.Materials, res.ManagedServices
	for _, s := range []struct {
		section
		in bool
	}{
		{section{"Travel and expense", tne.Revenue, tne.Cost, tne.Profit}, term.IncludeExpenses},
		{section{"Materials", mat.Revenue, mat.Cost, mat.Profit}, term.IncludeHardware},
		{section{"Managed services", ms.Revenue, ms.Cost, ms.Profit}, true},
	} {
		if s.in {
			in = append(in, s.section)
		} else {
			out = append(out, s.section)
		}
	}
	return in, out
}
