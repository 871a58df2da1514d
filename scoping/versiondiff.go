package scoping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// The diff of two frozen scopes (docs/lifecycle.md): lines matched by
// identity (their id; a change order's copy by the project line it stands
// for), each changed attribute and relationship with its value before and
// after, and the price deltas of each line, each phase and the contract.
// Every figure comes from the two pricing results as they were frozen, so
// a delta is exactly the difference of the two.

// The diff's types are views' (views.VersionDiff), so that merge data
// reads a change order's without the domain.
type (
	VersionDiff     = views.VersionDiff
	DiffEnd         = views.DiffEnd
	FieldChange     = views.FieldChange
	LineDiff        = views.LineDiff
	PriceFigures    = views.PriceFigures
	PhaseDelta      = views.PhaseDelta
	TotalDelta      = views.TotalDelta
	ContractFigures = views.ContractFigures
)

// frozenPricing is what a diff reads of a frozen pricing result.
type frozenPricing struct {
	Currency struct {
		Code       string `json:"code"`
		MinorUnits int32  `json:"minor_units"`
	} `json:"currency"`
	Professional struct {
		Hours string `json:"hours"`
	} `json:"professional_services"`
	Phases []struct {
		PhaseID string `json:"phase_id"`
		Name    string `json:"name"`
		Hours   string `json:"hours"`
		Revenue string `json:"revenue"`
		Cost    string `json:"cost"`
		Profit  string `json:"profit"`
	} `json:"phases"`
	Value  string `json:"total_contract_value"`
	Cost   string `json:"total_contract_cost"`
	Profit string `json:"total_contract_profit"`
	Margin string `json:"total_contract_margin"`
}

// hoursFigure is the figure that holds a line type's hours.
var hoursFigure = map[string]string{
	views.TypeProjectServices: views.NameTotalHours, views.TypeProjectSubservices: views.NameExtendedHours,
	views.TypeProjectGovernances: views.NameHours, views.TypeProjectResources: views.NameTotalHours,
}

// diffScopes compares two frozen scopes. Lines whose canonical bytes are
// the same in both are unchanged (price included) and are not decoded.
func diffScopes(from, to *storedScope) (*VersionDiff, error) {
	var pa, pb frozenPricing
	if err := json.Unmarshal(from.Pricing, &pa); err != nil {
		return nil, fmt.Errorf("a version's pricing: %w", err)
	}
	if err := json.Unmarshal(to.Pricing, &pb); err != nil {
		return nil, fmt.Errorf("a version's pricing: %w", err)
	}
	minor := max(pa.Currency.MinorUnits, pb.Currency.MinorUnits)
	d := &VersionDiff{Currency: pb.Currency.Code, Project: fieldChanges(from.Project, to.Project),
		Added: []LineDiff{}, Removed: []LineDiff{}, Changed: []LineDiff{}}
	d.From.Currency, d.To.Currency = pa.Currency.Code, pb.Currency.Code
	for _, typ := range projectInputTypes {
		before, after := from.Lines[typ], to.Lines[typ]
		byID := make(map[string]json.RawMessage, len(before))
		for _, raw := range before {
			if id, ok := lineID(raw); ok {
				byID[id] = raw
			}
		}
		seen := make(map[string]bool, len(after))
		for _, raw := range after {
			id, _ := lineID(raw)
			seen[id] = true
			old, existed := byID[id]
			if existed && bytes.Equal(old, raw) {
				continue
			}
			b, err := decodeLine(raw)
			if err != nil {
				return nil, err
			}
			var a *snapLine
			if existed {
				if a, err = decodeLine(old); err != nil {
					return nil, err
				}
			}
			ld := lineDiff(typ, a, b, minor)
			switch {
			case a == nil:
				d.Added = append(d.Added, ld)
			case len(ld.Changes) > 0 || !zeroFigures(ld.Delta):
				d.Changed = append(d.Changed, ld)
			}
		}
		for _, raw := range before {
			if id, _ := lineID(raw); !seen[id] {
				a, err := decodeLine(raw)
				if err != nil {
					return nil, err
				}
				d.Removed = append(d.Removed, lineDiff(typ, a, nil, minor))
			}
		}
	}
	d.Phases = phaseDeltas(&pa, &pb, minor)
	d.Total.Before = ContractFigures{PriceFigures: PriceFigures{Revenue: pa.Value, Cost: pa.Cost, Profit: pa.Profit, Hours: pa.Professional.Hours}, Margin: pa.Margin}
	d.Total.After = ContractFigures{PriceFigures: PriceFigures{Revenue: pb.Value, Cost: pb.Cost, Profit: pb.Profit, Hours: pb.Professional.Hours}, Margin: pb.Margin}
	d.Total.Delta = ContractFigures{PriceFigures: delta(d.Total.Before.PriceFigures, d.Total.After.PriceFigures, minor), Margin: sub(pb.Margin, pa.Margin, 4)}
	return d, nil
}

