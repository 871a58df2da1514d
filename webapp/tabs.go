package webapp

import (
	"net/http"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"golang.org/x/time/rate"
)

// The review, approval and documents tabs, and the actions they offer.

type reviewView struct {
	Findings []finding
	Levels   []string // the approval levels a submission would go through
}

type finding struct {
	Kind, Name, Message, Link string
}

func (w *Workspace) reviewView(c *call, rv *scoping.ScopeReview) *reviewView {
	v := &reviewView{}
	for _, f := range rv.Findings {
		fd := finding{Kind: f.Kind, Name: f.Name, Message: f.Message}
		switch f.Type {
		case views.TypeProjectServices, views.TypeProjectSubservices, views.TypeProjectGovernances,
			views.TypeProjectExpenses, views.TypeProjectProducts:
			fd.Link = c.url("/projects/" + rv.Snapshot.Project.ID + "#" + anchor(strings.TrimPrefix(f.Type, "project-"), f.ID))
		default:
			fd.Link = c.url("/projects/" + rv.Snapshot.Project.ID)
		}
		v.Findings = append(v.Findings, fd)
	}
	for _, p := range rv.Approvals {
		v.Levels = append(v.Levels, label(p.Kind))
	}
	return v
}

type approvalView struct {
	CanSubmit bool
	Steps     []stepRow
	Once      string
}

type stepRow struct {
	ID, Kind, Status, Comment, Completed string
	Approvers                            []approverRow
	MayAct                               bool // the person is asked to sign this pending step
}

type approverRow struct{ Name, Status string }

