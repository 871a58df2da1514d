package mcpadapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// Tool names.
const (
	ToolSearchProjects   = "scopekit_search_projects"
	ToolGetProject       = "scopekit_get_project"
	ToolListProjectItems = "scopekit_list_project_items"
	ToolGetDocument      = "scopekit_get_document"
	ToolDeliveryRollup   = "scopekit_delivery_rollup"
	ToolEstimateVsActual = "scopekit_estimate_vs_actual"
)

// Response formats of the tools that take response_format.
const (
	Concise  = "concise"
	Detailed = "detailed"
)

// Search paging.
const (
	DefaultLimit = 25
	MaxLimit     = 100
)

// tools are the handlers, sharing the server and how callers are resolved.
type tools struct {
	s   *Server
	ses session
}

var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

func (t *tools) register(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{Name: ToolSearchProjects, Annotations: readOnly,
		Description: "Search the projects you can see by name, status, client, and creation or approval date " +
			"(RFC 3339 dates or times). Returns up to limit projects (default 25, at most 100) and a next_cursor " +
			"for the next page. approved_at is set only for projects approved through the approval workflow."},
		t.searchProjects)
	addTool(srv, &mcp.Tool{Name: ToolGetProject, Annotations: readOnly,
		Description: "Read one project with its pricing summary (hours, professional services, governance, " +
			"expenses, materials, managed services and contract totals)."},
		t.getProject)
	addTool(srv, &mcp.Tool{Name: ToolListProjectItems, Annotations: readOnly,
		Description: "List the items of a project by type: documents (generated SOWs and workbooks), services, " +
			"phases, locations, governance, expenses or products. response_format concise (default) gives names, " +
			"statuses and key figures; detailed adds every attribute, and for documents the download links."},
		t.listProjectItems)
	addTool(srv, &mcp.Tool{Name: ToolGetDocument, Annotations: readOnly,
		Description: "Read one generated project document (SOW, pricing or breakdown workbook): its status, file " +
			"name and size. response_format detailed adds the download links (fetch them with the same bearer token)."},
		t.getDocument)
	addTool(srv, &mcp.Tool{Name: ToolDeliveryRollup, Annotations: readOnly,
		Description: "The delivery rollup of a project, per phase and in total: services by delivery status, " +
			"estimated and actual hours, and percent complete (estimated hours of complete services over those " +
			"not canceled)."},
		t.deliveryRollup)
	addTool(srv, &mcp.Tool{Name: ToolEstimateVsActual, Annotations: readOnly,
		Description: "The estimate-versus-actual table of a project: one row per service and subservice with " +
			"estimated, actual and variance hours, variance ratio, estimated and actual cost; totals per phase and " +
			"for the project."},
		t.estimateVsActual)
}

// addTool registers a typed tool with the schemas of its Go types,
// inferred as the SDK does but with two types described as they are on
// the wire: pricing.Fixed is a decimal string, and an ID a string or an
// integer.
func addTool[In, Out any](srv *mcp.Server, tool *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[pricing.Fixed](): {Type: "string", Description: "a decimal number"},
		reflect.TypeFor[ID]():            {Types: []string{"string", "integer"}},
	}}
	in, err := jsonschema.For[In](opts)
	if err != nil {
		panic(fmt.Sprintf("mcpadapter: input schema of %s: %v", tool.Name, err))
	}
	out, err := jsonschema.For[Out](opts)
	if err != nil {
		panic(fmt.Sprintf("mcpadapter: output schema of %s: %v", tool.Name, err))
	}
	tool.InputSchema, tool.OutputSchema = in, out
	mcp.AddTool(srv, tool, h)
}

// ID is a record id argument. Ids look like numbers, and assistants send
// them as JSON strings or integers: both are accepted.
type ID string

// UnmarshalJSON accepts a JSON string or number.
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = ID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("an id must be a string or an integer")
	}
	*id = ID(n.String())
	return nil
}

