package mcpadapter

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// ProjectInput names a project.
type ProjectInput struct {
	ProjectID ID `json:"project_id" jsonschema:"the project's id (the id of a search result)"`
}

// ProjectDetail is a project with its pricing summary.
type ProjectDetail struct {
	ProjectSummary
	ExecutiveSummary string         `json:"executive_summary"`
	SolutionSummary  string         `json:"solution_summary,omitempty"`
	OutOfScope       string         `json:"out_of_scope,omitempty"`
	LineOfBusinessID string         `json:"line_of_business_id,omitempty"`
	Pricing          PricingSummary `json:"pricing"`
	// Matched says which records name arguments picked (create and update).
	Matched []NameMatch `json:"matched,omitempty" jsonschema:"which record each name argument picked"`
}

// PricingSummary is the top of a project's pricing breakdown (the REST
// /pricing has every line).
type PricingSummary struct {
	Currency                    string        `json:"currency"`
	TotalHours                  pricing.Fixed `json:"total_hours" jsonschema:"labor hours of services, subservices and governance"`
	ServiceHours                pricing.Fixed `json:"service_hours"`
	GovernanceHours             pricing.Fixed `json:"governance_hours"`
	ProfessionalServicesRevenue pricing.Fixed `json:"professional_services_revenue"`
	ProfessionalServicesCost    pricing.Fixed `json:"professional_services_cost"`
	GovernanceRevenue           pricing.Fixed `json:"governance_revenue"`
	ExpensesRevenue             pricing.Fixed `json:"expenses_revenue"`
	MaterialsRevenue            pricing.Fixed `json:"materials_revenue"`
	ManagedServicesRevenue      pricing.Fixed `json:"managed_services_revenue"`
	TotalContractValue          pricing.Fixed `json:"total_contract_value"`
	TotalContractCost           pricing.Fixed `json:"total_contract_cost"`
	TotalContractProfit         pricing.Fixed `json:"total_contract_profit"`
	TotalContractMargin         pricing.Fixed `json:"total_contract_margin"`
	Warnings                    []string      `json:"warnings" jsonschema:"lines priced at 0 or set aside"`
}

// pricingSummary is the summary of a pricing run.
func pricingSummary(pr *pricing.Result) PricingSummary {
	ps := pr.ProfessionalServices
	out := PricingSummary{
		Currency: pr.Currency.Code, TotalHours: ps.Hours, ServiceHours: ps.ServiceHours, GovernanceHours: ps.PMHours,
		ProfessionalServicesRevenue: ps.Revenue, ProfessionalServicesCost: ps.Cost, GovernanceRevenue: ps.PMRevenue,
		ExpensesRevenue: pr.TravelAndExpense.Revenue, MaterialsRevenue: pr.Materials.Revenue,
		ManagedServicesRevenue: pr.ManagedServices.Revenue,
		TotalContractValue:     pr.TotalContractValue, TotalContractCost: pr.TotalContractCost,
		TotalContractProfit: pr.TotalContractProfit, TotalContractMargin: pr.TotalContractMargin,
		Warnings: make([]string, 0, len(pr.Warnings)),
	}
	for _, w := range pr.Warnings {
		out.Warnings = append(out.Warnings, w.Line+": "+w.Message)
	}
	return out
}

func (t *tools) getProject(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, ProjectDetail, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, ProjectDetail{}, err
	}
	out, err := t.projectDetail(ctx, a, id)
	if err != nil {
		return nil, out, t.fail(err)
	}
	return nil, out, nil
}

// projectDetail reads a project the actor may see, archived or not, with
// its pricing summary; errors are the use cases'.
func (t *tools) projectDetail(ctx context.Context, a *engine.Actor, id string) (ProjectDetail, error) {
	var out ProjectDetail
	p, clients, err := t.project(ctx, a, id)
	if err != nil {
		return out, err
	}
	pr, err := t.s.Svc.Pricing(ctx, a, id)
	if err != nil {
		return out, err
	}
	v := views.Project{Record: p}
	out.ProjectSummary = summary(p, clients)
	out.ExecutiveSummary, out.SolutionSummary, out.OutOfScope = v.ExecutiveSummary(), v.SolutionSummary(), v.OutOfScope()
	out.LineOfBusinessID = v.LineOfBusiness()
	out.Pricing = pricingSummary(pr)
	return out, nil
}

// project reads a project the actor may see, archived or not, and the
// names of its client by id; errors are the use case's.
func (t *tools) project(ctx context.Context, a *engine.Actor, id string) (*engine.Record, map[string]string, error) {
	res, err := t.s.Svc.Get(ctx, a, views.TypeProjects, id,
		engine.ListParams{Filters: map[string]string{"active": "true,false"}, Include: []string{views.NameClient}}, opts)
	if err != nil {
		return nil, nil, err
	}
	return res.Records[0], clientNames(res.Included), nil
}

// ProjectFields are the fields of a project the write tools set.
type ProjectFields struct {
	ExecutiveSummary *string `json:"executive_summary,omitempty" jsonschema:"what the project does for the client, in a few sentences"`
	SolutionSummary  *string `json:"solution_summary,omitempty" jsonschema:"how it is done"`
	OutOfScope       *string `json:"out_of_scope,omitempty" jsonschema:"what the project does not include"`
	LineOfBusiness   *ID     `json:"line_of_business,omitempty" jsonschema:"a line of business: its id or name (empty: none)"`
}

