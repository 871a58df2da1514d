package scoping

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Use cases the workspace needs beyond plain CRUD, each one write
// transaction so that a form never writes half.

// CreateProjectForClient creates a project of the client named
// clientName (compared without regard to case), creating the client
// first when the account has no such client, in one transaction: when
// the project is refused, no client is left behind. in holds the
// project's attributes and relationships other than the client. It
// returns the project as a read would, and whether the client was new.
//
// Errors: EFORBIDDEN without projects manage, or without clients manage
// when the client is new; EINVALID (field "client") for a blank name, and
// the project's and the client's own validation errors.
func (s *Service) CreateProjectForClient(ctx context.Context, a *engine.Actor, clientName string, in *engine.Input) (res *engine.Result, clientCreated bool, err error) {
	if err := a.Require("projects", true); err != nil {
		return nil, false, err
	}
	clientName = strings.TrimSpace(clientName)
	if clientName == "" {
		return nil, false, scopekit.FieldErrorf(scopekit.EINVALID, engine.RelPointer(views.NameClient), "client must not be blank: name an existing client or a new one")
	}
	projects := mustLookup(s.Schema(), views.TypeProjects)
	clients := mustLookup(s.Schema(), views.TypeClients)
	res, err = s.writeRecord(ctx, a, projects, func(c *engine.Call) (*engine.Record, error) {
		clientCreated = false
		found, err := c.Find(views.TypeClients, engine.Eq(views.NameName, clientName))
		if err != nil {
			return nil, err
		}
		// archived clients keep their names: an active one is preferred
		slices.SortStableFunc(found, func(x, y *engine.Record) int { return boolOrder(y.Active(), x.Active()) })
		var client *engine.Record
		for _, f := range found {
			if strings.EqualFold(views.Client{Record: f}.Name(), clientName) {
				client = f
				break
			}
		}
		if client == nil {
			if err := a.Require("clients", true); err != nil {
				return nil, scopekit.FieldErrorf(scopekit.EFORBIDDEN, engine.RelPointer(views.NameClient),
					"there is no client %q, and your role cannot create clients: choose an existing client", clientName)
			}
			name, _ := json.Marshal(clientName)
			if client, _, err = c.CreateRecord(ctx, clients, &engine.Input{Attrs: map[string]json.RawMessage{views.NameName: name}}); err != nil {
				return nil, err
			}
			clientCreated = true
		}
		pin := &engine.Input{Attrs: in.Attrs, Meta: in.Meta, Rels: map[string]engine.RelInput{}}
		for k, v := range in.Rels {
			pin.Rels[k] = v
		}
		pin.Rels[views.NameClient] = engine.RelInput{Refs: []engine.Ref{{Type: views.TypeClients, ID: client.ID}}}
		rec, _, err := c.CreateRecord(ctx, projects, pin)
		return rec, err
	})
	return res, clientCreated, err
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// orderedLines are the types MoveLine reorders, each with the
// relationship its siblings share.
var orderedLines = map[string]string{
	views.TypeProjectServices:    views.NameProject,
	views.TypeProjectSubservices: views.NameProjectService,
	views.TypeProjectPhases:      views.NameProject,
}

// MoveLine moves a line of a project one place up (by -1) or down (by 1)
// among its siblings (the services of the project, the subservices of a
// service, the phases of the project), in the order of position then id,
// and numbers the siblings 1, 2, ... in one transaction. Moving the first
// up or the last down changes nothing.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND for a line that
// is not visible; EBADREQUEST for another type or by.
func (s *Service) MoveLine(ctx context.Context, a *engine.Actor, typ, id string, by int) error {
	parent, ok := orderedLines[typ]
	if !ok || (by != -1 && by != 1) {
		return scopekit.Errorf(scopekit.EBADREQUEST, "only services, subservices and phases move, one place up or down")
	}
	if err := a.Require("projects", true); err != nil {
		return err
	}
	def := mustLookup(s.Schema(), typ)
	_, err := s.write(ctx, a, func(c *engine.Call) error {
		rec, err := c.GetVisible(ctx, def, id, nil)
		if err != nil {
			return err
		}
		where := []engine.Cond{engine.Eq(parent, rec.Rel(parent))}
		if parent == views.NameProject {
			where = scopeOfLine(rec).where() // a change order's copy is a scope of its own
		}
		sibs, err := c.Find(typ, where...)
		if err != nil {
			return err
		}
		slices.SortFunc(sibs, func(x, y *engine.Record) int {
			if d := x.Int(views.NamePosition) - y.Int(views.NamePosition); d != 0 {
				return int(min(max(d, -1), 1))
			}
			return engine.CompareIDs(x.ID, y.ID)
		})
		i := slices.IndexFunc(sibs, func(r *engine.Record) bool { return r.ID == id })
		j := i + by
		if j < 0 || j >= len(sibs) {
			return nil
		}
		sibs[i], sibs[j] = sibs[j], sibs[i]
		for n, r := range sibs {
			if r.Int(views.NamePosition) == int64(n+1) {
				continue
			}
			pos, _ := json.Marshal(n + 1)
			if _, err := c.UpdateRecord(ctx, def, r, &engine.Input{Attrs: map[string]json.RawMessage{views.NamePosition: pos}}); err != nil {
				return err
			}
		}
		return nil
	})
	return err
}
