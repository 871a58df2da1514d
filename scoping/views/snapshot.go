package views

import "github.com/scopekit/scopekit/pricing"

// Snapshot is a project with everything its documents and merge data are
// filled from, read in one transaction, with its pricing run
// (scoping.Service.Snapshot builds it; a program may equally assemble one
// itself). It holds typed views, so its readers (mergedata, workbook)
// need the engine and pricing only, not the domain.
//
// Account and Project are always set. A related record that may be absent
// is a pointer, nil when absent; every view in a slice or map has its
// record.
//
// The line lists follow the pricing input: Services[i] is priced as
// Pricing.Service(i), Subservices[i][j] as Pricing.Subservice(i, j),
// Resources[i] as Pricing.Resource(i), and Governance, Expenses and
// Products[i] as the i-th item of their pricing section.
type Snapshot struct {
	Account Account
	Project Project
	// Related records of the project; nil when the relationship is empty.
	Client           *Client
	LineOfBusiness   *LineOfBusiness
	SalesExecutive   *User
	PresalesEngineer *User
	PaymentTerm      *PaymentTerm
	RateTable        *RateTable
	// Teammates are the users on the project, removed teammates excluded,
	// in the order they were added.
	Teammates []User
	Locations []ProjectLocation
	Phases    []ProjectPhase
	Resources []ProjectResource
	Services  []ProjectService
	// Subservices[i] are the subservices of Services[i].
	Subservices [][]ProjectSubservice
	Governance  []ProjectGovernance
	Expenses    []ProjectExpense
	Products    []ProjectProduct
	// Catalog holds the catalog records the lines refer to.
	Catalog Catalog
	// GeneralTerms are the account's active general terms, by position.
	GeneralTerms []GeneralTerm
	// Currency is the currency record of the project's currency (nil when
	// the account has none for it).
	Currency *Currency
	Pricing  *pricing.Result
	// Delivery are the project's delivery figures, from the same pricing
	// run.
	Delivery *pricing.Delivery
	// Version is the version that holds this scope (its digest is the
	// scope's), nil when no version does; for a change order's scope, its
	// base version.
	Version *ProjectVersion
	// ChangeOrder is set for a change order's scope: the change order,
	// and its deltas from its base version.
	ChangeOrder     *ChangeOrder
	ChangeOrderDiff *VersionDiff
	// SurveyAnswers are the questions of the project's surveys with their
	// answers: the oldest survey first, each questionnaire's questions in
	// order.
	SurveyAnswers []SurveyAnswer
}

// SurveyAnswer is one question of a project's survey with its answer as
// documents show it.
type SurveyAnswer struct {
	Slug string
	Kind string // the question's kind: text, number, integer, boolean, single_select, multi_select, date
	// Value is nil when the question is not answered (or not asked);
	// else a text (text; a number's decimal text; a date's YYYY-MM-DD;
	// a single select's label), a bool, or a multi select's labels
	// ([]string).
	Value any
}

// Catalog is the catalog records a snapshot's lines refer to, each type by
// id; a map is nil when no line refers to its type.
type Catalog struct {
	Services          map[string]Service         // of the project services
	ServiceCategories map[string]ServiceCategory // of the project services
	LinesOfBusiness   map[string]LineOfBusiness  // of the project services
	Subservices       map[string]Subservice      // of the project subservices
	Phases            map[string]Phase           // of the project phases
	ExpenseCategories map[string]ExpenseCategory // of the project expenses
}
