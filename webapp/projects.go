package webapp

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The projects list and the new project form.

// pageSize is how many projects a page of the list shows.
const pageSize = 25

// projectSorts are the list's orders, by the value of its sort field.
var projectSorts = []option{
	{"-created-at", "Newest first"}, {"created-at", "Oldest first"},
	{"project-name", "Name A–Z"}, {"-project-name", "Name Z–A"}, {"-updated-at", "Recently changed"},
}

// projectStatuses are the statuses the list filters on.
var projectStatuses = []option{{"", "Any status"}, {"draft", "Draft"}, {"pending_approval", "Pending approval"},
	{"approved", "Approved"}, {"won", "Won"}, {"lost", "Lost"}, {"canceled", "Canceled"}}

// option is one choice of a select.
type option struct{ Value, Label string }

// listFilters are the list's query parameters and the engine filter
// each sets; dates are RFC 3339 dates.
var listFilters = []struct{ param, filter string }{
	{"q", "name"}, {"status", "status"}, {"client", "client"}, {"lob", "line-of-business"},
	{"created_from", "created-after"}, {"created_to", "created-before"},
	{"submitted_from", "submitted-after"}, {"submitted_to", "submitted-before"},
	{"approved_from", "approved-after"}, {"approved_to", "approved-before"},
}

type projectRow struct {
	ID, Name, Client, Status, Currency string
	Revenue, Margin, Hours             string
	Created                            string
}

type projectsPage struct {
	L         *layout
	Query     url.Values
	Rows      []projectRow
	Total     int
	Page      int
	Pages     int
	Prev      string
	Next      string
	Sorts     []option
	Statuses  []option
	Clients   []option
	LOBs      []option
	CanCreate bool
}

// projects serves the list: search, filters, sort and paging are the
// engine's list parameters.
func (w *Workspace) projects(c *call) error {
	if !c.actor.Can("projects", false) {
		// the landing page of a role without projects (a people manager,
		// say) is the settings it has, not a refusal
		return c.redirect(c.url("/settings"))
	}
	q := c.r.URL.Query()
	p := engine.ListParams{Filters: map[string]string{}, Include: []string{views.NameClient}, PageSize: pageSize, PageNumber: 1}
	for _, f := range listFilters {
		if v := strings.TrimSpace(q.Get(f.param)); v != "" {
			p.Filters[f.filter] = v
		}
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 0 && n < 1_000_000 {
		p.PageNumber = n
	}
	sort := q.Get("sort")
	if !hasOption(projectSorts, sort) {
		sort = projectSorts[0].Value
	}
	p.Sort = []engine.SortSpec{{Field: strings.TrimPrefix(sort, "-"), Desc: strings.HasPrefix(sort, "-")}}
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeProjects, p, engine.Options{FilterParam: paramOfFilter})
	if err != nil {
		return err
	}
	clientNames := map[string]string{}
	for _, r := range res.Included {
		if r.Type == views.TypeClients {
			clientNames[r.ID] = views.Client{Record: r}.Name()
		}
	}
	pg := &projectsPage{L: c.layout("Projects", "projects"), Query: q, Total: res.Total, Page: p.PageNumber,
		Sorts: projectSorts, Statuses: projectStatuses, CanCreate: c.canManage("projects")}
	pg.Pages = (res.Total + pageSize - 1) / pageSize
	for _, r := range res.Records {
		v := views.Project{Record: r}
		pg.Rows = append(pg.Rows, projectRow{ID: r.ID, Name: v.ProjectName(), Client: clientNames[v.Client()], Status: v.Status(),
			Currency: v.Currency(), Revenue: amount(r.Dec(views.NameContractRevenue)), Margin: marginOf(r.Dec(views.NameContractMargin).String()),
			Hours: amount(r.Dec(views.NameTotalHours)), Created: dateOf(r.CreatedAt)})
	}
	if pg.Page > 1 {
		pg.Prev = pageURL(q, pg.Page-1)
	}
	if pg.Page < pg.Pages {
		pg.Next = pageURL(q, pg.Page+1)
	}
	if pg.Clients, err = w.choices(c, views.TypeClients, views.NameName, "Any client"); err != nil {
		return err
	}
	if pg.LOBs, err = w.choices(c, views.TypeLinesOfBusiness, views.NameName, "Any line of business"); err != nil {
		return err
	}
	w.render(c.rw, http.StatusOK, "projects", "layout", pg)
	return nil
}

// paramOfFilter names, in errors, the list's query parameter of an engine
// filter.
func paramOfFilter(filter string) string {
	for _, f := range listFilters {
		if f.filter == filter {
			return f.param
		}
	}
	return filter
}

