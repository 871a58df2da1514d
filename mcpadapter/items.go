package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// ItemsPageSize is the most items scopekit_list_project_items returns
// (the API's default page size); Truncated says when a project has more.
const ItemsPageSize = 250

// itemType is one value of list_project_items' type argument: the type
// of the items and the attributes shown concisely.
type itemType struct {
	typ    string // the items' type, whose project relationship is the project
	name   string // the attribute that names an item
	hours  string // the attribute of its hours, "" for none
	money  bool   // it has revenue and cost
	status bool   // it has a status (delivery, or a document's generation)
}

// itemTypes are the types in the order the tool describes them.
var itemTypes = []struct {
	arg string
	itemType
}{
	{"documents", itemType{typ: views.TypeProjectDocuments, name: views.NameFilename, status: true}},
	{"services", itemType{typ: views.TypeProjectServices, name: views.NameName, hours: views.NameTotalHours, money: true, status: true}},
	{"phases", itemType{typ: views.TypeProjectPhases, name: views.NameName}},
	{"locations", itemType{typ: views.TypeProjectLocations, name: views.NameName}},
	{"governance", itemType{typ: views.TypeProjectGovernances, name: views.NameName, hours: views.NameHours, money: true}},
	{"expenses", itemType{typ: views.TypeProjectExpenses, name: views.NameDescription, money: true}},
	{"products", itemType{typ: views.TypeProjectProducts, name: views.NameName, money: true}},
}

func lookupItemType(arg string) (itemType, bool) {
	for _, t := range itemTypes {
		if t.arg == arg {
			return t.itemType, true
		}
	}
	return itemType{}, false
}

// itemTypeArgs are the values of the type argument.
func itemTypeArgs() []string {
	args := make([]string, len(itemTypes))
	for i, t := range itemTypes {
		args[i] = t.arg
	}
	return args
}

// ListItemsInput are the arguments of scopekit_list_project_items.
type ListItemsInput struct {
	ProjectID      ID     `json:"project_id" jsonschema:"the project's id"`
	Type           string `json:"type" jsonschema:"documents, services, phases, locations, governance, expenses or products"`
	ResponseFormat string `json:"response_format,omitempty" jsonschema:"concise (default): names and key figures; detailed: every attribute and relationship, and the download links of documents"`
}

// ListItemsOutput is the items of one type of a project.
type ListItemsOutput struct {
	ProjectID string `json:"project_id"`
	Type      string `json:"type"`
	Items     []Item `json:"items"`
	Total     int    `json:"total"`
	Truncated bool   `json:"truncated" jsonschema:"true when the project has more items than listed"`
}

// Item is one item of a project. Figures are decimal strings, present
// where the type has them; Attributes, Relationships, Subservices and the
// download links only in the detailed format.
type Item struct {
	ID      string `json:"id"`
	Name    string `json:"name" jsonschema:"a document's file name, or its type while it has no file"`
	Status  string `json:"status,omitempty"`
	Hours   string `json:"hours,omitempty"`
	Revenue string `json:"revenue,omitempty"`
	Cost    string `json:"cost,omitempty"`
	// Documents only.
	DocumentType string `json:"document_type,omitempty" jsonschema:"a document's type: sow, pricing or breakdown"`
	Template     string `json:"template,omitempty" jsonschema:"a SOW's template name"`
	CreatedAt    string `json:"created_at,omitempty" jsonschema:"when a document was requested"`
	// Detailed only.
	Attributes    map[string]any      `json:"attributes,omitempty"`
	Relationships map[string][]string `json:"relationships,omitempty" jsonschema:"ids of related records by relationship"`
	Subservices   []SubItem           `json:"subservices,omitempty" jsonschema:"a service's subservices"`
	DownloadURL   string              `json:"download_url,omitempty" jsonschema:"a document's file, from the API with the same bearer token"`
	PDFURL        string              `json:"pdf_url,omitempty" jsonschema:"a SOW document's PDF, when one was generated"`
}

// SubItem is a subservice of a service in the detailed format.
type SubItem struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Attributes map[string]any `json:"attributes"`
}