// argError is a bad tool argument: "invalid argument <name>: <why>".
func argError(arg, format string, args ...any) error {
	return fmt.Errorf("invalid argument %s: %s", arg, fmt.Sprintf(format, args...))
}

// fail turns a use case's error into the tool error the assistant reads.
// Internal errors are logged and shown only as "internal error".
func (t *tools) fail(err error) error {
	var e *scopekit.Error
	if !errors.As(err, &e) {
		t.s.log().Error("mcp: tool failed", "err", err)
		return errors.New("internal error")
	}
	switch e.Code {
	case scopekit.ENOTFOUND:
		return fmt.Errorf("not found: %s", e.Message)
	case scopekit.EFORBIDDEN:
		return fmt.Errorf("forbidden: %s", e.Message)
	case scopekit.EUNAUTHORIZED:
		return errors.New("unauthorized: the access token is no longer valid")
	case scopekit.EBADREQUEST, scopekit.EINVALID:
		if e.Parameter != "" {
			arg := argName(e.Parameter)
			return argError(arg, "%s", strings.ReplaceAll(e.Message, e.Parameter, arg))
		}
		return fmt.Errorf("invalid: %s", e.Message)
	}
	t.s.log().Error("mcp: tool failed", "err", err)
	return errors.New("internal error")
}

// searchArgs maps project list filters to the tool's argument names.
var searchArgs = map[string]string{
	"name": "query", "status": "status", "client": "client",
	"created-after": "created_after", "created-before": "created_before",
	"approved-after": "approved_after", "approved-before": "approved_before",
}

// argName names the tool argument behind a filter or query parameter of
// the list use case (filter created-after is created_after).
func argName(param string) string {
	if a, ok := searchArgs[param]; ok {
		return a
	}
	return strings.ReplaceAll(param, "-", "_")
}

// opts are the engine options of the tools: errors name filters by the
// tool's argument names.
var opts = engine.Options{FilterParam: argName}

// responseFormat checks a response_format argument; "" is concise.
func responseFormat(v string) (detailed bool, err error) {
	switch v {
	case "", Concise:
		return false, nil
	case Detailed:
		return true, nil
	}
	return false, argError("response_format", "must be %s or %s, not %q", Concise, Detailed, v)
}

func requireID(arg string, id ID) (string, error) {
	v := strings.TrimSpace(string(id))
	if v == "" {
		return "", argError(arg, "is required")
	}
	return v, nil
}

// SearchProjectsInput are the arguments of scopekit_search_projects.
type SearchProjectsInput struct {
	Query          string `json:"query,omitempty" jsonschema:"case-insensitive substring of the project name"`
	Status         string `json:"status,omitempty" jsonschema:"project status: draft, pending_approval, approved, won, lost or canceled"`
	Client         ID     `json:"client,omitempty" jsonschema:"client id (the client_id of a project)"`
	CreatedAfter   string `json:"created_after,omitempty" jsonschema:"created at or after this RFC 3339 date or time, e.g. 2026-11-01 or 2026-11-01T09:00:00Z"`
	CreatedBefore  string `json:"created_before,omitempty" jsonschema:"created at or before this RFC 3339 date or time"`
	ApprovedAfter  string `json:"approved_after,omitempty" jsonschema:"approved (through the approval workflow) at or after this RFC 3339 date or time"`
	ApprovedBefore string `json:"approved_before,omitempty" jsonschema:"approved at or before this RFC 3339 date or time"`
	Limit          int    `json:"limit,omitempty" jsonschema:"projects per page, 1 to 100 (default 25)"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"the next_cursor of the previous page"`
}

// SearchProjectsOutput is one page of projects.
type SearchProjectsOutput struct {
	Projects   []ProjectSummary `json:"projects"`
	Total      int              `json:"total" jsonschema:"projects matching in all"`
	NextCursor string           `json:"next_cursor" jsonschema:"pass as cursor for the next page; empty on the last page"`
}

