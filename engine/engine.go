// Package engine is ScopeKit's generic resource engine: records of any
// declared type, the schema value that declares them (attributes,
// relationships, filters, guards, hooks), queries, the Store and Tx
// interfaces that storage adapters implement, input decoding and limits,
// and the list, show, related, create, update and delete use cases that
// serve every type the same way. It names no resource type of its own:
// the domain (package scoping) declares its types and hooks into a Schema
// and plugs its rules in through Config. It knows nothing of HTTP or of
// any storage engine.
package engine

import (
	"context"

	"github.com/scopekit/scopekit"
)

// Config plugs the domain's rules into the generic use cases.
type Config struct {
	// Scopes returns the ids of the scope records (the records a
	// TypeDef.ScopeRel points to) an actor that does not see every scope
	// may see. It is called at most once per actor.
	Scopes func(c *Call) (map[string]bool, error)
	// Begin runs when a call starts, inside its transaction (or, for a
	// Prepare hook, as a read without one: Tx nil): it sets the domain's
	// per-call state (Call.Ext). On a write it may also wrap Call.Tx and
	// register BeforeCommit and AfterCommit steps.
	Begin func(c *Call, write bool)
	// Touched runs after a record served by the generic routes is written
	// or removed, in the same transaction.
	Touched func(c *Call, def *TypeDef, rec *Record) error
}

// Options are the choices of the adapter that calls a use case.
type Options struct {
	// Strict makes a write that names a computed attribute or a read-only
	// relationship EBADREQUEST; without it such members are ignored.
	Strict bool
	// FilterParam is how errors name the query parameter of a filter
	// (for example "filter[name]"); nil names it by the filter's name.
	FilterParam func(name string) string
}

// Engine serves the types of a schema over a store.
type Engine struct {
	store  Store
	schema *Schema
	cfg    Config
}

// New returns an Engine serving schema over store. The store must index
// the same schema.
func New(store Store, schema *Schema, cfg Config) *Engine {
	return &Engine{store: store, schema: schema, cfg: cfg}
}

// Store returns the engine's store.
func (e *Engine) Store() Store { return e.store }

// Schema returns the types the engine serves; adapters read their
// declarations from it.
func (e *Engine) Schema() *Schema { return e.schema }

// Call is the context of one use case inside one transaction; hooks receive
// it. Meta is the write document's top-level meta; RespMeta collects
// top-level meta for the response.
type Call struct {
	// Ctx is the context the use case runs under: what a hook traces
	// (its spans) hangs from it.
	Ctx      context.Context
	Engine   *Engine
	Tx       Tx
	Actor    *Actor
	Opts     Options
	Meta     map[string]any
	RespMeta map[string]any
	// Input is the write being applied (nil on reads).
	Input *Input
	// Ext is the domain's state for this call (Config.Begin sets it).
	Ext any
	// Write is, in the read step of WriteThenRead, the write it follows
	// (nil otherwise): a use case that knows what the write's commit
	// steps computed may serve it rather than compute it again.
	Write *Call

	// prepared are the EINVALID errors of the type's Prepare hook, told
	// with those of the write's validation.
	prepared     scopekit.Errors
	beforeCommit []func(ctx context.Context) error
	afterCommit  []func(ctx context.Context)
	existing     bool // a Create hook answered a record that existed
}

// Existing tells the engine that the type's Create hook answers a record
// that existed before the call rather than a new one: the create answers
// 200, not 201.
func (c *Call) Existing() { c.existing = true }

// BeforeCommit adds a step that runs, in order, after the use case and
// before its transaction commits; an error rolls the transaction back.
func (c *Call) BeforeCommit(fn func(ctx context.Context) error) {
	c.beforeCommit = append(c.beforeCommit, fn)
}

// AfterCommit adds a step that runs, in order, once the transaction has
// committed.
func (c *Call) AfterCommit(fn func(ctx context.Context)) { c.afterCommit = append(c.afterCommit, fn) }

// FilterParam names the query parameter of filter name as the caller
// spells it.
func (c *Call) FilterParam(name string) string {
	if c.Opts.FilterParam == nil {
		return name
	}
	return c.Opts.FilterParam(name)
}

// Given reports whether the write being applied names the attribute or
// relationship, so hooks can fill only what the client left out.
func (c *Call) Given(name string) bool {
	if c.Input == nil {
		return false
	}
	if _, ok := c.Input.Attrs[name]; ok {
		return true
	}
	_, ok := c.Input.Rels[name]
	return ok
}

// AccountID returns the id of the account the call addresses.
func (c *Call) AccountID() string { return c.Actor.AccountID() }

// Get reads a record of the call's account.
func (c *Call) Get(typ, id string) (*Record, error) { return c.Tx.Get(typ, c.AccountID(), id) }

// Find lists every record of typ in the call's account matching where.
func (c *Call) Find(typ string, where ...Cond) ([]*Record, error) {
	recs, _, err := c.Tx.List(&Query{Type: typ, AccountID: c.AccountID(), Where: where})
	return recs, err
}

