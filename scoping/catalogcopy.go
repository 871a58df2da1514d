package scoping

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
)

// Adding catalog services to projects: a project service created with a
// `service` relationship copies the catalog service (name, hours, type,
// phase, line of business, category, resource, subservices); what the
// request sends wins over what is copied.

// projectResourceDefaults fills a project resource from its catalog
// resource: the name, and the rate and cost of the project's rate table
// (else the resource's own).
func projectResourceDefaults(_ context.Context, c *Call, rec *Record) error {
	rid := rec.Rel("resource")
	if rid == "" {
		return nil
	}
	res, err := c.Get("resources", rid)
	if err != nil {
		return nil // reported by the reference check
	}
	if !c.Given("name") {
		rec.Attrs["name"] = res.Attrs["name"]
	}
	if !c.Given("external-name") && res.Attrs["external-name"] != nil {
		rec.Attrs["external-name"] = res.Attrs["external-name"]
	}
	rate, cost, err := resourceRate(c, rec.Rel("project"), res)
	if err != nil {
		return err
	}
	if !c.Given("hourly-rate") && rate != nil {
		rec.Attrs["hourly-rate"] = rate
	}
	if !c.Given("hourly-cost") && cost != nil {
		rec.Attrs["hourly-cost"] = cost
	}
	return nil
}

// resourceRate returns the rate and cost of a catalog resource for a
// project: from the project's rate table when it has a rate for the
// resource, else the resource's own.
func resourceRate(c *Call, projectID string, res *Record) (rate, cost any, err error) {
	rate, cost = res.Attrs["hourly-rate"], res.Attrs["hourly-cost"]
	p, err := c.Get("projects", projectID)
	if err != nil || p.Rel("rate-table") == "" {
		return rate, cost, nil
	}
	rates, err := c.Find("resource-rates", Eq("rate-table", p.Rel("rate-table")), Eq("resource", res.ID))
	if err != nil || len(rates) == 0 {
		return rate, cost, err
	}
	if v := rates[0].Attrs["hourly-rate"]; v != nil {
		rate = v
	}
	if v := rates[0].Attrs["hourly-cost"]; v != nil {
		cost = v
	}
	return rate, cost, nil
}

// ensureProjectResource returns the project's resource for a catalog
// resource, creating it from the rate table when the project has none.
func ensureProjectResource(c *Call, projectID, resourceID string) (string, error) {
	found, err := c.Find("project-resources", Eq("project", projectID), Eq("resource", resourceID))
	if err != nil || len(found) > 0 {
		if len(found) > 0 {
			return found[0].ID, nil
		}
		return "", err
	}
	res, err := c.Get("resources", resourceID)
	if err != nil {
		return "", nil
	}
	pr := NewRecord("project-resources", c.AccountID())
	pr.SetRel("project", projectID)
	pr.SetRel("resource", resourceID)
	pr.Attrs["name"] = res.Attrs["name"]
	if v := res.Attrs["external-name"]; v != nil {
		pr.Attrs["external-name"] = v
	}
	rate, cost, err := resourceRate(c, projectID, res)
	if err != nil {
		return "", err
	}
	if rate != nil {
		pr.Attrs["hourly-rate"] = rate
	}
	if cost != nil {
		pr.Attrs["hourly-cost"] = cost
	}
	if err := c.Tx.Insert(pr); err != nil {
		return "", err
	}
	return pr.ID, nil
}

// ensureProjectPhase returns the project's phase for a catalog phase,
// creating it when the project has none.
func ensureProjectPhase(c *Call, projectID, phaseID string) (string, error) {
	found, err := c.Find("project-phases", Eq("project", projectID), Eq("phase", phaseID))
	if err != nil || len(found) > 0 {
		if len(found) > 0 {
			return found[0].ID, nil
		}
		return "", err
	}
	ph, err := c.Get("phases", phaseID)
	if err != nil {
		return "", nil
	}
	pp := NewRecord("project-phases", c.AccountID())
	pp.SetRel("project", projectID)
	pp.SetRel("phase", phaseID)
	for _, a := range []string{"name", "position", "sow-language"} {
		if v := ph.Attrs[a]; v != nil {
			pp.Attrs[a] = v
		}
	}
	if err := c.Tx.Insert(pp); err != nil {
		return "", err
	}
	return pp.ID, nil
}

