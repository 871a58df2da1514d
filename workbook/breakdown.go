package workbook

import (
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Breakdown returns the work breakdown of a snapshot as an XLSX
// workbook, one sheet "Breakdown": per phase (in pricing's order) a phase
// row with its hours and revenue, its services, each followed by its
// subservices, and the governance allocated to the phase; then the project
// total. Rows are grouped (outline levels) phase → service → subservice,
// and each row repeats its phase and service so the sheet filters well.
// Service rows show the line's own hours and, with its subservices, the
// total hours and revenue.
func Breakdown(snap *views.Snapshot) ([]byte, error) {
	res := snap.Pricing
	b, err := newBook(res.Currency)
	if err != nil {
		return nil, err
	}
	st := b.st
	v2 := mergedata.BuildV2(snap, time.Time{})
	b.newSheet("Breakdown", 3, 36, 22, 28, 26, 20, 18, 10, 11, 11, 12, 16)
	b.line(cell{snap.Project.ProjectName(), st.title})
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

// figure reads a merge-data figure (a decimal text); "" is no value.
func figure(s string) any {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return nil
	}
	return d
}
