package scoping

import (
	"context"
	"maps"
	"slices"
	"sync/atomic"

	"github.com/scopekit/scopekit/engine"

	"github.com/scopekit/scopekit/pricing"
)

// CountPricing makes s count its pricing runs in n.
func CountPricing(s *Service, n *atomic.Int64) {
	s.price = func(p *pricing.Project) (*pricing.Result, error) {
		n.Add(1)
		return pricing.Price(p)
	}
}

// FreshFigures prices every project of the actor's account afresh from the
// stored records, ignoring stored figures, and returns the price figures
// each priced record would have, by "type/id".
func FreshFigures(ctx context.Context, s *Service, a *engine.Actor) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	err := s.read(ctx, a, func(c *engine.Call) error {
		projects, err := c.Find("projects")
		if err != nil {
			return err
		}
		ids := make([]string, len(projects))
		for i, p := range projects {
			ids[i] = p.ID
		}
		state(c).pricedCache = map[string]*pricedProject{}
		d, err := loadProjectData(c, ids, nil)
		if err != nil {
			return err
		}
		if err := priceData(c, d, ids); err != nil {
			return err
		}
		for typ := range figureAttrs {
			for _, r := range d[typ] {
				r = r.Clone()
				setFigures(c, r)
				out[typ+"/"+r.ID] = Figures(r)
			}
		}
		return nil
	})
	return out, err
}

// Figures returns the price figures of a record (absent ones left out).
func Figures(r *engine.Record) map[string]any {
	m := map[string]any{}
	for _, n := range figureAttrs[r.Type] {
		if v, ok := r.Attrs[n]; ok {
			m[n] = v
		}
	}
	return m
}

// PricedTypes are the types that carry price figures.
func PricedTypes() []string { return slices.Sorted(maps.Keys(figureAttrs)) }

// ForgetStoredPrices makes a project look as if written before prices were
// stored (its figures are kept but no longer trusted).
func ForgetStoredPrices(ctx context.Context, s *Service, accountID, projectID string) error {
	return s.eng.Store().Update(ctx, func(tx engine.Tx) error {
		p, err := tx.Get("projects", accountID, projectID)
		if err != nil {
			return err
		}
		delete(p.Attrs, pricedEpochAttr)
		return tx.Replace(p)
	})
}

// Store is the service's store, for the tests that prepare or inspect it
// behind the use cases' back.
func (s *Service) Store() engine.Store { return s.eng.Store() }
