package scoping

import (
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Small constructors that keep the type declarations readable.

func str(name string) engine.AttrDef  { return engine.AttrDef{Name: name, Kind: engine.KindString} }
func text(name string) engine.AttrDef { return engine.AttrDef{Name: name, Kind: engine.KindText} }
func dec(name string) engine.AttrDef  { return engine.AttrDef{Name: name, Kind: engine.KindDecimal} }
func num(name string) engine.AttrDef  { return engine.AttrDef{Name: name, Kind: engine.KindInt} }
func flag(name string, def bool) engine.AttrDef {
	return engine.AttrDef{Name: name, Kind: engine.KindBool, Default: def}
}
func date(name string) engine.AttrDef { return engine.AttrDef{Name: name, Kind: engine.KindDate} }
func obj(name string) engine.AttrDef  { return engine.AttrDef{Name: name, Kind: engine.KindObject} }
func enum(name string, def string, values ...string) engine.AttrDef {
	a := engine.AttrDef{Name: name, Kind: engine.KindEnum, Enum: values, Index: true}
	if def != "" {
		a.Default = def
	}
	return a
}

// computed marks attributes as computed; their kind only documents them.
func computed(attrs ...engine.AttrDef) []engine.AttrDef {
	for i := range attrs {
		attrs[i].Computed = true
	}
	return attrs
}

func required(a engine.AttrDef) engine.AttrDef { a.Required = true; return a }
func unique(a engine.AttrDef) engine.AttrDef   { a.Required, a.Unique = true, true; return a }

// withMaxLen sets the attribute's length limit below its kind's.
func withMaxLen(a engine.AttrDef, n int) engine.AttrDef { a.MaxLen = n; return a }

func to1(name, typ string) engine.RelDef { return engine.RelDef{Name: name, Type: typ} }
func toN(name, typ string) engine.RelDef { return engine.RelDef{Name: name, Type: typ, ToMany: true} }

// owner is the required to-one relationship to the record that owns this
// one: deleting the owner deletes it.
func owner(name, typ string) engine.RelDef {
	return engine.RelDef{Name: name, Type: typ, Required: true, Cascade: true}
}

// inverse is a to-many relationship listing the records of typ whose
// relationship back points here.
func inverse(name, typ, back string) engine.RelDef {
	return engine.RelDef{Name: name, Type: typ, ToMany: true, Inverse: back, ReadOnly: true}
}

// eq declares equality filters on fields of the same name.
func eq(names ...string) map[string]engine.FilterDef {
	m := make(map[string]engine.FilterDef, len(names))
	for _, n := range names {
		m[n] = engine.FilterDef{Op: engine.OpIn}
	}
	return m
}

func with(m map[string]engine.FilterDef, name string, f engine.FilterDef) map[string]engine.FilterDef {
	m[name] = f
	return m
}

func cat(lists ...[]engine.AttrDef) []engine.AttrDef {
	var out []engine.AttrDef
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// surveyLink is the relationship of a project line to the survey that
// added it (its survey-rule names the rule); only applying the survey
// sets it.
var surveyLink = engine.RelDef{Name: views.NameSurvey, Type: views.TypeSurveys, ReadOnly: true}
