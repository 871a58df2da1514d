package catalogimport_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Ensure an import reserves the ids of the rows it creates, and only
// them (engine.IDReserver, on PostgreSQL): the records it creates are
// numbered one after another, and the rows that name existing records
// take no id.
func TestImportReservesWhatItCreates(t *testing.T) {
	e := newEnvOn(t, pgtest.Open(t, scoping.DefaultSchema())) // skips without SCOPEKIT_TEST_DATABASE
	head := []any{"Name", "Hourly rate"}
	ids := func() map[string]string {
		out := map[string]string{}
		require.NoError(t, e.db.View(context.Background(), func(tx engine.Tx) error {
			recs, _, err := tx.List(&engine.Query{Type: views.TypeResources, AccountID: e.accts["acme"]})
			for _, r := range recs {
				out[r.Str(views.NameName)] = r.ID
			}
			return err
		}))
		return out
	}
	rows := [][]any{head, {"A", 1}, {"B", 2}, {"C", 3}}
	for _, add := range [][][]any{nil, {{"D", 4}, {"E", 5}}, {{"F", 6}}} {
		rows = append(rows, add...)
		_, err := e.importFile("acme", xlsx(book(t, "Resources", rows)), false)
		require.NoError(t, err)
	}
	require.Equal(t, map[string]string{"A": "1", "B": "2", "C": "3", "D": "4", "E": "5", "F": "6"}, ids())
}