// FindAhead tells the store of a Find the call will make (Prefetcher):
// several Finds announced together cost one round trip.
func (c *Call) FindAhead(typ string, where ...Cond) {
	PrefetchList(c.Tx, &Query{Type: typ, AccountID: c.AccountID(), Where: where})
}

// Eq is a shorthand for an OpIn condition.
func Eq(field string, values ...string) Cond { return Cond{Field: field, Op: OpIn, Values: values} }

// Read runs fn in a read transaction as actor a. fn may run more than
// once (ViewRerun): it must only assign what it reads.
func (e *Engine) Read(ctx context.Context, a *Actor, opts Options, fn func(c *Call) error) error {
	return ViewRerun(ctx, e.store, func(tx Tx) error {
		c := &Call{Ctx: ctx, Engine: e, Tx: tx, Actor: a, Opts: opts}
		if e.cfg.Begin != nil {
			e.cfg.Begin(c, false)
		}
		return fn(c)
	})
}

// Write runs fn in a write transaction as actor a, then the call's
// BeforeCommit steps; after the commit it runs the AfterCommit steps. It
// returns the call (nil when the transaction did not start).
func (e *Engine) Write(ctx context.Context, a *Actor, opts Options, meta map[string]any, fn func(c *Call) error) (*Call, error) {
	return e.WriteThenRead(ctx, a, opts, meta, fn, nil)
}

// WriteThenRead is Write with a last step, last, run after the commit
// steps in the same transaction, as a read call of its own (the domain's
// per-call state is fresh, so nothing the write's steps cached is
// served): a use case answers with what it wrote in one transaction.
func (e *Engine) WriteThenRead(ctx context.Context, a *Actor, opts Options, meta map[string]any, fn func(c *Call) error,
	last func(ctx context.Context, read *Call) error) (*Call, error) {
	var call *Call
	err := e.store.Update(ctx, func(tx Tx) error {
		call = &Call{Ctx: ctx, Engine: e, Tx: tx, Actor: a, Opts: opts, Meta: meta, RespMeta: map[string]any{}}
		if e.cfg.Begin != nil {
			e.cfg.Begin(call, true)
		}
		if err := fn(call); err != nil {
			return err
		}
		for _, step := range call.beforeCommit {
			if err := step(ctx); err != nil {
				return err
			}
		}
		if last == nil {
			return nil
		}
		read := &Call{Ctx: ctx, Engine: e, Tx: tx, Actor: a, Opts: opts, Write: call}
		if e.cfg.Begin != nil {
			e.cfg.Begin(read, false)
		}
		return last(ctx, read)
	})
	if err != nil {
		return call, err
	}
	for _, step := range call.afterCommit {
		step(ctx)
	}
	return call, nil
}

// LookupType returns the declaration of a served type (ENOTFOUND for an
// unknown or unserved one).
func (e *Engine) LookupType(name string) (*TypeDef, error) {
	t, ok := e.schema.Lookup(name)
	if !ok || !t.Served() {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", name)
	}
	return t, nil
}

// scopes returns the ids of the scopes the actor may see when it does not
// see all of them.
func (c *Call) scopes() (map[string]bool, error) {
	if c.Actor.scopes != nil {
		return c.Actor.scopes, nil
	}
	v := map[string]bool{}
	if c.Engine.cfg.Scopes != nil {
		var err error
		if v, err = c.Engine.cfg.Scopes(c); err != nil {
			return nil, err
		}
	}
	c.Actor.scopes = v
	return v, nil
}

// AddScope notes that the actor now sees the scope sid, which a write of
// this call made visible (after the scopes were read, or before they are:
// then they are read with it).
func (c *Call) AddScope(sid string) {
	if c.Actor.scopes != nil {
		c.Actor.scopes[sid] = true
	}
}

// CanSee reports whether the actor may see the scope with id sid ("" is
// no scope: visible).
func (c *Call) CanSee(sid string) (bool, error) {
	if c.Actor.AllScopes || sid == "" {
		return true, nil
	}
	v, err := c.scopes()
	return v[sid], err
}

// ScopeOf returns the id of the scope record rec belongs to ("" when its
// type has none).
func ScopeOf(def *TypeDef, rec *Record) string {
	switch def.ScopeRel {
	case "":
		return ""
	case "id":
		return rec.ID
	}
	return rec.Rel(def.ScopeRel)
}

// CheckVisible answers ENOTFOUND for a record outside the actor's
// visibility.
func (c *Call) CheckVisible(def *TypeDef, rec *Record) error {
	ok, err := c.CanSee(ScopeOf(def, rec))
	if err != nil {
		return err
	}
	if !ok {
		return NotFound(def.Name, rec.ID)
	}
	return nil
}

// NotFound is the ENOTFOUND error of a record.
func NotFound(typ, id string) *scopekit.Error {
	return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s not found", typ, id)
}
