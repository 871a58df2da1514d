package scoping_test

import (
	"context"
	"errors"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// errStore is what a store whose reads of one type fail answers.
var errStore = errors.New("store failed")

// getFails is a store whose transactions fail every Get of one type.
type getFails struct {
	engine.Store
	typ string
}

func (s getFails) View(ctx context.Context, fn func(tx engine.Tx) error) error {
	return s.Store.View(ctx, func(tx engine.Tx) error { return fn(getFailsTx{tx, s.typ}) })
}

func (s getFails) Update(ctx context.Context, fn func(tx engine.Tx) error) error {
	return s.Store.Update(ctx, func(tx engine.Tx) error { return fn(getFailsTx{tx, s.typ}) })
}

type getFailsTx struct {
	engine.Tx
	typ string
}

func (tx getFailsTx) Get(typ, accountID, id string) (*engine.Record, error) {
	if typ == tx.typ {
		return nil, errStore
	}
	return tx.Tx.Get(typ, accountID, id)
}

// Ensure adding a catalog service to a project fails when the store fails
// to read the service's phase or resource, instead of adding it without
// its project phase or project resource.
func TestCopyServiceStoreError(t *testing.T) {
	ctx := context.Background()
	svc, a := mustSetup(t)
	create := func(s *scoping.Service, typ string, in *engine.Input) (*engine.Record, error) {
		res, err := s.Create(ctx, a, typ, in, engine.Options{})
		if err != nil {
			return nil, err
		}
		return res.Records[0], nil
	}
	must := func(typ string, in *engine.Input) *engine.Record {
		rec, err := create(svc, typ, in)
		require.NoError(t, err)
		return rec
	}
	res := must(views.TypeResources, &engine.Input{Attrs: attrs(views.NameName, `"Engineer"`, views.NameHourlyRate, `200`)})
	phase := must(views.TypePhases, &engine.Input{Attrs: attrs(views.NameName, `"Plan"`)})
	service := must(views.TypeServices, &engine.Input{Attrs: attrs(views.NameName, `"Assessment"`, views.NameHours, `8`),
		Rels: map[string]engine.RelInput{views.NamePhase: rel(views.TypePhases, phase.ID), views.NameResource: rel(views.TypeResources, res.ID)}})
	client := must(views.TypeClients, &engine.Input{Attrs: attrs(views.NameName, `"Globex"`)})
	project := must(views.TypeProjects, &engine.Input{Attrs: attrs(views.NameProjectName, `"Firewall"`),
		Rels: map[string]engine.RelInput{views.NameClient: rel(views.TypeClients, client.ID)}})
	in := &engine.Input{Rels: map[string]engine.RelInput{
		views.NameProject: rel(views.TypeProjects, project.ID), views.NameService: rel(views.TypeServices, service.ID)}}

	for _, typ := range []string{views.TypePhases, views.TypeResources} {
		t.Run(typ, func(t *testing.T) {
			_, err := create(scoping.NewService(getFails{Store: svc.Store(), typ: typ}), views.TypeProjectServices, in)
			require.ErrorIs(t, err, errStore)
		})
	}
	ps, err := create(svc, views.TypeProjectServices, in)
	require.NoError(t, err)
	require.NotEmpty(t, views.ProjectService{Record: ps}.ProjectPhase())
	require.NotEmpty(t, views.ProjectService{Record: ps}.ProjectResource())
}
