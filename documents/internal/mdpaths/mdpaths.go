// Package mdpaths holds the v2 merge data paths and conditions that the
// built-in templates' generators (gensow, genproposal) both write, so that
// the two documents read the same figures the same way.
package mdpaths

const (
	// Gov is project governance's pricing.
	Gov = "project_pricing.project_governance"
	// PS is professional services' pricing.
	PS = "project_pricing.professional_services"
	// HasGov holds when governance has hours or a price.
	HasGov = Gov + ".hours != 0 || " + Gov + ".revenue != 0"
	// PhaseName is a phase's name; services without a phase are listed
	// under an entry without one.
	PhaseName = "{name}{^name}Services without a phase{/name}"
	// Priced holds for a phase whose professional services have hours or
	// a price (managed services are priced in their own section).
	Priced = "service_hours != 0 || service_revenue != 0"
)