// ProjectSummary is a project as search results show it.
type ProjectSummary struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	ClientID string `json:"client_id"`
	Client   string `json:"client"`
	Status   string `json:"status"`
	Active   bool   `json:"active" jsonschema:"false for an archived project"`
	// Times are RFC 3339 in UTC; "" when unset.
	CreatedAt       string `json:"created_at"`
	SubmittedAt     string `json:"submitted_at"`
	ApprovedAt      string `json:"approved_at" jsonschema:"set only when the approval workflow approved the project; empty when its status was set directly"`
	ContractRevenue string `json:"contract_revenue"`
	Currency        string `json:"currency"`
}

// cursor is a page position: the page number and size of the next page,
// encoded opaquely.
func encodeCursor(page, size int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("p" + strconv.Itoa(page) + "s" + strconv.Itoa(size)))
}

func decodeCursor(c string) (page, size int, err error) {
	bad := argError("cursor", "not a next_cursor of this tool")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, 0, bad
	}
	p, s, ok := strings.Cut(strings.TrimPrefix(string(b), "p"), "s")
	if !ok || !strings.HasPrefix(string(b), "p") {
		return 0, 0, bad
	}
	page, err1 := strconv.Atoi(p)
	size, err2 := strconv.Atoi(s)
	if err1 != nil || err2 != nil || page < 1 || size < 1 || size > MaxLimit {
		return 0, 0, bad
	}
	return page, size, nil
}

func (t *tools) searchProjects(ctx context.Context, req *mcp.CallToolRequest, in SearchProjectsInput) (*mcp.CallToolResult, SearchProjectsOutput, error) {
	var out SearchProjectsOutput
	size, page := in.Limit, 1
	switch {
	case size == 0:
		size = DefaultLimit
	case size < 1 || size > MaxLimit:
		return nil, out, argError("limit", "must be between 1 and %d, not %d", MaxLimit, in.Limit)
	}
	if in.Cursor != "" {
		var err error
		if page, size, err = decodeCursor(in.Cursor); err != nil {
			return nil, out, err
		}
	}
	filters := map[string]string{}
	for name, v := range map[string]string{"name": in.Query, "status": in.Status, "client": string(in.Client),
		"created-after": in.CreatedAfter, "created-before": in.CreatedBefore,
		"approved-after": in.ApprovedAfter, "approved-before": in.ApprovedBefore} {
		if v = strings.TrimSpace(v); v != "" {
			filters[name] = v
		}
	}
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return nil, out, t.fail(err)
	}
	res, err := t.s.Svc.List(ctx, a, views.TypeProjects, engine.ListParams{Filters: filters,
		PageNumber: page, PageSize: size, Include: []string{views.NameClient}}, opts)
	if err != nil {
		return nil, out, t.fail(err)
	}
	clients := clientNames(res.Included)
	out.Projects = make([]ProjectSummary, 0, len(res.Records))
	for _, p := range res.Records {
		out.Projects = append(out.Projects, summary(p, clients))
	}
	out.Total = res.Total
	if page*size < res.Total {
		out.NextCursor = encodeCursor(page+1, size)
	}
	return nil, out, nil
}

// clientNames maps the ids of the clients among recs to their names.
func clientNames(recs []*engine.Record) map[string]string {
	m := map[string]string{}
	for _, r := range recs {
		if r.Type == views.TypeClients {
			m[r.ID] = views.Client{Record: r}.Name()
		}
	}
	return m
}

func summary(rec *engine.Record, clients map[string]string) ProjectSummary {
	p := views.Project{Record: rec}
	return ProjectSummary{
		ID: p.ID, Name: p.ProjectName(), ClientID: p.Client(), Client: clients[p.Client()],
		Status: p.Status(), Active: p.Active(), CreatedAt: p.CreatedAt,
		SubmittedAt: p.SubmittedAt(), ApprovedAt: p.ApprovedAt(),
		// as stored: the decimal string the API serves
		ContractRevenue: p.Str(views.NameContractRevenue), Currency: p.Currency(),
	}
}

