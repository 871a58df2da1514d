package pricing

import (
	"encoding/json"
	"math/big"

	"github.com/shopspring/decimal"
)

// Result is every figure of a priced project. Its exported fields are the
// members of merge data v2's project_pricing (docs/mergedata.md) plus currency,
// phases, locations and warnings; their JSON names are those names.
//
// Per-record figures follow the input's order: ProjectGovernance.Items[i],
// TravelAndExpense.Items[i] and Materials.Items[i] are those of
// Project.Governance[i], Project.Expenses[i] and Project.Products[i];
// Service(i), Subservice(i, j) and Resource(i) return those of
// Project.Services[i], Project.Services[i].Subservices[j] and
// Project.Resources[i]. The labor lines are kept compact and turned into
// decimals only when asked for, since a read usually needs a few of them.
// A Result decoded from JSON has the JSON members only: Service,
// Subservice, Resource and ToDefault need a Result made by Price.
type Result struct {
	Currency             Currency             `json:"currency"`
	ProfessionalServices ProfessionalServices `json:"professional_services"`
	ProjectGovernance    ProjectGovernance    `json:"project_governance"`
	TravelAndExpense     TravelAndExpense     `json:"travel_and_expense"`
	Materials            Materials            `json:"materials"`
	ManagedServices      ManagedServices      `json:"managed_services"`
	Resources            ResourceTable        `json:"resources"`

	// The contract: professional services, managed services, and expenses
	// and hardware as the payment term includes them.
	TotalContractValue  Fixed `json:"total_contract_value"`
	TotalContractCost   Fixed `json:"total_contract_cost"`
	TotalContractProfit Fixed `json:"total_contract_profit"`
	TotalContractMargin Fixed `json:"total_contract_margin"` // profit / value, 4 places; 0 without value

	// Phases is the per-phase breakdown of labor and governance, in phase
	// order; an entry with an empty PhaseID, last, collects what has no
	// phase (or an unknown one) and is present only when there is any.
	// ProfessionalServices.Phases is the same slice.
	Phases []PhaseTotals `json:"phases"`
	// Locations is the per-location breakdown of labor (governance is
	// not spread over locations), in the order of Project.Locations; an
	// entry with an empty LocationID, last, collects labor without a
	// location (or with an unknown one) and is present only when there is any.
	Locations []LocationTotals `json:"locations"`
	// Warnings lists what was priced at 0 or set aside rather than failing
	// the project (a line without a resource, an unknown id).
	Warnings []Warning `json:"warnings"`

	minor          int32 // the currency's minor units
	defaultMinor   int32
	conversionRate decimal.Decimal
	services       []serviceFigs
	subservices    []lineFigs // every service's subservices, one after the other
	resources      []resourceFigs
	bigs           []*big.Int // figs that do not fit an int64
}

// ProfessionalServices is labor (service_*), governance (pm_*) and the
// adjustments. Revenue, Cost and Profit include materials when the payment
// term includes hardware; PSRevenue, PSCost and PSProfit never do.
type ProfessionalServices struct {
	Revenue           Fixed         `json:"revenue"`
	Cost              Fixed         `json:"cost"`
	CostAdjustment    Fixed         `json:"cost_adjustment"`
	Profit            Fixed         `json:"profit"`
	PSRevenue         Fixed         `json:"ps_revenue"` // service_revenue + pm_revenue + revenue_adjustment
	PSCost            Fixed         `json:"ps_cost"`    // service_cost + pm_cost + cost_adjustment
	PSProfit          Fixed         `json:"ps_profit"`
	RevenueAdjustment Fixed         `json:"revenue_adjustment"`
	Hours             Fixed         `json:"hours"` // service_hours + pm_hours: the project's total hours
	ServiceHours      Fixed         `json:"service_hours"`
	ServiceRevenue    Fixed         `json:"service_revenue"`
	ServiceCost       Fixed         `json:"service_cost"`
	PMHours           Fixed         `json:"pm_hours"`
	PMRevenue         Fixed         `json:"pm_revenue"`
	PMCost            Fixed         `json:"pm_cost"`
	Phases            []PhaseTotals `json:"phases"`
}

