package pricing

import (
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// Service types.
const (
	TypeProfessionalServices = "professional_services"
	TypeManagedServices      = "managed_services"
)

// Payment frequencies of managed services.
const (
	FrequencyOneTime   = "one_time"
	FrequencyMonthly   = "monthly"
	FrequencyQuarterly = "quarterly"
	FrequencyAnnually  = "annually"
)

// Governance calculation types.
const (
	PercentOfTotal = "percent_of_total"
	FixedHours     = "fixed_hours"
)

// Governance allocation methods.
const (
	ProratePhasesByEffort = "prorate_phases_by_effort"
	AssignToPhase         = "assign_to_phase"
	AssignToCategory      = "assign_to_category"
)

// Governance filter types.
const (
	FilterAllServices     = "all_services"
	FilterPhase           = "phase"
	FilterServiceCategory = "service_category"
)

// DefaultMRRTerms is the contract length in months of a project that names none.
const DefaultMRRTerms = 12

// MaxDigits bounds every decimal input: at most MaxDigits digits before
// and MaxDigits after the decimal point. Larger values are far beyond any
// price; they would only make exact arithmetic build numbers of tens of
// thousands of digits on every read.
const MaxDigits = 1000

// maxMinorUnits bounds a currency's minor units.
const maxMinorUnits = 18

// Currency is an ISO 4217 code and its minor units (2 for USD, 0 for JPY).
// MinorUnits is taken as given: the caller supplies the currency record's
// value (whose default is 2).
type Currency struct {
	Code       string `json:"code"`
	MinorUnits int    `json:"minor_units"`
}

// FromDefault converts a catalog amount, in the account's default
// currency, into the currency cur of a project: amount × rate (how many
// units of cur one default unit buys), rounded half away from zero to
// cur's minor units. A project's lines take catalog amounts through it
// when they are created (pricing.md, "Currency").
func FromDefault(amount, rate decimal.Decimal, cur Currency) decimal.Decimal {
	return roundHalfAway(amount.Mul(rate), int32(min(max(cur.MinorUnits, 0), maxMinorUnits)))
}

// Project is what Price needs of a project: flat value types, ids being the
// caller's record ids. Lines refer to resources, phases and locations by id;
// an empty id means none.
type Project struct {
	Currency        Currency // the currency of the project's rate table
	DefaultCurrency Currency // the account's default; zero: Currency
	// ConversionRate is how many units of Currency one unit of
	// DefaultCurrency buys; zero means 1, which only a project priced in
	// the default currency may leave unset.
	ConversionRate decimal.Decimal
	MRRTerms       int // contract months for managed services; 0: DefaultMRRTerms

	// From the payment term (a project without one includes expenses and
	// not hardware: the caller sets these accordingly).
	IncludeExpenses bool
	IncludeHardware bool

	RevenueAdjustment decimal.Decimal // money, may be negative
	CostAdjustment    decimal.Decimal // money, may be negative

	Resources  []Resource
	Phases     []Phase
	Locations  []Location
	Services   []Service
	Governance []Governance
	Expenses   []Expense
	Products   []Product
}

// Resource is a project resource with its rate and cost per hour.
type Resource struct {
	ID         string
	Name       string
	Slug       string // optional; derived from Name when empty
	HourlyRate decimal.Decimal
	HourlyCost decimal.Decimal
}

// Phase is a project phase; phases are ordered by Position (ties keep the
// order of Project.Phases).
type Phase struct {
	ID       string
	Name     string
	Position int
}

// Location is a project location.
type Location struct {
	ID   string
	Name string
}

// Service is a project service: one line, plus one per subservice.
type Service struct {
	ID   string
	Name string
	// Type is TypeProfessionalServices (or empty, which means the same) or
	// TypeManagedServices.
	Type string
	// PaymentFrequency is the billing period of a managed service:
	// FrequencyMonthly (or empty, which means the same), FrequencyQuarterly,
	// FrequencyAnnually or FrequencyOneTime. Professional services ignore it.
	PaymentFrequency string
	Quantity         decimal.Decimal
	UnitHours        decimal.Decimal
	ResourceID       string
	PhaseID          string
	LocationID       string
	CategoryID       string
	Subservices      []Subservice
	// Status is the delivery status (StatusNotStarted, or empty, which
	// means the same; StatusInProgress, StatusOnHold, StatusComplete,
	// StatusCanceled) and ActualHours the hours spent on this line so far.
	// Price ignores both; DeliveryFigures reads them.
	Status      string
	ActualHours decimal.Decimal
}

// Subservice is a project subservice. It shares its parent's type, phase,
// location and category.
type Subservice struct {
	ID         string
	Name       string
	Quantity   decimal.Decimal // not multiplied by the parent's quantity
	UnitHours  decimal.Decimal
	ResourceID string // empty: the parent's resource
	// ActualHours are the hours spent on this line so far (DeliveryFigures).
	ActualHours decimal.Decimal
}

// Governance is a project governance item.
type Governance struct {
	ID   string
	Name string
	// CalculationType is PercentOfTotal (hours = Rate × the labor hours in
	// scope) or FixedHours (hours = FixedHours).
	CalculationType string
	Rate            decimal.Decimal // 0 <= Rate < 10 (0.15 is 15 %)
	FixedHours      decimal.Decimal
	// AllocationMethod is ProratePhasesByEffort (or empty, which means the
	// same), AssignToPhase (PhaseID) or AssignToCategory (CategoryID).
	AllocationMethod string
	// FilterType is the scope of a PercentOfTotal base: FilterAllServices
	// (or empty, which means the same), FilterPhase (PhaseID) or
	// FilterServiceCategory (CategoryID).
	FilterType string
	ResourceID string
	PhaseID    string
	CategoryID string
}

// Expense is a travel and expense line.
type Expense struct {
	ID          string
	Description string
	Category    string // the expense category's name, shown as is
	Quantity    decimal.Decimal
	Rate        decimal.Decimal
	UnitCost    decimal.NullDecimal // unset: Rate
}

// Product is a materials (hardware) line.
type Product struct {
	ID        string
	Name      string
	SKU       string
	Quantity  decimal.Decimal
	UnitPrice decimal.Decimal
	UnitCost  decimal.Decimal
}

// Validate reports the first input Price cannot price, as an *scopekit.Error
// with code scopekit.EINVALID whose Field names the line and field (for
// example "services[3].subservices[0].quantity"): a negative quantity,
// hours, rate, cost or price; a governance rate outside [0, 10); an unknown
// type, frequency, calculation, allocation or filter; a governance item
// allocated or filtered by phase or category that names none; minor units
// outside [0, 18]; a negative or missing conversion rate; negative MRR
// terms; a decimal with more than MaxDigits digits before or after the
// point. Services are checked last. References to ids that are not on the
// project are not errors: Price reports them as warnings.
func (p *Project) Validate() error {
	if err := p.validateAllButServices(); err != nil {
		return err
	}
	return p.validateServices()
}

// validateServices validates the services and subservices. Price checks
// them inline with the same rules (Service.billing, and opOf's validity,
// which is checkFields') while it prices them, and calls validateServices
// only to name what failed.
func (p *Project) validateServices() error {
	for i := range p.Services {
		if err := p.Services[i].validate(i); err != nil {
			return err
		}
	}
	return nil
}

func (p *Project) validateAllButServices() error {
	for _, c := range [...]struct {
		field string
		units int
	}{{"currency.minor_units", p.Currency.MinorUnits}, {"default_currency.minor_units", p.DefaultCurrency.MinorUnits}} {
		if c.units < 0 || c.units > maxMinorUnits {
			return scopekit.FieldErrorf(scopekit.EINVALID, c.field, "minor units must be between 0 and %d", maxMinorUnits)
		}
	}
	if err := checkFields(lineRef{}, field{"conversion_rate", p.ConversionRate}); err != nil {
		return err
	}
	if p.ConversionRate.IsZero() && p.DefaultCurrency.Code != "" && p.DefaultCurrency != p.Currency {
		return scopekit.FieldErrorf(scopekit.EINVALID, "conversion_rate", "a project priced in another currency than the default needs a conversion rate")
	}
	if p.MRRTerms < 0 {
		return scopekit.FieldErrorf(scopekit.EINVALID, "mrr_terms", "MRR terms must be zero or positive")
	}
	for _, f := range [...]field{{"revenue_adjustment", p.RevenueAdjustment}, {"cost_adjustment", p.CostAdjustment}} {
		if outOfRange(f.d) {
			return scopekit.FieldErrorf(scopekit.EINVALID, f.name, "%s is out of range", f.name)
		}
	}
	for i := range p.Resources {
		r := &p.Resources[i]
		if err := checkFields(lineRef{"resources", i, -1}, field{"hourly_rate", r.HourlyRate}, field{"hourly_cost", r.HourlyCost}); err != nil {
			return err
		}
	}
	for i := range p.Governance {
		if err := p.Governance[i].validate(lineRef{"governance", i, -1}); err != nil {
			return err
		}
	}
	for i := range p.Expenses {
		e := &p.Expenses[i]
		unitCost := e.UnitCost.Decimal
		if !e.UnitCost.Valid {
			unitCost = decimal.Decimal{}
		}
		if err := checkFields(lineRef{"expenses", i, -1}, field{"quantity", e.Quantity}, field{"rate", e.Rate}, field{"unit_cost", unitCost}); err != nil {
			return err
		}
	}
	for i := range p.Products {
		x := &p.Products[i]
		if err := checkFields(lineRef{"products", i, -1}, field{"quantity", x.Quantity}, field{"unit_price", x.UnitPrice}, field{"unit_cost", x.UnitCost}); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) validate(i int) error {
	at := lineRef{"services", i, -1}
	switch _, _, bad := s.billing(); bad {
	case "service_type":
		return at.invalid(bad, "service type must be %s or %s", TypeProfessionalServices, TypeManagedServices)
	case "payment_frequency":
		return at.invalid(bad, "payment frequency must be %s, %s, %s or %s", FrequencyOneTime, FrequencyMonthly, FrequencyQuarterly, FrequencyAnnually)
	}
	if err := checkFields(at, field{"quantity", s.Quantity}, field{"unit_hours", s.UnitHours}); err != nil {
		return err
	}
	for j := range s.Subservices {
		sub := &s.Subservices[j]
		if err := checkFields(lineRef{"services", i, j}, field{"quantity", sub.Quantity}, field{"unit_hours", sub.UnitHours}); err != nil {
			return err
		}
	}
	return nil
}

// billing returns how a service is billed: whether it is a managed service
// and the months of its billing period (0: once). bad names the field that
// makes it invalid ("service_type" or "payment_frequency"), "" if none.
func (s *Service) billing() (managed bool, months int, bad string) {
	switch s.Type {
	case "", TypeProfessionalServices:
		return false, 0, ""
	case TypeManagedServices:
		switch s.PaymentFrequency {
		case "", FrequencyMonthly:
			return true, 1, ""
		case FrequencyQuarterly:
			return true, 3, ""
		case FrequencyAnnually:
			return true, 12, ""
		case FrequencyOneTime:
			return true, 0, ""
		}
		return true, 0, "payment_frequency"
	}
	return false, 0, "service_type"
}

var maxGovernanceRate = decimal.NewFromInt(10)

func (g *Governance) validate(at lineRef) error {
	switch g.CalculationType {
	case PercentOfTotal, FixedHours:
	default:
		return at.invalid("calculation_type", "calculation type must be %s or %s", PercentOfTotal, FixedHours)
	}
	if err := checkFields(at, field{"rate", g.Rate}, field{"fixed_hours", g.FixedHours}); err != nil {
		return err
	}
	if !g.Rate.LessThan(maxGovernanceRate) {
		return at.invalid("rate", "rate must be less than 10")
	}
	switch g.AllocationMethod {
	case "", ProratePhasesByEffort:
	case AssignToPhase:
		if g.PhaseID == "" {
			return at.invalid("project_phase", "a governance item assigned to a phase needs the phase")
		}
	case AssignToCategory:
		if g.CategoryID == "" {
			return at.invalid("service_category", "a governance item assigned to a category needs the category")
		}
	default:
		return at.invalid("allocation_method", "allocation method must be %s, %s or %s", ProratePhasesByEffort, AssignToPhase, AssignToCategory)
	}
	switch g.FilterType {
	case "", FilterAllServices:
	case FilterPhase:
		if g.PhaseID == "" {
			return at.invalid("project_phase", "a governance item filtered by phase needs the phase")
		}
	case FilterServiceCategory:
		if g.CategoryID == "" {
			return at.invalid("service_category", "a governance item filtered by category needs the category")
		}
	default:
		return at.invalid("filter_type", "filter type must be %s, %s or %s", FilterAllServices, FilterPhase, FilterServiceCategory)
	}
	return nil
}

// field is one decimal input of a line and its name.
type field struct {
	name string
	d    decimal.Decimal
}

// checkFields reports the first field that is negative or out of range.
func checkFields(at lineRef, fs ...field) error {
	for _, f := range fs {
		if f.d.Sign() < 0 {
			return at.invalid(f.name, "%s must be zero or positive", f.name)
		}
		if outOfRange(f.d) {
			return at.invalid(f.name, "%s is out of range", f.name)
		}
	}
	return nil
}

func outOfRange(d decimal.Decimal) bool { return !inRange(d.NumDigits(), d.Exponent()) }

// inRange reports whether a decimal of so many coefficient digits and this
// exponent has at most MaxDigits digits before and after the point.
func inRange(digits int, exp int32) bool {
	e := int64(exp)
	return e >= -MaxDigits && int64(digits)+e <= MaxDigits
}

// lineRef names a line of the project: list[i], or list[i].subservices[j]
// when j >= 0; the zero lineRef names the project itself. Names are built
// only when needed (errors and warnings), never on the hot path.
type lineRef struct {
	list string
	i, j int
}

func (l lineRef) String() string {
	if l.list == "" {
		return ""
	}
	s := l.list + "[" + strconv.Itoa(l.i) + "]"
	if l.j >= 0 {
		s += ".subservices[" + strconv.Itoa(l.j) + "]"
	}
	return s
}

func (l lineRef) invalid(name, format string, args ...any) error {
	f := name
	if at := l.String(); at != "" {
		f = at + "." + name
	}
	return scopekit.FieldErrorf(scopekit.EINVALID, f, format, args...)
}
