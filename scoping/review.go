package scoping

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/approval"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// The review of a project's scope before its SOW is sent: what someone
// should fix or know, read in one transaction from the records and priced
// once, with the approval levels judged by package approval from the same
// facts the workflow reads when the project is submitted.

// Kinds of a review finding.
const (
	FindingZeroHours          = "zero_hours"           // a service line of 0 hours
	FindingNoResource         = "no_resource"          // a service line without a resource: priced at 0
	FindingDuplicate          = "duplicate_line"       // a service line that repeats another
	FindingEmptyPhase         = "empty_phase"          // a phase without services
	FindingMissingGovernance  = "missing_governance"   // no governance, or a required item is missing
	FindingMarginBelow        = "margin_below"         // the margin is below an approval level's threshold
	FindingDiffersFromCatalog = "differs_from_catalog" // hours or a rate differ from the catalog's
)

// ScopeReview is the review of a project's scope.
type ScopeReview struct {
	// Snapshot is the project with its lines and its pricing run.
	Snapshot *views.Snapshot
	// Findings, in the order of the kinds above, then of the lines.
	Findings []Finding
	// Approvals are the steps submitting the project now would go through,
	// in order, each approved in turn (empty: approved at once).
	Approvals []approval.Plan
	// MarginThresholds are the conditions of active approval levels that
	// apply below a contract margin (lt or lte). Nil when SettingsHidden.
	MarginThresholds []MarginThreshold
	// SettingsHidden is true when the actor cannot view settings: the
	// levels' conditions are left out, as the API would not show them.
	SettingsHidden bool
	// ApproverNames are the names of the Approvals' users by id; nil when
	// UsersHidden.
	ApproverNames map[string]string
	// UsersHidden is true when the actor cannot view users: approvers are
	// known by id only, as the API shows them.
	UsersHidden bool
}

// Finding is one thing a review found. Type and ID name the line at fault
// ("" for the project itself), Name its name.
type Finding struct {
	Kind, Type, ID, Name, Message string
}

// MarginThreshold is an approval level's margin condition and whether the
// project's margin is below it.
type MarginThreshold struct {
	LevelID, Kind string
	Position      int
	Operator      string // lt or lte
	Value         string // the margin as a ratio ("0.25")
	Below         bool
}

