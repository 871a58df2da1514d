package boltstore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Ensure a range on an indexed created-at (the purge of old publications)
// selects its candidates from the index: only the old records are read,
// however many newer ones there are.
func TestCreatedAtRangeUsesIndex(t *testing.T) {
	db := openTest(t, filepath.Join(t.TempDir(), "t.db"))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, db.Update(context.Background(), func(tx engine.Tx) error {
		for i := range 500 {
			r := engine.NewRecord("webhook-publications", "1")
			r.CreatedAt = engine.FormatTime(t0.Add(time.Duration(i) * time.Minute))
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
	def, _ := scoping.DefaultSchema().Lookup("webhook-publications")
	q := &engine.Query{Type: def.Name, AccountID: "1",
		Where: []engine.Cond{{Field: "created-at", Op: engine.OpLte, Values: []string{engine.FormatTime(t0.Add(4 * time.Minute))}}}}
	require.NoError(t, db.bolt.View(func(btx *bolt.Tx) error {
		t2 := &tx{db: db, btx: btx}
		b, err := t2.records(def.Name, "1", false)
		require.NoError(t, err)
		indexed := map[string]bool{}
		for _, f := range def.IndexedFields() {
			indexed[f] = true
		}
		cand, err := t2.candidates(q, def, b, "1", indexed)
		require.NoError(t, err)
		require.Len(t, cand, 5, "the candidates are the records in range only")
		return nil
	}))
	recs, total, err := listIn(db, q)
	require.NoError(t, err)
	require.Equal(t, 5, total)
	require.Len(t, recs, 5)
}

func listIn(db *DB, q *engine.Query) (recs []*engine.Record, total int, err error) {
	err = db.View(context.Background(), func(tx engine.Tx) error {
		recs, total, err = tx.List(q)
		return err
	})
	return recs, total, err
}
