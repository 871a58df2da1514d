package scoping

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/bounded"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Service is the use-case layer: every read and write of records goes
// through it, so that permissions, visibility and validation hold whatever
// adapter calls it. The generic use cases (list, show, related, create,
// update, delete) are the engine's; the domain's own use cases (pricing,
// approval, documents, accounts) are methods of Service.
type Service struct {
	eng *engine.Engine // the generic use cases; its transactions are the domain's own
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Webhooks plugs in what webhook subscriptions and deliveries need
	// (webhooks.go); the composition root sets it.
	Webhooks WebhookConfig
	// Documents plugs in what document templates and generation need
	// (documents.go); the composition root sets it.
	Documents DocumentConfig
	// SSO plugs in what identity providers and verified domains need
	// (sso.go, domains.go); the composition root sets it.
	SSO SSOConfig
	// Log receives what fails after a commit, where no caller can be
	// told (nil: slog.Default()).
	Log *slog.Logger
	// Tracer, when set, traces the costly steps (trace.go); the
	// composition root sets it.
	Tracer Tracer
	// SignIns revokes the refresh tokens a tightened sign-in policy no
	// longer admits (signinpolicy.go); the composition root sets it to
	// its auth.Service.
	SignIns RefreshRevoker

	price func(*pricing.Project) (*pricing.Result, error) // pricing.Price; tests count calls

	actors bounded.Map[actorKey, actorEntry] // resolved actors (engine.Versioned)
}

// An Option configures NewService.
type Option func(*options)

type options struct{ schema *engine.Schema }

// WithSchema makes the service serve the types of schema. Without it the
// service uses the store's schema when the store reports one
// (engine.SchemaReporter, as boltstore and pgstore do), else DefaultSchema.
// The store must index the same schema.
func WithSchema(schema *engine.Schema) Option { return func(o *options) { o.schema = schema } }

// NewService returns a Service over store.
func NewService(store engine.Store, opts ...Option) *Service {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	if o.schema == nil {
		if st, ok := store.(engine.SchemaReporter); ok {
			o.schema = st.Schema()
		}
	}
	if o.schema == nil {
		o.schema = DefaultSchema()
	}
	s := &Service{Now: func() time.Time { return time.Now().UTC() }, price: pricing.Price}
	s.eng = engine.New(store, o.schema, engine.Config{
		Scopes: assignedProjects,
		Begin:  s.begin,
		Touched: func(c *engine.Call, def *engine.TypeDef, rec *engine.Record) error {
			if err := lockedScope(c, def, rec); err != nil { // changeorders.go
				return err
			}
			return restoreTeammate(c, def, rec)
		},
	})
	return s
}

// callState is the domain's state of one call (engine.Call.Ext).
type callState struct {
	svc         *Service
	pricedCache map[string]*pricedProject // pricing runs of this call, by project id
	events      int                       // events recorded by this call
	acct        *engine.Record            // the account as this transaction sees it (txAccount)
	childless   map[string]bool           // projects known to have no lines (loadProjectData looks for none)
	queued      bool                      // a document was queued for generation
}

// state returns the domain's state of call c.
func state(c *engine.Call) *callState { return c.Ext.(*callState) }

// svcOf returns the Service running call c.
func svcOf(c *engine.Call) *Service { return state(c).svc }

// begin sets up a call: the domain's state and, on a write, the stored
// prices (storedprices.go) and what runs after the commit.
func (s *Service) begin(c *engine.Call, write bool) {
	st := &callState{svc: s}
	c.Ext = st
	if !write {
		return
	}
	ptx := newPricingTx(c.Tx, s)
	c.Tx = ptx
	c.BeforeCommit(ptx.flush) // prices are stored with the writes that change them
	c.AfterCommit(func(ctx context.Context) {
		if st.events > 0 && s.Webhooks.Notify != nil {
			s.Webhooks.Notify() // after the commit: the deliveries are visible
		}
		for _, acct := range slices.Sorted(maps.Keys(ptx.bumped)) {
			// the write has committed: a project left stale is priced on
			// read until the next refresh (at the next such write or start)
			if err := s.RefreshPrices(context.WithoutCancel(ctx), acct); err != nil {
				s.log().Error("stale prices not refreshed", "account", acct, "err", err)
			}
		}
		if st.queued && s.Documents.Notify != nil {
			s.Documents.Notify() // after the commit: the workers see the queued document
		}
	})
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// read runs fn in a read transaction as a, for the domain's own use cases.
func (s *Service) read(ctx context.Context, a *engine.Actor, fn func(c *engine.Call) error) error {
	return s.eng.Read(ctx, a, engine.Options{}, fn)
}

// write runs fn in a write transaction as a, for the domain's own use
// cases.
func (s *Service) write(ctx context.Context, a *engine.Actor, fn func(c *engine.Call) error) (*engine.Call, error) {
	return s.eng.Write(ctx, a, engine.Options{}, nil, fn)
}

// writeRecord runs fn in a write transaction as a and answers with the
// record it returns as a read would, in the same transaction.
func (s *Service) writeRecord(ctx context.Context, a *engine.Actor, def *engine.TypeDef, fn func(c *engine.Call) (*engine.Record, error)) (*engine.Result, error) {
	return s.eng.WriteRecord(ctx, a, engine.Options{}, nil, def, fn)
}

// recordAction is the skeleton of a use case that acts on one record: once
// a holds guard (at manage level when manage), it runs fn on the record id
// of type typ that a may see, in a write transaction, and answers with the
// record as a read would.
func (s *Service) recordAction(ctx context.Context, a *engine.Actor, guard string, manage bool, typ, id string,
	fn func(c *engine.Call, rec *engine.Record) error) (*engine.Result, error) {
	if err := a.Require(guard, manage); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), typ)
	return s.writeRecord(ctx, a, def, func(c *engine.Call) (*engine.Record, error) {
		rec, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return nil, err
		}
		return rec, fn(c, rec)
	})
}

// assignedProjects returns the ids of the projects the actor may see when
// its role's visibility is "assigned": those on which it is an active
// teammate.
func assignedProjects(c *engine.Call) (map[string]bool, error) {
	tms, err := c.Find(views.TypeProjectTeammates, engine.Eq(views.NameUser, c.Actor.UserID), engine.Cond{Field: views.NameRemovedAt, Op: engine.OpNull})
	if err != nil {
		return nil, err
	}
	v := make(map[string]bool, len(tms))
	for _, t := range tms {
		v[t.Rel(views.NameProject)] = true
	}
	return v, nil
}

// restoreTeammate clears removed-at of the actor's teammate record on the
// project rec belongs to: a removed teammate who edits the project again
// is restored. Managing the team (writes to project-teammates) is not
// editing the project, so a teammate who removes itself stays removed.
func restoreTeammate(c *engine.Call, def *engine.TypeDef, rec *engine.Record) error {
	pid := engine.ScopeOf(def, rec)
	if pid == "" || def.Name == views.TypeProjectTeammates {
		return nil
	}
	tms, err := c.Find(views.TypeProjectTeammates, engine.Eq(views.NameProject, pid), engine.Eq(views.NameUser, c.Actor.UserID),
		engine.Cond{Field: views.NameRemovedAt, Op: engine.OpNotNull})
	if err != nil {
		return err
	}
	for _, t := range tms {
		delete(t.Attrs, views.NameRemovedAt)
		if err := c.Tx.Replace(t); err != nil {
			return err
		}
	}
	return nil
}
