package documents

import (
	"fmt"
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/xuri/excelize/v2"
)

// sheet writes rows on one sheet of a workbook with a few styles.
type sheet struct {
	f      *excelize.File
	name   string
	row    int
	styles styles
	err    error
}

type styles struct {
	title, header, text, money, hours, percent, totalText, totalMoney, totalHours int
}

func newStyles(f *excelize.File, cur pricing.Currency) (styles, error) {
	var s styles
	var err error
	places := cur.MinorUnits
	moneyFmt := "#,##0"
	if places > 0 {
		moneyFmt += "." + fmt.Sprintf("%0*d", places, 0)
	}
	sym := mergedata.CurrencySymbol(cur.Code)
	moneyFmt = fmt.Sprintf(`"%s"%s;-"%s"%s`, sym, moneyFmt, sym, moneyFmt)
	border := []excelize.Border{{Type: "top", Color: "404040", Style: 1}}
	mk := func(st *excelize.Style) int {
		if err != nil {
			return 0
		}
		var id int
		id, err = f.NewStyle(st)
		return id
	}
	s.title = mk(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 14}})
	s.header = mk(&excelize.Style{Font: &excelize.Font{Bold: true, Color: "FFFFFF"},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"1F3864"}}})
	s.text = mk(&excelize.Style{})
	s.money = mk(&excelize.Style{CustomNumFmt: &moneyFmt})
	hoursFmt := "#,##0.00"
	s.hours = mk(&excelize.Style{CustomNumFmt: &hoursFmt})
	pctFmt := "0.00%"
	s.percent = mk(&excelize.Style{CustomNumFmt: &pctFmt})
	s.totalText = mk(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: border})
	s.totalMoney = mk(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: border, CustomNumFmt: &moneyFmt})
	s.totalHours = mk(&excelize.Style{Font: &excelize.Font{Bold: true}, Border: border, CustomNumFmt: &hoursFmt})
	return s, err
}

// cell is a value with its style.
type cell struct {
	v     any
	style int
}

func (s *sheet) line(cells ...cell) {
	s.row++
	if s.err != nil {
		return
	}
	for i, c := range cells {
		ref, err := excelize.CoordinatesToCellName(i+1, s.row)
		if err == nil {
			err = s.f.SetCellValue(s.name, ref, c.v)
		}
		if err == nil && c.style != 0 {
			err = s.f.SetCellStyle(s.name, ref, ref, c.style)
		}
		if err != nil {
			s.err = err
			return
		}
	}
}

// num is a figure as a spreadsheet number (float64: what a cell holds);
// the number format shows it with its places.
func num(f pricing.Fixed) float64 {
	v, _ := f.Float64()
	return v
}

func (s *sheet) text(v string) cell         { return cell{v, s.styles.text} }
func (s *sheet) money(f pricing.Fixed) cell { return cell{num(f), s.styles.money} }
func (s *sheet) hours(f pricing.Fixed) cell { return cell{num(f), s.styles.hours} }

// PricingWorkbook returns the pricing of a snapshot as an XLSX workbook.
func PricingWorkbook(snap *scoping.Snapshot) ([]byte, error) {
	res := snap.Pricing
	f := excelize.NewFile()
	defer f.Close()
	st, err := newStyles(f, res.Currency)
	if err != nil {
		return nil, err
	}
	if err := f.SetSheetName("Sheet1", "Pricing"); err != nil {
		return nil, err
	}
	s := &sheet{f: f, name: "Pricing", styles: st}
	s.line(cell{snap.Project.Str("project-name"), st.title})
	s.line(s.text("Currency"), s.text(res.Currency.Code))
	s.row++
	s.line(cell{"Section", st.header}, cell{"Revenue", st.header}, cell{"Cost", st.header}, cell{"Profit", st.header})
	ps := res.ProfessionalServices
	s.line(s.text("Professional services"), s.money(ps.PSRevenue), s.money(ps.PSCost), s.money(ps.PSProfit))
	s.line(s.text("Travel and expense"), s.money(res.TravelAndExpense.Revenue), s.money(res.TravelAndExpense.Cost), s.money(res.TravelAndExpense.Profit))
	s.line(s.text("Materials"), s.money(res.Materials.Revenue), s.money(res.Materials.Cost), s.money(res.Materials.Profit))
	s.line(s.text("Managed services"), s.money(res.ManagedServices.Revenue), s.money(res.ManagedServices.Cost), s.money(res.ManagedServices.Profit))
	s.line(cell{"Total contract", st.totalText}, cell{num(res.TotalContractValue), st.totalMoney},
		cell{num(res.TotalContractCost), st.totalMoney}, cell{num(res.TotalContractProfit), st.totalMoney})
	s.line(s.text("Margin"), cell{num(res.TotalContractMargin), st.percent})
	if s.err != nil {
		return nil, s.err
	}
	return writeBook(f)
}

// BreakdownWorkbook returns the work breakdown of a snapshot as an XLSX
// workbook: phase → service → subservice with hours and resources.
func BreakdownWorkbook(snap *scoping.Snapshot) ([]byte, error) {
	v2 := mergedata.BuildV2(snap, time.Time{})
	f := excelize.NewFile()
	defer f.Close()
	st, err := newStyles(f, snap.Pricing.Currency)
	if err != nil {
		return nil, err
	}
	if err := f.SetSheetName("Sheet1", "Breakdown"); err != nil {
		return nil, err
	}
	s := &sheet{f: f, name: "Breakdown", styles: st}
	s.line(cell{"Phase", st.header}, cell{"Service", st.header}, cell{"Subservice", st.header}, cell{"Resource", st.header},
		cell{"Quantity", st.header}, cell{"Unit hours", st.header}, cell{"Hours", st.header}, cell{"Revenue", st.header})
	for _, ph := range v2.Phases {
		for _, sv := range ph.Services {
			s.line(s.text(ph.Name), s.text(sv.Name), s.text(""), s.text(sv.ResourceName),
				cell{sv.Quantity, st.hours}, cell{sv.UnitHours, st.hours}, cell{sv.ExtendedHours, st.hours}, cell{sv.Revenue, st.money})
			for _, sub := range sv.Subservices {
				s.line(s.text(ph.Name), s.text(sv.Name), s.text(sub.Name), s.text(sub.ResourceName),
					cell{sub.Quantity, st.hours}, cell{sub.UnitHours, st.hours}, cell{sub.ExtendedHours, st.hours}, cell{sub.Revenue, st.money})
			}
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	return writeBook(f)
}

func writeBook(f *excelize.File) ([]byte, error) {
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
