package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The catalog: what an account sells (docs/resources.md, "Catalog").

var serviceTypes = []string{"professional_services", "managed_services"}
var paymentFrequencies = []string{"one_time", "monthly", "quarterly", "annually"}

func declareCatalog(s *Schema) {
	register(s, &TypeDef{Name: "lines-of-business", Guard: "catalog", Archives: true, V2: true,
		Attrs: []AttrDef{unique(str("name")), str("code")}})
	register(s, &TypeDef{Name: "phases", Guard: "catalog", Archives: true, V2: true,
		Attrs: []AttrDef{required(str("name")), num("position"), text("sow-language")}})
	register(s, &TypeDef{Name: "service-categories", Guard: "catalog", Archives: true, V2: true,
		Attrs: []AttrDef{required(str("name"))}})
	register(s, &TypeDef{Name: "expense-categories", Guard: "catalog", Archives: true,
		Attrs: []AttrDef{required(str("name"))}})
	register(s, &TypeDef{Name: "products", Guard: "catalog", Archives: true,
		Attrs: []AttrDef{required(str("name")), str("sku"), dec("unit-price"), dec("unit-cost")}})

	register(s, &TypeDef{Name: "services", Guard: "catalog", Archives: true, V2: true,
		Attrs: cat([]AttrDef{unique(str("name")), text("description"), str("sku"), dec("hours"),
			enum("service-type", "professional_services", serviceTypes...),
			enum("payment-frequency", "one_time", paymentFrequencies...),
			num("position"), obj("user-defined-fields")},
			computed(enum("state", "draft", "draft", "pending_approval", "approved"), num("version"))),
		Rels: []RelDef{to1("phase", "phases"), to1("line-of-business", "lines-of-business"),
			to1("service-category", "service-categories"), to1("resource", "resources"),
			inverse("subservices", "subservices", "service")},
		Filters: with(with(eq("phase", "line-of-business", "service-category", "service-type", "state"),
			"name", FilterDef{Op: OpContains}), "active", FilterDef{Op: OpIn, Kind: KindBool}),
		Hooks: Hooks{
			Defaults: func(_ context.Context, _ *Call, rec *Record) error {
				rec.Attrs["state"], rec.Attrs["version"] = "draft", int64(1)
				return nil
			},
			Validate: func(_ context.Context, c *Call, rec, _ *Record) []error {
				return validateUDFs(c, "services", rec)
			},
			AfterWrite: newServiceVersion,
		}})
	register(s, &TypeDef{Name: "subservices", Guard: "catalog", Archives: true, V2: true,
		Attrs:   []AttrDef{required(str("name")), dec("hours"), withDefault(dec("quantity"), "1"), num("position")},
		Rels:    []RelDef{owner("service", "services"), to1("resource", "resources")},
		Filters: eq("service")})

	register(s, &TypeDef{Name: "resources", Guard: "rate_tables", Archives: true, V2: true,
		Attrs: []AttrDef{unique(str("name")), str("external-name"), text("description"),
			dec("hourly-rate"), dec("hourly-cost")}})
	register(s, &TypeDef{Name: "rate-tables", Guard: "rate_tables", Archives: true, V2: true,
		Attrs: []AttrDef{required(str("name")), str("currency"), flag("default", false)},
		Hooks: Hooks{
			Defaults: func(_ context.Context, c *Call, rec *Record) error {
				if engine.Blank(rec.Attrs["currency"]) { // rule 5: the account default
					rec.Attrs["currency"] = c.Actor.Account.Str("default-currency")
				}
				return nil
			},
			Validate: func(_ context.Context, c *Call, rec, _ *Record) []error {
				return []error{validCurrency(c, rec.Str("currency"))}
			},
			AfterWrite: func(_ context.Context, c *Call, rec, _ *Record) error {
				return keepOneDefault(c, rec)
			},
		}})
	register(s, &TypeDef{Name: "resource-rates", Guard: "rate_tables",
		Attrs:   []AttrDef{dec("hourly-rate"), dec("hourly-cost")},
		Rels:    []RelDef{owner("rate-table", "rate-tables"), owner("resource", "resources")},
		Filters: eq("rate-table", "resource"),
		Hooks: Hooks{Validate: func(_ context.Context, c *Call, rec, _ *Record) []error {
			return []error{uniquePair(c, rec, "rate-table", "resource")}
		}}})
	register(s, &TypeDef{Name: "currencies", Guard: "rate_tables",
		Attrs: []AttrDef{unique(str("code")), str("name"), required(dec("conversion-rate")),
			{Name: "minor-units", Kind: KindInt, NotNull: true}}, // absent: from ISO 4217
		Hooks: Hooks{Defaults: currencyDefaults, Validate: validateCurrency, Delete: deleteCurrency}})

	register(s, &TypeDef{Name: "blueprints", Guard: "catalog", Archives: true,
		Attrs: []AttrDef{required(str("name")), text("description")},
		Rels: []RelDef{inverse("blueprint-items", "blueprint-items", "blueprint"),
			{Name: "services", Type: "services", ToMany: true, ReadOnly: true,
				Through: "blueprint-items", From: "blueprint", To: "service"}}})
	register(s, &TypeDef{Name: "blueprint-items", Guard: "catalog",
		Attrs:   []AttrDef{withDefault(dec("quantity"), "1"), num("position")},
		Rels:    []RelDef{owner("blueprint", "blueprints"), owner("service", "services")},
		Filters: eq("blueprint", "service")})

	register(s, &TypeDef{Name: "service-approvers", Guard: "catalog",
		Rels:    []RelDef{owner("user", "users"), owner("line-of-business", "lines-of-business")},
		Filters: eq("user", "line-of-business")})

	register(s, &TypeDef{Name: "governances", Guard: "governance", Archives: true,
		Attrs: []AttrDef{required(str("name")),
			enum("calculation-type", "percent_of_total", calculationTypes...), dec("rate"), dec("fixed-hours"),
			enum("allocation-method", "prorate_phases_by_effort", allocationMethods...),
			enum("filter-type", "all_services", filterTypes...),
			{Name: "required", Kind: KindBool, Default: false, Index: true}, num("position")},
		Rels: []RelDef{to1("resource", "resources"), to1("phase", "phases"), to1("service-category", "service-categories")},
		Hooks: Hooks{Validate: func(_ context.Context, _ *Call, rec, _ *Record) []error {
			return validateGovernance(rec, "phase")
		}}})
}

