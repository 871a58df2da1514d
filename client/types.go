package client

//go:generate go run ../internal/cmd/genviews -client -o attrs_gen.go

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
)

// Typed records of the common resources (docs/resources.md). Each embeds
// the generated attributes of its type (attrs_gen.go, written from the
// server's declarations), so it has a field per declared attribute.
// Decimals (money, hours, quantities) are strings, exactly as the server
// sends them; parse them with a decimal library, never into float64.
// Every record keeps its whole resource object in Resource for the
// relationships it has no field for.

// Me is the account context of the token (GET /v1/me).
type Me struct {
	ID          string `json:"-"`
	Name        string `json:"name"`
	Email       string `json:"email"`
	UserType    string `json:"user-type"`
	AccountID   string `json:"account-id"`
	AccountSlug string `json:"account-slug"`
	AccountName string `json:"account-name"`
	Privileges  []struct {
		Privilege   string `json:"privilege"`
		AccessLevel string `json:"access-level"`
	} `json:"privileges"`
	Resource Resource `json:"-"`
}

func (m *Me) decode(r *Resource) error { m.ID, m.Resource = r.ID, *r; return r.DecodeAttributes(m) }

// Me returns the token's user and account.
func (c *Client) Me(ctx context.Context) (*Me, error) {
	return Get[Me](ctx, c, "/v1/me", nil)
}

// Project is a record of type projects.
type Project struct {
	ID string `json:"-"`
	ProjectAttributes
	ClientID string   `json:"-"`
	Resource Resource `json:"-"`
}

func (p *Project) decode(r *Resource) error {
	p.ID, p.ClientID, p.Resource = r.ID, r.RelID(NameClient), *r
	return r.DecodeAttributes(&p.ProjectAttributes)
}

// ListProjects iterates over the projects the caller may see (v2), with
// optional filters, sort and include in query (e.g.
// url.Values{"filter[name]": {"sd-wan"}}).
func (c *Client) ListProjects(ctx context.Context, query url.Values) iter.Seq2[*Project, error] {
	return List[Project](ctx, c, "/v2/projects", query)
}

// GetProject reads one project.
func (c *Client) GetProject(ctx context.Context, id string) (*Project, error) {
	return Get[Project](ctx, c, "/v2/projects/"+url.PathEscape(id), nil)
}

// CreateProject creates a project for a client record; more attributes
// (executive-summary, tag-list, ...) may be given in extra.
func (c *Client) CreateProject(ctx context.Context, name, clientID string, extra map[string]any) (*Project, error) {
	a := map[string]any{NameProjectName: name}
	for k, v := range extra {
		a[k] = v
	}
	return Create[Project](ctx, c, "/v2/projects", TypeProjects, Write{Attributes: a,
		Relationships: map[string]Link{NameClient: To(TypeClients, clientID)}})
}

// UpdateProject changes a project.
func (c *Client) UpdateProject(ctx context.Context, id string, w Write) (*Project, error) {
	return Update[Project](ctx, c, "/v2/projects/"+url.PathEscape(id), TypeProjects, id, w)
}

// SubmitProject submits a draft project for approval (docs/approval.md).
func (c *Client) SubmitProject(ctx context.Context, id string) (*Project, error) {
	return decodeOne[Project](c.Call(ctx, http.MethodPost, "/v2/projects/"+url.PathEscape(id)+"/submit", nil, nil))
}

