package mergedata

import (
	"time"

	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// V2 is merge data v2.
type V2 struct {
	Project        V2Project      `json:"project"`
	Currency       Currency       `json:"currency"`
	Locale         string         `json:"locale"` // the account's (BCP 47): the locale filters format in
	Locations      []Location     `json:"locations"`
	Phases         []Phase        `json:"phases"`
	ProjectPricing ProjectPricing `json:"project_pricing"`
	Delivery       Delivery       `json:"delivery"`
	GeneralTerms   []Term         `json:"general_terms"` // the account's, by position
	ChangeOrder    *ChangeOrder   `json:"change_order"`  // the change order a document is made for (changeorder.go)
	// SurveyResponses are the answers of the project's surveys by
	// question slug (docs/questionnaires.md).
	SurveyResponses map[string]any `json:"survey_responses"`
}

// surveyResponses are the answers of the project's surveys by question
// slug, as templates read them: a select's answer is its label (a list
// of labels for a multi select), a number a decimal text, a date a
// date; an unanswered question is "" ([] for a multi select, null for a
// date), so that templates do not break. Where two surveys ask the same
// slug, the later survey's answer stands.
func surveyResponses(snap *views.Snapshot) map[string]any {
	out := make(map[string]any, len(snap.SurveyAnswers))
	for _, a := range snap.SurveyAnswers {
		switch v := a.Value.(type) {
		case nil:
			switch a.Kind {
			case "multi_select":
				out[a.Slug] = []string{}
			case "date":
				out[a.Slug] = (*Date)(nil)
			default:
				out[a.Slug] = ""
			}
		case string:
			out[a.Slug] = v
			if a.Kind == "date" {
				out[a.Slug] = dateAttr(v)
			}
		default:
			out[a.Slug] = v
		}
	}
	return out
}

// Term is one of the account's general terms: a clause every statement of
// work of the account prints.
type Term struct {
	Name string `json:"name"`
	Body string `json:"body"`
}

// termsOf returns the general terms of snap, an empty list when none.
func termsOf(snap *views.Snapshot) []Term {
	out := make([]Term, len(snap.GeneralTerms))
	for i, t := range snap.GeneralTerms {
		out[i] = Term{Name: t.Name(), Body: t.Body()}
	}
	return out
}

// Delivery is v2's delivery section: the project's delivery rollup and
// estimate-versus-actual table, as pricing.DeliveryFigures computes them
// (the same figures as the REST /delivery-rollup and /estimate-vs-actual).
type Delivery struct {
	Rollup           pricing.DeliveryRollup   `json:"rollup"`
	EstimateVsActual pricing.EstimateVsActual `json:"estimate_vs_actual"`
}

// deliveryOf returns the delivery section of snap; a snapshot without
// delivery figures gives empty lists and zero totals rather than nulls.
func deliveryOf(snap *views.Snapshot) Delivery {
	if snap.Delivery != nil {
		return Delivery{Rollup: snap.Delivery.Rollup, EstimateVsActual: snap.Delivery.EstimateVsActual}
	}
	return Delivery{
		Rollup:           pricing.DeliveryRollup{Phases: []pricing.PhaseDelivery{}},
		EstimateVsActual: pricing.EstimateVsActual{Rows: []pricing.EstimateRow{}, Phases: []pricing.PhaseEstimate{}},
	}
}

// V2Project is the project section of v2.
type V2Project struct {
	ID          string `json:"id"`
	ProjectName string `json:"project_name"`
	ClientName  string `json:"client_name"`
	AccountName string `json:"account_name"`
	Status      string `json:"status"`       // the value: draft, pending_approval, ...
	StatusLabel string `json:"status_label"` // Draft, Pending Approval, ...
	PrintedOn   *Date  `json:"printed_on"`   // the builder's "now"
	MSADate     *Date  `json:"msa_date"`     // the project's, else its client's
	SubmittedAt *Date  `json:"submitted_at"`
	ApprovedAt  *Date  `json:"approved_at"`
	// The narrative fields, "" when unset.
	ExecutiveSummary       string         `json:"executive_summary"`
	SolutionSummary        string         `json:"solution_summary"`
	OurResponsibilities    string         `json:"our_responsibilities"`
	ClientResponsibilities string         `json:"client_responsibilities"`
	OutOfScope             string         `json:"out_of_scope"`
	LineOfBusiness         string         `json:"line_of_business"`
	SalesExecutive         Person         `json:"sales_executive"`
	PresalesEngineer       Person         `json:"presales_engineer"`
	Teammates              []Person       `json:"teammates"` // removed teammates excluded
	PaymentTerm            PaymentTerm    `json:"payment_term"`
	UserDefinedFields      map[string]any `json:"user_defined_fields"`
	ServiceCount           int            `json:"service_count"` // the project's services, managed ones included
	// ProjectVersion is the version of the project the data was built
	// from (docs/lifecycle.md); its number is null when no version holds
	// the scope.
	ProjectVersion ProjectVersion `json:"project_version"`
}

// ProjectVersion names a version of a project's scope.
type ProjectVersion struct {
	Number *int64 `json:"number"`
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// PaymentTerm is the project's payment term. A project without one is
// priced with expenses and without hardware, which its flags then say.
type PaymentTerm struct {
	Name            string `json:"name"`
	PricingModel    string `json:"pricing_model"`
	IncludeExpenses bool   `json:"include_expenses"`
	IncludeHardware bool   `json:"include_hardware"`
}

// ProjectPricing is v2's project_pricing: the sections and contract totals
// of the pricing result, as they are (the pricing endpoint's attributes
// without currency, phases, locations and warnings).
type ProjectPricing struct {
	ProfessionalServices pricing.ProfessionalServices `json:"professional_services"`
	ProjectGovernance    pricing.ProjectGovernance    `json:"project_governance"`
	TravelAndExpense     pricing.TravelAndExpense     `json:"travel_and_expense"`
	Materials            pricing.Materials            `json:"materials"`
	ManagedServices      pricing.ManagedServices      `json:"managed_services"`
	Resources            pricing.ResourceTable        `json:"resources"` // the rows, then the project_total row
	TotalContractValue   pricing.Fixed                `json:"total_contract_value"`
	TotalContractCost    pricing.Fixed                `json:"total_contract_cost"`
	TotalContractProfit  pricing.Fixed                `json:"total_contract_profit"`
	TotalContractMargin  pricing.Fixed                `json:"total_contract_margin"`
}

// BuildV2 returns the v2 merge data of snap, printed on now's date (in
// now's location). The result shares the slices of snap.Pricing.
func BuildV2(snap *views.Snapshot, now time.Time) *V2 {
	res := snap.Pricing
	locations, phases := lines(snap, true)
	return &V2{
		Project:   projectV2(snap, now),
		Currency:  currencyOf(res),
		Locale:    localeOf(snap),
		Locations: locations,
		Phases:    phases,
		ProjectPricing: ProjectPricing{
			ProfessionalServices: res.ProfessionalServices,
			ProjectGovernance:    res.ProjectGovernance,
			TravelAndExpense:     res.TravelAndExpense,
			Materials:            res.Materials,
			ManagedServices:      res.ManagedServices,
			Resources:            res.Resources,
			TotalContractValue:   res.TotalContractValue,
			TotalContractCost:    res.TotalContractCost,
			TotalContractProfit:  res.TotalContractProfit,
			TotalContractMargin:  res.TotalContractMargin,
		},
		Delivery:        deliveryOf(snap),
		GeneralTerms:    termsOf(snap),
		ChangeOrder:     changeOrderOf(snap),
		SurveyResponses: surveyResponses(snap),
	}
}

func projectV2(snap *views.Snapshot, now time.Time) V2Project {
	p := snap.Project
	status := p.Status()
	out := V2Project{
		ID: p.ID, ProjectName: p.ProjectName(), ClientName: opt(snap.Client, views.Client.Name),
		AccountName: snap.Account.Name(), Status: status, StatusLabel: StatusLabel(status),
		PrintedOn: dateOf(now), MSADate: dateAttr(msaDate(snap)),
		SubmittedAt: dateAttr(p.SubmittedAt()), ApprovedAt: dateAttr(p.ApprovedAt()),
		ExecutiveSummary: p.ExecutiveSummary(), SolutionSummary: p.SolutionSummary(),
		OurResponsibilities: p.OurResponsibilities(), ClientResponsibilities: p.ClientResponsibilities(),
		OutOfScope:     p.OutOfScope(),
		LineOfBusiness: opt(snap.LineOfBusiness, views.LineOfBusiness.Name),
		SalesExecutive: optPerson(snap.SalesExecutive), PresalesEngineer: optPerson(snap.PresalesEngineer),
		Teammates:   make([]Person, len(snap.Teammates)),
		PaymentTerm: PaymentTerm{IncludeExpenses: true}, ServiceCount: len(snap.Services),
	}
	for i, u := range snap.Teammates {
		out.Teammates[i] = personOf(u)
	}
	if v := snap.Version; v != nil {
		n := v.Number()
		out.ProjectVersion = ProjectVersion{Number: &n, Name: v.Name(), Digest: v.Digest()}
	}
	if t := snap.PaymentTerm; t != nil {
		out.PaymentTerm = PaymentTerm{Name: t.Name(), PricingModel: t.PricingModel(),
			IncludeExpenses: t.IncludeExpenses(), IncludeHardware: t.IncludeHardware()}
	}
	udf := p.UserDefinedFields()
	out.UserDefinedFields = make(map[string]any, len(udf))
	for k, v := range udf {
		if v == nil {
			v = ""
		}
		out.UserDefinedFields[k] = v
	}
	return out
}

// localeOf is the account's locale, en-US when it has none.
func localeOf(snap *views.Snapshot) string {
	if l := snap.Account.Locale(); l != "" {
		return l
	}
	return "en-US"
}
