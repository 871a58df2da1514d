package views

// The diff of two frozen scopes of a project (docs/lifecycle.md), as
// scoping.Service.DiffVersions and ChangeOrderDeltas compute it: a value
// of its own here, so that merge data can show a change order's.

// VersionDiff is what changed from one scope (From) to another (To).
type VersionDiff struct {
	From     DiffEnd `json:"from"`
	To       DiffEnd `json:"to"`
	Currency string  `json:"currency"`
	// Project lists the project's own attributes and relationships that
	// changed.
	Project []FieldChange `json:"project"`
	Added   []LineDiff    `json:"added"`
	Removed []LineDiff    `json:"removed"`
	Changed []LineDiff    `json:"changed"`
	// Phases are the phases of either scope with their labor and
	// governance before and after; an entry with an empty phase_id holds
	// what has no phase.
	Phases []PhaseDelta `json:"phases"`
	// Total is the contract's.
	Total TotalDelta `json:"total"`
}

// DiffEnd names one side of a diff: a version (its number, name and
// digest) or the current scope (number null).
type DiffEnd struct {
	Number   *int64 `json:"number"`
	Name     string `json:"name"`
	Digest   string `json:"digest"`
	Currency string `json:"currency"`
}

// FieldChange is one attribute or relationship whose value changed
// (null where it had none).
type FieldChange struct {
	Field  string `json:"field"`
	Before any    `json:"before"`
	After  any    `json:"after"`
}

// LineDiff is one line added, removed or changed, with its figures before
// and after (zero where the line did not exist) and their difference. A
// changed line lists the fields that changed; a line whose fields did not
// change but whose price did (a governance item over changed services)
// lists none.
type LineDiff struct {
	Type    string        `json:"type"`
	ID      string        `json:"id"`
	Name    string        `json:"name"`
	Changes []FieldChange `json:"changes"`
	Before  PriceFigures  `json:"before"`
	After   PriceFigures  `json:"after"`
	Delta   PriceFigures  `json:"delta"`
}

// PriceFigures are a line's or a phase's price: money in the currency's minor
// units, hours with two decimals.
type PriceFigures struct {
	Revenue string `json:"revenue"`
	Cost    string `json:"cost"`
	Profit  string `json:"profit"`
	Hours   string `json:"hours"`
}

// PhaseDelta is one phase's figures before and after.
type PhaseDelta struct {
	PhaseID string       `json:"phase_id"`
	Name    string       `json:"name"`
	Before  PriceFigures `json:"before"`
	After   PriceFigures `json:"after"`
	Delta   PriceFigures `json:"delta"`
}

// TotalDelta is the contract's figures before and after, its margin
// included (a ratio with four decimals).
type TotalDelta struct {
	Before ContractFigures `json:"before"`
	After  ContractFigures `json:"after"`
	Delta  ContractFigures `json:"delta"`
}

// ContractFigures are the contract totals of a pricing result.
type ContractFigures struct {
	PriceFigures
	Margin string `json:"margin"`
}
