package scoping_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// txCounter is a bbolt store that counts its transactions.
type txCounter struct {
	*boltstore.DB
	views, updates int
}

func (s *txCounter) View(ctx context.Context, fn func(engine.Tx) error) error {
	s.views++
	return s.DB.View(ctx, fn)
}

func (s *txCounter) Update(ctx context.Context, fn func(engine.Tx) error) error {
	s.updates++
	return s.DB.Update(ctx, fn)
}

// Ensure a create or update of a priced record is one transaction: the
// write, the prices it changes and the answer (with those prices).
func TestWriteIsOneTransaction(t *testing.T) {
	ctx := context.Background()
	db := bolttest.Open(t, scoping.DefaultSchema())
	st := &txCounter{DB: db}
	svc := scoping.NewService(st)
	var acctID string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount("acme", "Acme", "USD")
		acctID = acct.ID
		return err
	}))
	a, err := svc.SystemActor(ctx, acctID)
	require.NoError(t, err)
	seeded, err := demodata.Seed(ctx, svc, a, "")
	require.NoError(t, err)

	st.views, st.updates = 0, 0
	proj, err := svc.Create(ctx, a, "projects", &engine.Input{Attrs: attrs("project-name", `"One"`),
		Rels: map[string]engine.RelInput{"client": rel("clients", seeded.ClientID)}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 1}, [2]int{st.views, st.updates}, "create a project: views, updates")
	require.NotEmpty(t, proj.Records[0].Str("contract-revenue"), "the answer carries the prices stored with it")

	services, err := svc.List(ctx, a, "services", engine.ListParams{PageSize: 1}, engine.Options{})
	require.NoError(t, err)
	st.views, st.updates = 0, 0
	line, err := svc.Create(ctx, a, "project-services", &engine.Input{Rels: map[string]engine.RelInput{
		"project": rel("projects", proj.Records[0].ID), "service": rel("services", services.Records[0].ID)}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 1}, [2]int{st.views, st.updates}, "add a service: views, updates")
	require.NotEmpty(t, line.Records[0].Str("revenue"))

	st.views, st.updates = 0, 0
	_, err = svc.Update(ctx, a, "projects", proj.Records[0].ID, &engine.Input{Attrs: attrs("project-name", `"Two"`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 1}, [2]int{st.views, st.updates}, "update a project: views, updates")
}