// ProjectGovernance is the governance section; Items follow
// Project.Governance.
type ProjectGovernance struct {
	Hours   Fixed            `json:"hours"`
	Revenue Fixed            `json:"revenue"`
	Cost    Fixed            `json:"cost"`
	Profit  Fixed            `json:"profit"`
	Items   []GovernanceItem `json:"items"`
}

// GovernanceItem is one priced governance item.
type GovernanceItem struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	ResourceName string `json:"resource_name"`
	Hours        Fixed  `json:"hours"`
	HourlyRate   Fixed  `json:"hourly_rate"` // the resource's; 0 without one
	HourlyCost   Fixed  `json:"hourly_cost"`
	Revenue      Fixed  `json:"revenue"`
	Cost         Fixed  `json:"cost"`
	Profit       Fixed  `json:"profit"`
	// Phases is the item's allocation, in phase order; it sums exactly to
	// the item. PhaseID is empty for the share that has no phase.
	Phases []PhaseShare `json:"phases"`
}

// PhaseShare is the part of a governance item allocated to one phase.
type PhaseShare struct {
	PhaseID string `json:"phase_id"`
	Hours   Fixed  `json:"hours"`
	Revenue Fixed  `json:"revenue"`
	Cost    Fixed  `json:"cost"`
}

// TravelAndExpense is the expense section; Items follow Project.Expenses.
// Its figures are always the actual ones; the contract counts them only
// when the payment term includes expenses.
type TravelAndExpense struct {
	Revenue Fixed         `json:"revenue"`
	Cost    Fixed         `json:"cost"`
	Profit  Fixed         `json:"profit"`
	Items   []ExpenseItem `json:"items"`
}

// ExpenseItem is one priced expense.
type ExpenseItem struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Category    string `json:"category"`
	Quantity    Fixed  `json:"quantity"`
	Rate        Fixed  `json:"rate"`
	UnitCost    Fixed  `json:"unit_cost"` // the rate when the expense has none
	Revenue     Fixed  `json:"revenue"`
	Cost        Fixed  `json:"cost"`
	Profit      Fixed  `json:"profit"`
}

// Materials is the hardware section; Items follow Project.Products. Its
// figures are always the actual ones; the contract and professional
// services count them only when the payment term includes hardware.
type Materials struct {
	Revenue Fixed          `json:"revenue"`
	Cost    Fixed          `json:"cost"`
	Profit  Fixed          `json:"profit"`
	Items   []MaterialItem `json:"items"`
}

// MaterialItem is one priced product.
type MaterialItem struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	SKU       string `json:"sku"`
	Quantity  Fixed  `json:"quantity"`
	UnitPrice Fixed  `json:"unit_price"`
	UnitCost  Fixed  `json:"unit_cost"`
	Revenue   Fixed  `json:"revenue"`
	Cost      Fixed  `json:"cost"`
	Profit    Fixed  `json:"profit"`
}

// ManagedServices is the managed services section: one item per managed
// project service, in the order of Project.Services.
type ManagedServices struct {
	Revenue Fixed         `json:"revenue"`
	Cost    Fixed         `json:"cost"`
	Profit  Fixed         `json:"profit"`
	Items   []ManagedItem `json:"items"`
}

// ManagedItem is one managed service with its subservices: per-period
// figures, and contract figures (each line's per-period figure × Periods,
// rounded, then summed).
type ManagedItem struct {
	ServiceID        string `json:"service_id"`
	Name             string `json:"name"`
	PaymentFrequency string `json:"payment_frequency"`
	Periods          Fixed  `json:"periods"` // mrr_terms / months per period, 2 places; 1 for one_time
	Hours            Fixed  `json:"hours"`   // per period
	PeriodRevenue    Fixed  `json:"period_revenue"`
	PeriodCost       Fixed  `json:"period_cost"`
	Revenue          Fixed  `json:"revenue"`
	Cost             Fixed  `json:"cost"`
	Profit           Fixed  `json:"profit"`
}

// ResourceTable is the resources table: one row per resource that a labor
// line or governance item uses, sorted by name, and the total row. Its JSON
// form is one array, the rows then the total row, as merge data has it.
type ResourceTable struct {
	Rows  []ResourceRow
	Total ResourceTotal
}