// ApplyBlueprint adds a blueprint's services to a project and returns the
// project services it created.
func (c *Client) ApplyBlueprint(ctx context.Context, projectID, blueprintID string) ([]*ProjectService, error) {
	doc, err := c.Call(ctx, http.MethodPost, "/v2/projects/"+url.PathEscape(projectID)+"/apply-blueprint", nil,
		map[string]any{"data": map[string]string{"type": TypeBlueprints, "id": blueprintID}})
	if err != nil {
		return nil, err
	}
	rs, err := doc.Many()
	if err != nil {
		return nil, err
	}
	out := make([]*ProjectService, len(rs))
	for i := range rs {
		if out[i], err = decodeAs[ProjectService](&rs[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ClientRecord is a record of type clients (a customer of the account).
type ClientRecord struct {
	ID string `json:"-"`
	ClientAttributes
	Resource Resource `json:"-"`
}

func (cr *ClientRecord) decode(r *Resource) error {
	cr.ID, cr.Resource = r.ID, *r
	return r.DecodeAttributes(&cr.ClientAttributes)
}

// ListClients iterates over the client records.
func (c *Client) ListClients(ctx context.Context, query url.Values) iter.Seq2[*ClientRecord, error] {
	return List[ClientRecord](ctx, c, "/v2/clients", query)
}

// GetClient reads one client record.
func (c *Client) GetClient(ctx context.Context, id string) (*ClientRecord, error) {
	return Get[ClientRecord](ctx, c, "/v2/clients/"+url.PathEscape(id), nil)
}

// CreateClient creates a client record (names are unique in an account).
func (c *Client) CreateClient(ctx context.Context, name string, extra map[string]any) (*ClientRecord, error) {
	a := map[string]any{NameName: name}
	for k, v := range extra {
		a[k] = v
	}
	return Create[ClientRecord](ctx, c, "/v2/clients", TypeClients, Write{Attributes: a})
}

// Service is a catalog service (type services).
type Service struct {
	ID string `json:"-"`
	ServiceAttributes
	PhaseID    string   `json:"-"`
	ResourceID string   `json:"-"`
	Resource   Resource `json:"-"`
}

func (s *Service) decode(r *Resource) error {
	s.ID, s.PhaseID, s.ResourceID, s.Resource = r.ID, r.RelID(NamePhase), r.RelID(NameResource), *r
	return r.DecodeAttributes(&s.ServiceAttributes)
}

// ListServices iterates over the catalog's services.
func (c *Client) ListServices(ctx context.Context, query url.Values) iter.Seq2[*Service, error] {
	return List[Service](ctx, c, "/v2/services", query)
}

// GetService reads one catalog service.
func (c *Client) GetService(ctx context.Context, id string) (*Service, error) {
	return Get[Service](ctx, c, "/v2/services/"+url.PathEscape(id), nil)
}

// ProjectService is a service on a project (type project-services).
type ProjectService struct {
	ID string `json:"-"`
	ProjectServiceAttributes
	ProjectID string   `json:"-"`
	ServiceID string   `json:"-"`
	Resource  Resource `json:"-"`
}

func (ps *ProjectService) decode(r *Resource) error {
	ps.ID, ps.ProjectID, ps.ServiceID, ps.Resource = r.ID, r.RelID(NameProject), r.RelID(NameService), *r
	return r.DecodeAttributes(&ps.ProjectServiceAttributes)
}

// ListProjectServices iterates over a project's services.
func (c *Client) ListProjectServices(ctx context.Context, projectID string, query url.Values) iter.Seq2[*ProjectService, error] {
	q := url.Values{"filter[project]": {projectID}}
	for k, v := range query {
		q[k] = v
	}
	return List[ProjectService](ctx, c, "/v2/project-services", q)
}

// AddService adds a catalog service to a project: its name, hours, phase,
// resource and subservices are copied; quantity is a decimal ("" for 1).
func (c *Client) AddService(ctx context.Context, projectID, serviceID, quantity string) (*ProjectService, error) {
	w := Write{Attributes: map[string]any{}, Relationships: map[string]Link{
		NameProject: To(TypeProjects, projectID), NameService: To(TypeServices, serviceID)}}
	if quantity != "" {
		w.Attributes[NameQuantity] = quantity
	}
	return Create[ProjectService](ctx, c, "/v2/project-services", TypeProjectServices, w)
}

// Pricing is every figure of a project's price (docs/pricing.md): the
// attributes of its project-pricings resource, snake_case as in merge data
// v2.
type Pricing struct {
	ProjectID string `json:"-"`
	Currency  struct {
		Code       string `json:"code"`
		MinorUnits int    `json:"minor_units"`
	} `json:"currency"`
	TotalContractValue  string `json:"total_contract_value"`
	TotalContractCost   string `json:"total_contract_cost"`
	TotalContractProfit string `json:"total_contract_profit"`
	TotalContractMargin string `json:"total_contract_margin"`
	// Figures holds every member (professional_services, resources,
	// phases, ...) as raw JSON.
	Figures  map[string]json.RawMessage `json:"-"`
	Resource Resource                   `json:"-"`
}

func (p *Pricing) decode(r *Resource) error {
	p.ProjectID, p.Figures, p.Resource = r.ID, r.Attributes, *r
	return r.DecodeAttributes(p)
}

// GetPricing reads a project's pricing breakdown.
func (c *Client) GetPricing(ctx context.Context, projectID string) (*Pricing, error) {
	path, err := c.v1(ctx, "/projects/"+url.PathEscape(projectID)+"/pricing")
	if err != nil {
		return nil, err
	}
	return Get[Pricing](ctx, c, path, nil)
}

// MergeData is the tree SOW templates are filled from (docs/mergedata.md).
type MergeData struct {
	ProjectID string         `json:"-"`
	Version   int            `json:"version"`
	Data      map[string]any `json:"merge-data"`
	Resource  Resource       `json:"-"`
}

func (m *MergeData) decode(r *Resource) error {
	m.ProjectID, m.Resource = r.ID, *r
	return r.DecodeAttributes(m)
}

// GetMergeData reads a project's merge data, version 1 or 2 (0 means the
// server's default, 1).
func (c *Client) GetMergeData(ctx context.Context, projectID string, version int) (*MergeData, error) {
	path, err := c.v1(ctx, "/projects/"+url.PathEscape(projectID)+"/merge-data")
	if err != nil {
		return nil, err
	}
	var q url.Values
	if version != 0 {
		q = url.Values{"version": {strconv.Itoa(version)}}
	}
	return Get[MergeData](ctx, c, path, q)
}

// ApprovalStep is one step of a project's approval (type approval-steps).
type ApprovalStep struct {
	ID string `json:"-"`
	ApprovalStepAttributes
	ProjectID string   `json:"-"`
	LevelID   string   `json:"-"`
	Resource  Resource `json:"-"`
}

func (s *ApprovalStep) decode(r *Resource) error {
	s.ID, s.ProjectID, s.LevelID, s.Resource = r.ID, r.RelID(NameProject), r.RelID(NameApprovalLevel), *r
	return r.DecodeAttributes(&s.ApprovalStepAttributes)
}

// ListApprovalSteps iterates over a project's approval steps; status
// ("pending", ...) filters them when not empty.
func (c *Client) ListApprovalSteps(ctx context.Context, projectID, status string) iter.Seq2[*ApprovalStep, error] {
	return func(yield func(*ApprovalStep, error) bool) {
		path, err := c.v1(ctx, "/approval-steps")
		if err != nil {
			yield(nil, err)
			return
		}
		q := url.Values{"filter[project]": {projectID}}
		if status != "" {
			q.Set("filter[status]", status)
		}
		for s, err := range List[ApprovalStep](ctx, c, path, q) {
			if !yield(s, err) {
				return
			}
		}
	}
}

// Step actions (docs/approval.md).
const (
	Approve = "approve"
	Decline = "decline"
	Rescope = "rescope"
)

// ActOnStep approves, declines or rescopes a pending approval step as the
// caller; comment (optional) gives the reason.
func (c *Client) ActOnStep(ctx context.Context, stepID, action, comment string) (*ApprovalStep, error) {
	path, err := c.v1(ctx, "/approval-steps/"+url.PathEscape(stepID)+"/"+url.PathEscape(action))
	if err != nil {
		return nil, err
	}
	var body any
	if comment != "" {
		body = map[string]any{"meta": map[string]string{"comment": comment}}
	}
	return decodeOne[ApprovalStep](c.Call(ctx, http.MethodPost, path, nil, body))
}

// WebhookSubscription is a subscription to one event type (docs/webhooks.md).
type WebhookSubscription struct {
	ID string `json:"-"`
	WebhookSubscriptionAttributes
	Resource Resource `json:"-"`
}

func (w *WebhookSubscription) decode(r *Resource) error {
	w.ID, w.Resource = r.ID, *r
	return r.DecodeAttributes(&w.WebhookSubscriptionAttributes)
}

// ListWebhookSubscriptions iterates over the account's subscriptions.
func (c *Client) ListWebhookSubscriptions(ctx context.Context, query url.Values) iter.Seq2[*WebhookSubscription, error] {
	return List[WebhookSubscription](ctx, c, "/v2/webhook-subscriptions", query)
}

// CreateWebhookSubscription subscribes destination to eventType
// (project_status_changed, service_status_changed,
// document_status_changed). The answer's Secret verifies the signatures.
func (c *Client) CreateWebhookSubscription(ctx context.Context, eventType, destination, description string) (*WebhookSubscription, error) {
	return Create[WebhookSubscription](ctx, c, "/v2/webhook-subscriptions", TypeWebhookSubscriptions, Write{Attributes: map[string]any{
		"event-type": eventType, "destination-url": destination, "description": description}})
}

// DeleteWebhookSubscription removes a subscription.
func (c *Client) DeleteWebhookSubscription(ctx context.Context, id string) error {
	return c.Delete(ctx, "/v2/webhook-subscriptions/"+url.PathEscape(id))
}
