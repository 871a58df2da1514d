package scoping

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/internal/bounded"
	"github.com/scopekit/scopekit/pricing"
)

// Service is the use-case layer: every read and write of records goes
// through it, so that permissions, visibility and validation hold whatever
// adapter calls it.
type Service struct {
	store  Store
	schema *Schema
	// Now is the clock; tests replace it.
	Now func() time.Time
	// Webhooks plugs in what webhook subscriptions and deliveries need
	// (webhooks.go); the composition root sets it.
	Webhooks WebhookConfig
	// Documents plugs in what document templates and generation need
	// (documents.go); the composition root sets it.
	Documents DocumentConfig

	price func(*pricing.Project) (*pricing.Result, error) // pricing.Price; tests count calls

	actors bounded.Map[actorKey, actorEntry] // resolved actors (Versioned)
}

// An Option configures NewService.
type Option func(*Service)

// WithSchema makes the service serve the types of schema. Without it the
// service uses the store's schema when the store reports one (a Schema()
// *Schema method, as boltstore and pgstore have), else DefaultSchema.
// The store must index the same schema.
func WithSchema(schema *Schema) Option { return func(s *Service) { s.schema = schema } }

// NewService returns a Service over store.
func NewService(store Store, opts ...Option) *Service {
	s := &Service{store: store, Now: func() time.Time { return time.Now().UTC() }, price: pricing.Price}
	for _, o := range opts {
		o(s)
	}
	if s.schema == nil {
		if st, ok := store.(interface{ Schema() *Schema }); ok {
			s.schema = st.Schema()
		}
	}
	if s.schema == nil {
		s.schema = DefaultSchema()
	}
	return s
}

// Store returns the service's store.
func (s *Service) Store() Store { return s.store }

// Schema returns the types the service serves; adapters read their
// declarations from it.
func (s *Service) Schema() *Schema { return s.schema }

// Call is the context of one use case inside one transaction; hooks receive
// it. Meta is the write document's top-level meta; RespMeta collects
// top-level meta for the response.
type Call struct {
	Svc      *Service
	Tx       Tx
	Actor    *Actor
	V2       bool
	Meta     map[string]any
	RespMeta map[string]any
	// Input is the write being applied (nil on reads).
	Input *Input

	pricedCache map[string]*pricedProject // pricing runs of this call, by project id
	events      int                       // events recorded by this call
	acct        *Record                   // the account as this transaction sees it (txAccount)
	childless   map[string]bool           // projects known to have no lines (loadProjectData looks for none)
	queued      bool                      // a document was queued for generation
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

// Eq is a shorthand for an OpIn condition.
func Eq(field string, values ...string) Cond { return Cond{Field: field, Op: OpIn, Values: values} }

func (s *Service) view(ctx context.Context, a *Actor, v2 bool, fn func(c *Call) error) error {
	return s.store.View(ctx, func(tx Tx) error {
		return fn(&Call{Svc: s, Tx: tx, Actor: a, V2: v2})
	})
}

func (s *Service) update(ctx context.Context, a *Actor, v2 bool, meta map[string]any, fn func(c *Call) error) (*Call, error) {
	var call *Call
	var ptx *pricingTx
	err := s.store.Update(ctx, func(tx Tx) error {
		ptx = newPricingTx(tx, s)
		call = &Call{Svc: s, Tx: ptx, Actor: a, V2: v2, Meta: meta, RespMeta: map[string]any{}}
		if err := fn(call); err != nil {
			return err
		}
		return ptx.flush(ctx) // prices are stored with the writes that change them
	})
	if err != nil {
		return call, err
	}
	if call.events > 0 && s.Webhooks.Notify != nil {
		s.Webhooks.Notify() // after the commit: the deliveries are visible
	}
	for _, acct := range slices.Sorted(maps.Keys(ptx.bumped)) {
		// best effort: a project left stale is priced on read until refreshed
		_ = s.RefreshPrices(context.WithoutCancel(ctx), acct)
	}
	if call.queued && s.Documents.Notify != nil {
		s.Documents.Notify() // after the commit: the workers see the queued document
	}
	return call, nil
}

func (s *Service) lookupType(name string) (*TypeDef, error) {
	t, ok := s.schema.Lookup(name)
	if !ok || !t.Served() {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", name)
	}
	return t, nil
}

// visibleProjects returns the ids of the projects the actor may see when
// its role's visibility is "assigned": those on which it is an active
// teammate.
func (c *Call) visibleProjects() (map[string]bool, error) {
	if c.Actor.visible != nil {
		return c.Actor.visible, nil
	}
	tms, err := c.Find("project-teammates", Eq("user", c.Actor.UserID), Cond{Field: "removed-at", Op: OpNull})
	if err != nil {
		return nil, err
	}
	v := make(map[string]bool, len(tms))
	for _, t := range tms {
		v[t.Rel("project")] = true
	}
	c.Actor.visible = v
	return v, nil
}

// canSeeProject reports whether the actor may see the project with id pid.
func (c *Call) canSeeProject(pid string) (bool, error) {
	if c.Actor.AllProjects || pid == "" {
		return true, nil
	}
	v, err := c.visibleProjects()
	return v[pid], err
}

// projectOf returns the id of the project owning rec ("" when none).
func projectOf(def *TypeDef, rec *Record) string {
	switch def.ProjectRel {
	case "":
		return ""
	case "id":
		return rec.ID
	}
	return rec.Rel(def.ProjectRel)
}

// checkVisible answers ENOTFOUND for a record outside the actor's
// visibility.
func (c *Call) checkVisible(def *TypeDef, rec *Record) error {
	ok, err := c.canSeeProject(projectOf(def, rec))
	if err != nil {
		return err
	}
	if !ok {
		return notFound(def.Name, rec.ID)
	}
	return nil
}

func notFound(typ, id string) *scopekit.Error {
	return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s not found", typ, id)
}