// MarshalJSON encodes t as [rows..., total].
func (t ResourceTable) MarshalJSON() ([]byte, error) {
	all := make([]any, 0, len(t.Rows)+1)
	for i := range t.Rows {
		all = append(all, &t.Rows[i])
	}
	return json.Marshal(append(all, &t.Total))
}

// UnmarshalJSON decodes [rows..., total] as MarshalJSON encodes it.
func (t *ResourceTable) UnmarshalJSON(b []byte) error {
	var all []json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	*t = ResourceTable{Rows: make([]ResourceRow, 0, len(all))}
	for i, raw := range all {
		if i == len(all)-1 {
			var slug struct {
				Slug string `json:"resource_slug"`
			}
			if err := json.Unmarshal(raw, &slug); err != nil {
				return err
			}
			if slug.Slug == TotalSlug {
				return json.Unmarshal(raw, &t.Total)
			}
		}
		var row ResourceRow
		if err := json.Unmarshal(raw, &row); err != nil {
			return err
		}
		t.Rows = append(t.Rows, row)
	}
	return nil
}

// ResourceRow is one resource's labor and governance.
type ResourceRow struct {
	ResourceID   string `json:"resource_id"`
	ResourceName string `json:"resource_name"`
	ResourceSlug string `json:"resource_slug"`
	Hours        Fixed  `json:"hours"`
	HourlyRate   Fixed  `json:"hourly_rate"`
	HourlyCost   Fixed  `json:"hourly_cost"`
	Revenue      Fixed  `json:"revenue"`
	Cost         Fixed  `json:"cost"`
	Profit       Fixed  `json:"profit"`
}

// TotalSlug is the resource_slug of the resources table's total row.
const TotalSlug = "project_total"

// ResourceTotal is the total row of the resources table. Its costs are
// always the actual ones, included in the contract or not; TotalCost,
// TotalRevenue and TotalProfit are the contract's. HourlyRate and
// HourlyCost are blended over labor and governance.
type ResourceTotal struct {
	ResourceName   string `json:"resource_name"`
	ResourceSlug   string `json:"resource_slug"` // TotalSlug
	Hours          Fixed  `json:"hours"`
	ServiceCost    Fixed  `json:"service_cost"`
	PMCost         Fixed  `json:"pm_cost"`
	ExpenseCost    Fixed  `json:"expense_cost"`
	MaterialCost   Fixed  `json:"material_cost"`
	CostAdjustment Fixed  `json:"cost_adjustment"`
	TotalCost      Fixed  `json:"total_cost"`
	TotalRevenue   Fixed  `json:"total_revenue"`
	TotalProfit    Fixed  `json:"total_profit"`
	HourlyRate     Fixed  `json:"hourly_rate"`
	HourlyCost     Fixed  `json:"hourly_cost"`
}

// PhaseTotals is one phase's labor and allocated governance.
type PhaseTotals struct {
	PhaseID           string `json:"phase_id"`
	Name              string `json:"name"`
	ServiceHours      Fixed  `json:"service_hours"`
	ServiceRevenue    Fixed  `json:"service_revenue"`
	ServiceCost       Fixed  `json:"service_cost"`
	GovernanceHours   Fixed  `json:"governance_hours"`
	GovernanceRevenue Fixed  `json:"governance_revenue"`
	GovernanceCost    Fixed  `json:"governance_cost"`
	Hours             Fixed  `json:"hours"`
	Revenue           Fixed  `json:"revenue"`
	Cost              Fixed  `json:"cost"`
	Profit            Fixed  `json:"profit"`
}

// LocationTotals is one location's labor.
type LocationTotals struct {
	LocationID string `json:"location_id"`
	Name       string `json:"name"`
	Hours      Fixed  `json:"hours"`
	Revenue    Fixed  `json:"revenue"`
	Cost       Fixed  `json:"cost"`
	Profit     Fixed  `json:"profit"`
}

// Warning codes.
const (
	WarnNoResource      = "no_resource"      // a line without a resource: priced at 0
	WarnUnknownResource = "unknown_resource" // a resource id not on the project: priced at 0
	WarnUnknownPhase    = "unknown_phase"    // a phase id not on the project: counted without a phase
	WarnUnknownLocation = "unknown_location" // a location id not on the project: counted without a location
)