// ReviewScope reviews a project: service lines of 0 hours or without a
// resource, service lines that repeat another (the same service, phase and
// location), phases without services, missing governance (none at all, or
// a required catalog item absent), hours and resource rates that differ
// from the catalog's (a resource's through the project's rate table), the
// approval levels its submission would go through and the margin
// thresholds of those levels.
//
// Errors: EFORBIDDEN without projects view; ENOTFOUND for a project
// missing or outside the actor's visibility; EINVALID when it cannot be
// priced; EINVALID for an approval level that cannot be evaluated.
func (s *Service) ReviewScope(ctx context.Context, a *engine.Actor, projectID string) (*ScopeReview, error) {
	if err := a.Require("projects", false); err != nil {
		return nil, err
	}
	rv := &ScopeReview{SettingsHidden: !a.Can("settings", false), UsersHidden: !a.Can("users", false)}
	err := s.read(ctx, a, func(c *engine.Call) error {
		snap, err := s.snapshotIn(ctx, c, projectID)
		if err != nil {
			return err
		}
		rv.Snapshot = snap
		r := reviewer{c: c, snap: snap, rv: rv}
		for _, step := range []func() error{r.lines, r.duplicates, r.phases, r.governance, r.approvals, r.approverNames, r.catalog} {
			if err := step(); err != nil {
				return err
			}
		}
		rv.Findings = r.sorted()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rv, nil
}

// reviewer gathers the findings of one review.
type reviewer struct {
	c     *engine.Call
	snap  *views.Snapshot
	rv    *ScopeReview
	found []Finding
}

func (r *reviewer) add(kind string, rec *engine.Record, name, format string, args ...any) {
	f := Finding{Kind: kind, Name: name, Message: fmt.Sprintf(format, args...)}
	if rec != nil {
		f.Type, f.ID = rec.Type, rec.ID
	}
	r.found = append(r.found, f)
}

// sorted returns the findings by kind, in the order of the constants,
// keeping the order of the lines within a kind.
func (r *reviewer) sorted() []Finding {
	order := []string{FindingZeroHours, FindingNoResource, FindingDuplicate, FindingEmptyPhase, FindingMissingGovernance,
		FindingMarginBelow, FindingDiffersFromCatalog}
	out := slices.Clone(r.found)
	slices.SortStableFunc(out, func(a, b Finding) int { return slices.Index(order, a.Kind) - slices.Index(order, b.Kind) })
	return out
}

// lines finds service lines of 0 hours and lines without a resource (a
// subservice without its own uses its service's).
func (r *reviewer) lines() error {
	for i, sv := range r.snap.Services {
		if r.snap.Pricing.Service(i).TotalHours.IsZero() {
			r.add(FindingZeroHours, sv.Record, sv.Name(), "service %q has 0 hours", sv.Name())
		}
		if sv.ProjectResource() != "" {
			continue
		}
		r.add(FindingNoResource, sv.Record, sv.Name(), "service %q has no resource: its hours are priced at 0", sv.Name())
		for _, sub := range r.snap.Subservices[i] {
			if sub.ProjectResource() == "" {
				r.add(FindingNoResource, sub.Record, sub.Name(), "subservice %q of %q has no resource, nor has its service: its hours are priced at 0",
					sub.Name(), sv.Name())
			}
		}
	}
	return nil
}

// duplicates finds service lines that repeat an earlier one: the same
// catalog service (or, without one, the same name in any case) in the
// same phase and location. Two such lines are what adding a service again
// makes, where changing the first line's quantity was meant.
func (r *reviewer) duplicates() error {
	phases, locations := map[string]string{}, map[string]string{} // names by id: ids are per type
	for _, ph := range r.snap.Phases {
		phases[ph.ID] = ph.Name()
	}
	for _, l := range r.snap.Locations {
		locations[l.ID] = l.Name()
	}
	first := map[[3]string]views.ProjectService{}
	for _, sv := range r.snap.Services {
		what := "service " + sv.Service()
		if sv.Service() == "" {
			what = "name " + strings.ToLower(strings.TrimSpace(sv.Name()))
		}
		k := [3]string{what, sv.ProjectPhase(), sv.ProjectLocation()}
		orig, seen := first[k]
		if !seen {
			first[k] = sv
			continue
		}
		where := "without a phase"
		if ph := sv.ProjectPhase(); ph != "" {
			where = fmt.Sprintf("in phase %q", phases[ph])
		}
		if loc := sv.ProjectLocation(); loc != "" {
			where += fmt.Sprintf(" at %q", locations[loc])
		}
		r.add(FindingDuplicate, sv.Record, sv.Name(), "service line %s (%q) repeats line %s %s: if one line was meant, "+
			"change line %s's quantity and remove line %s", sv.ID, sv.Name(), orig.ID, where, orig.ID, sv.ID)
	}
	return nil
}

// approverNames reads the names of the approvers of the review's steps,
// for an actor that may view users.
func (r *reviewer) approverNames() error {
	if r.rv.UsersHidden || len(r.rv.Approvals) == 0 {
		return nil
	}
	r.rv.ApproverNames = map[string]string{}
	for _, p := range r.rv.Approvals {
		for _, id := range p.Approvers {
			if _, ok := r.rv.ApproverNames[id]; ok {
				continue
			}
			u, err := r.c.Get(views.TypeUsers, id)
			if err != nil {
				if absent(err) == nil {
					continue
				}
				return err
			}
			r.rv.ApproverNames[id] = views.User{Record: u}.Name()
		}
	}
	return nil
}

// phases finds phases no service is in.
func (r *reviewer) phases() error {
	used := map[string]bool{}
	for _, sv := range r.snap.Services {
		used[sv.ProjectPhase()] = true
	}
	for _, ph := range r.snap.Phases {
		if !used[ph.ID] {
			r.add(FindingEmptyPhase, ph.Record, ph.Name(), "phase %q has no services", ph.Name())
		}
	}
	return nil
}

// governance finds a project without governance and the account's
// required governance items it lacks.
func (r *reviewer) governance() error {
	if len(r.snap.Governance) == 0 {
		r.add(FindingMissingGovernance, nil, "", "the project has no governance (project management) lines")
	}
	have := map[string]bool{}
	for _, g := range r.snap.Governance {
		have[g.Governance()] = true
	}
	required, err := r.c.Find(views.TypeGovernances, engine.Eq(views.NameRequired, "true"), engine.Eq(views.NameActive, "true"))
	if err != nil {
		return err
	}
	sortByPosition(required)
	for _, g := range required {
		if name := (views.Governance{Record: g}).Name(); !have[g.ID] {
			r.add(FindingMissingGovernance, g, name, "the required governance item %q is not on the project", name)
		}
	}
	return nil
}

// approvals walks the approval levels as the workflow would after a
// submission now, and reads the margin thresholds of the active levels.
func (r *reviewer) approvals() error {
	levels, err := approvalLevels(r.c)
	if err != nil {
		return err
	}
	facts, err := approvalFacts(r.c, r.snap.Project.Record)
	if err != nil {
		return err
	}
	for after := approval.Start; ; {
		plan, ok, err := approval.Next(levels, facts, after)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		r.rv.Approvals = append(r.rv.Approvals, plan)
		after = plan.Position
	}
	slices.SortStableFunc(levels, func(a, b approval.Level) int { return a.Position - b.Position })
	margin := fmt.Sprintf("%s%%", facts.ContractMargin.Shift(2).String())
	for _, l := range levels {
		for _, cond := range l.Conditions {
			if cond.Field != approval.FieldContractMargin || (cond.Operator != approval.OpLt && cond.Operator != approval.OpLte) {
				continue
			}
			below, err := cond.Holds(facts)
			if err != nil {
				return err
			}
			if !r.rv.SettingsHidden {
				r.rv.MarginThresholds = append(r.rv.MarginThresholds, MarginThreshold{LevelID: l.ID, Kind: l.Kind,
					Position: l.Position, Operator: cond.Operator, Value: cond.Value, Below: below})
			}
			switch {
			case !below:
			case r.rv.SettingsHidden:
				r.add(FindingMarginBelow, nil, "", "the contract margin (%s) is below a margin threshold of the %s approval level at position %d",
					margin, l.Kind, l.Position)
			default:
				r.add(FindingMarginBelow, nil, "", "the contract margin (%s) is below the threshold %s of the %s approval level at position %d",
					margin, cond.Value, l.Kind, l.Position)
			}
		}
	}
	return nil
}

// catalog finds service and subservice hours that differ from their
// catalog line's (as custom-hours reports them) and project resources
// whose rate or cost differs from what the catalog gives the project.
func (r *reviewer) catalog() error {
	var lines []*engine.Record
	for i, sv := range r.snap.Services {
		lines = append(lines, sv.Record)
		for _, sub := range r.snap.Subservices[i] {
			lines = append(lines, sub.Record)
		}
	}
	cat, err := catalogLines(r.c, lines)
	if err != nil {
		return err
	}
	for _, l := range lines {
		if !customHours(l, cat) {
			continue
		}
		src := cat[views.TypeServices+"/"+l.Rel(views.NameService)]
		if l.Type == views.TypeProjectSubservices {
			src = cat[views.TypeSubservices+"/"+l.Rel(views.NameSubservice)]
		}
		name := l.Str(views.NameName)
		r.add(FindingDiffersFromCatalog, l, name, "%q has %s unit hours; the catalog's %q has %s",
			name, l.Dec(views.NameUnitHours).String(), src.Str(views.NameName), src.Dec(views.NameHours).String())
	}
	for _, pr := range r.snap.Resources {
		if pr.Resource() == "" {
			continue
		}
		res, err := r.c.Get(views.TypeResources, pr.Resource())
		if err != nil {
			if absent(err) == nil {
				continue
			}
			return err
		}
		rate, cost, err := resourceRate(r.c, r.snap.Project.ID, res)
		if err != nil {
			return err
		}
		for _, f := range []struct {
			attr, what string
			want       any
		}{{views.NameHourlyRate, "hourly rate", rate}, {views.NameHourlyCost, "hourly cost", cost}} {
			want, ok := decimalOf(f.want)
			if got, set := pr.DecOK(f.attr); ok && set && !got.Equal(want) {
				r.add(FindingDiffersFromCatalog, pr.Record, pr.Name(), "resource %q has an %s of %s; the catalog gives this project %s",
					pr.Name(), f.what, got.String(), want.String())
			}
		}
	}
	return nil
}

// decimalOf reads a stored decimal value (a string); ok is false for none.
func decimalOf(v any) (decimal.Decimal, bool) {
	s, ok := v.(string)
	if !ok {
		return decimal.Decimal{}, false
	}
	d, err := engine.ParseDecimal(s)
	return d, err == nil
}
