package mcpadapter

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// Scoping a project from the catalog: a catalog service added as a
// project service (the catalog copy of package scoping fills it in), or
// a blueprint's services at once (scoping.Service.ApplyBlueprint).

// AddServiceInput are the arguments of scopekit_add_service_to_project.
type AddServiceInput struct {
	ProjectID ID      `json:"project_id" jsonschema:"the project's id"`
	Service   ID      `json:"service" jsonschema:"a catalog service: its id, or its name, or the start of the only name that begins with it (the answer's matched says which it picked)"`
	Quantity  Decimal `json:"quantity,omitempty" jsonschema:"how many times the service is delivered (default 1)"`
	Phase     ID      `json:"phase,omitempty" jsonschema:"a phase of the project or of the catalog, by id or name (default: the catalog service's)"`
	Resource  ID      `json:"resource,omitempty" jsonschema:"a resource of the project or of the catalog, by id or name (default: the catalog service's)"`
	Location  ID      `json:"location,omitempty" jsonschema:"a location of the project, by id or name"`
}

// ApplyBlueprintInput are the arguments of scopekit_apply_blueprint.
type ApplyBlueprintInput struct {
	ProjectID ID `json:"project_id" jsonschema:"the project's id"`
	Blueprint ID `json:"blueprint" jsonschema:"a catalog blueprint: its id, or its name, or the start of the only name that begins with it (the answer's matched says which it picked)"`
}

// ScopeOutput is what scoping added to a project.
type ScopeOutput struct {
	ProjectID string        `json:"project_id"`
	Services  []ServiceLine `json:"services" jsonschema:"the project services added"`
	// The project's figures after the change.
	ContractRevenue string `json:"contract_revenue"`
	Currency        string `json:"currency"`
	// Matched says which records name arguments picked.
	Matched []NameMatch `json:"matched,omitempty" jsonschema:"which record each name argument picked"`
}

// ServiceLine is a project service with the names of what it is on.
type ServiceLine struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	ServiceID   string   `json:"service_id" jsonschema:"the catalog service"`
	Quantity    string   `json:"quantity"`
	UnitHours   string   `json:"unit_hours"`
	TotalHours  string   `json:"total_hours" jsonschema:"with its subservices"`
	Revenue     string   `json:"revenue"`
	Cost        string   `json:"cost"`
	Phase       string   `json:"phase"`
	Resource    string   `json:"resource"`
	Location    string   `json:"location"`
	Subservices []string `json:"subservices" jsonschema:"the names of its subservices"`
}

// serviceArgs names the arguments behind a project service's fields.
var serviceArgs = map[string]string{views.NameQuantity: "quantity", views.NameService: "service",
	views.NameProjectPhase: "phase", views.NameProjectResource: "resource", views.NameProjectLocation: "location"}

func (t *tools) addService(ctx context.Context, req *mcp.CallToolRequest, in AddServiceInput) (*mcp.CallToolResult, ScopeOutput, error) {
	pid, a, _, err := t.projectWrite(ctx, req, in.ProjectID, views.TypeProjectServices)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	var matched []NameMatch
	svc, err := t.resolve(ctx, a, lookup{arg: "service", what: "catalog service", typ: views.TypeServices, matched: &matched}, in.Service)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	w := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{
		views.NameProject: ref(views.TypeProjects, pid), views.NameService: ref(views.TypeServices, svc.ID)}}
	if q := strings.TrimSpace(string(in.Quantity)); q != "" {
		w.Attrs[views.NameQuantity] = json.RawMessage(strconv.Quote(q))
	}
	own := map[string]string{views.NameProject: pid, views.NameChangeOrder: "none"} // its own phases and resources, not a change order's
	add := scoping.ServiceToAdd{Input: w}
	if in.Phase != "" {
		if add.Phase, err = t.projectOrCatalog(ctx, a, w, lookup{arg: "phase", what: "phase", typ: views.TypeProjectPhases, filters: own, matched: &matched},
			views.NameProjectPhase, views.TypePhases, in.Phase); err != nil {
			return nil, ScopeOutput{}, err
		}
	}
	if in.Resource != "" {
		if add.Resource, err = t.projectOrCatalog(ctx, a, w, lookup{arg: "resource", what: "resource", typ: views.TypeProjectResources, filters: own, matched: &matched},
			views.NameProjectResource, views.TypeResources, in.Resource); err != nil {
			return nil, ScopeOutput{}, err
		}
	}
	if in.Location != "" {
		loc, err := t.resolve(ctx, a, lookup{arg: "location", what: "location of the project", typ: views.TypeProjectLocations, filters: own, matched: &matched}, in.Location)
		if err != nil {
			return nil, ScopeOutput{}, err
		}
		w.Rels[views.NameProjectLocation] = ref(views.TypeProjectLocations, loc.ID)
	}
	// the domain's use case: a catalog phase or resource gets the
	// project's own in the same transaction
	res, err := t.s.Svc.AddService(ctx, a, add, opts)
	if err != nil {
		return nil, ScopeOutput{}, t.failWrite(err, serviceArgs)
	}
	out, err := t.scopeOutput(ctx, a, pid, []string{res.Records[0].ID})
	out.Matched = matched
	return nil, out, err
}

