package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Catalog service approval (docs/approval.md, "Catalog service approval"):
// editing an approved service makes a new draft version; a draft is
// submitted for approval and approved by a service approver of its line of
// business (or, when that line has none, by any catalog manager), which
// records the version in approved-services and approved-subservices. Those
// collections hold the most recent approved version of each service.

// serviceVersionAttrs are the attributes an approved version keeps.
var serviceVersionAttrs = []string{views.NameName, views.NameDescription, views.NameSku, views.NameHours, views.NameServiceType,
	views.NamePaymentFrequency, views.NamePosition, views.NameUserDefinedFields}

// serviceVersionRels are the relationships an approved version keeps.
var serviceVersionRels = []string{views.NamePhase, views.NameLineOfBusiness, views.NameServiceCategory, views.NameResource}

// subserviceVersionAttrs are the attributes an approved subservice keeps.
var subserviceVersionAttrs = []string{views.NameName, views.NameHours, views.NameQuantity, views.NamePosition}

func declareServiceApproval(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "approved-services", Guard: "catalog", Archives: true, V2: true, ReadOnly: true,
		Attrs: cat([]engine.AttrDef{str("name"), text("description"), str("sku"), dec("hours"),
			enum("service-type", "", serviceTypes...), enum("payment-frequency", "", paymentFrequencies...),
			num("position"), obj("user-defined-fields")},
			computed(num("version"), engine.AttrDef{Name: "approved-at", Kind: engine.KindTime}, str("service-id"),
				enum("state", "approved", "approved"))),
		Rels: []engine.RelDef{{Name: "service", Type: "services", Cascade: true}, to1("approved-by", "users"),
			to1("phase", "phases"), to1("line-of-business", "lines-of-business"),
			to1("service-category", "service-categories"), to1("resource", "resources"),
			inverse("approved-subservices", "approved-subservices", "approved-service")},
		Filters: with(eq("phase", "line-of-business", "service-category", "service-type", "state", "service"),
			"name", engine.FilterDef{Op: engine.OpContains}),
	})
	register(s, &engine.TypeDef{Name: "approved-subservices", Guard: "catalog", V2: true, ReadOnly: true,
		Attrs: computed(str("name"), dec("hours"), dec("quantity"), num("position")),
		Rels: []engine.RelDef{{Name: "approved-service", Type: "approved-services", Cascade: true},
			to1("subservice", "subservices"), to1("resource", "resources"),
			{Name: "service", Type: "services", ReadOnly: true}},
		Filters: eq("service", "approved-service"),
	})
}

// newServiceVersion turns an edit of an approved service into a new draft
// version; the approved version stays in approved-services until the new
// one is approved. Archiving and restoring a service also update its
// approved version's `active` flag.
func newServiceVersion(_ context.Context, c *engine.Call, rec, old *engine.Record) error {
	if old == nil {
		return nil
	}
	if rec.Active() != old.Active() {
		approved, err := c.Find(views.TypeApprovedServices, engine.Eq(views.NameService, rec.ID))
		if err != nil {
			return err
		}
		for _, a := range approved {
			a.Attrs[views.NameActive] = rec.Active()
			if err := c.Tx.Replace(a); err != nil {
				return err
			}
		}
	}
	if old.Str(views.NameState) != "approved" || !serviceEdited(rec, old) {
		return nil
	}
	rec.Attrs[views.NameState], rec.Attrs[views.NameVersion] = "draft", old.Int(views.NameVersion)+1
	return c.Tx.Replace(rec)
}

// serviceEdited reports whether a write changed what a version records.
func serviceEdited(rec, old *engine.Record) bool {
	for _, a := range serviceVersionAttrs {
		x, _ := engine.TextOf(rec.Attrs[a])
		y, _ := engine.TextOf(old.Attrs[a])
		if x != y {
			return true
		}
	}
	for _, r := range serviceVersionRels {
		if rec.Rel(r) != old.Rel(r) {
			return true
		}
	}
	return false
}