func withDefault(a AttrDef, v any) AttrDef { a.Default = v; return a }

// keepOneDefault clears `default` on the other records of rec's type when
// rec became the default: one default per account.
func keepOneDefault(c *Call, rec *Record) error {
	if !rec.Bool(views.NameDefault) {
		return nil
	}
	others, err := c.Find(rec.Type, Eq(views.NameDefault, "true"))
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
func uniquePair(c *Call, rec *Record, a, b string) error {
	dups, err := c.Find(rec.Type, Eq(a, rec.Rel(a)), Eq(b, rec.Rel(b)))
	if err != nil {
		return err
	}
	for _, d := range dups {
		if d.ID != rec.ID {
			return engine.Invalid(RelPointer(b), "a %s for this %s and %s already exists", rec.Type, a, b)
		}
	}
	return nil
}

// validCurrency accepts the account's default currency and the codes of its
// currencies records.
func validCurrency(c *Call, code string) error {
	if code == (views.Account{Record: c.Actor.Account}).DefaultCurrency() {
		return nil
	}
	found, err := c.Find(views.TypeCurrencies, Eq(views.NameCode, code))
	if err != nil {
		return err
	}
	if len(found) == 0 {
		return engine.Invalid(AttrPointer(views.NameCurrency), "currency %s is not set up in this account (add it under currencies)", code)
	}
	return nil
}
