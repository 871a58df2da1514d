package workbook_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/workbook"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// sheet is a sheet read back: its rows of raw cell values.
type sheet struct {
	t    *testing.T
	f    *excelize.File
	name string
	rows [][]string
}

func readSheet(t *testing.T, xlsx []byte, name string) *sheet {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	rows, err := f.GetRows(name, excelize.Options{RawCellValue: true})
	require.NoError(t, err, "sheet %s", name)
	return &sheet{t: t, f: f, name: name, rows: rows}
}

// row returns the first row whose first cell is label, and its number.
func (s *sheet) row(label string) ([]string, int) {
	s.t.Helper()
	for i, r := range s.rows {
		if len(r) > 0 && r[0] == label {
			return r, i + 1
		}
	}
	s.t.Fatalf("no row %q on sheet %s", label, s.name)
	return nil, 0
}

// figures checks the cells of row label from column 2 on; "" skips a cell.
func (s *sheet) figures(label string, want ...string) {
	s.t.Helper()
	r, _ := s.row(label)
	for i, w := range want {
		if w == "" {
			continue
		}
		require.Greater(s.t, len(r), i+1, "row %q", label)
		requireFigure(s.t, w, r[i+1], "row %q column %d of %s", label, i+2, s.name)
	}
}

func requireFigure(t *testing.T, want, got string, msgAndArgs ...any) {
	t.Helper()
	w, err := decimal.NewFromString(want)
	require.NoError(t, err)
	g, err := decimal.NewFromString(got)
	require.NoError(t, err, msgAndArgs...)
	require.True(t, w.Equal(g), "want %s, got %s: %v", want, got, msgAndArgs)
}

// numFmt returns the number format of a cell.
func (s *sheet) numFmt(ref string) string {
	s.t.Helper()
	id, err := s.f.GetCellStyle(s.name, ref)
	require.NoError(s.t, err)
	st, err := s.f.GetStyle(id)
	require.NoError(s.t, err)
	if st.CustomNumFmt == nil {
		return ""
	}
	return *st.CustomNumFmt
}

// Ensure the pricing workbook of the worked example holds exactly the
// figures of pricing.md (and of the pricing run), with money in the
// project's currency format.
func TestPricingWorkbook(t *testing.T) {
	snap := demo(t)
	res := snap.Pricing
	xlsx, err := workbook.Pricing(snap)
	require.NoError(t, err)

	sum := readSheet(t, xlsx, "Summary")
	require.Equal(t, "Globex firewall refresh", sum.rows[0][0])
	sum.figures("Services", "8350.00", "3787.50", "4562.50", "40.75")
	sum.figures("Project governance", "1569.25", "728.80", "840.45", "8.11")
	sum.figures("Adjustment", "-250.00", "100.00", "-350.00")
	sum.figures("Professional services", "9669.25", "4616.30", "5052.95", "48.86")
	sum.figures("Travel and expense", "1125.00", "1080.00", "45.00")
	sum.figures("Materials", "3999.98", "3000.00", "999.98")
	sum.figures("Total contract", "10794.25", "5696.30", "5097.95")
	sum.figures("Contract margin", "0.4723")
	r, n := sum.row("Travel and expense")
	require.Equal(t, "Yes", r[5])
	_, total := sum.row("Total contract")
	r, m := sum.row("Materials")
	require.Equal(t, "No", r[5])
	require.Greater(t, m, total, "materials are listed apart, not in the total contract")
	require.Equal(t, `"$"#,##0.00;-"$"#,##0.00`, sum.numFmt("B"+itoa(n)))
	require.Equal(t, "#,##0.00", sum.numFmt("E"+itoa(n-1)))
	_, n = sum.row("Contract margin")
	require.Equal(t, "0.00%", sum.numFmt("B"+itoa(n)))

	resources := readSheet(t, xlsx, "Resources")
	resources.figures("Architect", "6.00", "250.00", "120.00", "1500.00", "720.00", "780.00")
	resources.figures("Engineer", "36.75", "200.00", "90.00", "7350.00", "3307.50")
	resources.figures("Project Manager", "6.11", "175.00", "80.00", "1069.25", "488.80")
	resources.figures("Total", "48.86", "", "", "9919.25", "4516.30", "5402.95")
	resources.figures("Blended hourly rate and cost", "", "203.01", "92.43")
	for _, row := range res.Resources.Rows { // and every row of the run, whatever the example
		resources.figures(row.ResourceName, row.Hours.String(), row.HourlyRate.String(), row.HourlyCost.String(),
			row.Revenue.String(), row.Cost.String(), row.Profit.String())
	}
	// 3787.50 + 728.80 + 100.00 + 1080.00 + 0 = 5696.30; materials (3000.00)
	// are not in this contract, and are listed after its total.
	resources.figures("Services", "", "", "", "", "3787.50")
	resources.figures("Cost adjustment", "", "", "", "", "100.00")
	resources.figures("Travel and expense", "", "", "", "", "1080.00")
	resources.figures("Managed services", "", "", "", "", "0.00")
	resources.figures("Total cost", "", "", "", "", "5696.30")
	resources.figures("Materials", "", "", "", "", "3000.00")
	_, total = resources.row("Total cost")
	_, m = resources.row("Materials")
	require.Greater(t, m, total)

	phases := readSheet(t, xlsx, "Phases")
	for _, ph := range res.Phases {
		phases.figures(ph.Name, ph.ServiceHours.String(), ph.ServiceRevenue.String(), ph.ServiceCost.String(), ph.GovernanceHours.String(),
			ph.GovernanceRevenue.String(), ph.GovernanceCost.String(), ph.Hours.String(), ph.Revenue.String(), ph.Cost.String(), ph.Profit.String())
	}
	phases.figures("Plan", "24.50", "", "", "", "", "", "29.37", "6043.47")
	phases.figures("Total", "40.75", "8350.00", "3787.50", "8.11", "1569.25", "728.80", "48.86", "9919.25", "4516.30", "5402.95")

	gov := readSheet(t, xlsx, "Governance")
	gov.figures("Project management", "", "6.11", "175.00", "80.00", "1069.25", "488.80", "580.45")
	gov.figures("Kickoff", "", "2.00", "250.00", "120.00", "500.00", "240.00", "260.00")
	gov.figures("Total", "", "8.11", "", "", "1569.25", "728.80", "840.45")
	tne := readSheet(t, xlsx, "Travel and expense")
	tne.figures("Airfare", "", "2.00", "450.00", "450.00", "900.00", "900.00", "0.00")
	tne.figures("Per diem", "", "3.00", "75.00", "60.00", "225.00", "180.00", "45.00")
	tne.figures("Total", "", "", "", "", "1125.00", "1080.00", "45.00")
	mat := readSheet(t, xlsx, "Materials")
	mat.figures("Firewall appliance", "", "2.00", "1999.99", "1500.00", "3999.98", "3000.00", "999.98")

	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	require.NoError(t, err)
	defer f.Close()
	require.Equal(t, []string{"Summary", "Resources", "Phases", "Governance", "Travel and expense", "Materials"}, f.GetSheetList())
}

