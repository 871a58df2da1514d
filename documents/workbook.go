package documents

import (
	"fmt"
	"strings"
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// book is a workbook being written: one sheet at a time, row by row
// through excelize's stream writer, with the styles of figures in the
// project's currency. The first error stops every later write and is
// returned by bytes.
type book struct {
	f     *excelize.File
	sw    *excelize.StreamWriter
	sheet string
	row   int
	st    styles
	err   error
}

// styles are the cell styles of a book.
type styles struct {
	title, label, header, headerRight, text, bold, money, hours, percent int
	totalText, totalMoney, totalHours, totalPercent                      int
	indent1, indent2                                                     int
}

func newBook(cur pricing.Currency) (*book, error) {
	b := &book{f: excelize.NewFile()}
	money := "#,##0"
	if cur.MinorUnits > 0 {
		money += "." + strings.Repeat("0", cur.MinorUnits)
	}
	sym := strings.ReplaceAll(mergedata.CurrencySymbol(cur.Code), `"`, "")
	money = fmt.Sprintf(`"%s"%s;-"%s"%s`, sym, money, sym, money)
	hours, percent := "#,##0.00", "0.00%"
	top := []excelize.Border{{Type: "top", Color: "1F3864", Style: 2}}
	font := func(bold bool) *excelize.Font {
		return &excelize.Font{Family: "Arial", Size: 10, Bold: bold, Color: "262626"}
	}
	mk := func(s *excelize.Style) int {
		if b.err != nil {
			return 0
		}
		id, err := b.f.NewStyle(s)
		b.err = err
		return id
	}
	navy := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1F3864"}}
	white := &excelize.Font{Family: "Arial", Size: 10, Bold: true, Color: "FFFFFF"}
	b.st = styles{
		title:        mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 14, Bold: true, Color: "1F3864"}}),
		label:        mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 10, Color: "595959"}}),
		header:       mk(&excelize.Style{Font: white, Fill: navy}),
		headerRight:  mk(&excelize.Style{Font: white, Fill: navy, Alignment: &excelize.Alignment{Horizontal: "right"}}),
		text:         mk(&excelize.Style{Font: font(false)}),
		bold:         mk(&excelize.Style{Font: font(true)}),
		money:        mk(&excelize.Style{Font: font(false), CustomNumFmt: &money}),
		hours:        mk(&excelize.Style{Font: font(false), CustomNumFmt: &hours}),
		percent:      mk(&excelize.Style{Font: font(false), CustomNumFmt: &percent}),
		totalText:    mk(&excelize.Style{Font: font(true), Border: top}),
		totalMoney:   mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &money}),
		totalHours:   mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &hours}),
		totalPercent: mk(&excelize.Style{Font: font(true), Border: top, CustomNumFmt: &percent}),
		indent1:      mk(&excelize.Style{Font: font(false), Alignment: &excelize.Alignment{Indent: 1}}),
		indent2:      mk(&excelize.Style{Font: &excelize.Font{Family: "Arial", Size: 10, Color: "595959"}, Alignment: &excelize.Alignment{Indent: 2}}),
	}
	return b, b.err
}

// cell is a value with its style: a string, or a figure (a decimal written
// as a number with exactly its places, so the file holds what pricing says).
type cell struct {
	v     any
	style int
}

// newSheet starts a sheet with column widths, whose first frozen rows
// stay in view when scrolling; the first sheet renames the default one.
func (b *book) newSheet(name string, frozen int, widths ...float64) {
	b.flush()
	if b.err != nil {
		return
	}
	if b.sheet == "" {
		b.err = b.f.SetSheetName("Sheet1", name)
	} else {
		_, b.err = b.f.NewSheet(name)
	}
	b.sheet, b.row = name, 0
	if b.err == nil {
		b.sw, b.err = b.f.NewStreamWriter(name)
	}
	for i, w := range widths {
		if b.err == nil {
			b.err = b.sw.SetColWidth(i+1, i+1, w)
		}
	}
	if b.err == nil && frozen > 0 {
		ref, _ := excelize.CoordinatesToCellName(1, frozen+1)
		b.err = b.sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: frozen, TopLeftCell: ref, ActivePane: "bottomLeft"})
	}
}

// flush ends the sheet being written.
func (b *book) flush() {
	if b.sw != nil && b.err == nil {
		b.err = b.sw.Flush()
	}
	b.sw = nil
}

// line writes the next row.
func (b *book) line(cells ...cell) { b.outlined(0, cells...) }

// outlined writes the next row at an outline level (a group of rows that
// can be collapsed).
func (b *book) outlined(level uint8, cells ...cell) {
	b.row++
	if b.err != nil {
		return
	}
	row := make([]any, len(cells))
	for i, c := range cells {
		var v any = c.v
		if d, ok := v.(decimal.Decimal); ok {
			v, _ = d.Float64()
		}
		row[i] = excelize.Cell{StyleID: c.style, Value: v}
	}
	ref, _ := excelize.CoordinatesToCellName(1, b.row)
	b.err = b.sw.SetRow(ref, row, excelize.RowOpts{OutlineLevel: int(level)})
}

// total writes a total row of width columns: the label, then empty cells
// up to the figures at the end.
func (b *book) total(label string, width int, figures ...cell) {
	cells := []cell{{label, b.st.totalText}}
	for len(cells)+len(figures) < width {
		cells = append(cells, cell{nil, b.st.totalText})
	}
	b.line(append(cells, figures...)...)
}

// header writes a header row; columns from right onwards align right.
func (b *book) header(right int, names ...string) {
	cells := make([]cell, len(names))
	for i, n := range names {
		cells[i] = cell{n, b.st.header}
		if i >= right {
			cells[i].style = b.st.headerRight
		}
	}
	b.line(cells...)
}

