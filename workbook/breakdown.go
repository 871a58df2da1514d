package workbook

import (
	"time"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
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
// total hours and revenue. A phase row's figures are the sums of its
// service and governance rows; the total is the sum of the phases.
// Managed services, which pricing counts in no phase, follow the total in
// a group of their own.
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
	// Managed services are listed in their phases by merge data but, as in
	// pricing, not counted there: they have a group of their own after the
	// total, so that each phase row and the total add up from the rows
	// they show.
	var managed []phaseService
	for k, ph := range v2.Phases {
		name := ph.Name
		if name == "" {
			name = "No phase"
		}
		var services []mergedata.Service
		for _, s := range ph.Services {
			if s.ServiceType == pricing.TypeManagedServices {
				managed = append(managed, phaseService{name, s})
			} else {
				services = append(services, s)
			}
		}
		if k >= len(res.Phases) && len(services) == 0 {
			continue // merge data's entry for managed services without a phase
		}
		b.line(cell{name, st.bold}, b.text(name), cell{}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{},
			cell{figure(ph.TotalHours), st.hours}, cell{figure(ph.TotalRevenue), st.money})
		for _, s := range services {
			b.service(name, s)
		}
		// A share of governance can round to 0 hours and still carry
		// money.
		if k < len(res.Phases) && (!res.Phases[k].GovernanceHours.IsZero() || !res.Phases[k].GovernanceRevenue.IsZero()) {
			g := res.Phases[k]
			b.outlined(1, cell{"Project governance", st.indent1}, b.text(name), cell{}, cell{}, cell{}, cell{}, cell{}, cell{},
				cell{}, b.hours(g.GovernanceHours), b.money(g.GovernanceRevenue))
		}
	}
	ps := res.ProfessionalServices
	b.total("Total", 11, b.thours(ps.Hours), b.tmoney(sum(ps.ServiceRevenue, ps.PMRevenue)))
	if len(managed) > 0 {
		// Their hours are per billing period: the group shows no sum of
		// them.
		b.row++
		b.line(cell{"Managed services", st.bold}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{}, cell{},
			b.money(res.ManagedServices.Revenue))
		for _, m := range managed {
			b.service(m.phase, m.Service)
		}
	}
	return b.bytes()
}

// phaseService is a service with the name of its phase.
type phaseService struct {
	phase string
	mergedata.Service
}

// service writes a service row and its subservices' rows under it.
func (b *book) service(phase string, s mergedata.Service) {
	st := b.st
	b.outlined(1, cell{s.Name, st.indent1}, b.text(phase), b.text(s.Name), cell{}, b.text(s.ResourceName), b.text(s.LocationName),
		cell{figure(s.Quantity), st.hours}, cell{figure(s.UnitHours), st.hours}, cell{figure(s.ExtendedHours), st.hours},
		cell{figure(s.TotalHours), st.hours}, cell{figure(s.Revenue), st.money})
	for _, sub := range s.Subservices {
		b.outlined(2, cell{sub.Name, st.indent2}, b.text(phase), b.text(s.Name), b.text(sub.Name), b.text(sub.ResourceName), b.text(s.LocationName),
			cell{figure(sub.Quantity), st.hours}, cell{figure(sub.UnitHours), st.hours}, cell{figure(sub.ExtendedHours), st.hours},
			cell{figure(sub.ExtendedHours), st.hours}, cell{figure(sub.Revenue), st.money})
	}
}

// figure reads a merge-data figure (a decimal text); "" is no value.
func figure(s string) any {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return nil
	}
	return d
}
