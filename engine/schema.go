package engine

import (
	"context"
	"sort"
)

// Kind is the value kind of an attribute.
type Kind int

// Attribute kinds. Decimal values are stored and served as decimal strings
// and accepted as JSON strings or numbers.
const (
	KindString  Kind = iota // JSON string
	KindText                // long JSON string (no difference on the wire; documents intent)
	KindEnum                // one of AttrDef.Enum
	KindDecimal             // money, hours, quantities, rates
	KindInt                 // whole number
	KindBool                // true or false
	KindDate                // YYYY-MM-DD
	KindTime                // TimeFormat
	KindObject              // JSON object
	KindList                // JSON array of strings
	KindAny                 // any JSON value (conditions)
)

// AttrDef declares one attribute of a type.
type AttrDef struct {
	Name     string
	Kind     Kind
	Enum     []string // KindEnum: the accepted values
	Required bool     // blank or missing on create: 422
	Computed bool     // read-only, derived; writes are 400 on v2 and ignored on v1
	Unique   bool     // unique per account, case-insensitively: 422 on a clash
	Index    bool     // indexed for OpIn filters in the store
	Signed   bool     // KindDecimal: may be negative (adjustments)
	Default  any      // canonical value set on create when absent
	Sortable bool     // accepted by sort=
	// MaxLen overrides the kind's length limit (limits.go): characters for
	// short strings, bytes for text and structured values.
	MaxLen int
	// NotNull refuses null in writes (422) where the kind would take it
	// as "back to the default".
	NotNull bool
	// Max bounds a KindDecimal or KindInt value (limits.go): at most Max,
	// and at least -Max where Signed; "" takes the kind's bound
	// (MaxDecimal, MaxInt). Places bounds the digits of a decimal after
	// its point; 0 takes DecimalPlaces.
	Max    string
	Places int32
	// Link marks a computed attribute whose value is a path relative to
	// the record's own URL ("download"); adapters serve it as an absolute
	// URL, and null stays null.
	Link bool
}

// RelDef declares one relationship of a type. A stored relationship keeps
// ids on the record; an inverse one (Inverse set) is the records of Type
// whose relationship Inverse points here; a through one lists the To
// relationship of the Through records whose From points here.
type RelDef struct {
	Name     string
	Type     string // the related type
	ToMany   bool
	Required bool
	ReadOnly bool   // set by the engine, never by a write
	Inverse  string // inverse to-many: the relationship of Type that points here
	Through  string // through to-many: the joining type
	From, To string // through: joining relationships (From points here, To to Type)
	// ThroughWhere narrows the joining records (for example to those not
	// removed).
	ThroughWhere []Cond
	Cascade      bool // stored to-one: deleting the target deletes this record
}

// Stored reports whether the relationship keeps ids on the record.
func (d *RelDef) Stored() bool { return d.Inverse == "" && d.Through == "" }

// Writable reports whether a write may set the relationship: a stored one,
// or a through one (its joining records are added and removed to match),
// unless ReadOnly.
func (d *RelDef) Writable() bool { return !d.ReadOnly && d.Inverse == "" }

// Hooks are the type-specific steps of the generic engine. Every hook but
// Prepare runs inside the write transaction of the request.
type Hooks struct {
	// Prepare runs before the write transaction of a create (old nil) or
	// an update of old opens, with the write's input, for checks that
	// reach outside the process (a network request) and must not hold
	// the store's write lock meanwhile. Its Call has no transaction (Tx
	// is nil). Its EINVALID errors are reported with the write's own
	// (declarations, Validate), which still run in the transaction; any
	// other error is the write's answer at once.
	Prepare func(ctx context.Context, c *Call, old *Record, in *Input) error
	// Defaults fills derived values of a new record before validation.
	Defaults func(ctx context.Context, c *Call, rec *Record) error
	// Validate checks rules beyond the declarations; old is nil on create.
	Validate func(ctx context.Context, c *Call, rec, old *Record) []error
	// AfterWrite runs after the record is stored (create or update; old is
	// nil on create) and may write related records.
	AfterWrite func(ctx context.Context, c *Call, rec, old *Record) error
	// Create, when set, replaces the generic create of the type (the
	// type's guard is checked at manage level first).
	Create func(ctx context.Context, c *Call, in *Input) (*Record, error)
	// Upsert, when set, may return an existing record that a create
	// restores instead of inserting rec (the answer is then 200, not 201).
	Upsert func(ctx context.Context, c *Call, rec *Record) (*Record, error)
	// Delete, when set, replaces the generic removal (for example a
	// teammate is marked removed rather than deleted).
	Delete func(ctx context.Context, c *Call, rec *Record) error
	// Compute sets computed attributes of records about to be served, in
	// one pass over the batch.
	Compute func(ctx context.Context, c *Call, recs []*Record) error
	// Prefetch names the records a read of this type's records will also
	// need (what Compute reads whatever the records): a store that reads
	// ahead (Prefetcher) reads them with the records.
	Prefetch func(c *Call) []Key
}

