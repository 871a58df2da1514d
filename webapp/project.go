package webapp

import (
	"net/http"

	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The project page: a header always current (status, client, contract
// revenue, cost, margin and hours, from the pricing run of the page's own
// snapshot) and a tab.

// The project page's tabs, by the last segment of their path.
const (
	tabScope     = "scope"
	tabPricing   = "pricing"
	tabReview    = "review"
	tabApproval  = "approval"
	tabDocuments = "documents"
	tabMergeData = "merge-data"
)

// tabs are the tabs in the order shown, with their labels.
var tabs = []option{{tabScope, "Scope"}, {tabSurveys, "Surveys"}, {tabPricing, "Pricing"}, {tabReview, "Review"},
	{tabApproval, "Approval"}, {tabDocuments, "Documents"}, {tabMergeData, "Merge data"}}

// header is the project's header figures; every figure is the pricing
// run's (the pricing endpoint's), as it formats it.
type header struct {
	ID, Name, Client, Status, Stage string
	Currency                        string
	Revenue, Cost, Profit, Margin   string
	Hours                           string
}

// projectPage is what every tab of the project page shows.
type projectPage struct {
	L       *layout
	Tab     string
	Tabs    []option
	H       header
	CanEdit bool // the role manages projects and the scope is not locked: the scope's controls are offered
	Locked  bool // the project is won: its scope changes through change orders only
	Panel   *panel
	Scope   *scopeView
	Pricing *pricing.Result
	Review  *reviewView
	Approve *approvalView
	Docs    *docsView
	Merge   *mergeView
	Survey  *surveyView // survey.go
}

// panel is the pricing panel beside the scope: the contract and the
// phases, from the same pricing run.
type panel struct {
	Currency string
	Phases   []pricing.PhaseTotals
	Res      *pricing.Result
}

// tab serves GET /projects/{id} (the scope) and /projects/{id}/{tab}.
func (w *Workspace) tab(name string) func(c *call) error {
	return func(c *call) error {
		pg, err := w.projectPage(c, c.r.PathValue("id"), name)
		if err != nil {
			return err
		}
		w.render(c.rw, http.StatusOK, "project", "layout", pg)
		return nil
	}
}

// projectPage reads what the tab shows: one snapshot (the project, its
// lines and one pricing run) and what the tab needs besides.
func (w *Workspace) projectPage(c *call, id, tab string) (*projectPage, error) {
	var snap *views.Snapshot
	var rv *scoping.ScopeReview
	var err error
	if tab == tabReview { // the review reads its own snapshot
		if rv, err = w.svc.ReviewScope(c.ctx(), c.actor, id); err == nil {
			snap = rv.Snapshot
		}
	} else {
		snap, err = w.svc.Snapshot(c.ctx(), c.actor, id)
	}
	if err != nil {
		return nil, err
	}
	return w.tabPage(c, snap, rv, tab)
}

// tabPage builds the page of a tab from the project's snapshot (and the
// review of the review tab).
func (w *Workspace) tabPage(c *call, snap *views.Snapshot, rv *scoping.ScopeReview, tab string) (*projectPage, error) {
	var err error
	id := snap.Project.ID
	pg := &projectPage{L: c.layout(snap.Project.ProjectName(), "projects"), Tab: tab, Tabs: tabs, H: headerOf(snap),
		CanEdit: c.canManage("projects") && !wonProject(snap), Locked: wonProject(snap), Panel: &panel{Currency: snap.Pricing.Currency.Code, Phases: snap.Pricing.Phases, Res: snap.Pricing}}
	switch tab {
	case tabScope:
		pg.Scope, err = w.scopeView(c, snap)
	case tabPricing:
		pg.Pricing = snap.Pricing
	case tabReview:
		pg.Review = w.reviewView(c, rv)
	case tabApproval:
		pg.Approve, err = w.approvalView(c, snap)
	case tabDocuments:
		pg.Docs, err = w.docsView(c, snap)
	case tabMergeData:
		pg.Merge, err = w.mergeView(c, id)
	}
	return pg, err
}

func headerOf(snap *views.Snapshot) header {
	r := snap.Pricing
	h := header{ID: snap.Project.ID, Name: snap.Project.ProjectName(), Status: snap.Project.Status(), Stage: snap.Project.ApprovalStage(),
		Currency: r.Currency.Code, Revenue: money(r.TotalContractValue), Cost: money(r.TotalContractCost),
		Profit: money(r.TotalContractProfit), Margin: percent(r.TotalContractMargin), Hours: money(r.TotalHours())}
	if snap.Client != nil {
		h.Client = snap.Client.Name()
	}
	return h
}

// wonProject reports whether the project is won: its scope is locked
// (docs/lifecycle.md), so the page offers no control that would be
// refused.
func wonProject(snap *views.Snapshot) bool { return snap.Project.Status() == "won" }
