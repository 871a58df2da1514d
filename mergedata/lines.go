package mergedata

import (
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// Location is a project location with the services delivered there;
// services without a location are listed in their phases only.
type Location struct {
	Name       string            `json:"name"`
	Address    string            `json:"address"`
	City       string            `json:"city"`
	Region     string            `json:"region"`
	Country    string            `json:"country"`
	PostalCode string            `json:"postal_code"`
	Remote     bool              `json:"remote"`
	Services   []LocationService `json:"services"`
}

// LocationService is a service as a location lists it.
type LocationService struct {
	Name       string `json:"name"`
	Quantity   string `json:"quantity"`
	TotalHours string `json:"total_hours"`
	Revenue    string `json:"revenue"`
}

// Phase is a project phase with its services, in pricing's phase order.
// TotalHours and TotalRevenue are pricing's per-phase breakdown: the
// phase's professional services and the governance allocated to it
// (managed services are listed in their phase but, as in pricing, not
// counted there). v2 also has the two parts apart: ServiceHours and
// ServiceRevenue add up from the phase's professional services,
// GovernanceHours and GovernanceRevenue are the governance allocated to
// it. A last phase with an empty name holds the services without a phase
// (or with an unknown one), when there are any.
type Phase struct {
	Name              string    `json:"name"`
	Slug              string    `json:"slug"`
	SOWLanguage       string    `json:"sow_language"`
	TotalHours        string    `json:"total_hours"`
	TotalRevenue      string    `json:"total_revenue"`
	ServiceHours      string    `json:"service_hours,omitempty"` // v2 only, as the three below
	ServiceRevenue    string    `json:"service_revenue,omitempty"`
	GovernanceHours   string    `json:"governance_hours,omitempty"`
	GovernanceRevenue string    `json:"governance_revenue,omitempty"`
	Services          []Service `json:"services"`
}

// Service is a project service with its subservices. For a managed
// service (ServiceType managed_services) the hours are per billing period
// and Revenue and Cost the contract's, as pricing reports them. Cost is
// present in v2 only.
type Service struct {
	Name          string `json:"name"`
	Description   string `json:"description"`
	SKU           string `json:"sku"`
	ServiceType   string `json:"service_type"`
	Quantity      string `json:"quantity"`
	UnitHours     string `json:"unit_hours"`
	ExtendedHours string `json:"extended_hours"` // this line: quantity × unit hours
	TotalHours    string `json:"total_hours"`    // with its subservices
	ResourceName  string `json:"resource_name"`
	LocationName  string `json:"location_name"`
	Revenue       string `json:"revenue"` // with its subservices
	Cost          string `json:"cost,omitempty"`
	// ExtendedRevenue is this line's revenue, without its subservices
	// (v2): beside extended_hours, the subservices' rows add up to revenue.
	ExtendedRevenue string       `json:"extended_revenue,omitempty"`
	Subservices     []Subservice `json:"subservices"`
}

// Subservice is a project subservice. Its ResourceName is the resource it
// is priced at: its own, else its service's. Cost is present in v2 only.
type Subservice struct {
	Name          string `json:"name"`
	Quantity      string `json:"quantity"`
	UnitHours     string `json:"unit_hours"`
	ExtendedHours string `json:"extended_hours"`
	ResourceName  string `json:"resource_name"`
	Revenue       string `json:"revenue"`
	Cost          string `json:"cost,omitempty"`
}

// lines builds the locations and phases of a snapshot in one pass over its
// services, with costs when withCost (v2).
func lines(snap *views.Snapshot, withCost bool) ([]Location, []Phase) {
	res := snap.Pricing
	resourceName := make(map[string]string, len(snap.Resources))
	for _, r := range snap.Resources {
		resourceName[r.ID] = r.Name()
	}

	locations := make([]Location, len(snap.Locations))
	locationAt := make(map[string]int, len(snap.Locations))
	for k, l := range snap.Locations {
		locationAt[l.ID] = k
		locations[k] = Location{Name: l.Name(), Address: l.Address(), City: l.City(),
			Region: l.Region(), Country: l.Country(), PostalCode: l.PostalCode(),
			Remote: l.Remote(), Services: []LocationService{}}
	}

	sowLanguage := make(map[string]string, len(snap.Phases))
	for _, p := range snap.Phases {
		sowLanguage[p.ID] = p.SowLanguage()
	}
	phases := make([]Phase, 0, len(res.Phases)+1)
	phaseAt := make(map[string]int, len(res.Phases)) // "" is the entry of services without a phase
	for _, pt := range res.Phases {
		phaseAt[pt.PhaseID] = len(phases)
		phases = append(phases, phaseOf(pt, sowLanguage[pt.PhaseID], withCost))
	}

	nsub := 0
	for _, subs := range snap.Subservices {
		nsub += len(subs)
	}
	subBuf := make([]Subservice, nsub)
	for i, svc := range snap.Services {
		f := res.Service(i)
		resource := resourceName[svc.ProjectResource()]
		loc, located := locationAt[svc.ProjectLocation()]
		// Quantities show the entered text (Str), not the parsed decimal.
		s := Service{Name: svc.Name(), Description: svc.ServiceDescription(), SKU: svc.Sku(),
			ServiceType: svc.ServiceType(), Quantity: quantity(svc.Str(views.NameQuantity)), UnitHours: quantity(svc.Str(views.NameUnitHours)),
			ExtendedHours: f.ExtendedHours.String(), TotalHours: f.TotalHours.String(),
			ResourceName: resource, Revenue: f.Revenue.String()}
		if withCost {
			s.Cost, s.ExtendedRevenue = f.Cost.String(), f.ExtendedRevenue.String()
		}
		if located {
			s.LocationName = locations[loc].Name
		}
		subs := snap.Subservices[i]
		s.Subservices, subBuf = subBuf[:len(subs):len(subs)], subBuf[len(subs):]
		for j, sub := range subs {
			sf := res.Subservice(i, j)
			ss := &s.Subservices[j]
			*ss = Subservice{Name: sub.Name(), Quantity: quantity(sub.Str(views.NameQuantity)), UnitHours: quantity(sub.Str(views.NameUnitHours)),
				ExtendedHours: sf.ExtendedHours.String(), ResourceName: resource, Revenue: sf.Revenue.String()}
			if id := sub.ProjectResource(); id != "" {
				ss.ResourceName = resourceName[id]
			}
			if withCost {
				ss.Cost = sf.Cost.String()
			}
		}

		k, ok := phaseAt[svc.ProjectPhase()]
		if !ok {
			if k, ok = phaseAt[""]; !ok { // a managed service without a phase: pricing has no entry for it
				k = len(phases)
				phaseAt[""] = k
				h, m := zero(2), zero(res.Currency.MinorUnits)
				phases = append(phases, phaseOf(pricing.PhaseTotals{Hours: h, Revenue: m, ServiceHours: h, ServiceRevenue: m,
					GovernanceHours: h, GovernanceRevenue: m}, "", withCost))
			}
		}
		phases[k].Services = append(phases[k].Services, s)
		if located {
			locations[loc].Services = append(locations[loc].Services,
				LocationService{Name: s.Name, Quantity: s.Quantity, TotalHours: s.TotalHours, Revenue: s.Revenue})
		}
	}
	return locations, phases
}

// phaseOf is the entry of a phase of pricing's breakdown with its project
// phase's SOW language ("" for the entry without a phase), with the
// figures of its services and its governance apart when v2.
func phaseOf(pt pricing.PhaseTotals, sowLanguage string, v2 bool) Phase {
	ph := Phase{Name: pt.Name, Slug: pricing.Slug(pt.Name), SOWLanguage: sowLanguage,
		TotalHours: pt.Hours.String(), TotalRevenue: pt.Revenue.String(), Services: []Service{}}
	if v2 {
		ph.ServiceHours, ph.ServiceRevenue = pt.ServiceHours.String(), pt.ServiceRevenue.String()
		ph.GovernanceHours, ph.GovernanceRevenue = pt.GovernanceHours.String(), pt.GovernanceRevenue.String()
	}
	return ph
}

// zero is 0 shown with places decimals.
func zero(places int) pricing.Fixed {
	return pricing.Fixed{Decimal: decimal.New(0, -int32(places))}
}
