package documents_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rendered Standard SOW read back: its section headings and its tables
// as text, and the check that every figure of every table is the pricing
// result's and every total the sum of the rows above it.

var (
	tblRE  = regexp.MustCompile(`(?s)<w:tbl>.*?</w:tbl>`)
	trRE   = regexp.MustCompile(`(?s)<w:tr[ >].*?</w:tr>`)
	tcRE   = regexp.MustCompile(`(?s)<w:tc>.*?</w:tc>`)
	textRE = regexp.MustCompile(`(?s)<w:t[ >][^<]*</w:t>`)
)

// cellText is the text of a piece of WordprocessingML.
func cellText(xml string) string {
	var sb strings.Builder
	for _, m := range textRE.FindAllString(xml, -1) {
		sb.WriteString(m[strings.Index(m, ">")+1 : len(m)-len("</w:t>")])
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(sb.String())
}

// tables returns the tables of a part: rows of cell texts.
func tables(xml []byte) [][][]string {
	var out [][][]string
	for _, tbl := range tblRE.FindAllString(string(xml), -1) {
		var rows [][]string
		for _, tr := range trRE.FindAllString(tbl, -1) {
			var cells []string
			for _, tc := range tcRE.FindAllString(tr, -1) {
				cells = append(cells, cellText(tc))
			}
			rows = append(rows, cells)
		}
		out = append(out, rows)
	}
	return out
}

// headings returns the text of the paragraphs of a style, in order.
func headings(xml []byte, style string) []string {
	var out []string
	for _, m := range paraRE.FindAll(xml, -1) {
		if strings.Contains(string(m), `<w:pStyle w:val="`+style+`"/>`) {
			out = append(out, cellText(string(m)))
		}
	}
	return out
}

// sow is a Standard SOW rendered for a snapshot.
type sow struct {
	snap *views.Snapshot
	md   *mergedata.V2
	docx []byte
	body []byte // word/document.xml
	text string // its text (plain)
}

func renderSOW(t *testing.T, snap *views.Snapshot) *sow {
	t.Helper()
	md := mergedata.BuildV2(snap, now)
	out, err := documents.Render(context.Background(), documents.StandardSOW(), md)
	require.NoError(t, err)
	body := entry(t, out, "word/document.xml")
	return &sow{snap: snap, md: md, docx: out, body: body, text: plain(body)}
}

// enUS is how the money filter prints amount (a decimal with two places)
// in en-US with the currency symbol unit: "-$1,234.50". Written out here
// apart from the filter, so that a test compares the two.
func enUS(unit, amount string) string {
	sign := ""
	if strings.HasPrefix(amount, "-") {
		sign, amount = "-", amount[1:]
	}
	whole, frac, _ := strings.Cut(amount, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return sign + unit + whole + "." + frac
}

// adder sums the figures of a table's rows.
type adder struct {
	t      *testing.T
	unit   string
	hours  decimal.Decimal
	amount decimal.Decimal
}

// dec reads a figure cell: hours, or money as the money filter prints it
// for en-US (the currency's symbol, thousands grouped by commas); ok is
// false for an empty cell.
func (a *adder) dec(cell string) (decimal.Decimal, bool) {
	if cell == "" {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(strings.ReplaceAll(strings.Replace(cell, a.unit, "", 1), ",", ""))
	require.NoError(a.t, err, "figure %q", cell)
	return d, true
}

// add adds a row's hours and amount cells ("" for none).
func (a *adder) add(hours, amount string) {
	if h, ok := a.dec(hours); ok {
		a.hours = a.hours.Add(h)
	}
	if m, ok := a.dec(amount); ok {
		a.amount = a.amount.Add(m)
	}
}

// is asserts that a cell shows the figure want, to the cent.
func (a *adder) is(cell string, want pricing.Fixed, what string) {
	a.t.Helper()
	got, ok := a.dec(cell)
	assert.True(a.t, ok && got.Equal(want.Decimal), "%s: the SOW shows %q, pricing %s", what, cell, want)
}

// sums asserts that the rows added so far add up to the figures of a total
// row (hours "" when it shows none).
func (a *adder) sums(hours, amount, what string) {
	a.t.Helper()
	if h, ok := a.dec(hours); ok {
		assert.True(a.t, h.Equal(a.hours), "%s: hours %s, the rows add up to %s", what, h, a.hours)
	}
	m, ok := a.dec(amount)
	assert.True(a.t, ok && m.Equal(a.amount), "%s: amount %q, the rows add up to %s", what, amount, a.amount)
}

// item is a priced item as a table shows it: its name (the first column)
// and its figures by column, the last being its amount.
type item struct {
	name string
	figs map[int]pricing.Fixed
}

// items checks a table of priced items: a row per item with pricing's
// figures, and a total row whose amount (the last column) adds up the
// rows' and is the section's.
func (a *adder) items(body [][]string, last []string, items []item, total pricing.Fixed, what string) {
	a.t.Helper()
	require.Len(a.t, body, len(items), what)
	end := len(last) - 1
	for i, it := range items {
		assert.Equal(a.t, it.name, body[i][0])
		for col, f := range it.figs {
			a.is(body[i][col], f, fmt.Sprintf("%s: %s, column %d", what, it.name, col))
		}
		a.add("", body[i][end])
	}
	a.sums("", last[end], what)
	a.is(last[end], total, what)
}

// check checks every table of the SOW against the pricing result: each
// figure is pricing's, and each total is the sum of the rows it closes.
// It returns the headers of the tables it checked, in order.
func (s *sow) check(t *testing.T) []string {
	t.Helper()
	res, md := s.snap.Pricing, s.md
	newAdder := func() *adder { return &adder{t: t, unit: md.Currency.Unit} }
	var phases, priced []int // the merge-data phases that have services, and those with figures, in order
	phaseFigures := func(k int) pricing.PhaseTotals {
		if k < len(res.Phases) {
			return res.Phases[k]
		}
		return pricing.PhaseTotals{} // the managed services without a phase: none counted
	}
	for k, ph := range md.Phases {
		if len(ph.Services) > 0 {
			phases = append(phases, k)
		}
		if pt := phaseFigures(k); !pt.ServiceHours.IsZero() || !pt.ServiceRevenue.IsZero() {
			priced = append(priced, k)
		}
	}
	var seen []string
	scopes := 0
	for _, rows := range tables(s.body) {
		header := strings.Join(rows[0], "|")
		seen = append(seen, header)
		body, last := rows[1:len(rows)-1], rows[len(rows)-1]
		a := newAdder()
		switch header {
		case "Service|Resource|Quantity|Hours|Price":
			require.Less(t, scopes, len(phases), "more phase tables than phases with services")
			k := phases[scopes]
			scopes++
			ph, pt := md.Phases[k], phaseFigures(k)
			if last[0] != "Phase total" { // a phase of managed services only
				assert.True(t, pt.ServiceHours.IsZero() && pt.ServiceRevenue.IsZero(), "phase %q has no total", ph.Name)
				body, last = rows[1:], []string{"", "", "", "0.00", md.Currency.Unit + "0"}
			}
			// a row per service, its own line, then one per subservice
			i := 0
			next := func() []string {
				require.Less(t, i, len(body), "phase %q: a row per service and subservice", ph.Name)
				i++
				return body[i-1]
			}
			for _, svc := range ph.Services {
				r := next()
				assert.Equal(t, svc.Name, r[0])
				managed := svc.ServiceType == "managed_services"
				if managed {
					assert.Equal(t, []string{"", "recurring"}, r[3:], "a managed service is priced in its own section")
				} else {
					assert.Equal(t, svc.ExtendedHours, r[3], svc.Name)
					assert.Equal(t, enUS(md.Currency.Unit, svc.ExtendedRevenue), r[4], svc.Name)
					a.add(r[3], r[4])
				}
				own := newAdder()
				if !managed {
					own.add(r[3], r[4])
				}
				for _, sub := range svc.Subservices {
					r := next()
					assert.Equal(t, sub.Name, r[0])
					if managed {
						assert.Equal(t, []string{"", ""}, r[3:], "a managed service's subservice")
						continue
					}
					assert.Equal(t, sub.ExtendedHours, r[3], sub.Name)
					assert.Equal(t, enUS(md.Currency.Unit, sub.Revenue), r[4], sub.Name)
					a.add(r[3], r[4])
					own.add(r[3], r[4])
				}
				if !managed { // the service's rows add up to its total
					own.sums(enUS(md.Currency.Unit, svc.TotalHours), enUS(md.Currency.Unit, svc.Revenue), svc.Name)
				}
			}
			require.Equal(t, len(body), i, "phase %q: rows after its services", ph.Name)
			a.sums(last[3], last[4], "phase "+ph.Name)
			a.is(last[3], pt.ServiceHours, "phase "+ph.Name+" hours")
			a.is(last[4], pt.ServiceRevenue, "phase "+ph.Name+" price")
		case "Activity|Resource|Hours|Amount":
			g := res.ProjectGovernance
			i := 0
			for _, it := range g.Items {
				if it.Hours.IsZero() && it.Revenue.IsZero() {
					continue // left out
				}
				require.Less(t, i, len(body))
				assert.Equal(t, it.Name, body[i][0])
				a.is(body[i][2], it.Hours, it.Name)
				a.is(body[i][3], it.Revenue, it.Name)
				a.add(body[i][2], body[i][3])
				i++
			}
			assert.Len(t, body, i, "a row per governance item with hours or a price")
			a.sums(last[2], last[3], "governance")
			a.is(last[2], g.Hours, "governance hours")
			a.is(last[3], g.Revenue, "governance")
		case "Description|Category|Quantity|Rate|Amount":
			var items []item
			for _, it := range res.TravelAndExpense.Items {
				items = append(items, item{it.Description, map[int]pricing.Fixed{3: it.Rate, 4: it.Revenue}})
			}
			a.items(body, last, items, res.TravelAndExpense.Revenue, "travel and expense")
		case "Product|SKU|Quantity|Unit price|Amount":
			var items []item
			for _, it := range res.Materials.Items {
				items = append(items, item{it.Name, map[int]pricing.Fixed{3: it.UnitPrice, 4: it.Revenue}})
			}
			a.items(body, last, items, res.Materials.Revenue, "materials")
		case "Service|Frequency|Periods|Per period|Amount":
			var items []item
			for _, it := range res.ManagedServices.Items {
				items = append(items, item{it.Name, map[int]pricing.Fixed{2: it.Periods, 3: it.PeriodRevenue, 4: it.Revenue}})
			}
			a.items(body, last, items, res.ManagedServices.Revenue, "managed services")
		case "Item|Hours|Amount":
			s.checkSummary(t, newAdder, priced, phaseFigures, rows[1:])
		case "Resource|Hourly rate":
			rows := rows[1:]
			require.Len(t, rows, len(res.Resources.Rows))
			for i, r := range res.Resources.Rows {
				assert.Equal(t, r.ResourceName, rows[i][0])
				a.is(rows[i][1], r.HourlyRate, r.ResourceName+" rate")
			}
		case "Location|Address|City|Country", s.md.Project.ClientName + "|" + s.md.Project.AccountName:
		default:
			t.Errorf("a table the check does not know: %s", header)
		}
	}
	assert.Equal(t, len(phases), scopes, "a table per phase with services")
	tcv := enUS(md.Currency.Unit, res.TotalContractValue.String())
	assert.Contains(t, s.text, "the price of "+tcv+" ("+md.Currency.Code+")")
	if md.Project.PaymentTerm.PricingModel == "fixed_fee" {
		assert.Contains(t, s.text, "the fixed fee of "+tcv)
	}
	return seen
}

// checkSummary checks the pricing summary: the phases' services, project
// governance and the adjustment add up to professional services, which
// with what else the contract includes adds up to the contract value.
func (s *sow) checkSummary(t *testing.T, newAdder func() *adder, phases []int, phaseFigures func(int) pricing.PhaseTotals, rows [][]string) {
	t.Helper()
	res, md := s.snap.Pricing, s.md
	ps := res.ProfessionalServices
	a := newAdder()
	i := 0
	next := func() []string {
		require.Less(t, i, len(rows), "the pricing summary ends early")
		i++
		return rows[i-1]
	}
	for _, k := range phases {
		r, pt := next(), phaseFigures(k)
		name := md.Phases[k].Name
		if name == "" {
			name = "Services without a phase"
		}
		assert.Equal(t, name, r[0])
		a.is(r[1], pt.ServiceHours, name+" hours")
		a.is(r[2], pt.ServiceRevenue, name)
		a.add(r[1], r[2])
	}
	if g := res.ProjectGovernance; !g.Hours.IsZero() || !g.Revenue.IsZero() {
		r := next()
		assert.Equal(t, "Project governance", r[0])
		a.is(r[1], g.Hours, "governance hours")
		a.is(r[2], g.Revenue, "governance")
		a.add(r[1], r[2])
	}
	if adj := ps.RevenueAdjustment; !adj.IsZero() {
		r := next()
		assert.Equal(t, "Adjustment", r[0], "one name for the line, whatever its sign")
		a.is(r[2], adj, "adjustment")
		a.add("", r[2])
	}
	r := next()
	assert.Equal(t, "Professional services", r[0])
	a.sums(r[1], r[2], "professional services")
	a.is(r[1], ps.Hours, "professional services hours")
	a.is(r[2], ps.PSRevenue, "professional services")
	a = newAdder()
	a.add("", r[2])
	pay := md.Project.PaymentTerm
	for _, part := range []struct {
		label    string
		included bool
		revenue  pricing.Fixed
	}{
		{"Travel and expense", pay.IncludeExpenses && len(res.TravelAndExpense.Items) > 0, res.TravelAndExpense.Revenue},
		{"Materials", pay.IncludeHardware && len(res.Materials.Items) > 0, res.Materials.Revenue},
		{"Managed services", len(res.ManagedServices.Items) > 0, res.ManagedServices.Revenue},
	} {
		if part.included {
			r := next()
			assert.Equal(t, part.label, r[0])
			a.is(r[2], part.revenue, part.label)
			a.add("", r[2])
		}
	}
	r = next()
	assert.Equal(t, "Total contract value", r[0])
	a.sums("", r[2], "the contract value")
	a.is(r[2], res.TotalContractValue, "the contract value")
	assert.Equal(t, len(rows), i, "rows after the total")
}
