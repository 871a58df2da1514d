package demodata

import (
	"fmt"

	"github.com/scopekit/scopekit/engine"
)

// SeedLarge inserts docs/pricing.md's large project into the account through
// tx: 25 locations × 40 services × 3 subservices (1,000 services, 3,000
// subservices: 4,000 labor lines), 12 resources, 3 phases, 6 governance
// items, 50 expenses and 50 products, with the users as teammates. It
// writes records directly, in the caller's one transaction: benchmarks use
// it to measure reads, and creating 4,000 records through the engine one
// write each would only slow them down. It returns the project's id.
func SeedLarge(tx engine.Tx, accountID, clientID string, teammates []string) (string, error) {
	in := NewInserter(tx, accountID)
	ins := in.Insert
	pid := ins("projects", map[string]any{"project-name": "Large", "active": true, "status": "draft", "mrr-terms": int64(12),
		"executive-summary": "Replace the network of 25 sites.", "revenue-adjustment": "-250", "cost-adjustment": "100"},
		map[string]string{"client": clientID})
	p := map[string]string{"project": pid}
	for _, u := range teammates {
		ins("project-teammates", nil, map[string]string{"project": pid, "user": u})
	}
	var resources, phases, locations []string
	for i := range 12 {
		resources = append(resources, ins("project-resources", map[string]any{"name": fmt.Sprintf("Resource %02d", i),
			"hourly-rate": fmt.Sprintf("%d.50", 150+i*10), "hourly-cost": fmt.Sprintf("%d.25", 70+i*5)}, p))
	}
	for i := range 3 {
		phases = append(phases, ins("project-phases", map[string]any{"name": fmt.Sprintf("Phase %d", i), "position": int64(i),
			"sow-language": "The work of this phase."}, p))
	}
	for i := range 25 {
		locations = append(locations, ins("project-locations", map[string]any{"name": fmt.Sprintf("Site %02d", i),
			"address": fmt.Sprintf("%d Main St", i+1), "city": "Springfield", "country": "US"}, p))
	}
	for l := range 25 {
		for s := range 40 {
			svc := ins("project-services", map[string]any{"name": fmt.Sprintf("Service %d-%d", l, s), "quantity": "2",
				"unit-hours": "7.25", "service-type": "professional_services", "position": int64(s),
				"service-description": "Install and configure the site's equipment.", "sku": fmt.Sprintf("SKU-%d", s)},
				map[string]string{"project": pid, "project-location": locations[l], "project-phase": phases[s%3],
					"project-resource": resources[s%12]})
			for u := range 3 {
				ins("project-subservices", map[string]any{"name": fmt.Sprintf("Sub %d", u), "quantity": "3", "unit-hours": "1.35"},
					map[string]string{"project": pid, "project-service": svc, "project-resource": resources[(s+u)%12]})
			}
		}
	}
	for g := range 6 {
		attrs := map[string]any{"name": fmt.Sprintf("Governance %d", g), "calculation-type": "percent_of_total", "rate": "0.05",
			"filter-type": "all_services", "allocation-method": "prorate_phases_by_effort"}
		if g%2 == 1 {
			attrs["calculation-type"], attrs["fixed-hours"] = "fixed_hours", "12.5"
		}
		ins("project-governances", attrs, map[string]string{"project": pid, "project-resource": resources[g]})
	}
	for i := range 50 {
		ins("project-expenses", map[string]any{"description": fmt.Sprintf("Expense %d", i), "quantity": "2", "rate": "99.99", "unit-cost": "80"}, p)
		ins("project-products", map[string]any{"name": fmt.Sprintf("Product %d", i), "quantity": "3", "unit-price": "1999.99", "unit-cost": "1500"}, p)
	}
	return pid, in.Err
}
