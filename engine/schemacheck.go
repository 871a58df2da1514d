package engine

import (
	"errors"
	"fmt"
	"slices"
)

// Check checks the declarations against each other: every
// relationship names a declared type, an inverse relationship names a
// stored one of its type, a through relationship names a joining type with
// both joining relationships, every guard is a known permission, every
// filter compares a field the type has (unless it builds its own
// conditions), and a type's scope relationship exists. The declarations
// are static, so a failure is a programming error.
func (s *Schema) Check() error {
	var errs []error
	bad := func(t *TypeDef, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", t.Name, fmt.Sprintf(format, args...)))
	}
	hasField := func(t *TypeDef, f string) bool {
		switch f {
		case "id", "created-at", "updated-at":
			return true
		}
		_, isAttr := t.Attr(f)
		_, isRel := t.Rel(f)
		return isAttr || isRel
	}
	for _, t := range s.Types() {
		for i := range t.Attrs {
			if err := t.Attrs[i].checkBound(); err != nil {
				bad(t, "%v", err)
			}
		}
		for _, g := range append([]string{t.Guard}, t.WriteGuards...) {
			if g != "" && !slices.Contains(s.guards, g) {
				bad(t, "guard %q is not a permission", g)
			}
		}
		if t.ScopeRel != "" && t.ScopeRel != "id" {
			if _, ok := t.Rel(t.ScopeRel); !ok {
				bad(t, "scope relationship %q is not declared", t.ScopeRel)
			}
		}
		for _, r := range t.Rels {
			target, ok := s.Lookup(r.Type)
			if !ok {
				bad(t, "relationship %s names undeclared type %q", r.Name, r.Type)
				continue
			}
			switch {
			case r.Inverse != "":
				if back, ok := target.Rel(r.Inverse); !ok || !back.Stored() || back.Type != t.Name {
					bad(t, "inverse relationship %s: %s has no stored relationship %q to %s", r.Name, r.Type, r.Inverse, t.Name)
				}
			case r.Through != "":
				join, ok := s.Lookup(r.Through)
				if !ok {
					bad(t, "through relationship %s names undeclared type %q", r.Name, r.Through)
					continue
				}
				if from, ok := join.Rel(r.From); !ok || from.Type != t.Name {
					bad(t, "through relationship %s: %s has no relationship %q to %s", r.Name, r.Through, r.From, t.Name)
				}
				if to, ok := join.Rel(r.To); !ok || to.Type != r.Type {
					bad(t, "through relationship %s: %s has no relationship %q to %s", r.Name, r.Through, r.To, r.Type)
				}
			}
		}
		for name, f := range t.Filters {
			field := f.Field
			if field == "" {
				field = name
			}
			if f.Build == nil && !hasField(t, field) {
				bad(t, "filter %s compares undeclared field %q", name, field)
			}
		}
	}
	return errors.Join(errs...)
}
