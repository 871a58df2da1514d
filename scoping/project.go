package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Projects and their children (docs/resources.md, "Clients and projects").

var projectStatuses = []string{"draft", "pending_approval", "approved", "won", "lost", "canceled"}

func declareProjects(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "projects", ComputeCopies: true, Guard: "projects", Archives: true, V2: true, ScopeRel: "id",
		Attrs: cat([]engine.AttrDef{required(str("project-name")),
			text("executive-summary"), text("solution-summary"), text("our-responsibilities"),
			text("client-responsibilities"), text("out-of-scope"), date("msa-date"),
			{Name: "tag-list", Kind: engine.KindList},
			{Name: "revenue-adjustment", Kind: engine.KindDecimal, Signed: true, Places: 4},
			{Name: "cost-adjustment", Kind: engine.KindDecimal, Signed: true, Places: 4},
			withDefault(withBound(num("mrr-terms"), "1200", 0), int64(12)), obj("user-defined-fields"),
			enum("status", "draft", projectStatuses...)},
			computed(str("currency"), dec("total-hours"),
				dec("contract-revenue"), dec("contract-cost"), dec("contract-profit"), dec("contract-margin"),
				engine.AttrDef{Name: "submitted-at", Kind: engine.KindTime}, engine.AttrDef{Name: "approved-at", Kind: engine.KindTime},
				str("approval-stage"))),
		Rels: []engine.RelDef{
			{Name: "client", Type: "clients", Required: true}, to1("rate-table", "rate-tables"),
			to1("payment-term", "payment-terms"), to1("line-of-business", "lines-of-business"),
			to1("sales-executive", "users"), to1("presales-engineer", "users"),
			{Name: "teammates", Type: "users", ToMany: true, Through: "project-teammates", From: "project", To: "user",
				ThroughWhere: []engine.Cond{{Field: "removed-at", Op: engine.OpNull}}},
			inverse("project-teammates", "project-teammates", "project"),
			inverse("project-locations", "project-locations", "project"),
			inverse("project-phases", "project-phases", "project"),
			inverse("project-resources", "project-resources", "project"),
			inverse("project-services", "project-services", "project"),
			inverse("project-governances", "project-governances", "project"),
			inverse("project-expenses", "project-expenses", "project"),
			inverse("project-products", "project-products", "project"),
			inverse("project-documents", "project-documents", "project"),
			inverse("project-versions", "project-versions", "project"),
			inverse("change-orders", "change-orders", "project"),
		},
		Filters: with(with(with(with(with(with(with(with(with(with(
			eq("status", "client", "line-of-business", "sales-executive", "presales-engineer"),
			"name", engine.FilterDef{Field: "project-name", Op: engine.OpContains}),
			"created-after", engine.FilterDef{Field: "created-at", Op: engine.OpGte, Kind: engine.KindTime}),
			"created-before", engine.FilterDef{Field: "created-at", Op: engine.OpLte, Kind: engine.KindTime}),
			"approved-after", engine.FilterDef{Field: "approved-at", Op: engine.OpGte, Kind: engine.KindTime}),
			"approved-before", engine.FilterDef{Field: "approved-at", Op: engine.OpLte, Kind: engine.KindTime}),
			"submitted-after", engine.FilterDef{Field: "submitted-at", Op: engine.OpGte, Kind: engine.KindTime}),
			"submitted-before", engine.FilterDef{Field: "submitted-at", Op: engine.OpLte, Kind: engine.KindTime}),
			"teammate", engine.FilterDef{Build: func(_ context.Context, c *engine.Call, v string) ([]engine.Cond, error) {
				return projectsOfTeammates(c, engine.SplitList(v))
			}}),
			"my-projects", engine.FilterDef{Kind: engine.KindBool, Build: func(_ context.Context, c *engine.Call, v string) ([]engine.Cond, error) {
				switch v {
				case "true":
					return projectsOfTeammates(c, []string{c.Actor.UserID})
				case "false":
					return nil, nil
				}
				p := c.FilterParam("my-projects")
				return nil, scopekit.ParamErrorf(scopekit.EBADREQUEST, p, "%s must be true or false", p)
			}}),
			"active", engine.FilterDef{Op: engine.OpIn, Kind: engine.KindBool}),
		Hooks: engine.Hooks{Defaults: projectDefaults, AfterWrite: afterProjectWrite,
			Compute: computePrices, Prefetch: accountAhead, Delete: deleteProject,
			Validate: func(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
				return append(validateUDFs(c, "projects", rec), validateProjectStatus(c, rec, old))
			}},
	})

	register(s, &engine.TypeDef{Name: "project-teammates", Guard: "projects", ScopeRel: "project",
		Attrs: computed(engine.AttrDef{Name: "removed-at", Kind: engine.KindTime}),
		Rels:  []engine.RelDef{owner("project", "projects"), owner("user", "users")},
		Filters: with(eq("project", "user"), "removed", engine.FilterDef{Kind: engine.KindBool, Default: "false",
			Build: func(_ context.Context, _ *engine.Call, v string) ([]engine.Cond, error) {
				if v == "true" {
					return []engine.Cond{{Field: "removed-at", Op: engine.OpNotNull}}, nil
				}
				return []engine.Cond{{Field: "removed-at", Op: engine.OpNull}}, nil
			}}),
		Hooks: engine.Hooks{Upsert: upsertTeammate, Delete: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
			if rec.Str("removed-at") == "" {
				rec.Attrs["removed-at"] = engine.FormatTime(svcOf(c).Now())
				return c.Tx.Replace(rec)
			}
			return nil
		}},
	})

	register(s, &engine.TypeDef{Name: "project-locations", Guard: "projects", ScopeRel: "project",
		Attrs: []engine.AttrDef{required(str("name")), str("address"), str("city"), str("region"), str("country"),
			str("postal-code"), flag("remote", false)},
		Rels: []engine.RelDef{owner("project", "projects")}, Filters: eq("project")})
	register(s, &engine.TypeDef{Name: "project-phases", Guard: "projects", ScopeRel: "project",
		Attrs: []engine.AttrDef{required(str("name")), num("position"), text("sow-language")},
		Rels:  []engine.RelDef{owner("project", "projects"), to1("phase", "phases")}, Filters: eq("project")})
	register(s, &engine.TypeDef{Name: "project-resources", ComputeCopies: true, Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{str("name"), str("external-name"), str("code"), perUnit("hourly-rate"), perUnit("hourly-cost")},
			computed(dec("total-hours"), dec("revenue"), dec("cost"))),
		Rels:    []engine.RelDef{owner("project", "projects"), to1("resource", "resources"), to1("line-of-business", "lines-of-business")},
		Filters: eq("project"),
		Hooks:   engine.Hooks{Defaults: projectResourceDefaults, Compute: computePrices, Prefetch: accountAhead}})

	register(s, &engine.TypeDef{Name: "project-services", ComputeCopies: true, Guard: "projects", ScopeRel: "project", V2: true,
		Attrs: cat([]engine.AttrDef{str("name"), withDefault(quantity("quantity"), "1"), hours("unit-hours"), hours("actual-hours"),
			enum("service-type", "professional_services", serviceTypes...),
			enum("payment-frequency", "one_time", paymentFrequencies...),
			text("service-description"), str("sku"), num("position"),
			enum("status", "not_started", "not_started", "in_progress", "on_hold", "complete", "canceled")},
			computed(dec("extended-hours"), dec("total-hours"), engine.AttrDef{Name: "custom-hours", Kind: engine.KindBool},
				dec("revenue"), dec("cost"), str("survey-rule"))),
		Rels: []engine.RelDef{owner("project", "projects"), to1("service", "services"),
			to1("project-phase", "project-phases"), to1("project-location", "project-locations"),
			to1("project-resource", "project-resources"), to1("line-of-business", "lines-of-business"),
			to1("service-category", "service-categories"),
			inverse("project-subservices", "project-subservices", "project-service"), surveyLink},
		Filters: eq("project", "project-phase", "project-location", "service", "survey"),
		Hooks:   engine.Hooks{Defaults: projectServiceDefaults, AfterWrite: afterProjectServiceWrite, Compute: computePrices, Prefetch: accountAhead}})

	register(s, &engine.TypeDef{Name: "project-subservices", ComputeCopies: true, Guard: "projects", ScopeRel: "project", V2: true,
		Attrs: cat([]engine.AttrDef{str("name"), withDefault(quantity("quantity"), "1"), hours("unit-hours"), hours("actual-hours"), num("position")},
			computed(dec("extended-hours"), engine.AttrDef{Name: "custom-hours", Kind: engine.KindBool}, dec("revenue"), dec("cost"))),
		Rels: []engine.RelDef{owner("project-service", "project-services"), to1("subservice", "subservices"),
			to1("project-resource", "project-resources"),
			{Name: "project", Type: "projects", ReadOnly: true, Cascade: true}},
		Filters: eq("project-service", "project"),
		Hooks: engine.Hooks{Compute: computePrices, Prefetch: accountAhead, Defaults: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
			return inheritProject(c, rec, "project-services", "project-service")
		}}})

	register(s, &engine.TypeDef{Name: "project-expenses", ComputeCopies: true, Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{required(str("description")), withDefault(quantity("quantity"), "1"), required(perUnit("rate")), perUnit("unit-cost")},
			computed(dec("revenue"), dec("cost"), dec("profit"), str("survey-rule"))),
		Rels: []engine.RelDef{owner("project", "projects"), to1("expense-category", "expense-categories"),
			to1("project-phase", "project-phases"), to1("project-service", "project-services"), surveyLink},
		Filters: eq("project", "survey"),
		Hooks: engine.Hooks{Compute: computePrices, Prefetch: accountAhead, Defaults: func(_ context.Context, _ *engine.Call, rec *engine.Record) error {
			if _, ok := rec.DecOK("unit-cost"); !ok {
				if r, ok := rec.Attrs["rate"]; ok {
					rec.Attrs["unit-cost"] = r
				}
			}
			return nil
		}}})
	register(s, &engine.TypeDef{Name: "project-products", ComputeCopies: true, Guard: "projects", ScopeRel: "project",
		Attrs: cat([]engine.AttrDef{str("name"), str("sku"), withDefault(quantity("quantity"), "1"), perUnit("unit-price"), perUnit("unit-cost")},
			computed(dec("revenue"), dec("cost"), dec("profit"), str("survey-rule"))),
		Rels:    []engine.RelDef{owner("project", "projects"), to1("product", "products"), surveyLink},
		Filters: eq("project", "survey"),
		Hooks:   engine.Hooks{Defaults: projectProductDefaults, Compute: computePrices, Prefetch: accountAhead}})

	register(s, &engine.TypeDef{Name: "approval-steps", Guard: "projects", ScopeRel: "project", ReadOnly: true,
		Hooks: engine.Hooks{Create: importLegacyStep},
		Attrs: computed(str("kind"), num("position"),
			enum("status", "pending", "pending", "approved", "declined", "rescoped", "canceled"),
			engine.AttrDef{Name: "legacy", Kind: engine.KindBool}, engine.AttrDef{Name: "completed-at", Kind: engine.KindTime}, text("comment")),
		Rels: []engine.RelDef{owner("project", "projects"), to1("approval-level", "approval-levels"),
			inverse("approval-requirements", "approval-requirements", "approval-step"),
			{Name: "required-approvers", Type: "users", ToMany: true, ReadOnly: true},
			{Name: "change-order", Type: "change-orders", ReadOnly: true, Cascade: true}},
		Filters: eq("project", "status", "change-order")})
	register(s, &engine.TypeDef{Name: "approval-requirements", Guard: "projects", ScopeRel: "project", ReadOnly: true,
		Attrs: computed(enum("status", "pending", "pending", "signed", "downgraded"), engine.AttrDef{Name: "signed-at", Kind: engine.KindTime}),
		Rels: []engine.RelDef{owner("approval-step", "approval-steps"), to1("user", "users"),
			{Name: "project", Type: "projects", ReadOnly: true, Cascade: true}},
		Filters: eq("approval-step", "user", "status")})
}