// projectServiceDefaults copies the catalog service named by a new project
// service.
func projectServiceDefaults(_ context.Context, c *Call, rec *Record) error {
	sid, pid := rec.Rel("service"), rec.Rel("project")
	if sid == "" || pid == "" {
		return nil
	}
	svc, err := c.Get("services", sid)
	if err != nil {
		return nil // reported by the reference check
	}
	if _, err := c.Get("projects", pid); err != nil {
		return nil
	}
	copies := map[string]string{"name": "name", "unit-hours": "hours", "service-type": "service-type",
		"payment-frequency": "payment-frequency", "service-description": "description", "sku": "sku", "position": "position"}
	for dst, src := range copies {
		if !c.Given(dst) && svc.Attrs[src] != nil {
			rec.Attrs[dst] = svc.Attrs[src]
		}
	}
	for _, r := range []string{"line-of-business", "service-category"} {
		if !c.Given(r) && svc.Rel(r) != "" {
			rec.SetRel(r, svc.Rel(r))
		}
	}
	if !c.Given("project-phase") && svc.Rel("phase") != "" {
		id, err := ensureProjectPhase(c, pid, svc.Rel("phase"))
		if err != nil {
			return err
		}
		rec.SetRel("project-phase", id)
	}
	if !c.Given("project-resource") && svc.Rel("resource") != "" {
		id, err := ensureProjectResource(c, pid, svc.Rel("resource"))
		if err != nil {
			return err
		}
		rec.SetRel("project-resource", id)
	}
	return nil
}

// copySubservices adds the active subservices of the catalog service to a
// newly created project service.
func copySubservices(_ context.Context, c *Call, rec, old *Record) error {
	if old != nil || rec.Rel("service") == "" {
		return nil
	}
	subs, err := c.Find("subservices", Eq("service", rec.Rel("service")), Eq("active", "true"))
	if err != nil {
		return err
	}
	for _, s := range subs {
		ps := NewRecord("project-subservices", c.AccountID())
		ps.SetRel("project-service", rec.ID)
		ps.SetRel("project", rec.Rel("project"))
		ps.SetRel("subservice", s.ID)
		for dst, src := range map[string]string{"name": "name", "quantity": "quantity", "unit-hours": "hours", "position": "position"} {
			if v := s.Attrs[src]; v != nil {
				ps.Attrs[dst] = v
			}
		}
		if r := s.Rel("resource"); r != "" {
			id, err := ensureProjectResource(c, rec.Rel("project"), r)
			if err != nil {
				return err
			}
			ps.SetRel("project-resource", id)
		}
		if err := c.Tx.Insert(ps); err != nil {
			return err
		}
	}
	return nil
}

// ApplyBlueprint adds every active service of the blueprint to the project,
// each with its blueprint item's quantity, and returns the created project
// services.
//
// Errors: EFORBIDDEN without projects manage; ENOTFOUND for a project
// outside the actor's visibility; EINVALID for a blueprint not in the
// account.
func (s *Service) ApplyBlueprint(ctx context.Context, a *Actor, projectID, blueprintID string) (*Result, error) {
	if err := a.Require("projects", true); err != nil {
		return nil, err
	}
	psDef, _ := s.Schema().Lookup("project-services")
	projDef, _ := s.Schema().Lookup("projects")
	var created []*Record
	res := &Result{}
	_, err := s.WriteThenRead(ctx, a, engine.Options{}, nil, func(c *Call) error {
		if _, err := c.GetVisible(ctx, projDef, projectID, nil); err != nil {
			return err
		}
		if _, err := c.Get("blueprints", blueprintID); err != nil {
			return scopekit.FieldErrorf(scopekit.EINVALID, "/data/id", "blueprints %s does not exist in this account", blueprintID)
		}
		items, err := c.Find("blueprint-items", Eq("blueprint", blueprintID))
		if err != nil {
			return err
		}
		sortByPosition(items)
		for _, it := range items {
			svc, err := c.Get("services", it.Rel("service"))
			if err != nil || !svc.Active() {
				continue
			}
			in := &Input{Rels: map[string]RelInput{
				"project": {Refs: []Ref{{Type: "projects", ID: projectID}}},
				"service": {Refs: []Ref{{Type: "services", ID: svc.ID}}},
			}}
			if q, ok := it.Attrs["quantity"].(string); ok {
				in.Attrs = map[string]json.RawMessage{"quantity": json.RawMessage(strconv.Quote(q))}
			}
			rec, _, err := c.CreateRecord(ctx, psDef, in)
			if err != nil {
				return err
			}
			created = append(created, rec)
		}
		return nil
	}, func(ctx context.Context, c *Call) error {
		// served as stored: the commit steps stored the price figures
		// (psDef.Reread), which the records as created lack
		for i, r := range created {
			cur, err := c.Get(psDef.Name, r.ID)
			if err != nil {
				return err
			}
			created[i] = cur
		}
		res.Records, res.Total = created, len(created)
		return c.Compute(ctx, psDef, res.Records)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func sortByPosition(recs []*Record) {
	q := Query{Sort: []SortKey{{Field: "position", Numeric: true}}}
	q.SortRecords(recs)
}