func hasOption(opts []option, v string) bool {
	for _, o := range opts {
		if o.Value == v {
			return true
		}
	}
	return false
}

func pageURL(q url.Values, page int) string {
	v := url.Values{}
	for k, vals := range q {
		v[k] = vals
	}
	v.Set("page", strconv.Itoa(page))
	return "?" + v.Encode()
}

// choices lists the active records of typ the actor may read, as options
// (first a blank one labelled blank when not ""); a type the role cannot
// read gives no options.
func (w *Workspace) choices(c *call, typ, nameAttr, blank string) ([]option, error) {
	var out []option
	if blank != "" {
		out = append(out, option{"", blank})
	}
	if !c.actor.Can(guardOf(w, typ), false) {
		return out, nil
	}
	res, err := w.svc.List(c.ctx(), c.actor, typ, engine.ListParams{PageSize: 1000, PageNumber: 1}, engine.Options{})
	if err != nil {
		return nil, err
	}
	for _, r := range res.Records {
		out = append(out, option{r.ID, r.Str(nameAttr)})
	}
	return out, nil
}

func guardOf(w *Workspace, typ string) string {
	def, ok := w.svc.Schema().Lookup(typ)
	if !ok {
		return typ
	}
	return def.Guard
}

// marginOf shows a stored margin ratio as a percentage.
func marginOf(ratio string) string {
	d, err := engine.ParseDecimal(ratio)
	if err != nil {
		return ""
	}
	return d.Shift(2).StringFixed(2) + " %"
}

func dateOf(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

type newProjectPage struct {
	L             *layout
	Once          string
	Name, Client  string
	RateTable     string
	PaymentTerm   string
	LOB           string
	Clients       []option
	RateTables    []option
	PaymentTerms  []option
	LOBs          []option
	CanNewClients bool
}

func (w *Workspace) newProject(c *call) error {
	return w.showNewProject(c, http.StatusOK, &newProjectPage{})
}

func (w *Workspace) showNewProject(c *call, status int, pg *newProjectPage) error {
	if err := c.actor.Require("projects", true); err != nil {
		return err
	}
	var err error
	if pg.L == nil {
		pg.L = c.layout("New project", "projects")
	}
	pg.Once, pg.CanNewClients = randomToken(), c.canManage("clients")
	if pg.Clients, err = w.choices(c, views.TypeClients, views.NameName, ""); err != nil {
		return err
	}
	if pg.RateTables, err = w.choices(c, views.TypeRateTables, views.NameName, "The account's default"); err != nil {
		return err
	}
	if pg.PaymentTerms, err = w.choices(c, views.TypePaymentTerms, views.NameName, "The account's default"); err != nil {
		return err
	}
	if pg.LOBs, err = w.choices(c, views.TypeLinesOfBusiness, views.NameName, "None"); err != nil {
		return err
	}
	w.render(c.rw, status, "newproject", "layout", pg)
	return nil
}

// createProject creates the project (and its client when new) and goes
// to its page; refused, the form comes back with the problems.
func (w *Workspace) createProject(c *call) error {
	pg := &newProjectPage{L: c.layout("New project", "projects")}
	var err error
	for _, f := range []struct {
		name string
		to   *string
	}{{"name", &pg.Name}, {"client", &pg.Client}, {"rate-table", &pg.RateTable}, {"payment-term", &pg.PaymentTerm}, {"line-of-business", &pg.LOB}} {
		if *f.to, err = c.value(f.name); err != nil {
			return err
		}
	}
	name, _ := json.Marshal(pg.Name)
	in := &engine.Input{Attrs: map[string]json.RawMessage{views.NameProjectName: name}, Rels: map[string]engine.RelInput{}}
	for rel, v := range map[string]struct{ typ, id string }{views.NameRateTable: {views.TypeRateTables, pg.RateTable},
		views.NamePaymentTerm: {views.TypePaymentTerms, pg.PaymentTerm}, views.NameLineOfBusiness: {views.TypeLinesOfBusiness, pg.LOB}} {
		if v.id != "" {
			in.Rels[rel] = engine.RelInput{Refs: []engine.Ref{{Type: v.typ, ID: v.id}}}
		}
	}
	if err := c.claimOnce(); err != nil {
		return err
	}
	res, _, err := w.svc.CreateProjectForClient(c.ctx(), c.actor, pg.Client, in)
	if code := scopekit.ErrorCode(err); code == scopekit.EINVALID || (code == scopekit.EFORBIDDEN && c.canManage("projects")) {
		_, pg.L.Errors = w.describe(err)
		return w.showNewProject(c, statuses[code], pg)
	}
	if err != nil {
		return err
	}
	return c.redirect(c.url("/projects/" + res.Records[0].ID))
}