// projectsOfTeammates is a condition on projects on which one of users is
// an active teammate.
func projectsOfTeammates(c *engine.Call, users []string) ([]engine.Cond, error) {
	tms, err := c.Find(views.TypeProjectTeammates, engine.Eq(views.NameUser, users...), engine.Cond{Field: views.NameRemovedAt, Op: engine.OpNull})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(tms))
	for _, t := range tms {
		ids = append(ids, t.Rel(views.NameProject))
	}
	return []engine.Cond{engine.Eq("id", ids...)}, nil
}

// projectDefaults gives a new project the account's default rate table and
// payment term when none is named.
func projectDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	defaults := []struct{ rel, typ string }{
		{views.NameRateTable, views.TypeRateTables}, {views.NamePaymentTerm, views.TypePaymentTerms},
	}
	// read together (where the store reads ahead) with what the create's
	// AfterWrite (addRequiredGovernance) reads
	for _, d := range defaults {
		if _, given := rec.Rels[d.rel]; !given {
			c.FindAhead(d.typ, engine.Eq(views.NameDefault, "true"), engine.Eq(views.NameActive, "true"))
		}
	}
	c.FindAhead(views.TypeGovernances, engine.Eq(views.NameRequired, "true"), engine.Eq(views.NameActive, "true"))
	for _, d := range defaults {
		if _, given := rec.Rels[d.rel]; given {
			continue
		}
		defs, err := c.Find(d.typ, engine.Eq(views.NameDefault, "true"), engine.Eq(views.NameActive, "true"))
		if err != nil {
			return err
		}
		if len(defs) > 0 {
			rec.SetRel(d.rel, defs[0].ID)
		}
	}
	return nil
}