// Ensure the breakdown workbook lists phase → service → subservice with
// their resources and hours as the pricing run has them, grouped by
// outline level, with governance per phase and the project total.
func TestBreakdownWorkbook(t *testing.T) {
	snap := demo(t)
	xlsx, err := workbook.Breakdown(snap)
	require.NoError(t, err)
	s := readSheet(t, xlsx, "Breakdown")
	var items []string
	for _, r := range s.rows[3:] {
		items = append(items, strings.Join(r[:min(6, len(r))], "/"))
	}
	require.Equal(t, []string{
		"Plan/Plan////",
		"Assessment/Plan/Assessment//Engineer/",
		"Site survey/Plan/Assessment/Site survey/Engineer/",
		"Report/Plan/Assessment/Report/Architect/",
		"Project governance/Plan////",
		"Implement/Implement////",
		"Firewall deployment/Implement/Firewall deployment//Engineer/",
		"Project governance/Implement////",
		"Total/////",
	}, items)
	s.figures("Plan", "", "", "", "", "", "", "", "", "29.37", "6043.47")
	s.figures("Assessment", "", "", "", "", "", "2.00", "8.00", "16.00", "24.50", "5100.00")
	s.figures("Site survey", "", "", "", "", "", "3.00", "1.50", "4.50", "4.50", "900.00")
	s.figures("Report", "", "", "", "", "", "1.00", "4.00", "4.00", "4.00", "1000.00")
	s.figures("Firewall deployment", "", "", "", "", "", "1.00", "16.25", "16.25", "16.25", "3250.00")
	s.figures("Total", "", "", "", "", "", "", "", "", "48.86", "9919.25")
	// Governance per phase: the run's allocation.
	for k, ph := range snap.Pricing.Phases {
		_, n := s.row(ph.Name)
		next := s.rows[n:]
		for _, r := range next {
			if r[0] == "Project governance" {
				requireFigure(t, snap.Pricing.Phases[k].GovernanceHours.String(), r[9])
				requireFigure(t, snap.Pricing.Phases[k].GovernanceRevenue.String(), r[10])
				break
			}
		}
	}
	for label, level := range map[string]uint8{"Plan": 0, "Assessment": 1, "Site survey": 2} {
		_, n := s.row(label)
		got, err := s.f.GetRowOutlineLevel("Breakdown", n)
		require.NoError(t, err)
		require.Equal(t, level, got, label)
	}
	_, n := s.row("Assessment")
	require.Equal(t, `"$"#,##0.00;-"$"#,##0.00`, s.numFmt("K"+itoa(n)))
}

// Ensure a currency without minor units gets a format without decimals,
// and the large project's workbooks hold all of its lines.
func TestWorkbooksLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large fixture")
	}
	snap := large(t)
	xlsx, err := workbook.Breakdown(snap)
	require.NoError(t, err)
	s := readSheet(t, xlsx, "Breakdown")
	// title, blank, header, 3 phases with 1,000 services, 3,000
	// subservices and governance, the total.
	require.Len(t, s.rows, 3+3+1000+3000+3+1)
	s.figures("Total", "", "", "", "", "", "", "", "", snap.Pricing.ProfessionalServices.Hours.String())
	xlsx, err = workbook.Pricing(snap)
	require.NoError(t, err)
	sum := readSheet(t, xlsx, "Summary")
	sum.figures("Total contract", snap.Pricing.TotalContractValue.String(), snap.Pricing.TotalContractCost.String())

	snap.Pricing.Currency = pricing.Currency{Code: "JPY", MinorUnits: 0}
	xlsx, err = workbook.Pricing(snap)
	require.NoError(t, err)
	sum = readSheet(t, xlsx, "Summary")
	_, n := sum.row("Total contract")
	require.Equal(t, `"¥"#,##0;-"¥"#,##0`, sum.numFmt("B"+itoa(n)))
}

func itoa(n int) string { return decimal.NewFromInt(int64(n)).String() }
