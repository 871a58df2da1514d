package workbook

import (
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Pricing returns the pricing of a snapshot as an XLSX workbook:
// a Summary sheet (the sections, what the contract includes, the contract
// value, cost, profit and margin), Resources (the resources table and its
// total row), Phases (labor and governance per phase), and one sheet per
// section with items: Governance, Travel and expense, Materials, Managed
// services. Figures are numbers with the currency's format; every one is
// the pricing run's.
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
	b.line(b.text("Adjustments"), b.money(ps.RevenueAdjustment), b.money(ps.CostAdjustment), cell{}, cell{}, b.text("Yes"))
	b.line(cell{"Professional services", st.bold}, b.money(ps.PSRevenue), b.money(ps.PSCost), b.money(ps.PSProfit), b.hours(ps.Hours), b.text("Yes"))
	b.line(b.text("Travel and expense"), b.money(res.TravelAndExpense.Revenue), b.money(res.TravelAndExpense.Cost), b.money(res.TravelAndExpense.Profit), cell{}, b.text(yes(term.IncludeExpenses)))
	b.line(b.text("Materials"), b.money(res.Materials.Revenue), b.money(res.Materials.Cost), b.money(res.Materials.Profit), cell{}, b.text(yes(term.IncludeHardware)))
	b.line(b.text("Managed services"), b.money(res.ManagedServices.Revenue), b.money(res.ManagedServices.Cost), b.money(res.ManagedServices.Profit), cell{}, b.text("Yes"))
	b.line(cell{"Total contract", st.totalText}, b.tmoney(res.TotalContractValue), b.tmoney(res.TotalContractCost), b.tmoney(res.TotalContractProfit), cell{nil, st.totalText}, cell{nil, st.totalText})
	b.line(cell{"Contract margin", st.label}, cell{res.TotalContractMargin.Decimal, st.percent})

	b.newSheet("Resources", 1, 28, 12, 14, 14, 16, 16, 16)
	b.header(1, "Resource", "Hours", "Hourly rate", "Hourly cost", "Revenue", "Cost", "Profit")
	for _, r := range res.Resources.Rows {
		b.line(b.text(r.ResourceName), b.hours(r.Hours), b.money(r.HourlyRate), b.money(r.HourlyCost), b.money(r.Revenue), b.money(r.Cost), b.money(r.Profit))
	}
	t := res.Resources.Total
	b.line(cell{"Project total (contract)", st.totalText}, b.thours(t.Hours), b.tmoney(t.HourlyRate), b.tmoney(t.HourlyCost),
		b.tmoney(t.TotalRevenue), b.tmoney(t.TotalCost), b.tmoney(t.TotalProfit))
	b.row++
	b.line(cell{"Cost of the contract", st.bold})
	for _, c := range []struct {
		name string
		f    pricing.Fixed
	}{{"Services", t.ServiceCost}, {"Project governance", t.PMCost}, {"Travel and expense", t.ExpenseCost},
		{"Materials", t.MaterialCost}, {"Cost adjustment", t.CostAdjustment}} {
		b.line(cell{c.name, st.indent1}, cell{}, cell{}, cell{}, cell{}, b.money(c.f))
	}
	b.total("Total cost", 6, b.tmoney(t.TotalCost))

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
		b.tmoney(ps.PMRevenue), b.tmoney(ps.PMCost), b.thours(ps.Hours), b.tmoney(sum(ps.ServiceRevenue, ps.PMRevenue)),
		b.tmoney(sum(ps.ServiceCost, ps.PMCost)), b.tmoney(diff(sum(ps.ServiceRevenue, ps.PMRevenue), sum(ps.ServiceCost, ps.PMCost))))

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

// yes is how a sheet says whether a section counts in the contract.
func yes(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}