func (w *Workspace) approvalView(c *call, snap *views.Snapshot) (*approvalView, error) {
	v := &approvalView{Once: randomToken(), CanSubmit: c.canManage("projects") && snap.Project.Status() == "draft"}
	steps, err := w.svc.List(c.ctx(), c.actor, views.TypeApprovalSteps, engine.ListParams{PageSize: 100, PageNumber: 1,
		Filters: map[string]string{"project": snap.Project.ID}, Include: []string{views.NameApprovalRequirements}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	names, err := w.userNames(c)
	if err != nil {
		return nil, err
	}
	reqs := map[string][]*engine.Record{}
	for _, r := range steps.Included {
		if r.Type == views.TypeApprovalRequirements {
			reqs[r.Rel(views.NameApprovalStep)] = append(reqs[r.Rel(views.NameApprovalStep)], r)
		}
	}
	for _, s := range steps.Records {
		st := views.ApprovalStep{Record: s}
		row := stepRow{ID: s.ID, Kind: label(st.Kind()), Status: st.Status(), Comment: st.Comment(), Completed: dateOf(st.CompletedAt())}
		for _, r := range reqs[s.ID] {
			rq := views.ApprovalRequirement{Record: r}
			row.Approvers = append(row.Approvers, approverRow{Name: names[rq.User()], Status: rq.Status()})
			if rq.User() == c.actor.UserID && rq.Status() == "pending" && st.Status() == "pending" {
				row.MayAct = true
			}
		}
		if st.Status() == "pending" && len(reqs[s.ID]) == 0 && c.canManage("project_approvals") {
			row.MayAct = true
		}
		v.Steps = append(v.Steps, row)
	}
	return v, nil
}

// userNames are the account's users' names by id, where the role may
// read users; otherwise the people are named by id only.
func (w *Workspace) userNames(c *call) (map[string]string, error) {
	names := map[string]string{c.actor.UserID: views.User{Record: c.actor.User}.Name()}
	if !c.actor.Can("users", false) {
		return names, nil
	}
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeUsers, engine.ListParams{PageSize: 1000, PageNumber: 1,
		Filters: map[string]string{"active": "true,false"}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	for _, u := range res.Records {
		names[u.ID] = views.User{Record: u}.Name()
	}
	return names, nil
}

// submit submits the project for approval.
func (w *Workspace) submit(c *call) error {
	pid := c.r.PathValue("id")
	if _, err := w.svc.Submit(c.ctx(), c.actor, pid); err != nil {
		return err
	}
	return c.redirect(c.url("/projects/" + pid + "/" + tabApproval))
}

// stepAction approves, declines or rescopes a step, with a comment.
func (w *Workspace) stepAction(c *call) error {
	act := c.r.PathValue("act")
	if act != "approve" && act != "decline" && act != "rescope" {
		return scopekit.Errorf(scopekit.ENOTFOUND, "no such action")
	}
	comment, err := c.value("comment")
	if err != nil {
		return err
	}
	res, err := w.svc.StepAction(c.ctx(), c.actor, c.r.PathValue("step"), act, comment)
	if err != nil {
		return err
	}
	back, _ := c.value("back")
	if back != "inbox" {
		return c.redirect(c.url("/projects/" + res.Records[0].Rel(views.NameProject) + "/" + tabApproval))
	}
	return c.redirect(c.url("/approvals"))
}

// docTypes name the document types for people.
var docTypes = map[string]string{scoping.DocumentSOW: "Statement of work", scoping.DocumentPricing: "Pricing workbook",
	scoping.DocumentBreakdown: "Breakdown workbook", scoping.DocumentChangeOrder: "Change order"}

type docsView struct {
	Docs      []docRow
	Templates []option
	CanCreate bool
	Pending   bool // a document is still queued or generating: the tab refreshes itself
	Once      string
}

type docRow struct {
	ID, Type, Status, Error, Filename, Generated, Template string
	PDF                                                    bool
}

func (w *Workspace) docsView(c *call, snap *views.Snapshot) (*docsView, error) {
	v := &docsView{Once: randomToken(), CanCreate: c.canManage("documents")}
	if !c.actor.Can("documents", false) {
		return v, nil
	}
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeProjectDocuments, engine.ListParams{PageSize: 50, PageNumber: 1,
		Filters: map[string]string{"project": snap.Project.ID}, Sort: []engine.SortSpec{{Field: views.NameCreatedAt, Desc: true}}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	templates, err := w.choices(c, views.TypeDocumentTemplates, views.NameName, "")
	if err != nil {
		return nil, err
	}
	tname := map[string]string{}
	for _, t := range templates {
		tname[t.Value] = t.Label
	}
	v.Templates = templates
	for _, r := range res.Records {
		d := views.ProjectDocument{Record: r}
		v.Docs = append(v.Docs, docRow{ID: r.ID, Type: docTypes[d.DocumentType()], Status: d.Status(), Error: d.ErrorText(),
			Filename: d.Filename(), Generated: strings.Replace(dateTime(d.GeneratedAt()), "T", " ", 1), Template: tname[d.DocumentTemplate()],
			PDF: d.PdfSize() > 0})
		if d.Status() == scoping.DocumentQueued || d.Status() == scoping.DocumentGenerating {
			v.Pending = true
		}
	}
	return v, nil
}

func dateTime(t string) string {
	if len(t) >= 16 {
		return t[:16]
	}
	return t
}

// generate queues a document (the REST create of project-documents).
func (w *Workspace) generate(c *call) error {
	in, err := c.input([]string{views.NameDocumentType}, nil, map[string]string{views.NameDocumentTemplate: views.TypeDocumentTemplates})
	if err != nil {
		return err
	}
	pdf, err := c.value("generate-pdf")
	if err != nil {
		return err
	}
	in.Attrs[views.NameGeneratePdf] = []byte(map[bool]string{true: "true", false: "false"}[pdf == "on"])
	pid := c.r.PathValue("id")
	in.Rels[views.NameProject] = engine.RelInput{Refs: []engine.Ref{{Type: views.TypeProjects, ID: pid}}}
	if err := w.admitGeneration(c); err != nil {
		return err
	}
	if err := c.claimOnce(); err != nil {
		return err
	}
	if _, err := w.svc.Create(c.ctx(), c.actor, views.TypeProjectDocuments, in, engine.Options{}); err != nil {
		return err
	}
	return c.redirect(c.url("/projects/" + pid + "/" + tabDocuments))
}

// admitGeneration takes a token of the account's document generations
// (ERATELIMITED, with the wait, when there is none).
func (w *Workspace) admitGeneration(c *call) error {
	v, _ := w.generated.LoadOrStore(c.actor.AccountID(), rate.NewLimiter(w.docRate, w.docBurst))
	r := v.(*rate.Limiter).Reserve()
	if d := r.Delay(); d > 0 {
		r.Cancel()
		return &scopekit.Error{Code: scopekit.ERATELIMITED, RetryAfter: d,
			Message: "Too many documents were asked for in this account just now. Wait a moment, then generate again."}
	}
	return nil
}

// download serves a generated file (format=pdf for a SOW's PDF).
func (w *Workspace) download(c *call) error {
	format := c.r.URL.Query().Get("format")
	doc, err := w.svc.Get(c.ctx(), c.actor, views.TypeProjectDocuments, c.r.PathValue("doc"), engine.ListParams{}, engine.Options{})
	if err != nil {
		return err
	}
	if doc.Records[0].Rel(views.NameProject) != c.r.PathValue("id") {
		return scopekit.Errorf(scopekit.ENOTFOUND, "no such document on this project")
	}
	f, err := w.svc.DocumentFile(c.ctx(), c.actor, doc.Records[0].ID, format, nil, engine.Options{})
	if err != nil {
		return err
	}
	sendFile(c, f.Name, f.ContentType, f.Data)
	return nil
}

// approvals is the inbox: the pending steps that wait on the person.
func (w *Workspace) approvals(c *call) error {
	type item struct {
		StepID, Kind, ProjectID, Project, Client, Revenue, Currency, Submitted string
	}
	var items []item
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeApprovalRequirements, engine.ListParams{PageSize: 200, PageNumber: 1,
		Filters: map[string]string{"user": c.actor.UserID, "status": "pending"},
		Include: []string{views.NameApprovalStep, views.NameProject}}, engine.Options{})
	if err != nil {
		return err
	}
	included := map[string]*engine.Record{}
	for _, r := range res.Included {
		included[r.Type+"/"+r.ID] = r
	}
	for _, r := range res.Records {
		step := included[views.TypeApprovalSteps+"/"+r.Rel(views.NameApprovalStep)]
		if step == nil || (views.ApprovalStep{Record: step}).Status() != "pending" {
			continue
		}
		proj := included[views.TypeProjects+"/"+step.Rel(views.NameProject)]
		if proj == nil {
			continue
		}
		p := views.Project{Record: proj}
		items = append(items, item{StepID: step.ID, Kind: label(views.ApprovalStep{Record: step}.Kind()), ProjectID: proj.ID,
			Project: p.ProjectName(), Revenue: amount(p.ContractRevenue()), Currency: p.Currency(), Submitted: dateOf(p.SubmittedAt())})
	}
	w.render(c.rw, http.StatusOK, "approvals", "layout", map[string]any{"L": c.layout("Approvals", "approvals"), "Items": items})
	return nil
}
