package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The generic use cases on records, served by the engine for every
// declared type. Service lists them one by one rather than embedding the
// engine: adapters get the use cases, never the engine's transactions
// (engine.Engine.Read, Write, WriteRecord) nor its store, through which a
// write would skip the domain's rules.

// Schema returns the types the service serves; adapters read their
// declarations (attributes, filters, guards) from it.
func (s *Service) Schema() *engine.Schema { return s.eng.Schema() }

// ReadableType resolves typ and checks that a may read it (EFORBIDDEN
// without the type's guard at view level, ENOTFOUND for an unknown type).
func (s *Service) ReadableType(a *engine.Actor, typ string) (*engine.TypeDef, error) {
	return s.eng.ReadableType(a, typ)
}

// WritableType resolves typ and checks that a may write it (EFORBIDDEN
// for a read-only type or without the guard at manage level).
func (s *Service) WritableType(a *engine.Actor, typ string) (*engine.TypeDef, error) {
	return s.eng.WritableType(a, typ)
}

// List returns a page of records of typ visible to a (engine.Engine.List).
func (s *Service) List(ctx context.Context, a *engine.Actor, typ string, p engine.ListParams, opts engine.Options) (*engine.Result, error) {
	return s.eng.List(ctx, a, typ, p, opts)
}

// Get returns the record typ/id when a may see it (engine.Engine.Get).
func (s *Service) Get(ctx context.Context, a *engine.Actor, typ, id string, p engine.ListParams, opts engine.Options) (*engine.Result, error) {
	return s.eng.Get(ctx, a, typ, id, p, opts)
}

// Related returns what relationship relName of the record typ/id points
// to (engine.Engine.Related).
func (s *Service) Related(ctx context.Context, a *engine.Actor, typ, id, relName string, p engine.ListParams, opts engine.Options) (*engine.Result, error) {
	return s.eng.Related(ctx, a, typ, id, relName, p, opts)
}

// Create validates in and stores a new record of typ, with the type's
// hooks, in one transaction (engine.Engine.Create). A project service is
// added through AddService, as every adapter adds one.
func (s *Service) Create(ctx context.Context, a *engine.Actor, typ string, in *engine.Input, opts engine.Options) (*engine.Result, error) {
	if typ == views.TypeProjectServices {
		return s.AddService(ctx, a, ServiceToAdd{Input: in}, opts)
	}
	return s.eng.Create(ctx, a, typ, in, opts)
}

// CreateEach runs fn in one write transaction in which create adds
// records as Create does, each with its type's guard, validation and
// hooks: all of them are stored, or none (engine.Engine.CreateEach).
func (s *Service) CreateEach(ctx context.Context, a *engine.Actor, fn func(create func(typ string, in *engine.Input) (*engine.Record, error)) error) error {
	return s.eng.CreateEach(ctx, a, engine.Options{}, fn)
}

// Update applies in to the record typ/id (engine.Engine.Update).
func (s *Service) Update(ctx context.Context, a *engine.Actor, typ, id string, in *engine.Input, opts engine.Options) (*engine.Result, error) {
	return s.eng.Update(ctx, a, typ, id, in, opts)
}

// Delete removes (or archives) the record typ/id (engine.Engine.Delete).
func (s *Service) Delete(ctx context.Context, a *engine.Actor, typ, id string, opts engine.Options) error {
	return s.eng.Delete(ctx, a, typ, id, opts)
}