// inheritProject sets the project of a record from its parent's.
func inheritProject(c *engine.Call, rec *engine.Record, parentType, parentRel string) error {
	if id := rec.Rel(parentRel); id != "" {
		if p, err := c.Get(parentType, id); err == nil {
			rec.SetRel(views.NameProject, p.Rel(views.NameProject))
		}
	}
	return nil
}

// joinCreatedProject makes a person who sees only the projects they are a
// teammate of ("assigned" visibility) a teammate of the project they
// create, so that they see what they made; for the rest of the call too.
func joinCreatedProject(c *engine.Call, proj *engine.Record) error {
	if c.Actor.AllScopes || c.Actor.UserID == "" {
		return nil
	}
	tm := engine.NewRecord(views.TypeProjectTeammates, proj.AccountID)
	tm.SetRel(views.NameProject, proj.ID)
	tm.SetRel(views.NameUser, c.Actor.UserID)
	if err := c.Tx.Insert(tm); err != nil {
		return err
	}
	c.AddScope(proj.ID)
	return nil
}

// upsertTeammate returns the existing teammate record of the same project
// and user, restored, instead of creating a second one.
func upsertTeammate(_ context.Context, c *engine.Call, rec *engine.Record) (*engine.Record, error) {
	found, err := c.Find(views.TypeProjectTeammates, engine.Eq(views.NameProject, rec.Rel(views.NameProject)), engine.Eq(views.NameUser, rec.Rel(views.NameUser)))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	ex := found[0]
	delete(ex.Attrs, views.NameRemovedAt)
	return ex, nil
}

