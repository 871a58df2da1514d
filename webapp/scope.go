package webapp

import (
	"html/template"
	"net/http"
	"strings"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The scope tab: services by phase with their subservices, governance,
// expenses and products, each line's figures from the pricing run.

type scopeView struct {
	Groups     []*phaseGroup
	Phases     []option // the project's phases, resources and locations
	Resources  []option
	Locations  []option
	Governance []*otherRow
	Expenses   []*otherRow
	Products   []*otherRow
	Blueprints []option
	Categories []option // expense categories
	Catalog    []option // products of the catalog
	Once       string   // the add forms' once token
	CanCatalog bool     // the role reads the catalog (type-ahead, blueprints)
}

type phaseGroup struct {
	ID, Name string
	Lines    []*lineRow
}

// lineRow is a project service or subservice: its inputs as stored and
// its figures as priced.
type lineRow struct {
	Kind                       string // "services" or "subservices"
	ID, Name, SKU, Description string
	Quantity, UnitHours        string
	Phase, Resource, Location  string
	ExtendedHours, TotalHours  string
	Revenue, Cost              string
	Managed                    bool
	Subs                       []*lineRow
	First, Last                bool
	// the selects' options, rendered once per page for each selection
	PhaseOpts, ResourceOpts, LocationOpts template.HTML
	PhaseName, ResourceName               string // for read-only rows
}

// otherRow is a governance item, an expense or a product.
type otherRow struct {
	Kind, ID, Name, Detail string
	Quantity, Rate         string
	Hours                  string
	Revenue, Cost          string
}

func (w *Workspace) scopeView(c *call, snap *views.Snapshot) (*scopeView, error) {
	v := &scopeView{Once: randomToken(), CanCatalog: c.actor.Can("catalog", false)}
	v.Phases = append(v.Phases, option{"", "No phase"})
	for _, p := range snap.Phases {
		v.Phases = append(v.Phases, option{p.ID, p.Name()})
	}
	v.Resources = append(v.Resources, option{"", "No resource"})
	for _, r := range snap.Resources {
		v.Resources = append(v.Resources, option{r.ID, r.Name()})
	}
	v.Locations = append(v.Locations, option{"", "No location"})
	for _, l := range snap.Locations {
		v.Locations = append(v.Locations, option{l.ID, l.Name()})
	}
	phaseOpts, resourceOpts, locationOpts := optionCache(v.Phases), optionCache(v.Resources), optionCache(v.Locations)
	groups := map[string]*phaseGroup{}
	for _, p := range snap.Phases {
		g := &phaseGroup{ID: p.ID, Name: p.Name()}
		groups[p.ID] = g
		v.Groups = append(v.Groups, g)
	}
	none := &phaseGroup{Name: "No phase"}
	res := snap.Pricing
	for i, s := range snap.Services {
		f := res.Service(i)
		row := &lineRow{Kind: "services", ID: s.ID, Name: s.Name(), SKU: s.Sku(), Description: s.ServiceDescription(),
			Quantity: s.Quantity().String(), UnitHours: s.UnitHours().String(),
			Phase: s.ProjectPhase(), Resource: s.ProjectResource(), Location: s.ProjectLocation(),
			ExtendedHours: money(f.ExtendedHours), TotalHours: money(f.TotalHours), Revenue: money(f.Revenue), Cost: money(f.Cost),
			Managed:   s.ServiceType() == "managed_services",
			PhaseOpts: phaseOpts(s.ProjectPhase()), ResourceOpts: resourceOpts(s.ProjectResource()), LocationOpts: locationOpts(s.ProjectLocation()),
			PhaseName: labelOf(v.Phases, s.ProjectPhase()), ResourceName: labelOf(v.Resources, s.ProjectResource())}
		for j, sub := range snap.Subservices[i] {
			sf := res.Subservice(i, j)
			row.Subs = append(row.Subs, &lineRow{Kind: "subservices", ID: sub.ID, Name: sub.Name(),
				Quantity: sub.Quantity().String(), UnitHours: sub.UnitHours().String(), Resource: sub.ProjectResource(),
				ExtendedHours: money(sf.ExtendedHours), TotalHours: money(sf.TotalHours), Revenue: money(sf.Revenue), Cost: money(sf.Cost),
				ResourceOpts: resourceOpts(sub.ProjectResource()), ResourceName: labelOf(v.Resources, sub.ProjectResource()),
				First: j == 0, Last: j == len(snap.Subservices[i])-1})
		}
		g, ok := groups[row.Phase]
		if !ok {
			g = none
		}
		g.Lines = append(g.Lines, row)
	}
	if len(none.Lines) > 0 {
		v.Groups = append(v.Groups, none)
	}
	// first and last among all services: moving follows the project's order
	var all []*lineRow
	for _, g := range v.Groups {
		all = append(all, g.Lines...)
	}
	if len(all) > 0 {
		all[0].First, all[len(all)-1].Last = true, true
	}
	for i, g := range snap.Governance {
		it := res.ProjectGovernance.Items[i]
		v.Governance = append(v.Governance, &otherRow{Kind: "governances", ID: g.ID, Name: g.Name(), Detail: it.ResourceName,
			Rate: g.Rate().String(), Hours: money(it.Hours), Revenue: money(it.Revenue), Cost: money(it.Cost)})
	}
	for i, e := range snap.Expenses {
		it := res.TravelAndExpense.Items[i]
		v.Expenses = append(v.Expenses, &otherRow{Kind: "expenses", ID: e.ID, Name: e.Description(), Detail: it.Category,
			Quantity: e.Quantity().String(), Rate: e.Rate().String(), Revenue: money(it.Revenue), Cost: money(it.Cost)})
	}
	for i, p := range snap.Products {
		it := res.Materials.Items[i]
		v.Products = append(v.Products, &otherRow{Kind: "products", ID: p.ID, Name: p.Name(), Detail: p.Sku(),
			Quantity: p.Quantity().String(), Revenue: money(it.Revenue), Cost: money(it.Cost)})
	}
	if !c.canManage("projects") {
		return v, nil
	}
	var err error
	if v.CanCatalog {
		if v.Blueprints, err = w.choices(c, views.TypeBlueprints, views.NameName, ""); err != nil {
			return nil, err
		}
		if v.Categories, err = w.choices(c, views.TypeExpenseCategories, views.NameName, "No category"); err != nil {
			return nil, err
		}
		if v.Catalog, err = w.choices(c, views.TypeProducts, views.NameName, ""); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// optionCache returns the <option> list of opts with one selected, built
// once per selection: a page of many rows would otherwise render the same
// options row after row (most of its time).
func optionCache(opts []option) func(selected string) template.HTML {
	built := map[string]template.HTML{}
	return func(selected string) template.HTML {
		if h, ok := built[selected]; ok {
			return h
		}
		var b strings.Builder
		for _, o := range opts {
			b.WriteString(`<option value="`)
			b.WriteString(template.HTMLEscapeString(o.Value))
			b.WriteByte('"')
			if o.Value == selected {
				b.WriteString(" selected")
			}
			b.WriteByte('>')
			b.WriteString(template.HTMLEscapeString(o.Label))
			b.WriteString("</option>")
		}
		h := template.HTML(b.String()) // every value above is escaped
		built[selected] = h
		return h
	}
}

func labelOf(opts []option, value string) string {
	for _, o := range opts {
		if o.Value == value {
			return o.Label
		}
	}
	return ""
}

// line finds the service row a changed line is shown in: the service's
// own, or its service's for a subservice (ids are per type, so the kind
// tells which); nil for another kind.
func (v *scopeView) line(kind, id string) *lineRow {
	for _, g := range v.Groups {
		for _, l := range g.Lines {
			if kind == "services" && l.ID == id {
				return l
			}
			for _, s := range l.Subs {
				if kind == "subservices" && s.ID == id {
					return l
				}
			}
		}
	}
	return nil
}

// catalogSearch serves the type-ahead: catalog services whose name, SKU
// or category contains q (at most 20), as a list to add from.
func (w *Workspace) catalogSearch(c *call) error {
	q := c.r.URL.Query()
	term, project := q.Get("q"), q.Get("project")
	type hit struct{ ID, Name, SKU, Category string }
	var hits []hit
	if len([]rune(term)) >= 1 && len(term) <= 255 {
		seen := map[string]bool{}
		cats := map[string]string{}
		catRes, err := w.svc.List(c.ctx(), c.actor, views.TypeServiceCategories, engine.ListParams{PageSize: 1000, PageNumber: 1}, engine.Options{})
		if err != nil {
			return err
		}
		var matchingCats []string
		for _, r := range catRes.Records {
			cats[r.ID] = views.ServiceCategory{Record: r}.Name()
		}
		byCat, err := w.svc.List(c.ctx(), c.actor, views.TypeServiceCategories, engine.ListParams{PageSize: 50, PageNumber: 1,
			Filters: map[string]string{"name": term}}, engine.Options{})
		if err != nil {
			return err
		}
		for _, r := range byCat.Records {
			matchingCats = append(matchingCats, r.ID)
		}
		searches := []map[string]string{{"name": term}, {"sku": term}}
		for _, id := range matchingCats {
			searches = append(searches, map[string]string{"service-category": id})
		}
		for _, f := range searches {
			if len(hits) >= 20 {
				break
			}
			res, err := w.svc.List(c.ctx(), c.actor, views.TypeServices, engine.ListParams{Filters: f, PageSize: 20, PageNumber: 1,
				Sort: []engine.SortSpec{{Field: views.NameName}}}, engine.Options{})
			if err != nil {
				return err
			}
			for _, r := range res.Records {
				if !seen[r.ID] && len(hits) < 20 {
					seen[r.ID] = true
					s := views.Service{Record: r}
					hits = append(hits, hit{r.ID, s.Name(), s.Sku(), cats[s.ServiceCategory()]})
				}
			}
		}
	}
	s := map[string]any{"Hits": hits, "Term": term, "Slug": c.slug, "Project": project, "CSRF": c.sess.CSRF, "Once": randomToken()}
	if c.htmx {
		w.render(c.rw, http.StatusOK, "project", "suggestions", s)
		return nil
	}
	// without script the search is a page of its own
	w.render(c.rw, http.StatusOK, "catalog", "layout", map[string]any{"L": c.layout("Add from the catalog", "projects"), "S": s})
	return nil
}
