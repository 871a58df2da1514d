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

// Correcting a scope: an assistant that added the wrong line, or the
// right one twice, changes or removes it through the same update and
// delete use cases as REST's PATCH and DELETE, rather than adding
// another line beside it.

// UpdateServiceInput are the arguments of scopekit_update_project_service.
type UpdateServiceInput struct {
	ProjectID ID      `json:"project_id" jsonschema:"the project's id"`
	Line      ID      `json:"line" jsonschema:"the service line of the project: its id (a services item's id), or its name when no other line of the project has it"`
	Quantity  Decimal `json:"quantity,omitempty" jsonschema:"a new quantity"`
	UnitHours Decimal `json:"unit_hours,omitempty" jsonschema:"new hours per unit"`
	Phase     *ID     `json:"phase,omitempty" jsonschema:"another phase: of the project or of the catalog, by id or name; empty: no phase"`
	Resource  *ID     `json:"resource,omitempty" jsonschema:"another resource: of the project or of the catalog, by id or name; empty: none (its hours are then priced at 0)"`
	Location  *ID     `json:"location,omitempty" jsonschema:"another location of the project, by id or name; empty: none"`
}

// lineArgs names the arguments behind a project service's fields in an
// update.
var lineArgs = map[string]string{views.NameQuantity: "quantity", views.NameUnitHours: "unit_hours",
	views.NameProjectPhase: "phase", views.NameProjectResource: "resource", views.NameProjectLocation: "location"}

func (t *tools) updateProjectService(ctx context.Context, req *mcp.CallToolRequest, in UpdateServiceInput) (*mcp.CallToolResult, ScopeOutput, error) {
	pid, a, _, err := t.projectWrite(ctx, req, in.ProjectID, views.TypeProjectServices)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	var matched []NameMatch
	own := map[string]string{views.NameProject: pid, views.NameChangeOrder: "none"} // its own lines, not a change order's
	line, err := t.resolve(ctx, a, lookup{arg: "line", what: "service line of the project", typ: views.TypeProjectServices,
		filters: own, matched: &matched}, in.Line)
	if err != nil {
		return nil, ScopeOutput{}, err
	}
	w := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for attr, v := range map[string]Decimal{views.NameQuantity: in.Quantity, views.NameUnitHours: in.UnitHours} {
		if d := strings.TrimSpace(string(v)); d != "" {
			w.Attrs[attr] = json.RawMessage(strconv.Quote(d))
		}
	}
	var upd scoping.ServiceToAdd // the catalog's phase and resource, for the line's scope to get
	for _, r := range []struct {
		v                      *ID
		arg, rel, typ, catalog string // catalog: "" when only the project's are taken
		into                   *string
	}{
		{in.Phase, "phase", views.NameProjectPhase, views.TypeProjectPhases, views.TypePhases, &upd.Phase},
		{in.Resource, "resource", views.NameProjectResource, views.TypeProjectResources, views.TypeResources, &upd.Resource},
		{in.Location, "location", views.NameProjectLocation, views.TypeProjectLocations, "", nil},
	} {
		switch {
		case r.v == nil:
		case strings.TrimSpace(string(*r.v)) == "":
			w.Rels[r.rel] = engine.RelInput{} // none
		case r.catalog != "":
			l := lookup{arg: r.arg, what: r.arg, typ: r.typ, filters: own, matched: &matched}
			if *r.into, err = t.projectOrCatalog(ctx, a, w, l, r.rel, r.catalog, *r.v); err != nil {
				return nil, ScopeOutput{}, err
			}
		default:
			rec, err := t.resolve(ctx, a, lookup{arg: r.arg, what: "location of the project", typ: r.typ, filters: own, matched: &matched}, *r.v)
			if err != nil {
				return nil, ScopeOutput{}, err
			}
			w.Rels[r.rel] = ref(r.typ, rec.ID)
		}
	}
	if len(w.Attrs)+len(w.Rels)+btoi(upd.Phase != "")+btoi(upd.Resource != "") == 0 {
		return nil, ScopeOutput{}, argError("line", "nothing to change: pass quantity, unit_hours, phase, resource or location")
	}
	// as add_service_to_project: catalog ones made the line's scope's
	upd.Input = w
	_, err = t.s.Svc.UpdateService(ctx, a, line.ID, upd, opts)
	if err != nil {
		return nil, ScopeOutput{}, t.failWrite(err, lineArgs)
	}
	out, err := t.scopeOutput(ctx, a, pid, []string{line.ID})
	out.Matched = matched
	return nil, out, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// removableTypes are the values of remove_project_item's type argument:
// the item types of list_project_items but documents.
func removableTypes() []string {
	return slices.DeleteFunc(itemTypeArgs(), func(arg string) bool { return arg == "documents" })
}

// RemoveItemInput are the arguments of scopekit_remove_project_item.
type RemoveItemInput struct {
	ProjectID ID     `json:"project_id" jsonschema:"the project's id"`
	Type      string `json:"type" jsonschema:"services, phases, locations, governance, expenses or products"`
	Item      ID     `json:"item" jsonschema:"the item: its id (from scopekit_list_project_items), or its name when no other item of the type has it"`
}

// RemoveItemOutput is what remove_project_item removed, and the
// project's figures after it.
type RemoveItemOutput struct {
	ProjectID       string      `json:"project_id"`
	Type            string      `json:"type"`
	Removed         ItemRef     `json:"removed"`
	ContractRevenue string      `json:"contract_revenue"`
	Currency        string      `json:"currency"`
	Note            string      `json:"note,omitempty"`
	Matched         []NameMatch `json:"matched,omitempty" jsonschema:"which record each name argument picked"`
}

// ItemRef names an item.
type ItemRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// removalNotes say what removing an item of a type does beyond it.
var removalNotes = map[string]string{
	views.TypeProjectServices:  "its subservices were removed with it",
	views.TypeProjectPhases:    "any service on it has no phase now",
	views.TypeProjectLocations: "any service at it has no location now",
}

func (t *tools) removeProjectItem(ctx context.Context, req *mcp.CallToolRequest, in RemoveItemInput) (*mcp.CallToolResult, RemoveItemOutput, error) {
	var out RemoveItemOutput
	typ, ok := lookupItemType(in.Type)
	if !ok || typ.typ == views.TypeProjectDocuments {
		return nil, out, argError("type", "%q is not one of %s", in.Type, orList(removableTypes())) // as checkEnums says
	}
	pid, a, _, err := t.projectWrite(ctx, req, in.ProjectID, typ.typ)
	if err != nil {
		return nil, out, err
	}
	l := lookup{arg: "item", what: strings.TrimSuffix(in.Type, "s") + " of the project", typ: typ.typ,
		filters: map[string]string{views.NameProject: pid, views.NameChangeOrder: "none"}, name: typ.name, matched: &out.Matched}
	item, err := t.resolve(ctx, a, l, in.Item)
	if err != nil {
		return nil, out, err
	}
	if err := t.s.Svc.Delete(ctx, a, typ.typ, item.ID, opts); err != nil {
		return nil, out, t.fail(err)
	}
	p, _, err := t.project(ctx, a, pid)
	if err != nil {
		return nil, out, t.fail(err)
	}
	v := views.Project{Record: p}
	out.ProjectID, out.Type, out.Removed = pid, in.Type, ItemRef{ID: item.ID, Name: l.nameOf(item)}
	out.ContractRevenue, out.Currency, out.Note = v.Str(views.NameContractRevenue), v.Currency(), removalNotes[typ.typ]
	return nil, out, nil
}