// Warning is something priced at 0 or set aside. Line names the input line
// as validation errors do ("services[3].subservices[0]", "governance[1]").
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    string `json:"line"`
	ID      string `json:"id"`
}

// LineFigures are the computed attributes of a project service or
// subservice. For a service, TotalHours, Revenue and Cost include its
// subservices (for a subservice TotalHours is its ExtendedHours). For a
// managed service the hours are per billing period and Revenue and Cost are
// the contract's (per period × periods).
type LineFigures struct {
	ExtendedHours Fixed
	TotalHours    Fixed
	Revenue       Fixed
	Cost          Fixed
	// ExtendedRevenue is the line's own revenue: a service's without its
	// subservices (its Revenue is with them); a subservice's Revenue.
	ExtendedRevenue Fixed
}

// ResourceFigures are the computed attributes of a project resource: its
// labor and governance.
type ResourceFigures struct {
	TotalHours Fixed
	Revenue    Fixed
	Cost       Fixed
}

// fig is a zero or positive figure of a line: the scaled value itself, or
// ^k for Result.bigs[k] when it does not fit an int64.
type fig int64

type lineFigs struct {
	hours, revenue, cost fig
}

type serviceFigs struct {
	lineFigs             // this line
	total       lineFigs // with its subservices
	subservices int32    // index of its first subservice in Result.subservices
}

type resourceFigs struct {
	laborAcc
	used bool // by a labor line or a governance item
}

func (r *Result) fig(n num) fig {
	if n.b == nil {
		return fig(n.i)
	}
	r.bigs = append(r.bigs, n.b)
	return ^fig(len(r.bigs) - 1)
}

func (r *Result) num(f fig) num {
	if f >= 0 {
		return num{i: int64(f)}
	}
	return num{b: r.bigs[^f]}
}

func (r *Result) hours(f fig) Fixed { return Fixed{r.num(f).dec(2)} }
func (r *Result) money(f fig) Fixed { return Fixed{r.num(f).dec(r.minor)} }

// Service returns the figures of Project.Services[i].
func (r *Result) Service(i int) LineFigures {
	s := &r.services[i]
	return LineFigures{
		ExtendedHours:   r.hours(s.hours),
		TotalHours:      r.hours(s.total.hours),
		Revenue:         r.money(s.total.revenue),
		Cost:            r.money(s.total.cost),
		ExtendedRevenue: r.money(s.revenue),
	}
}

// Subservice returns the figures of Project.Services[i].Subservices[j].
// It panics when j is out of range, as indexing would.
func (r *Result) Subservice(i, j int) LineFigures {
	s := &r.services[i]
	end := len(r.subservices)
	if i+1 < len(r.services) {
		end = int(r.services[i+1].subservices)
	}
	l := &r.subservices[int(s.subservices):end][j]
	h := r.hours(l.hours)
	return LineFigures{ExtendedHours: h, TotalHours: h, Revenue: r.money(l.revenue), Cost: r.money(l.cost), ExtendedRevenue: r.money(l.revenue)}
}

// Resource returns the figures of Project.Resources[i].
func (r *Result) Resource(i int) ResourceFigures {
	x := &r.resources[i]
	return ResourceFigures{TotalHours: Fixed{x.hours.dec(2)}, Revenue: Fixed{x.revenue.dec(r.minor)}, Cost: Fixed{x.cost.dec(r.minor)}}
}

// TotalHours returns the project's total hours: labor of services and
// subservices, and governance.
func (r *Result) TotalHours() Fixed { return r.ProfessionalServices.Hours }

// ToDefault converts an amount of the project's currency into the
// account's default currency: amount / conversion rate, rounded half away
// from zero to the default currency's minor units.
func (r *Result) ToDefault(amount decimal.Decimal) Fixed {
	rate := r.conversionRate
	if rate.IsZero() { // a Result that Price did not make
		rate = decimal.New(1, 0)
	}
	return Fixed{amount.DivRound(rate, r.defaultMinor)}
}
