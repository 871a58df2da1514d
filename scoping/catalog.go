package scoping

import (
	"context"

	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The catalog: what an account sells (docs/resources.md, "Catalog").

var serviceTypes = []string{"professional_services", "managed_services"}
var paymentFrequencies = []string{"one_time", "monthly", "quarterly", "annually"}

func declareCatalog(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "lines-of-business", Guard: "catalog", Archives: true, V2: true,
		Attrs: []engine.AttrDef{unique(str("name")), str("code")}, Filters: named()})
	register(s, &engine.TypeDef{Name: "phases", Guard: "catalog", Archives: true, V2: true,
		Attrs: []engine.AttrDef{required(str("name")), num("position"), text("sow-language")}, Filters: named()})
	register(s, &engine.TypeDef{Name: "service-categories", Guard: "catalog", Archives: true, V2: true,
		Attrs:   []engine.AttrDef{required(str("name"))},
		Filters: map[string]engine.FilterDef{"name": {Op: engine.OpContains}}})
	register(s, &engine.TypeDef{Name: "expense-categories", Guard: "catalog", Archives: true,
		Attrs: []engine.AttrDef{required(str("name"))}, Filters: named()})
	register(s, &engine.TypeDef{Name: "products", Guard: "catalog", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")), str("sku"), perUnit("unit-price"), perUnit("unit-cost")}, Filters: named()})

	register(s, &engine.TypeDef{Name: "services", Guard: "catalog", Archives: true, V2: true,
		Attrs: cat([]engine.AttrDef{unique(str("name")), text("description"), str("sku"), hours("hours"),
			enum("service-type", "professional_services", serviceTypes...),
			enum("payment-frequency", "one_time", paymentFrequencies...),
			num("position"), obj("user-defined-fields")},
			computed(enum("state", "draft", "draft", "pending_approval", "approved"), num("version"))),
		Rels: []engine.RelDef{to1("phase", "phases"), to1("line-of-business", "lines-of-business"),
			to1("service-category", "service-categories"), to1("resource", "resources"),
			inverse("subservices", "subservices", "service")},
		Filters: with(with(with(eq("phase", "line-of-business", "service-category", "service-type", "state"),
			"name", engine.FilterDef{Op: engine.OpContains}), "sku", engine.FilterDef{Op: engine.OpContains}),
			"active", engine.FilterDef{Op: engine.OpIn, Kind: engine.KindBool}),
		Hooks: engine.Hooks{
			Defaults: func(_ context.Context, _ *engine.Call, rec *engine.Record) error {
				rec.Attrs["state"], rec.Attrs["version"] = "draft", int64(1)
				return nil
			},
			Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
				return validateUDFs(c, "services", rec)
			},
			AfterWrite: newServiceVersion,
		}})
	register(s, &engine.TypeDef{Name: "subservices", Guard: "catalog", Archives: true, V2: true,
		Attrs:   []engine.AttrDef{required(str("name")), hours("hours"), withDefault(quantity("quantity"), "1"), num("position")},
		Rels:    []engine.RelDef{owner("service", "services"), to1("resource", "resources")},
		Filters: eq("service")})

	register(s, &engine.TypeDef{Name: "resources", Guard: "rate_tables", Archives: true, V2: true,
		Attrs: []engine.AttrDef{unique(str("name")), str("external-name"), text("description"),
			perUnit("hourly-rate"), perUnit("hourly-cost")}, Filters: named()})
	register(s, &engine.TypeDef{Name: "rate-tables", Guard: "rate_tables", Archives: true, V2: true,
		Attrs: []engine.AttrDef{required(str("name")), str("currency"), flag("default", false)}, Filters: named(),
		Hooks: engine.Hooks{
			Defaults: func(_ context.Context, c *engine.Call, rec *engine.Record) error {
				if engine.Blank(rec.Attrs["currency"]) { // rule 5: the account default
					rec.Attrs["currency"] = c.Actor.Account.Str("default-currency")
				}
				return nil
			},
			Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
				return []error{validCurrency(c, rec.Str("currency"))}
			},
			AfterWrite: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) error {
				return keepOneDefault(c, rec)
			},
		}})
	register(s, &engine.TypeDef{Name: "resource-rates", Guard: "rate_tables",
		Attrs:   []engine.AttrDef{perUnit("hourly-rate"), perUnit("hourly-cost")},
		Rels:    []engine.RelDef{owner("rate-table", "rate-tables"), owner("resource", "resources")},
		Filters: eq("rate-table", "resource"),
		Hooks: engine.Hooks{Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
			return []error{uniquePair(c, rec, "rate-table", "resource")}
		}}})
	register(s, &engine.TypeDef{Name: "currencies", Guard: "rate_tables",
		Attrs: []engine.AttrDef{unique(str("code")), str("name"), required(withBound(dec("conversion-rate"), "1000000000", 12)),
			{Name: "minor-units", Kind: engine.KindInt, NotNull: true}}, // absent: from ISO 4217
		Hooks: engine.Hooks{Defaults: currencyDefaults, Validate: validateCurrency, Delete: deleteCurrency}})

	register(s, &engine.TypeDef{Name: "blueprints", Guard: "catalog", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")), text("description")}, Filters: named(),
		Rels: []engine.RelDef{inverse("blueprint-items", "blueprint-items", "blueprint"),
			{Name: "services", Type: "services", ToMany: true, ReadOnly: true,
				Through: "blueprint-items", From: "blueprint", To: "service"}}})
	register(s, &engine.TypeDef{Name: "blueprint-items", Guard: "catalog",
		Attrs:   []engine.AttrDef{withDefault(quantity("quantity"), "1"), num("position")},
		Rels:    []engine.RelDef{owner("blueprint", "blueprints"), owner("service", "services")},
		Filters: eq("blueprint", "service")})

	register(s, &engine.TypeDef{Name: "service-approvers", Guard: "catalog",
		Rels:    []engine.RelDef{owner("user", "users"), owner("line-of-business", "lines-of-business")},
		Filters: eq("user", "line-of-business")})

	register(s, &engine.TypeDef{Name: "governances", Guard: "governance", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")),
			enum("calculation-type", "percent_of_total", calculationTypes...), withBound(dec("rate"), "", 6), hours("fixed-hours"),
			enum("allocation-method", "prorate_phases_by_effort", allocationMethods...),
			enum("filter-type", "all_services", filterTypes...),
			{Name: "required", Kind: engine.KindBool, Default: false, Index: true}, num("position")},
		Rels:    []engine.RelDef{to1("resource", "resources"), to1("phase", "phases"), to1("service-category", "service-categories")},
		Filters: named(),
		Hooks: engine.Hooks{Validate: func(_ context.Context, _ *engine.Call, rec, _ *engine.Record) []error {
			return validateGovernance(rec, "phase")
		}}})
}