// TypeDef declares a resource type once; the generic engine, the store's
// indexes and the HTTP adapter all read it.
type TypeDef struct {
	Name     string // JSON:API type, e.g. "clients"
	Guard    string // the permission that guards it
	Archives bool   // has `active`; the active filter applies
	V2       bool   // served under /v2 too
	Global   bool   // not owned by an account (accounts)
	ReadOnly bool   // no writes through the generic routes (a Create hook may still allow creates)
	Internal bool   // stored through the engine but never served (the event outbox)
	// WriteGuards are further permissions a write of the type needs at
	// manage level besides Guard (a read needs Guard alone).
	WriteGuards []string
	// ScopeRel names the relationship to the record whose visibility
	// governs this one ("id": the record is a scope itself); actors that
	// do not see every scope see only records of the scopes Config.Scopes
	// lists.
	ScopeRel string
	// Reread serves a written record as stored after the commit steps
	// (Call.BeforeCommit) rather than as the write left it.
	Reread bool
	// IndexCreated indexes created-at, so that a range condition on it
	// (a purge of old records) reads only the records in range.
	IndexCreated bool
	// Blobs are the kinds of files kept beside each record (BlobTx); they
	// are removed with the record.
	Blobs []string
	// Versioned types are those whose records readers keep in memory
	// (the account, user and role of an actor): a store shared by several
	// processes tells every process of each committed write of them.
	Versioned bool
	// Async means a create only queues the work: adapters answer 202
	// Accepted (with the record and its Location) instead of 201.
	Async   bool
	Attrs   []AttrDef
	Rels    []RelDef
	Filters map[string]FilterDef // accepted filter names besides ids and active
	Hooks   Hooks
	// ComputeCopies says the Compute hook changes no record it is given:
	// it replaces one it changes in the slice with a copy (Record.Clone),
	// so a list may give it records shared with other readers.
	ComputeCopies bool

	attrIdx map[string]int
	relIdx  map[string]int
	// Attrs and Rels sorted by name
	attrsByName []*AttrDef
	relsByName  []*RelDef
}

// FilterDef turns a filter value into conditions.
type FilterDef struct {
	Field string // the field compared (defaults to the filter name)
	Op    Op
	// Build, when set, replaces the default translation.
	Build func(ctx context.Context, c *Call, value string) ([]Cond, error)
	// Kind of the value: KindTime values are RFC 3339 dates or times; KindBool true/false.
	Kind Kind
	// Default, when set, is the value a list (and an include) applies when
	// the request gives none; a GET of one record ignores it.
	Default string
}

// Served reports whether the type has routes of its own.
func (t *TypeDef) Served() bool { return !t.Global && !t.Internal }

// Attr returns the attribute declaration named name.
func (t *TypeDef) Attr(name string) (*AttrDef, bool) {
	i, ok := t.attrIdx[name]
	if !ok {
		return nil, false
	}
	return &t.Attrs[i], true
}

// AttrsByName returns the attribute declarations sorted by name (in byte
// order, as encoders sort object keys), for adapters that write every
// record of a type in one fixed order. The slice is shared: callers must
// not modify it.
func (t *TypeDef) AttrsByName() []*AttrDef { return t.attrsByName }

// RelsByName is AttrsByName for the relationship declarations.
func (t *TypeDef) RelsByName() []*RelDef { return t.relsByName }