func (b *book) text(s string) cell          { return cell{s, b.st.text} }
func (b *book) money(f pricing.Fixed) cell  { return cell{f.Decimal, b.st.money} }
func (b *book) hours(f pricing.Fixed) cell  { return cell{f.Decimal, b.st.hours} }
func (b *book) tmoney(f pricing.Fixed) cell { return cell{f.Decimal, b.st.totalMoney} }
func (b *book) thours(f pricing.Fixed) cell { return cell{f.Decimal, b.st.totalHours} }

// figure reads a merge-data figure (a decimal text); "" is no value.
func figure(s string) any {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return nil
	}
	return d
}

// sum adds figures (a total the pricing result has no field for).
func sum(fs ...pricing.Fixed) pricing.Fixed {
	d := fs[0].Decimal
	for _, f := range fs[1:] {
		d = d.Add(f.Decimal)
	}
	return pricing.Fixed{Decimal: d}
}

// diff is a - b.
func diff(a, b pricing.Fixed) pricing.Fixed { return pricing.Fixed{Decimal: a.Sub(b.Decimal)} }

// bytes returns the workbook as an XLSX file.
func (b *book) bytes() ([]byte, error) {
	defer b.f.Close()
	b.flush()
	if b.err != nil {
		return nil, fmt.Errorf("documents: workbook: %w", b.err)
	}
	buf, err := b.f.WriteToBuffer()
	if err != nil {
		return nil, fmt.Errorf("documents: workbook: %w", err)
	}
	return buf.Bytes(), nil
}

// yes is how a sheet says whether a section counts in the contract.
func yes(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// PricingWorkbook returns the pricing of a snapshot as an XLSX workbook:
// a Summary sheet (the sections, what the contract includes, the contract
// value, cost, profit and margin), Resources (the resources table and its
// total row), Phases (labor and governance per phase), and one sheet per
// section with items: Governance, Travel and expense, Materials, Managed
// services. Figures are numbers with the currency's format; every one is
// the pricing run's.
func PricingWorkbook(snap *scoping.Snapshot) ([]byte, error) {
	res := snap.Pricing
	b, err := newBook(res.Currency)
	if err != nil {
		return nil, err
	}
	term := mergedata.BuildV2(snap, time.Time{}).Project.PaymentTerm
	st := b.st
	ps := res.ProfessionalServices

	b.newSheet("Summary", 6, 34, 16, 16, 16, 12, 12)
	b.line(cell{snap.Project.Str("project-name"), st.title})
	client := ""
	if snap.Client != nil {
		client = snap.Client.Str("name")
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

// BreakdownWorkbook returns the work breakdown of a snapshot as an XLSX
// workbook, one sheet "Breakdown": per phase (in pricing's order) a phase
// row with its hours and revenue, its services, each followed by its
// subservices, and the governance allocated to the phase; then the project
// total. Rows are grouped (outline levels) phase → service → subservice,
// and each row repeats its phase and service so the sheet filters well.
// Service rows show the line's own hours and, with its subservices, the
// total hours and revenue.
func BreakdownWorkbook(snap *scoping.Snapshot) ([]byte, error) {
	res := snap.Pricing
	b, err := newBook(res.Currency)
	if err != nil {
		return nil, err
	}
	st := b.st
	v2 := mergedata.BuildV2(snap, time.Time{})
	b.newSheet("Breakdown", 3, 36, 22, 28, 26, 20, 18, 10, 11, 11, 12, 16)
	b.line(cell{snap.Project.Str("project-name"), st.title})
	b.row++
	b.header(6, "Item", "Phase", "Service", "Subservice", "Resource", "Location", "Quantity", "Unit hours", "Line hours", "Total hours", "Revenue")
	for k, ph := range v2.Phases {
		name := ph.Name
		if name == "" {
			name = "No phase"
		}
		b.line(cell{name, st.bold}, b.text(name), cell{}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{},
			cell{figure(ph.TotalHours), st.hours}, cell{figure(ph.TotalRevenue), st.money})
		for _, s := range ph.Services {
			b.outlined(1, cell{s.Name, st.indent1}, b.text(name), b.text(s.Name), cell{}, b.text(s.ResourceName), b.text(s.LocationName),
				cell{figure(s.Quantity), st.hours}, cell{figure(s.UnitHours), st.hours}, cell{figure(s.ExtendedHours), st.hours},
				cell{figure(s.TotalHours), st.hours}, cell{figure(s.Revenue), st.money})
			for _, sub := range s.Subservices {
				b.outlined(2, cell{sub.Name, st.indent2}, b.text(name), b.text(s.Name), b.text(sub.Name), b.text(sub.ResourceName), b.text(s.LocationName),
					cell{figure(sub.Quantity), st.hours}, cell{figure(sub.UnitHours), st.hours}, cell{figure(sub.ExtendedHours), st.hours},
					cell{figure(sub.ExtendedHours), st.hours}, cell{figure(sub.Revenue), st.money})
			}
		}
		if k < len(res.Phases) && !res.Phases[k].GovernanceHours.IsZero() {
			g := res.Phases[k]
			b.outlined(1, cell{"Project governance", st.indent1}, b.text(name), cell{}, cell{}, cell{}, cell{}, cell{}, cell{},
				cell{}, b.hours(g.GovernanceHours), b.money(g.GovernanceRevenue))
		}
	}
	ps := res.ProfessionalServices
	b.total("Total", 11, b.thours(ps.Hours), b.tmoney(sum(ps.ServiceRevenue, ps.PMRevenue)))
	return b.bytes()
}
