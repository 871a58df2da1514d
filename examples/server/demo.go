package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/scoping"
)

// The demo account (operations.md, "Demo data"): an admin, a service
// account, an OAuth application, a small catalog and the worked example
// project of pricing.md, so that the first curl shows real data.
const (
	demoSlug          = "demo"
	demoName          = "Demo IT Services"
	demoCurrency      = "USD"
	demoAdminEmail    = "admin@demo.test"
	demoAdminPassword = "demo-admin-password"
	demoBotEmail      = "bot@demo.test"
	demoBotClientID   = "demo-bot"
	demoBotSecret     = "demo-bot-secret"
	demoAppName       = "Demo Portal"
	demoAppClientID   = "demo-portal"
	demoAppSecret     = "demo-portal-secret"
	demoAppRedirect   = "http://127.0.0.1:9999/callback"
	demoProjectName   = "Globex firewall refresh"
)

// demoState is what the startup banner needs to know of the demo account.
type demoState struct {
	Exists bool
	// CredsWork is true when the bot's client id and secret are still the
	// demo ones (nobody replaced them through the API).
	CredsWork bool
	ProjectID string // "" when the demo project is gone
}

// findDemo reports whether the demo account exists and what of it the
// banner can show.
func findDemo(ctx context.Context, svc *scoping.Service, as auth.Store) (*demoState, error) {
	st := &demoState{}
	var acctID string
	err := svc.Store().View(ctx, func(tx scoping.Tx) error {
		recs, _, err := tx.List(&scoping.Query{Type: "accounts", Where: []scoping.Cond{scoping.Eq("slug", demoSlug)}, Limit: 1})
		if err != nil || len(recs) == 0 {
			return err
		}
		acctID = recs[0].ID
		projects, _, err := tx.List(&scoping.Query{Type: "projects", AccountID: acctID,
			Where: []scoping.Cond{scoping.Eq("project-name", demoProjectName), scoping.Eq("active", "true")}, Limit: 1})
		if err != nil {
			return err
		}
		if len(projects) > 0 {
			st.ProjectID = projects[0].ID
		}
		return nil
	})
	if err != nil || acctID == "" {
		return st, err
	}
	st.Exists = true
	cred, err := as.ServiceCredentialByClientID(ctx, demoBotClientID)
	switch {
	case err == nil:
		st.CredsWork = cred.AccountID == acctID && sameSecret(cred.SecretDigest, demoBotSecret)
	case !isNotFound(err):
		return nil, err
	}
	return st, nil
}

// createDemo creates the demo account and its data. The caller has checked
// that the account does not exist yet; createDemo checks first that its
// emails and client ids are free, so that it never takes over another
// account's identities (nor leaves half a demo behind for that reason).
func createDemo(ctx context.Context, svc *scoping.Service, db *boltstore.DB, as *auth.Service) error {
	if err := demoIdentitiesFree(ctx, svc, db.AuthStore()); err != nil {
		return err
	}
	var acctID, adminID, botID string
	err := svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount(demoSlug, demoName, demoCurrency)
		if err != nil {
			return err
		}
		acctID = acct.ID
		admin, err := a.EnsureMember(acctID, scoping.Member{Email: demoAdminEmail, Name: "Demo Admin", Role: "Account Admin"})
		if err != nil {
			return err
		}
		bot, err := a.EnsureMember(acctID, scoping.Member{Email: demoBotEmail, Name: "Demo Bot", UserType: "service", Role: "Account Admin"})
		if err != nil {
			return err
		}
		adminID, botID = admin.ID, bot.ID
		return nil
	})
	if err != nil {
		return fmt.Errorf("demo: account: %w", err)
	}
	if err := as.SetPassword(ctx, adminID, demoAdminPassword); err != nil {
		return fmt.Errorf("demo: admin password: %w", err)
	}
	if err := as.SetServiceCredential(ctx, acctID, botID, demoBotClientID, demoBotSecret); err != nil {
		return fmt.Errorf("demo: service credentials: %w", err)
	}
	if err := as.RegisterApplication(ctx, acctID, demoAppName, demoAppClientID, demoAppSecret, []string{demoAppRedirect}); err != nil {
		return fmt.Errorf("demo: OAuth application: %w", err)
	}
	actor, err := svc.SystemActor(ctx, acctID)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	s := &seeder{ctx: ctx, svc: svc, actor: actor}
	s.catalogAndProject(adminID)
	if s.err != nil {
		return fmt.Errorf("demo: %w", s.err)
	}
	return nil
}