// SubmitService submits a draft catalog service for approval.
//
// Errors: EFORBIDDEN without catalog manage; ENOTFOUND; ECONFLICT when the
// service is not a draft.
func (s *Service) SubmitService(ctx context.Context, a *engine.Actor, serviceID string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "catalog", false, views.TypeServices, serviceID, func(c *engine.Call, svc *engine.Record) error {
		if err := a.Require("catalog", true); err != nil {
			return err
		}
		if svc.Str(views.NameState) != "draft" {
			return scopekit.Errorf(scopekit.ECONFLICT, "only a draft service can be submitted for approval; this one is %s", svc.Str(views.NameState))
		}
		svc.Attrs[views.NameState] = "pending_approval"
		return c.Tx.Replace(svc)
	})
}

// ApproveService approves a service pending approval and records the
// version as its approved version.
//
// Errors: EFORBIDDEN unless the actor is a service approver of the
// service's line of business, or a catalog manager when that line has no
// approver; ENOTFOUND; ECONFLICT when the service is not pending approval.
func (s *Service) ApproveService(ctx context.Context, a *engine.Actor, serviceID string) (*engine.Result, error) {
	return s.recordAction(ctx, a, "catalog", false, views.TypeServices, serviceID, func(c *engine.Call, svc *engine.Record) error {
		if svc.Str(views.NameState) != "pending_approval" {
			return scopekit.Errorf(scopekit.ECONFLICT, "only a service pending approval can be approved; this one is %s", svc.Str(views.NameState))
		}
		approvers, err := c.Find(views.TypeServiceApprovers, engine.Eq(views.NameLineOfBusiness, svc.Rel(views.NameLineOfBusiness)))
		if err != nil {
			return err
		}
		allowed := len(approvers) == 0 && a.Can("catalog", true)
		for _, ap := range approvers {
			allowed = allowed || ap.Rel(views.NameUser) == a.UserID
		}
		if !allowed {
			return scopekit.Errorf(scopekit.EFORBIDDEN, "only a service approver of this service's line of business can approve it")
		}
		svc.Attrs[views.NameState] = "approved"
		if err := c.Tx.Replace(svc); err != nil {
			return err
		}
		return recordApprovedVersion(c, svc, a.UserID)
	})
}

// recordApprovedVersion replaces the service's approved version with svc
// as it is now, subservices included.
func recordApprovedVersion(c *engine.Call, svc *engine.Record, approver string) error {
	prev, err := c.Find(views.TypeApprovedServices, engine.Eq(views.NameService, svc.ID))
	if err != nil {
		return err
	}
	def := mustLookup(c.Engine.Schema(), views.TypeApprovedServices)
	for _, p := range prev {
		if err := c.Remove(def, p); err != nil {
			return err
		}
	}
	v := engine.NewRecord(views.TypeApprovedServices, svc.AccountID)
	for _, a := range serviceVersionAttrs {
		if x, ok := svc.Attrs[a]; ok {
			v.Attrs[a] = x
		}
	}
	v.Attrs[views.NameVersion], v.Attrs[views.NameApprovedAt], v.Attrs[views.NameServiceID] = svc.Int(views.NameVersion), engine.FormatTime(svcOf(c).Now()), svc.ID
	v.Attrs[views.NameState], v.Attrs[views.NameActive] = "approved", svc.Active()
	v.SetRel(views.NameService, svc.ID)
	v.SetRel(views.NameApprovedBy, approver)
	for _, r := range serviceVersionRels {
		v.SetRel(r, svc.Rel(r))
	}
	if err := c.Tx.Insert(v); err != nil {
		return err
	}
	subs, err := c.Find(views.TypeSubservices, engine.Eq(views.NameService, svc.ID), engine.Eq(views.NameActive, "true"))
	if err != nil {
		return err
	}
	for _, sub := range subs {
		as := engine.NewRecord(views.TypeApprovedSubservices, svc.AccountID)
		for _, a := range subserviceVersionAttrs {
			if x, ok := sub.Attrs[a]; ok {
				as.Attrs[a] = x
			}
		}
		as.SetRel(views.NameApprovedService, v.ID)
		as.SetRel(views.NameSubservice, sub.ID)
		as.SetRel(views.NameService, svc.ID)
		as.SetRel(views.NameResource, sub.Rel(views.NameResource))
		if err := c.Tx.Insert(as); err != nil {
			return err
		}
	}
	return nil
}