// ProjectInput names a project.
type ProjectInput struct {
	ProjectID ID `json:"project_id" jsonschema:"the project's id (the id of a search result)"`
}

// ProjectDetail is a project with its pricing summary.
type ProjectDetail struct {
	ProjectSummary
	ExecutiveSummary string         `json:"executive_summary"`
	Pricing          PricingSummary `json:"pricing"`
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

func (t *tools) getProject(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, ProjectDetail, error) {
	var out ProjectDetail
	id, err := requireID("project_id", in.ProjectID)
	if err != nil {
		return nil, out, err
	}
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return nil, out, t.fail(err)
	}
	res, err := t.s.Svc.Get(ctx, a, views.TypeProjects, id,
		engine.ListParams{Filters: map[string]string{"active": "true,false"}, Include: []string{views.NameClient}}, opts)
	if err != nil {
		return nil, out, t.fail(err)
	}
	pr, err := t.s.Svc.Pricing(ctx, a, id)
	if err != nil {
		return nil, out, t.fail(err)
	}
	p := res.Records[0]
	out.ProjectSummary = summary(p, clientNames(res.Included))
	out.ExecutiveSummary = views.Project{Record: p}.ExecutiveSummary()
	ps := pr.ProfessionalServices
	out.Pricing = PricingSummary{
		Currency: pr.Currency.Code, TotalHours: ps.Hours, ServiceHours: ps.ServiceHours, GovernanceHours: ps.PMHours,
		ProfessionalServicesRevenue: ps.Revenue, ProfessionalServicesCost: ps.Cost, GovernanceRevenue: ps.PMRevenue,
		ExpensesRevenue: pr.TravelAndExpense.Revenue, MaterialsRevenue: pr.Materials.Revenue,
		ManagedServicesRevenue: pr.ManagedServices.Revenue,
		TotalContractValue:     pr.TotalContractValue, TotalContractCost: pr.TotalContractCost,
		TotalContractProfit: pr.TotalContractProfit, TotalContractMargin: pr.TotalContractMargin,
		Warnings: make([]string, 0, len(pr.Warnings)),
	}
	for _, w := range pr.Warnings {
		out.Pricing.Warnings = append(out.Pricing.Warnings, w.Line+": "+w.Message)
	}
	return nil, out, nil
}

// DeliveryRollupOutput is a project's delivery rollup.
type DeliveryRollupOutput struct {
	ProjectID string `json:"project_id"`
	Currency  string `json:"currency"`
	pricing.DeliveryRollup
}

// EstimateVsActualOutput is a project's estimate-versus-actual table.
type EstimateVsActualOutput struct {
	ProjectID string `json:"project_id"`
	Currency  string `json:"currency"`
	pricing.EstimateVsActual
}

func (t *tools) delivery(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (string, *pricing.Delivery, error) {
	id, err := requireID("project_id", in.ProjectID)
	if err != nil {
		return "", nil, err
	}
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return "", nil, t.fail(err)
	}
	d, err := t.s.Svc.Delivery(ctx, a, id)
	if err != nil {
		return "", nil, t.fail(err)
	}
	return id, d, nil
}

func (t *tools) deliveryRollup(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, DeliveryRollupOutput, error) {
	id, d, err := t.delivery(ctx, req, in)
	if err != nil {
		return nil, DeliveryRollupOutput{}, err
	}
	return nil, DeliveryRollupOutput{ProjectID: id, Currency: d.Currency.Code, DeliveryRollup: d.Rollup}, nil
}

func (t *tools) estimateVsActual(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, EstimateVsActualOutput, error) {
	id, d, err := t.delivery(ctx, req, in)
	if err != nil {
		return nil, EstimateVsActualOutput{}, err
	}
	return nil, EstimateVsActualOutput{ProjectID: id, Currency: d.Currency.Code, EstimateVsActual: d.EstimateVsActual}, nil
}
