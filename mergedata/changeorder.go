package mergedata

import (
	"fmt"
	"strings"

	"github.com/scopekit/scopekit/scoping/views"
)

// ChangeOrder is v2's change_order (docs/lifecycle.md): the change order a
// document is made for, null in other documents. Its lines are those the
// change order adds, changes and removes (in that order), each with its
// price before and after and the difference (resources, phases and
// locations only where their own fields change: their figures follow the
// lines); its total is the contract's.
// The rest of the tree (phases, project_pricing) is the scope as the
// change order makes it.
type ChangeOrder struct {
	Number      int64          `json:"number"`
	Title       string         `json:"title"`
	Reason      string         `json:"reason"`
	Status      string         `json:"status"`
	BaseVersion ProjectVersion `json:"base_version"`
	Lines       []ChangeLine   `json:"lines"`
	Total       ChangeTotal    `json:"total"`
}

// ChangeLine is one line a change order adds, changes or removes.
type ChangeLine struct {
	Change   string        `json:"change"` // added, changed or removed
	Kind     string        `json:"kind"`   // Service, Subservice, Resource, ...
	Name     string        `json:"name"`
	Details  string        `json:"details"`   // what changed: "quantity 2 → 4"; "" for a line added or removed
	HasHours bool          `json:"has_hours"` // a line of labor or governance (others have no hours)
	Before   ChangeFigures `json:"before"`
	After    ChangeFigures `json:"after"`
	Delta    ChangeFigures `json:"delta"`
}

// ChangeFigures are a line's price: money with the currency's minor units,
// hours with two decimals.
type ChangeFigures struct {
	Revenue string `json:"revenue"`
	Cost    string `json:"cost"`
	Hours   string `json:"hours"`
}

// ChangeTotal is the contract before the change, after it, and the
// change.
type ChangeTotal struct {
	Before ChangeContract `json:"before"`
	After  ChangeContract `json:"after"`
	Delta  ChangeContract `json:"delta"`
}

// ChangeContract is a contract's value, cost, profit, margin (a ratio,
// four decimals) and hours.
type ChangeContract struct {
	Revenue string `json:"revenue"`
	Cost    string `json:"cost"`
	Profit  string `json:"profit"`
	Margin  string `json:"margin"`
	Hours   string `json:"hours"`
}

// kinds name the line types as a change order shows them.
var kinds = map[string]string{
	views.TypeProjectServices: "Service", views.TypeProjectSubservices: "Subservice", views.TypeProjectResources: "Resource",
	views.TypeProjectPhases: "Phase", views.TypeProjectLocations: "Location", views.TypeProjectGovernances: "Governance",
	views.TypeProjectExpenses: "Expense", views.TypeProjectProducts: "Product",
}

// summed are the line types whose figures add up others' (or that have
// none): a change shows them only where their own fields change.
var summed = map[string]bool{views.TypeProjectResources: true, views.TypeProjectPhases: true, views.TypeProjectLocations: true}

// hasHours are the line types with hours.
var hasHours = map[string]bool{views.TypeProjectServices: true, views.TypeProjectSubservices: true,
	views.TypeProjectGovernances: true, views.TypeProjectResources: true}

// changeOrderOf is the change_order section of snap, nil when it is not a
// change order's.
func changeOrderOf(snap *views.Snapshot) *ChangeOrder {
	co, d := snap.ChangeOrder, snap.ChangeOrderDiff
	if co == nil || d == nil {
		return nil
	}
	out := &ChangeOrder{Number: co.Number(), Title: co.Title(), Reason: co.Reason(), Status: co.Status(), Lines: []ChangeLine{}}
	if v := snap.Version; v != nil {
		n := v.Number()
		out.BaseVersion = ProjectVersion{Number: &n, Name: v.Name(), Digest: v.Digest()}
	}
	for _, group := range []struct {
		change string
		lines  []views.LineDiff
	}{{"added", d.Added}, {"changed", d.Changed}, {"removed", d.Removed}} {
		for _, l := range group.lines {
			if summed[l.Type] && group.change == "changed" && len(l.Changes) == 0 {
				continue
			}
			out.Lines = append(out.Lines, ChangeLine{Change: group.change, Kind: kinds[l.Type], Name: l.Name, Details: details(l.Changes),
				HasHours: hasHours[l.Type], Before: changeFigures(l.Before), After: changeFigures(l.After), Delta: changeFigures(l.Delta)})
		}
	}
	contract := func(f views.ContractFigures) ChangeContract {
		return ChangeContract{Revenue: f.Revenue, Cost: f.Cost, Profit: f.Profit, Margin: f.Margin, Hours: f.Hours}
	}
	out.Total = ChangeTotal{Before: contract(d.Total.Before), After: contract(d.Total.After), Delta: contract(d.Total.Delta)}
	return out
}

func changeFigures(f views.PriceFigures) ChangeFigures {
	return ChangeFigures{Revenue: f.Revenue, Cost: f.Cost, Hours: f.Hours}
}

// details says what changed of a line, field by field.
func details(changes []views.FieldChange) string {
	parts := make([]string, 0, len(changes))
	for _, ch := range changes {
		name := strings.ReplaceAll(ch.Field, "-", " ")
		if _, isRel := ch.Before.(string); isRel && strings.HasPrefix(ch.Field, "project-") {
			parts = append(parts, strings.TrimPrefix(name, "project ")+" changed")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", name, shown(ch.Before), shown(ch.After)))
	}
	return strings.Join(parts, "; ")
}

// shown is a field's value as text ("none" for none).
func shown(v any) string {
	if v == nil || v == "" {
		return "none"
	}
	return fmt.Sprint(v)
}