func demoIdentitiesFree(ctx context.Context, svc *scoping.Service, as auth.Store) error {
	err := svc.Store().View(ctx, func(tx scoping.Tx) error {
		for _, email := range []string{demoAdminEmail, demoBotEmail} {
			recs, _, err := tx.List(&scoping.Query{Type: "users", AllAccounts: true, Where: []scoping.Cond{scoping.Eq("email", email)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) > 0 {
				return fmt.Errorf("demo: the user %s already exists in another account; not creating the demo account", email)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range []string{demoBotClientID, demoAppClientID} {
		_, appErr := as.ApplicationByClientID(ctx, id)
		_, credErr := as.ServiceCredentialByClientID(ctx, id)
		for _, err := range []error{appErr, credErr} {
			if err == nil {
				return fmt.Errorf("demo: the client id %s is already in use; not creating the demo account", id)
			}
			if !isNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// seeder creates records through the generic engine, as the API would;
// after the first error it does nothing and keeps that error.
type seeder struct {
	ctx   context.Context
	svc   *scoping.Service
	actor *scoping.Actor
	err   error
}

// attrs are attribute values, marshaled to JSON as a client would send
// them; rels are to-one relationships.
type attrs map[string]any

type rels map[string]ref

// ref names a record for a relationship.
type ref struct{ typ, id string }

func (s *seeder) create(typ string, at attrs, rs rels) string {
	if s.err != nil {
		return ""
	}
	in := &scoping.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]scoping.RelInput{}}
	for k, v := range at {
		b, err := json.Marshal(v)
		if err != nil {
			s.err = err
			return ""
		}
		in.Attrs[k] = b
	}
	for k, r := range rs {
		in.Rels[k] = scoping.RelInput{Refs: []scoping.Ref{{Type: r.typ, ID: r.id}}}
	}
	res, err := s.svc.Create(s.ctx, s.actor, typ, in, false)
	if err != nil {
		s.err = fmt.Errorf("create %s %v: %w", typ, at["name"], err)
		return ""
	}
	return res.Records[0].ID
}

// catalogAndProject creates the catalog and the worked example project of
// pricing.md, with the admin as a teammate.
func (s *seeder) catalogAndProject(adminID string) {
	phase := map[string]string{}
	for i, name := range []string{"Plan", "Design", "Implement"} {
		phase[name] = s.create("phases", attrs{"name": name, "position": i + 1}, nil)
	}
	network := s.create("lines-of-business", attrs{"name": "Network"}, nil)
	security := s.create("lines-of-business", attrs{"name": "Security"}, nil)
	assessmentCat := s.create("service-categories", attrs{"name": "Assessment"}, nil)
	deploymentCat := s.create("service-categories", attrs{"name": "Deployment"}, nil)

	type resource struct{ name, rate, cost string }
	resourceIDs := map[string]string{}
	resources := []resource{{"Engineer", "200", "90"}, {"Architect", "250", "120"}, {"Project Manager", "175", "80"}}
	for _, r := range resources {
		resourceIDs[r.name] = s.create("resources", attrs{"name": r.name, "hourly-rate": r.rate, "hourly-cost": r.cost}, nil)
	}
	table := s.create("rate-tables", attrs{"name": "Standard USD", "currency": demoCurrency, "default": true}, nil)
	for _, r := range resources {
		s.create("resource-rates", attrs{"hourly-rate": r.rate, "hourly-cost": r.cost},
			rels{"rate-table": {"rate-tables", table}, "resource": {"resources", resourceIDs[r.name]}})
	}
	s.create("payment-terms", attrs{"name": "Fixed fee", "pricing-model": "fixed_fee", "default": true,
		"include-expenses": true, "include-hardware": false}, nil)

	assessment := s.create("services", attrs{"name": "Assessment", "hours": "8", "position": 1},
		rels{"phase": {"phases", phase["Plan"]}, "resource": {"resources", resourceIDs["Engineer"]},
			"line-of-business": {"lines-of-business", network}, "service-category": {"service-categories", assessmentCat}})
	s.create("subservices", attrs{"name": "Site survey", "hours": "1.5", "quantity": "3", "position": 1},
		rels{"service": {"services", assessment}})
	s.create("subservices", attrs{"name": "Report", "hours": "4", "quantity": "1", "position": 2},
		rels{"service": {"services", assessment}, "resource": {"resources", resourceIDs["Architect"]}})
	firewall := s.create("services", attrs{"name": "Firewall deployment", "hours": "16.25", "position": 2},
		rels{"phase": {"phases", phase["Implement"]}, "resource": {"resources", resourceIDs["Engineer"]},
			"line-of-business": {"lines-of-business", security}, "service-category": {"service-categories", deploymentCat}})

	s.create("governances", attrs{"name": "Project management", "calculation-type": "percent_of_total", "rate": "0.15",
		"filter-type": "all_services", "allocation-method": "prorate_phases_by_effort", "required": true, "position": 1},
		rels{"resource": {"resources", resourceIDs["Project Manager"]}})
	s.create("governances", attrs{"name": "Kickoff", "calculation-type": "fixed_hours", "fixed-hours": "2",
		"allocation-method": "prorate_phases_by_effort", "required": true, "position": 2},
		rels{"resource": {"resources", resourceIDs["Architect"]}})

	airfare := s.create("expense-categories", attrs{"name": "Airfare"}, nil)
	perDiem := s.create("expense-categories", attrs{"name": "Per diem"}, nil)
	appliance := s.create("products", attrs{"name": "Firewall appliance", "unit-price": "1999.99", "unit-cost": "1500"}, nil)

	blueprint := s.create("blueprints", attrs{"name": "Firewall project",
		"description": "An assessment followed by a firewall deployment."}, nil)
	s.create("blueprint-items", attrs{"quantity": "2", "position": 1},
		rels{"blueprint": {"blueprints", blueprint}, "service": {"services", assessment}})
	s.create("blueprint-items", attrs{"quantity": "1", "position": 2},
		rels{"blueprint": {"blueprints", blueprint}, "service": {"services", firewall}})

	globex := s.create("clients", attrs{"name": "Globex Corporation", "domain": "globex.example"}, nil)
	// The rate table and payment term are the account defaults; the
	// required governance items come along with the project.
	project := s.create("projects", attrs{"project-name": demoProjectName,
		"executive-summary":  "Assess Globex's network and replace its perimeter firewalls.",
		"revenue-adjustment": "-250.00", "cost-adjustment": "100.00"},
		rels{"client": {"clients", globex}})
	s.create("project-teammates", nil, rels{"project": {"projects", project}, "user": {"users", adminID}})
	// Added with the service relationship: name, hours, phase, resource and
	// subservices are copied from the catalog.
	s.create("project-services", attrs{"quantity": "2"},
		rels{"project": {"projects", project}, "service": {"services", assessment}})
	s.create("project-services", attrs{"quantity": "1"},
		rels{"project": {"projects", project}, "service": {"services", firewall}})
	s.create("project-expenses", attrs{"description": "Airfare", "quantity": "2", "rate": "450", "unit-cost": "450"},
		rels{"project": {"projects", project}, "expense-category": {"expense-categories", airfare}})
	s.create("project-expenses", attrs{"description": "Per diem", "quantity": "3", "rate": "75", "unit-cost": "60"},
		rels{"project": {"projects", project}, "expense-category": {"expense-categories", perDiem}})
	s.create("project-products", attrs{"quantity": "2"},
		rels{"project": {"projects", project}, "product": {"products", appliance}})
}
