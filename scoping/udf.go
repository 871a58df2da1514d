package scoping

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

var udfName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

func declareUDF(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "user-defined-fields", Guard: "settings", Archives: true,
		Attrs: []engine.AttrDef{required(str("name")), str("label"),
			enum("field-type", "text", "text", "number", "date", "select"),
			{Name: "options", Kind: engine.KindList},
			required(enum("resource-type", "", "projects", "clients", "services"))},
		Hooks: engine.Hooks{Validate: func(_ context.Context, c *engine.Call, rec, _ *engine.Record) []error {
			var errs []error
			if n := rec.Str("name"); n != "" && !udfName.MatchString(n) { // rule 4
				errs = append(errs, engine.Invalid(engine.AttrPointer("name"), "name may contain only letters, digits and underscores"))
			}
			dups, err := c.Find("user-defined-fields", engine.Eq("resource-type", rec.Str("resource-type")))
			if err != nil {
				return []error{err}
			}
			for _, d := range dups {
				if d.ID != rec.ID && d.Str("name") == rec.Str("name") {
					errs = append(errs, engine.Invalid(engine.AttrPointer("name"), "name %q has already been taken for %s", rec.Str("name"), rec.Str("resource-type")))
				}
			}
			if rec.Str("field-type") == "select" && len(optionsOf(rec)) == 0 {
				errs = append(errs, engine.Invalid(engine.AttrPointer("options"), "options can't be blank for a select field"))
			}
			return errs
		}}})
}

func optionsOf(rec *engine.Record) []string {
	raw, _ := rec.Attrs[views.NameOptions].([]any)
	out := make([]string, 0, len(raw))
	for _, o := range raw {
		if s, ok := o.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// validateUDFs checks a record's `user-defined-fields` object against the
// account's active definitions for resourceType: every key must be defined
// and every value must fit its field type.
func validateUDFs(c *engine.Call, resourceType string, rec *engine.Record) []error {
	vals, _ := rec.Attrs[views.NameUserDefinedFields].(map[string]any)
	if len(vals) == 0 {
		return nil
	}
	defs, err := c.Find(views.TypeUserDefinedFields, engine.Eq(views.NameResourceType, resourceType), engine.Eq(views.NameActive, "true"))
	if err != nil {
		return []error{err}
	}
	byName := make(map[string]*engine.Record, len(defs))
	for _, d := range defs {
		byName[d.Str(views.NameName)] = d
	}
	p := engine.AttrPointer(views.NameUserDefinedFields)
	var errs []error
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := vals[k]
		d, ok := byName[k]
		if !ok {
			errs = append(errs, engine.Invalid(p, "user-defined field %q is not defined for %s", k, resourceType))
			continue
		}
		if v == nil {
			continue
		}
		s, isStr := v.(string)
		okv := true
		switch d.Str(views.NameFieldType) {
		case "number":
			switch n := v.(type) {
			case json.Number:
				_, err := decimal.NewFromString(n.String())
				okv = err == nil
			case string:
				_, err := decimal.NewFromString(n)
				okv = err == nil
			default:
				okv = false
			}
		case "date":
			_, err := time.Parse(time.DateOnly, s)
			okv = isStr && err == nil
		case "select":
			okv = isStr && slices.Contains(optionsOf(d), s)
		default:
			okv = isStr
		}
		if !okv {
			errs = append(errs, engine.Invalid(p, "user-defined field %q must be a valid %s value", k, d.Str(views.NameFieldType)))
		}
	}
	return errs
}
