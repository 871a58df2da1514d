// Package demodata creates the worked example of docs/pricing.md: a small
// catalog (phases, lines of business, resources, a default USD rate table,
// services with subservices, required governance, expense categories, a
// product, a blueprint, the account's general terms), the project "Globex firewall refresh" and the
// questionnaire "Network refresh intake" (intake.go), through
// the generic resource engine exactly as API clients would. The example
// server seeds its demo account with it and tests use it as a fixture.
package demodata

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// ProjectName is the name of the worked example project.
const ProjectName = "Globex firewall refresh"

// Seeded names what Seed created.
type Seeded struct {
	ProjectID   string
	ClientID    string
	BlueprintID string
	// IntakeID is the questionnaire "Network refresh intake".
	IntakeID string
}

// Seed creates the catalog and the worked example project in the actor's
// account, with the user adminID as a teammate ("" for none), in one
// transaction: all of it or, on failure, nothing. The account's default
// currency must be USD.
func Seed(ctx context.Context, svc *scoping.Service, actor *engine.Actor, adminID string) (*Seeded, error) {
	var out *Seeded
	err := svc.CreateEach(ctx, actor, func(create func(typ string, in *engine.Input) (*engine.Record, error)) error {
		s := &seeder{create: create}
		out = s.catalogAndProject(adminID)
		return s.err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// seeder creates records through the generic engine, as the API would;
// after the first error it does nothing and keeps that error.
type seeder struct {
	create func(typ string, in *engine.Input) (*engine.Record, error)
	err    error
}

// attrs are attribute values, marshaled to JSON as a client would send
// them; rels are to-one relationships.
type attrs map[string]any

type rels map[string]ref

// ref names a record for a relationship.
type ref struct{ typ, id string }

func (s *seeder) add(typ string, at attrs, rs rels) string {
	if s.err != nil {
		return ""
	}
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for k, v := range at {
		b, err := json.Marshal(v)
		if err != nil {
			s.err = err
			return ""
		}
		in.Attrs[k] = b
	}
	for k, r := range rs {
		in.Rels[k] = engine.RelInput{Refs: []engine.Ref{{Type: r.typ, ID: r.id}}}
	}
	rec, err := s.create(typ, in)
	if err != nil {
		s.err = fmt.Errorf("create %s %v: %w", typ, at["name"], err)
		return ""
	}
	return rec.ID
}

// catalogAndProject creates the catalog and the worked example project of
// docs/pricing.md, with the admin as a teammate.
func (s *seeder) catalogAndProject(adminID string) *Seeded {
	phase := map[string]string{}
	for i, name := range []string{"Plan", "Design", "Implement"} {
		phase[name] = s.add("phases", attrs{"name": name, "position": i + 1}, nil)
	}
	network := s.add("lines-of-business", attrs{"name": "Network"}, nil)
	security := s.add("lines-of-business", attrs{"name": "Security"}, nil)
	assessmentCat := s.add("service-categories", attrs{"name": "Assessment"}, nil)
	deploymentCat := s.add("service-categories", attrs{"name": "Deployment"}, nil)

	type resource struct{ name, rate, cost string }
	resourceIDs := map[string]string{}
	resources := []resource{{"Engineer", "200", "90"}, {"Architect", "250", "120"}, {"Project Manager", "175", "80"}}
	for _, r := range resources {
		resourceIDs[r.name] = s.add("resources", attrs{"name": r.name, "hourly-rate": r.rate, "hourly-cost": r.cost}, nil)
	}
	table := s.add("rate-tables", attrs{"name": "Standard USD", "currency": "USD", "default": true}, nil)
	for _, r := range resources {
		s.add("resource-rates", attrs{"hourly-rate": r.rate, "hourly-cost": r.cost},
			rels{"rate-table": {"rate-tables", table}, "resource": {"resources", resourceIDs[r.name]}})
	}
	s.add("payment-terms", attrs{"name": "Fixed fee", "pricing-model": "fixed_fee", "default": true,
		"include-expenses": true, "include-hardware": false}, nil)
	for i, term := range generalTerms {
		s.add("general-terms", attrs{"name": term[0], "body": term[1], "position": i + 1}, nil)
	}

	assessment := s.add("services", attrs{"name": "Assessment", "hours": "8", "position": 1},
		rels{"phase": {"phases", phase["Plan"]}, "resource": {"resources", resourceIDs["Engineer"]},
			"line-of-business": {"lines-of-business", network}, "service-category": {"service-categories", assessmentCat}})
	s.add("subservices", attrs{"name": "Site survey", "hours": "1.5", "quantity": "3", "position": 1},
		rels{"service": {"services", assessment}})
	s.add("subservices", attrs{"name": "Report", "hours": "4", "quantity": "1", "position": 2},
		rels{"service": {"services", assessment}, "resource": {"resources", resourceIDs["Architect"]}})
	firewall := s.add("services", attrs{"name": "Firewall deployment", "hours": "16.25", "position": 2},
		rels{"phase": {"phases", phase["Implement"]}, "resource": {"resources", resourceIDs["Engineer"]},
			"line-of-business": {"lines-of-business", security}, "service-category": {"service-categories", deploymentCat}})

	s.add("governances", attrs{"name": "Project management", "calculation-type": "percent_of_total", "rate": "0.15",
		"filter-type": "all_services", "allocation-method": "prorate_phases_by_effort", "required": true, "position": 1},
		rels{"resource": {"resources", resourceIDs["Project Manager"]}})
	s.add("governances", attrs{"name": "Kickoff", "calculation-type": "fixed_hours", "fixed-hours": "2",
		"allocation-method": "prorate_phases_by_effort", "required": true, "position": 2},
		rels{"resource": {"resources", resourceIDs["Architect"]}})

	airfare := s.add("expense-categories", attrs{"name": "Airfare"}, nil)
	perDiem := s.add("expense-categories", attrs{"name": "Per diem"}, nil)
	appliance := s.add("products", attrs{"name": "Firewall appliance", "unit-price": "1999.99", "unit-cost": "1500"}, nil)

	blueprint := s.add("blueprints", attrs{"name": "Firewall project",
		"description": "An assessment followed by a firewall deployment."}, nil)
	s.add("blueprint-items", attrs{"quantity": "2", "position": 1},
		rels{"blueprint": {"blueprints", blueprint}, "service": {"services", assessment}})
	s.add("blueprint-items", attrs{"quantity": "1", "position": 2},
		rels{"blueprint": {"blueprints", blueprint}, "service": {"services", firewall}})

	globex := s.add("clients", attrs{"name": "Globex Corporation", "domain": "globex.example"}, nil)
	// The rate table and payment term are the account defaults; the
	// required governance items come along with the project.
	project := s.add("projects", attrs{"project-name": ProjectName,
		"executive-summary":  "Assess Globex's network and replace its perimeter firewalls.",
		"revenue-adjustment": "-250.00", "cost-adjustment": "100.00"},
		rels{"client": {"clients", globex}})
	if adminID != "" {
		s.add("project-teammates", nil, rels{"project": {"projects", project}, "user": {"users", adminID}})
	}
	// Added with the service relationship: name, hours, phase, resource and
	// subservices are copied from the catalog.
	s.add("project-services", attrs{"quantity": "2"},
		rels{"project": {"projects", project}, "service": {"services", assessment}})
	s.add("project-services", attrs{"quantity": "1"},
		rels{"project": {"projects", project}, "service": {"services", firewall}})
	s.add("project-expenses", attrs{"description": "Airfare", "quantity": "2", "rate": "450", "unit-cost": "450"},
		rels{"project": {"projects", project}, "expense-category": {"expense-categories", airfare}})
	s.add("project-expenses", attrs{"description": "Per diem", "quantity": "3", "rate": "75", "unit-cost": "60"},
		rels{"project": {"projects", project}, "expense-category": {"expense-categories", perDiem}})
	s.add("project-products", attrs{"quantity": "2"},
		rels{"project": {"projects", project}, "product": {"products", appliance}})
	intake := s.intake(phase, resourceIDs)
	return &Seeded{ProjectID: project, ClientID: globex, BlueprintID: blueprint, IntakeID: intake}
}

// generalTerms are the demo account's general terms (name, body): sample
// clauses every statement of work of the account prints.
var generalTerms = [][2]string{
	{"Confidentiality", "Each party keeps confidential the non-public information it receives from the other under this statement of work, " +
		"uses it only to perform or receive the services, and discloses it only to those of its staff and advisers who need it for that purpose " +
		"and are bound to the same duty."},
	{"Acceptance of deliverables", "A deliverable is accepted when the client confirms it in writing, or ten business days after its delivery " +
		"when the client has not reported by then, in writing, how it fails to meet this statement of work. A reported failure is corrected " +
		"and the deliverable delivered again under the same terms."},
	{"Warranty", "The services are performed in a professional manner by qualified staff. The client reports a service that was not so " +
		"performed within 30 days of its completion; the remedy is to perform that service again at no charge."},
}
