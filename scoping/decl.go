package scoping

// Small constructors that keep the type declarations readable.

func str(name string) AttrDef  { return AttrDef{Name: name, Kind: KindString} }
func text(name string) AttrDef { return AttrDef{Name: name, Kind: KindText} }
func dec(name string) AttrDef  { return AttrDef{Name: name, Kind: KindDecimal} }
func num(name string) AttrDef  { return AttrDef{Name: name, Kind: KindInt} }
func flag(name string, def bool) AttrDef {
	return AttrDef{Name: name, Kind: KindBool, Default: def}
}
func date(name string) AttrDef { return AttrDef{Name: name, Kind: KindDate} }
func obj(name string) AttrDef  { return AttrDef{Name: name, Kind: KindObject} }
func enum(name string, def string, values ...string) AttrDef {
	a := AttrDef{Name: name, Kind: KindEnum, Enum: values, Index: true}
	if def != "" {
		a.Default = def
	}
	return a
}

// computed marks attributes as computed; their kind only documents them.
func computed(attrs ...AttrDef) []AttrDef {
	for i := range attrs {
		attrs[i].Computed = true
	}
	return attrs
}

func required(a AttrDef) AttrDef { a.Required = true; return a }
func unique(a AttrDef) AttrDef   { a.Required, a.Unique = true, true; return a }

func to1(name, typ string) RelDef { return RelDef{Name: name, Type: typ} }
func toN(name, typ string) RelDef { return RelDef{Name: name, Type: typ, ToMany: true} }

// owner is the required to-one relationship to the record that owns this
// one: deleting the owner deletes it.
func owner(name, typ string) RelDef {
	return RelDef{Name: name, Type: typ, Required: true, Cascade: true}
}

// inverse is a to-many relationship listing the records of typ whose
// relationship back points here.
func inverse(name, typ, back string) RelDef {
	return RelDef{Name: name, Type: typ, ToMany: true, Inverse: back, ReadOnly: true}
}

// eq declares equality filters on fields of the same name.
func eq(names ...string) map[string]FilterDef {
	m := make(map[string]FilterDef, len(names))
	for _, n := range names {
		m[n] = FilterDef{Op: OpIn}
	}
	return m
}

func with(m map[string]FilterDef, name string, f FilterDef) map[string]FilterDef {
	m[name] = f
	return m
}

func cat(lists ...[]AttrDef) []AttrDef {
	var out []AttrDef
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
