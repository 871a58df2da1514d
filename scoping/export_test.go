package scoping

import (
	"sync/atomic"

	"github.com/scopekit/scopekit/pricing"
)

// CountPricing makes s count its pricing runs in n.
func CountPricing(s *Service, n *atomic.Int64) {
	s.price = func(p *pricing.Project) (*pricing.Result, error) {
		n.Add(1)
		return pricing.Price(p)
	}
}
