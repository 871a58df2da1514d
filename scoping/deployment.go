package scoping

import (
	"context"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The deployment's own record: whether its first start (the database
// created, then whatever the composition root provisions: a bootstrap,
// the demo) has completed. It is recorded complete only at the end of
// that start, so that a first start that failed half way is a first start
// again, whatever it left behind.

// First start states, the deployment record's first-start.
const (
	firstStartBegun    = "begun"
	firstStartComplete = "complete"
)

func declareDeployment(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "deployments", Global: true, Internal: true,
		Attrs: []engine.AttrDef{enum("first-start", firstStartBegun, firstStartBegun, firstStartComplete),
			{Name: "completed-at", Kind: engine.KindTime}}})
}

// BeginFirstStart tells whether this start is the deployment's first: a
// start after one that began and did not complete, or the start of a
// store created now (storeCreated: a new file, a new schema) that holds no
// account yet. A first start is recorded begun here and must be recorded
// complete (CompleteFirstStart) at its end. A store that holds accounts
// but no such record (written before the record existed) is recorded
// complete: it is no first start.
func (s *Service) BeginFirstStart(ctx context.Context, storeCreated bool) (first bool, err error) {
	err = s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		first = false
		rec, err := deployment(tx)
		if err != nil {
			return err
		}
		if rec != nil {
			first = rec.Str(views.NameFirstStart) != firstStartComplete
			return nil
		}
		accounts, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Limit: 1})
		if err != nil {
			return err
		}
		rec = engine.NewRecord(views.TypeDeployments, "")
		switch {
		case len(accounts) > 0:
			rec.Attrs[views.NameFirstStart] = firstStartComplete
		case storeCreated:
			rec.Attrs[views.NameFirstStart], first = firstStartBegun, true
		default:
			return nil // an empty store this start did not create: left as it is
		}
		return tx.Insert(rec)
	})
	return first, err
}

// CompleteFirstStart records the deployment's first start complete, at
// its end: later starts are not first ones.
func (s *Service) CompleteFirstStart(ctx context.Context) error {
	return s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		rec, err := deployment(tx)
		if err != nil {
			return err
		}
		if rec == nil {
			rec = engine.NewRecord(views.TypeDeployments, "")
			rec.Attrs[views.NameFirstStart] = firstStartComplete
			rec.Attrs[views.NameCompletedAt] = s.Now()
			return tx.Insert(rec)
		}
		rec.Attrs[views.NameFirstStart], rec.Attrs[views.NameCompletedAt] = firstStartComplete, s.Now()
		return tx.Replace(rec)
	})
}

// deployment reads the deployment record (nil when there is none yet).
func deployment(tx engine.Tx) (*engine.Record, error) {
	recs, _, err := tx.List(&engine.Query{Type: views.TypeDeployments, Limit: 1})
	if err != nil || len(recs) == 0 {
		return nil, err
	}
	return recs[0], nil
}