// Rel returns the relationship declaration named name.
func (t *TypeDef) Rel(name string) (*RelDef, bool) {
	i, ok := t.relIdx[name]
	if !ok {
		return nil, false
	}
	return &t.Rels[i], true
}

// IndexedFields lists the fields the store indexes: stored to-one
// relationships and attributes marked Index or Unique, plus active.
func (t *TypeDef) IndexedFields() []string {
	var out []string
	for _, a := range t.Attrs {
		if a.Index || a.Unique || a.Name == "active" {
			out = append(out, a.Name)
		}
	}
	for _, r := range t.Rels {
		if r.Stored() {
			out = append(out, r.Name)
		}
	}
	if t.IndexCreated {
		out = append(out, "created-at")
	}
	return out
}

// TimeField reports whether field holds times (TimeFormat text, which
// sorts as the times do): created-at, updated-at and KindTime attributes.
func (t *TypeDef) TimeField(field string) bool {
	if field == "created-at" || field == "updated-at" {
		return true
	}
	a, ok := t.Attr(field)
	return ok && a.Kind == KindTime
}

// Sortable reports whether sort= accepts field for this type.
func (t *TypeDef) Sortable(field string) (SortKey, bool) {
	switch field {
	case "created-at", "updated-at":
		return SortKey{Field: field}, true
	}
	a, ok := t.Attr(field)
	if !ok || !a.Sortable {
		return SortKey{}, false
	}
	return SortKey{Field: field, Numeric: a.Kind == KindInt || a.Kind == KindDecimal}, true
}

// Schema is the set of declared resource types, built and checked once
// and then only read: the engine, the stores (which index what it
// declares) and the adapters (which serve what it declares) are given the
// same value rather than reading a package-global registry.
type Schema struct {
	guards []string
	types  map[string]*TypeDef
	sorted []*TypeDef
}

// NewSchema returns an empty schema whose types may be guarded by the
// named guards (permissions).
func NewSchema(guards ...string) *Schema {
	return &Schema{guards: guards, types: map[string]*TypeDef{}}
}

// Guards returns the guards (permissions) the schema knows.
func (s *Schema) Guards() []string { return s.guards }

// Register adds t to the schema, with the attributes every type has
// (created-at, updated-at, and active for types that archive). It panics
// on a duplicate because declarations are static.
func (s *Schema) Register(t *TypeDef) *TypeDef {
	if _, dup := s.types[t.Name]; dup {
		panic("engine: type declared twice: " + t.Name)
	}
	t.Attrs = append(t.Attrs, AttrDef{Name: "created-at", Kind: KindTime, Computed: true},
		AttrDef{Name: "updated-at", Kind: KindTime, Computed: true})
	if t.Archives {
		t.Attrs = append(t.Attrs, AttrDef{Name: "active", Kind: KindBool, Default: true, Index: true})
	}
	t.attrIdx, t.attrsByName = indexByName(t.Attrs, func(a *AttrDef) string { return a.Name })
	t.relIdx, t.relsByName = indexByName(t.Rels, func(r *RelDef) string { return r.Name })
	s.types[t.Name] = t
	s.sorted = append(s.sorted, t)
	sort.Slice(s.sorted, func(i, j int) bool { return s.sorted[i].Name < s.sorted[j].Name })
	return t
}

// indexByName maps the names of decls to their indexes and lists
// pointers to decls sorted by name.
func indexByName[D any](decls []D, name func(*D) string) (map[string]int, []*D) {
	idx := make(map[string]int, len(decls))
	sorted := make([]*D, len(decls))
	for i := range decls {
		idx[name(&decls[i])] = i
		sorted[i] = &decls[i]
	}
	sort.Slice(sorted, func(i, j int) bool { return name(sorted[i]) < name(sorted[j]) })
	return idx, sorted
}

// Lookup returns the declaration of the type named name.
func (s *Schema) Lookup(name string) (*TypeDef, bool) {
	t, ok := s.types[name]
	return t, ok
}

// Types returns every declared type, sorted by name. The slice is shared:
// callers must not modify it.
func (s *Schema) Types() []*TypeDef { return s.sorted }