// lineDiff compares one line before (a) and after (b); either may be nil.
func lineDiff(typ string, a, b *snapLine, minor int32) LineDiff {
	some := b
	if some == nil {
		some = a
	}
	ld := LineDiff{Type: typ, ID: some.ID, Name: lineName(some), Changes: []FieldChange{}}
	ld.Before, ld.After = lineFigs(typ, a, minor), lineFigs(typ, b, minor)
	ld.Delta = delta(ld.Before, ld.After, minor)
	if a != nil && b != nil {
		ld.Changes = fieldChanges(*a, *b)
	}
	return ld
}

// lineName is how a diff names a line: its name, or an expense's
// description.
func lineName(l *snapLine) string {
	for _, n := range []string{views.NameName, views.NameDescription} {
		if s, ok := l.Attributes[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// lineFigs are a frozen line's figures (zero for a missing line).
func lineFigs(typ string, l *snapLine, minor int32) PriceFigures {
	f := PriceFigures{Revenue: zero(minor), Cost: zero(minor), Profit: zero(minor), Hours: zero(2)}
	if l == nil {
		return f
	}
	if v, ok := l.Figures[views.NameRevenue]; ok {
		f.Revenue = v
	}
	if v, ok := l.Figures[views.NameCost]; ok {
		f.Cost = v
	}
	if v, ok := l.Figures[hoursFigure[typ]]; ok {
		f.Hours = v
	}
	f.Profit = sub(f.Revenue, f.Cost, minor)
	return f
}

// fieldChanges lists the attributes and relationships whose values differ
// between a and b, by name.
func fieldChanges(a, b snapLine) []FieldChange {
	out := []FieldChange{}
	names := map[string]bool{}
	for n := range a.Attributes {
		names[n] = true
	}
	for n := range b.Attributes {
		names[n] = true
	}
	for _, n := range sortedNames(names) {
		va, vb := a.Attributes[n], b.Attributes[n]
		if !sameValue(va, vb) {
			out = append(out, FieldChange{Field: n, Before: va, After: vb})
		}
	}
	rels := map[string]bool{}
	for n := range a.Relationships {
		rels[n] = true
	}
	for n := range b.Relationships {
		rels[n] = true
	}
	for _, n := range sortedNames(rels) {
		ra, rb := a.Relationships[n], b.Relationships[n]
		if ra != rb {
			out = append(out, FieldChange{Field: n, Before: nullIfEmpty(ra), After: nullIfEmpty(rb)})
		}
	}
	return out
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// sameValue compares two attribute values by their JSON form.
func sameValue(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// phaseDeltas pairs the phases of two pricing results by id, in the
// order of the later result and then those only the earlier one has.
func phaseDeltas(pa, pb *frozenPricing, minor int32) []PhaseDelta {
	type side = PriceFigures
	figs := func(hours, revenue, cost, profit string) side {
		return PriceFigures{Revenue: revenue, Cost: cost, Profit: profit, Hours: hours}
	}
	none := PriceFigures{Revenue: zero(minor), Cost: zero(minor), Profit: zero(minor), Hours: zero(2)}
	before := map[string]int{}
	for i, p := range pa.Phases {
		before[p.PhaseID] = i
	}
	out := []PhaseDelta{}
	seen := map[string]bool{}
	for _, p := range pb.Phases {
		seen[p.PhaseID] = true
		pd := PhaseDelta{PhaseID: p.PhaseID, Name: p.Name, Before: none, After: figs(p.Hours, p.Revenue, p.Cost, p.Profit)}
		if i, ok := before[p.PhaseID]; ok {
			q := pa.Phases[i]
			pd.Before = figs(q.Hours, q.Revenue, q.Cost, q.Profit)
		}
		pd.Delta = delta(pd.Before, pd.After, minor)
		out = append(out, pd)
	}
	for _, q := range pa.Phases {
		if seen[q.PhaseID] {
			continue
		}
		pd := PhaseDelta{PhaseID: q.PhaseID, Name: q.Name, Before: figs(q.Hours, q.Revenue, q.Cost, q.Profit), After: none}
		pd.Delta = delta(pd.Before, pd.After, minor)
		out = append(out, pd)
	}
	return out
}

// delta is b − a, figure by figure.
func delta(a, b PriceFigures, minor int32) PriceFigures {
	return PriceFigures{Revenue: sub(b.Revenue, a.Revenue, minor), Cost: sub(b.Cost, a.Cost, minor),
		Profit: sub(b.Profit, a.Profit, minor), Hours: sub(b.Hours, a.Hours, 2)}
}

// sub is b − a exactly, written with places decimals (figures are
// already rounded to them; a blank figure is zero).
func sub(b, a string, places int32) string {
	return dec0(b).Sub(dec0(a)).StringFixed(places)
}

func dec0(s string) decimal.Decimal {
	d, err := engine.ParseDecimal(s)
	if err != nil {
		return decimal.Zero
	}
	return d
}

func zero(places int32) string { return decimal.Zero.StringFixed(places) }

func zeroFigures(f PriceFigures) bool {
	for _, s := range []string{f.Revenue, f.Cost, f.Profit, f.Hours} {
		if !dec0(s).IsZero() {
			return false
		}
	}
	return true
}