func (t *tools) listProjectItems(ctx context.Context, req *mcp.CallToolRequest, in ListItemsInput) (*mcp.CallToolResult, ListItemsOutput, error) {
	var out ListItemsOutput
	detailed, err := responseFormat(in.ResponseFormat)
	if err != nil {
		return nil, out, err
	}
	typ, ok := lookupItemType(in.Type)
	if !ok {
		return nil, out, argError("type", "%q is not one of %s", in.Type, orList(itemTypeArgs())) // as checkEnums says
	}
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, out, err
	}
	// the project as get_project finds it, archived or not, then its items
	if _, _, err := t.project(ctx, a, id); err != nil {
		return nil, out, t.fail(err)
	}
	p := engine.ListParams{Filters: map[string]string{views.NameProject: id}, PageNumber: 1, PageSize: ItemsPageSize}
	if typ.typ == views.TypeProjectDocuments {
		p.Include = []string{views.NameDocumentTemplate}
	}
	res, err := t.s.Svc.List(ctx, a, typ.typ, p, opts)
	if err != nil {
		return nil, out, t.fail(err)
	}
	templates := templateNames(res.Included)
	var subs map[string][]SubItem
	if detailed && typ.typ == views.TypeProjectServices && len(res.Records) > 0 {
		if subs, err = t.subservices(ctx, a, id); err != nil {
			return nil, out, err
		}
	}
	out = ListItemsOutput{ProjectID: id, Type: in.Type, Items: make([]Item, 0, len(res.Records)),
		Total: res.Total, Truncated: res.Total > len(res.Records)}
	for _, r := range res.Records {
		it := Item{ID: r.ID, Name: r.Str(typ.name)}
		if r.Type == views.TypeProjectDocuments {
			d := views.ProjectDocument{Record: r}
			it.DocumentType, it.Template, it.CreatedAt = d.DocumentType(), templates[d.DocumentTemplate()], r.CreatedAt
			if it.Name == "" {
				it.Name = d.DocumentType() + " document"
			}
		}
		if typ.status {
			it.Status = r.Str(views.NameStatus)
		}
		if typ.hours != "" {
			it.Hours = r.Str(typ.hours)
		}
		if typ.money {
			// as stored: the decimal strings the API serves
			it.Revenue, it.Cost = r.Str(views.NameRevenue), r.Str(views.NameCost)
		}
		if detailed {
			it.Attributes, it.Relationships = declared(t.s.Svc.Schema(), r)
			it.Subservices = subs[r.ID]
			it.DownloadURL, it.PDFURL = t.links(a, r)
		}
		out.Items = append(out.Items, it)
	}
	return nil, out, nil
}

// subservices returns the subservices of a project's services, by service.
func (t *tools) subservices(ctx context.Context, a *engine.Actor, projectID string) (map[string][]SubItem, error) {
	res, err := t.s.Svc.List(ctx, a, views.TypeProjectSubservices,
		engine.ListParams{Filters: map[string]string{"project": projectID}}, opts)
	if err != nil {
		return nil, t.fail(err)
	}
	m := map[string][]SubItem{}
	for _, r := range res.Records {
		sub := views.ProjectSubservice{Record: r}
		svc := sub.ProjectService()
		attrs, _ := declared(t.s.Svc.Schema(), r)
		m[svc] = append(m[svc], SubItem{ID: r.ID, Name: sub.Name(), Attributes: attrs})
	}
	return m, nil
}

// declared returns a record's attributes and relationships as the API
// serves them: the declared ones only (never what the engine keeps for
// itself), with created-at and updated-at. Link attributes (a document's
// download paths) are left out: the tools give them as absolute URLs, and
// only in the detailed format.
func declared(schema *engine.Schema, r *engine.Record) (map[string]any, map[string][]string) {
	def, ok := schema.Lookup(r.Type)
	if !ok {
		return map[string]any{}, map[string][]string{}
	}
	attrs := make(map[string]any, len(def.Attrs))
	for _, a := range def.Attrs {
		switch {
		case a.Name == views.NameCreatedAt:
			attrs[a.Name] = r.CreatedAt
		case a.Name == views.NameUpdatedAt:
			attrs[a.Name] = r.UpdatedAt
		case a.Link:
		default:
			attrs[a.Name] = r.Attrs[a.Name]
		}
	}
	rels := map[string][]string{}
	for _, d := range def.Rels {
		if ids := r.Rels[d.Name]; len(ids) > 0 {
			rels[d.Name] = ids
		}
	}
	return attrs, rels
}
