package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

var (
	calculationTypes  = []string{"percent_of_total", "fixed_hours"}
	allocationMethods = []string{"prorate_phases_by_effort", "assign_to_phase", "assign_to_category"}
	filterTypes       = []string{"all_services", "phase", "service_category"}
	maxGovernanceRate = decimal.NewFromInt(10)
)

func declareGovernance(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "project-governances", ComputeCopies: true, Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{required(str("name")), text("description"),
			enum("calculation-type", "percent_of_total", calculationTypes...), withBound(dec("rate"), "", 6), hours("fixed-hours"),
			enum("allocation-method", "prorate_phases_by_effort", allocationMethods...),
			enum("filter-type", "all_services", filterTypes...), num("position")},
			computed(dec("hours"), dec("revenue"), dec("cost"), str("survey-rule"))),
		Rels: []engine.RelDef{owner("project", "projects"), to1("governance", "governances"),
			to1("project-resource", "project-resources"), to1("project-phase", "project-phases"),
			to1("service-category", "service-categories"), surveyLink},
		Filters: eq("project", "survey"),
		Hooks: engine.Hooks{Compute: computePrices, Prefetch: accountAhead, Defaults: projectGovernanceDefaults,
			Validate: func(_ context.Context, _ *engine.Call, rec, _ *engine.Record) []error {
				return validateGovernance(rec, "project-phase")
			}}})
}

// projectGovernanceDefaults copies the catalog governance item named by a
// new project governance item; what the request sends wins.
func projectGovernanceDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	gid, pid := rec.Rel(views.NameGovernance), rec.Rel(views.NameProject)
	if gid == "" || pid == "" {
		return nil
	}
	g, err := c.Get(views.TypeGovernances, gid)
	if err != nil {
		return nil // reported by the reference check
	}
	if _, err := c.Get(views.TypeProjects, pid); err != nil {
		return nil
	}
	return copyGovernance(c, scopeOfLine(rec), g, rec, c.Given)
}

// copyGovernance fills the governance item pg of a scope (a project's
// own lines or a change order's copy) from its catalog item g: the
// attributes governanceCopied, the category, and the scope's resource and
// phase for the catalog's (made on demand), each unless given.
func copyGovernance(c *engine.Call, scope lineScope, g, pg *engine.Record, given func(string) bool) error {
	for _, a := range governanceCopied {
		if v := g.Attrs[a]; v != nil && !given(a) {
			pg.Attrs[a] = v
		}
	}
	if sc := g.Rel(views.NameServiceCategory); sc != "" && !given(views.NameServiceCategory) {
		pg.SetRel(views.NameServiceCategory, sc)
	}
	if r := g.Rel(views.NameResource); r != "" && !given(views.NameProjectResource) {
		id, err := ensureProjectResource(c, scope, r)
		if err != nil {
			return err
		}
		pg.SetRel(views.NameProjectResource, id)
	}
	if ph := g.Rel(views.NamePhase); ph != "" && !given(views.NameProjectPhase) {
		id, err := ensureProjectPhase(c, scope, ph)
		if err != nil {
			return err
		}
		pg.SetRel(views.NameProjectPhase, id)
	}
	return nil
}

// validateGovernance applies rules 2 and 3 of docs/resources.md to a catalog or
// project governance item; phaseRel names its phase relationship.
func validateGovernance(rec *engine.Record, phaseRel string) []error {
	var errs []error
	if rate, ok := rec.DecOK(views.NameRate); ok && (rate.IsNegative() || rate.GreaterThanOrEqual(maxGovernanceRate)) {
		errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameRate), "rate must be at least 0 and less than 10 (a fraction: 0.15 is 15%%)"))
	}
	if rec.Str(views.NameCalculationType) == "fixed_hours" {
		if _, ok := rec.DecOK(views.NameFixedHours); !ok {
			errs = append(errs, engine.Invalid(engine.AttrPointer(views.NameFixedHours), "fixed-hours can't be blank when calculation-type is fixed_hours"))
		}
	}
	method, filter := rec.Str(views.NameAllocationMethod), rec.Str(views.NameFilterType)
	byCategory := method == "assign_to_category" || filter == "service_category"
	if byCategory && rec.Rel(views.NameServiceCategory) == "" {
		errs = append(errs, engine.Invalid(engine.RelPointer(views.NameServiceCategory), "service-category is required when governance is allocated or filtered by category"))
	}
	byPhase := method == "assign_to_phase" || filter == "phase"
	if byPhase && rec.Rel(phaseRel) == "" {
		errs = append(errs, engine.Invalid(engine.RelPointer(phaseRel), "%s is required when governance is allocated or filtered by phase", phaseRel))
	}
	return errs
}