func withDefault(a engine.AttrDef, v any) engine.AttrDef { a.Default = v; return a }

// keepOneDefault clears `default` on the other records of rec's type when
// rec became the default: one default per account.
func keepOneDefault(c *engine.Call, rec *engine.Record) error {
	if !rec.Bool(views.NameDefault) {
		return nil
	}
	others, err := c.Find(rec.Type, engine.Eq(views.NameDefault, "true"))
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != rec.ID {
			o.Attrs[views.NameDefault] = false
			if err := c.Tx.Replace(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// uniquePair returns an EINVALID error when another record of rec's type
// has the same pair of relationships.
func uniquePair(c *engine.Call, rec *engine.Record, a, b string) error {
	dups, err := c.Find(rec.Type, engine.Eq(a, rec.Rel(a)), engine.Eq(b, rec.Rel(b)))
	if err != nil {
		return err
	}
	for _, d := range dups {
		if d.ID != rec.ID {
			return engine.Invalid(engine.RelPointer(b), "a %s for this %s and %s already exists", rec.Type, a, b)
		}
	}
	return nil
}

// validCurrency accepts the account's default currency and the codes of its
// currencies records.
func validCurrency(c *engine.Call, code string) error {
	if code == (views.Account{Record: c.Actor.Account}).DefaultCurrency() {
		return nil
	}
	found, err := c.Find(views.TypeCurrencies, engine.Eq(views.NameCode, code))
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return engine.Invalid(engine.AttrPointer(views.NameCurrency), "currency %s is not set up in this account (add it under currencies)", code)
	}
	return nil
}

// ImportCatalog imports a catalog file into the actor's account
// (docs/import.md): package catalogimport reads it and applies its rows
// through the generic create and update, in one write of this service.
// Errors are catalogimport.Import's.
func (s *Service) ImportCatalog(ctx context.Context, a *engine.Actor, f catalogimport.File, dryRun bool) (*catalogimport.Report, error) {
	return catalogimport.Import(ctx, s.eng, a, f, dryRun)
}

// ExportCatalog writes the actor's account's catalog in format, as the
// import reads it (catalogimport.Export).
func (s *Service) ExportCatalog(ctx context.Context, a *engine.Actor, format catalogimport.Format) ([]byte, error) {
	return catalogimport.Export(ctx, s.eng, a, format)
}