// CreateProjectInput are the arguments of scopekit_create_project.
type CreateProjectInput struct {
	Name   string `json:"name" jsonschema:"the project's name"`
	Client ID     `json:"client" jsonschema:"the client: its id, or its name, or the start of the only name that begins with it (the answer's matched says which it picked)"`
	ProjectFields
}

// UpdateProjectInput are the arguments of scopekit_update_project.
type UpdateProjectInput struct {
	ProjectID ID      `json:"project_id" jsonschema:"the project's id"`
	Name      *string `json:"name,omitempty" jsonschema:"a new name"`
	Client    *ID     `json:"client,omitempty" jsonschema:"another client: its id, or its name, or the start of the only name that begins with it (the answer's matched says which it picked)"`
	ProjectFields
}

// projectArgs names the tool arguments behind a project's attributes and
// relationships, for validation errors.
var projectArgs = map[string]string{views.NameProjectName: "name", views.NameClient: "client",
	views.NameExecutiveSummary: "executive_summary", views.NameSolutionSummary: "solution_summary",
	views.NameOutOfScope: "out_of_scope", views.NameLineOfBusiness: "line_of_business"}

// projectInput is the write of the fields given; names of related
// records are resolved.
func (t *tools) projectInput(ctx context.Context, a *engine.Actor, name *string, client *ID, f ProjectFields, matched *[]NameMatch) (*engine.Input, error) {
	in := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{}}
	for attr, v := range map[string]*string{views.NameProjectName: name, views.NameExecutiveSummary: f.ExecutiveSummary,
		views.NameSolutionSummary: f.SolutionSummary, views.NameOutOfScope: f.OutOfScope} {
		if v != nil {
			b, _ := json.Marshal(*v)
			in.Attrs[attr] = b
		}
	}
	for _, r := range []struct {
		rel, typ, what string
		v              *ID
	}{{views.NameClient, views.TypeClients, "client", client},
		{views.NameLineOfBusiness, views.TypeLinesOfBusiness, "line of business", f.LineOfBusiness}} {
		switch {
		case r.v == nil:
		case *r.v == "" && r.rel != views.NameClient:
			in.Rels[r.rel] = engine.RelInput{} // none
		default:
			rec, err := t.resolve(ctx, a, lookup{arg: projectArgs[r.rel], what: r.what, typ: r.typ, matched: matched}, *r.v)
			if err != nil {
				return nil, err
			}
			in.Rels[r.rel] = engine.RelInput{Refs: []engine.Ref{{Type: r.typ, ID: rec.ID}}}
		}
	}
	return in, nil
}

func (t *tools) createProject(ctx context.Context, req *mcp.CallToolRequest, in CreateProjectInput) (*mcp.CallToolResult, ProjectDetail, error) {
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return nil, ProjectDetail{}, t.fail(err)
	}
	if _, err := t.s.Svc.WritableType(a, views.TypeProjects); err != nil {
		return nil, ProjectDetail{}, t.fail(err)
	}
	var matched []NameMatch
	w, err := t.projectInput(ctx, a, &in.Name, &in.Client, in.ProjectFields, &matched)
	if err != nil {
		return nil, ProjectDetail{}, err
	}
	res, err := t.s.Svc.Create(ctx, a, views.TypeProjects, w, opts)
	if err != nil {
		return nil, ProjectDetail{}, t.failWrite(err, projectArgs)
	}
	// an "assigned" role sees it too: its creator became a teammate
	out, err := t.projectDetail(ctx, a, res.Records[0].ID)
	if err != nil {
		return nil, out, t.fail(err)
	}
	out.Matched = matched
	return nil, out, nil
}

// projectWrite starts a tool that writes records of type typ on a
// project: the project_id argument, the caller, the guard of typ (checked
// first, as the API checks it), and the project, which the caller must
// see (archived or not): another account's is not found. It returns the
// project id, the caller and the declaration of typ.
func (t *tools) projectWrite(ctx context.Context, req *mcp.CallToolRequest, projectID ID, typ string) (string, *engine.Actor, *engine.TypeDef, error) {
	id, a, err := t.caller(ctx, req, "project_id", projectID)
	if err != nil {
		return "", nil, nil, err
	}
	def, err := t.s.Svc.WritableType(a, typ)
	if err != nil {
		return "", nil, nil, t.fail(err)
	}
	if _, _, err := t.project(ctx, a, id); err != nil {
		return "", nil, nil, t.fail(err)
	}
	return id, a, def, nil
}

func (t *tools) updateProject(ctx context.Context, req *mcp.CallToolRequest, in UpdateProjectInput) (*mcp.CallToolResult, ProjectDetail, error) {
	id, a, _, err := t.projectWrite(ctx, req, in.ProjectID, views.TypeProjects)
	if err != nil {
		return nil, ProjectDetail{}, err
	}
	var matched []NameMatch
	w, err := t.projectInput(ctx, a, in.Name, in.Client, in.ProjectFields, &matched)
	if err != nil {
		return nil, ProjectDetail{}, err
	}
	if len(w.Attrs)+len(w.Rels) == 0 {
		return nil, ProjectDetail{}, fmt.Errorf("invalid: nothing to change: pass name, client, line_of_business, " +
			"executive_summary, solution_summary or out_of_scope")
	}
	if _, err := t.s.Svc.Update(ctx, a, views.TypeProjects, id, w, opts); err != nil {
		return nil, ProjectDetail{}, t.failWrite(err, projectArgs)
	}
	out, err := t.projectDetail(ctx, a, id)
	if err != nil {
		return nil, out, t.fail(err)
	}
	out.Matched = matched
	return nil, out, nil
}
