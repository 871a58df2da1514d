package mergedata

import (
	"time"

	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// V1 is merge data v1, the legacy shape: the project's fields at the top
// level, dates as MM/DD/YYYY strings ("" when unset), and revenue figures
// only (no cost, profit or margin).
type V1 struct {
	ProjectName            string     `json:"project_name"`
	ClientName             string     `json:"client_name"`
	AccountName            string     `json:"account_name"`
	PrintedOn              string     `json:"printed_on"` // the builder's "now"
	MSADate                string     `json:"msa_date"`   // the project's, else its client's
	ExecutiveSummary       string     `json:"executive_summary"`
	SolutionSummary        string     `json:"solution_summary"`
	OurResponsibilities    string     `json:"our_responsibilities"`
	ClientResponsibilities string     `json:"client_responsibilities"`
	OutOfScope             string     `json:"out_of_scope"`
	SalesExecutive         Person     `json:"sales_executive"`
	PresalesEngineer       Person     `json:"presales_engineer"`
	Locations              []Location `json:"locations"`
	Phases                 []Phase    `json:"phases"` // services without cost
	Pricing                V1Pricing  `json:"pricing"`
}

// V1Pricing is v1's pricing object.
type V1Pricing struct {
	TotalRevenue                pricing.Fixed  `json:"total_revenue"`                 // the contract's
	ProfessionalServicesRevenue pricing.Fixed  `json:"professional_services_revenue"` // v2's professional_services.revenue
	GovernanceRevenue           pricing.Fixed  `json:"governance_revenue"`
	ExpenseRevenue              pricing.Fixed  `json:"expense_revenue"`
	MaterialRevenue             pricing.Fixed  `json:"material_revenue"`
	TotalHours                  pricing.Fixed  `json:"total_hours"` // labor and governance
	Governance                  []V1Governance `json:"governance"`
	Expenses                    []V1Expense    `json:"expenses"`
}

// V1Governance is a governance line of v1.
type V1Governance struct {
	Name         string        `json:"name"`
	Hours        pricing.Fixed `json:"hours"`
	HourlyRate   pricing.Fixed `json:"hourly_rate"`
	Revenue      pricing.Fixed `json:"revenue"`
	ResourceName string        `json:"resource_name"`
}

// V1Expense is an expense line of v1.
type V1Expense struct {
	Description string        `json:"description"`
	Category    string        `json:"category"`
	Quantity    pricing.Fixed `json:"quantity"`
	Rate        pricing.Fixed `json:"rate"`
	Revenue     pricing.Fixed `json:"revenue"`
}

// BuildV1 returns the v1 merge data of snap, printed on now's date (in
// now's location).
func BuildV1(snap *views.Snapshot, now time.Time) *V1 {
	p, res := snap.Project, snap.Pricing
	locations, phases := lines(snap, false)
	out := &V1{
		ProjectName: p.ProjectName(), ClientName: opt(snap.Client, views.Client.Name), AccountName: snap.Account.Name(),
		PrintedOn: now.Format(shortDate), MSADate: shortDateAttr(msaDate(snap)),
		ExecutiveSummary: p.ExecutiveSummary(), SolutionSummary: p.SolutionSummary(),
		OurResponsibilities: p.OurResponsibilities(), ClientResponsibilities: p.ClientResponsibilities(),
		OutOfScope:     p.OutOfScope(),
		SalesExecutive: optPerson(snap.SalesExecutive), PresalesEngineer: optPerson(snap.PresalesEngineer),
		Locations: locations, Phases: phases,
		Pricing: V1Pricing{
			TotalRevenue:                res.TotalContractValue,
			ProfessionalServicesRevenue: res.ProfessionalServices.Revenue,
			GovernanceRevenue:           res.ProjectGovernance.Revenue,
			ExpenseRevenue:              res.TravelAndExpense.Revenue,
			MaterialRevenue:             res.Materials.Revenue,
			TotalHours:                  res.ProfessionalServices.Hours,
			Governance:                  make([]V1Governance, len(res.ProjectGovernance.Items)),
			Expenses:                    make([]V1Expense, len(res.TravelAndExpense.Items)),
		},
	}
	for i, g := range res.ProjectGovernance.Items {
		out.Pricing.Governance[i] = V1Governance{Name: g.Name, Hours: g.Hours, HourlyRate: g.HourlyRate, Revenue: g.Revenue, ResourceName: g.ResourceName}
	}
	for i, e := range res.TravelAndExpense.Items {
		out.Pricing.Expenses[i] = V1Expense{Description: e.Description, Category: e.Category, Quantity: e.Quantity, Rate: e.Rate, Revenue: e.Revenue}
	}
	return out
}