// projectOrCatalog resolves an argument naming a record of the project
// (l) or of the catalog (type catalogType): the project's is set as
// relationship rel of w; the catalog's id is returned, for the project
// to get its own. Ids first, then exact names (the project's before the
// catalog's), then prefixes.
func (t *tools) projectOrCatalog(ctx context.Context, a *engine.Actor, w *engine.Input, l lookup, rel, catalogType string, v ID) (string, error) {
	cl := lookup{arg: l.arg, what: l.what + " of the project or the catalog", typ: catalogType, matched: l.matched}
	own, pn, err := t.lookupNamed(ctx, a, l, v)
	if err != nil {
		return "", err
	}
	if own != nil {
		w.Rels[rel] = ref(l.typ, own.ID)
		return "", nil
	}
	cat, cn, err := t.lookupNamed(ctx, a, cl, v)
	if cat != nil || err != nil {
		return catID(cat), err
	}
	for _, step := range []struct {
		l     lookup
		found []*engine.Record
		by    string
	}{{l, pn.exact, ByName}, {cl, cn.exact, ByName}, {l, pn.prefix, ByPrefix}, {cl, cn.prefix, ByPrefix}} {
		rec, err := pick(step.l, v, step.found, step.by)
		switch {
		case err != nil:
			return "", err
		case rec != nil && step.l.typ == l.typ:
			w.Rels[rel] = ref(l.typ, rec.ID)
			return "", nil
		case rec != nil:
			return rec.ID, nil
		}
	}
	return "", t.unknown(ctx, a, cl, v, append(pn.holding, cn.holding...))
}

// catID is a record's id, "" for none.
func catID(r *engine.Record) string {
	if r == nil {
		return ""
	}
	return r.ID
}

func (t *tools) applyBlueprint(ctx context.Context, req *mcp.CallToolRequest, in ApplyBlueprintInput) (*mcp.CallToolResult, ScopeOutput, error) {
	pid, a, _, err := t.projectWrite(ctx, req, in.ProjectID, views.TypeProjectServices)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	var matched []NameMatch
	bp, err := t.resolve(ctx, a, lookup{arg: "blueprint", what: "blueprint", typ: views.TypeBlueprints, matched: &matched}, in.Blueprint)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	res, err := t.s.Svc.ApplyBlueprint(ctx, a, pid, bp.ID)
	if err != nil {
		return nil, ScopeOutput{}, t.failWrite(err, map[string]string{"id": "blueprint"})
	}
	ids := make([]string, 0, len(res.Records))
	for _, r := range res.Records {
		ids = append(ids, r.ID)
	}
	out, err := t.scopeOutput(ctx, a, pid, ids)
	out.Matched = matched
	return nil, out, err
}

// scopeOutput reads the project services ids of a project, with the
// names of what they are on, and the project's figures.
func (t *tools) scopeOutput(ctx context.Context, a *engine.Actor, pid string, ids []string) (ScopeOutput, error) {
	out := ScopeOutput{ProjectID: pid, Services: make([]ServiceLine, 0, len(ids))}
	p, _, err := t.project(ctx, a, pid)
	if err != nil {
		return out, t.fail(err)
	}
	v := views.Project{Record: p}
	out.ContractRevenue, out.Currency = v.Str(views.NameContractRevenue), v.Currency()
	own := engine.ListParams{Filters: map[string]string{views.NameProject: pid}}
	names := map[string]string{}
	subs := map[string][]string{}
	for _, typ := range []string{views.TypeProjectPhases, views.TypeProjectResources, views.TypeProjectLocations,
		views.TypeProjectSubservices, views.TypeProjectServices} {
		res, err := t.s.Svc.List(ctx, a, typ, own, opts)
		if err != nil {
			return out, t.fail(err)
		}
		for _, r := range res.Records {
			names[typ+"/"+r.ID] = r.Str(views.NameName)
			if typ == views.TypeProjectSubservices {
				sv := views.ProjectSubservice{Record: r}.ProjectService()
				subs[sv] = append(subs[sv], r.Str(views.NameName))
			}
			if typ != views.TypeProjectServices || !slices.Contains(ids, r.ID) {
				continue
			}
			s := views.ProjectService{Record: r}
			out.Services = append(out.Services, ServiceLine{ID: r.ID, Name: s.Name(), ServiceID: s.Service(),
				// as stored: the decimal strings the API serves
				Quantity: r.Str(views.NameQuantity), UnitHours: r.Str(views.NameUnitHours), TotalHours: r.Str(views.NameTotalHours),
				Revenue: r.Str(views.NameRevenue), Cost: r.Str(views.NameCost),
				Phase:       names[views.TypeProjectPhases+"/"+s.ProjectPhase()],
				Resource:    names[views.TypeProjectResources+"/"+s.ProjectResource()],
				Location:    names[views.TypeProjectLocations+"/"+s.ProjectLocation()],
				Subservices: append([]string{}, subs[r.ID]...)})
		}
	}
	return out, nil
}

// ref is a to-one relationship input.
func ref(typ, id string) engine.RelInput {
	return engine.RelInput{Refs: []engine.Ref{{Type: typ, ID: id}}}
}