// projectProductDefaults copies the catalog product named by a new
// project product: its name and SKU, and its price and cost converted into
// the project's currency.
func projectProductDefaults(_ context.Context, c *engine.Call, rec *engine.Record) error {
	pid := rec.Rel(views.NameProduct)
	if pid == "" {
		return nil
	}
	p, err := c.Get(views.TypeProducts, pid)
	if err != nil {
		return nil // reported by the reference check
	}
	conv, err := catalogConversion(c, rec.Rel(views.NameProject))
	if err != nil {
		return err
	}
	for _, n := range []string{views.NameName, views.NameSku, views.NameUnitPrice, views.NameUnitCost} {
		if !c.Given(n) && p.Attrs[n] != nil {
			rec.Attrs[n] = p.Attrs[n]
			if n == views.NameUnitPrice || n == views.NameUnitCost {
				rec.Attrs[n] = conv.of(p.Attrs[n])
			}
		}
	}
	return nil
}

// governanceCopied are the attributes a project governance item takes from
// its catalog item.
var governanceCopied = []string{views.NameName, views.NameCalculationType, views.NameRate, views.NameFixedHours,
	views.NameAllocationMethod, views.NameFilterType, views.NamePosition}

// addRequiredGovernance copies the account's required, active catalog
// governance items onto a new project, each priced through the project
// resource of its catalog resource.
func addRequiredGovernance(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old != nil {
		return nil
	}
	items, err := c.Find(views.TypeGovernances, engine.Eq(views.NameRequired, "true"), engine.Eq(views.NameActive, "true"))
	if err != nil {
		return err
	}
	sortByPosition(items)
	for _, g := range items {
		pg := engine.NewRecord(views.TypeProjectGovernances, c.AccountID())
		pg.SetRel(views.NameProject, rec.ID)
		pg.SetRel(views.NameGovernance, g.ID)
		if err := copyGovernance(c, lineScope{project: rec.ID}, g, pg, func(string) bool { return false }); err != nil {
			return err
		}
		if err := c.Tx.Insert(pg); err != nil {
			return err
		}
	}
	return nil
}

// deleteProject removes a project as the engine does, unless a client's
// decision was recorded on it: evidence is kept (archive the project
// instead).
func deleteProject(_ context.Context, c *engine.Call, rec *engine.Record) error {
	ev, err := c.Find(views.TypeAcceptances, engine.Eq(views.NameProject, rec.ID))
	if err != nil {
		return err
	}
	if len(ev) > 0 {
		return scopekit.Errorf(scopekit.ECONFLICT, "projects %s holds a client's recorded decision, which is kept: archive the project instead", rec.ID)
	}
	return c.Remove(mustLookup(c.Engine.Schema(), views.TypeProjects), rec)
}
