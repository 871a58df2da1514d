package mcpadapter

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The tools of a scope's life after its first SOW (docs/lifecycle.md):
// versions and their diffs, change orders and their deltas, and share
// links for a client's acceptance, over the same use cases as the API.

// Tool names.
const (
	ToolListVersions      = "scopekit_list_versions"
	ToolDiffVersions      = "scopekit_diff_versions"
	ToolTakeVersion       = "scopekit_take_version"
	ToolOpenChangeOrder   = "scopekit_open_change_order"
	ToolChangeOrderDeltas = "scopekit_change_order_deltas"
	ToolShareDocument     = "scopekit_share_document"
)

func (t *tools) registerLifecycle(srv *mcp.Server, checks map[string]enums) {
	addTool(srv, checks, &mcp.Tool{Name: ToolListVersions, Annotations: readOnly,
		Description: "List a project's versions, oldest first: each version's number, name, reason (created, submitted, " +
			"rescoped, manual, reverted, accepted), digest, contract revenue and when it was taken."},
		t.listVersions, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolDiffVersions, Annotations: readOnly,
		Description: "What changed between two versions of a project (by number), or from a version to the current scope (to " +
			"\"current\"): lines added, removed and changed with each changed field's value before and after, and the price " +
			"deltas per line, per phase and for the contract (each exactly the difference of the two pricing results)."},
		t.diffVersions, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolTakeVersion, Annotations: additive,
		Description: "Take a version of a project's scope now, with an optional name and comment. A scope the latest version " +
			"already holds answers that version (created false): no copy is made."},
		t.takeVersion, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolOpenChangeOrder, Annotations: additive,
		Description: "Open a change order on a won project (a won project's own scope is locked): a draft holding a copy of " +
			"the project's latest version, to be edited with the same line types (their change-order relationship names it), " +
			"submitted for approval and accepted. Returns the change order."},
		t.openChangeOrder, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolChangeOrderDeltas, Annotations: readOnly,
		Description: "A change order priced as the difference against its base version: its status, lines added, removed and " +
			"changed with their deltas, per phase, and the contract before and after the change."},
		t.changeOrderDeltas, nil)
	addTool(srv, checks, &mcp.Tool{Name: ToolShareDocument, Annotations: additive,
		Description: "Create a share link for a client to accept a finished SOW or change order document with a PDF, of an " +
			"approved project (or change order). The link (a public page: the document, the price summary, the consent text " +
			"and a form to accept or decline) is returned this once; it expires after expires_in days (1 to 365, default 30)."},
		t.shareDocument, nil)
}

// VersionsOutput lists a project's versions.
type VersionsOutput struct {
	ProjectID string        `json:"project_id"`
	Versions  []VersionItem `json:"versions"`
}

// VersionItem is one version of a project.
type VersionItem struct {
	ID              string `json:"id"`
	Number          int64  `json:"number"`
	Name            string `json:"name"`
	Comment         string `json:"comment"`
	Reason          string `json:"reason"`
	Digest          string `json:"digest"`
	Currency        string `json:"currency"`
	ContractRevenue string `json:"contract_revenue"`
	CreatedAt       string `json:"created_at"`
}

func versionItem(r *engine.Record) VersionItem {
	v := views.ProjectVersion{Record: r}
	return VersionItem{ID: r.ID, Number: v.Number(), Name: v.Name(), Comment: v.Comment(), Reason: v.Reason(), Digest: v.Digest(),
		Currency: v.Currency(), ContractRevenue: r.Str(views.NameContractRevenue), CreatedAt: r.CreatedAt}
}

func (t *tools) listVersions(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, VersionsOutput, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, VersionsOutput{}, err
	}
	res, err := t.s.Svc.Related(ctx, a, views.TypeProjects, id, views.TypeProjectVersions,
		engine.ListParams{Sort: []engine.SortSpec{{Field: views.NameNumber}}}, opts)
	if err != nil {
		return nil, VersionsOutput{}, t.fail(err)
	}
	out := VersionsOutput{ProjectID: id, Versions: []VersionItem{}}
	for _, r := range res.Records {
		out.Versions = append(out.Versions, versionItem(r))
	}
	return nil, out, nil
}

// DiffInput are the arguments of scopekit_diff_versions.
type DiffInput struct {
	ProjectID ID     `json:"project_id" jsonschema:"the project's id"`
	From      ID     `json:"from" jsonschema:"a version number"`
	To        string `json:"to,omitempty" jsonschema:"a version number, or current (the default): the scope as it is now"`
}

func (t *tools) diffVersions(ctx context.Context, req *mcp.CallToolRequest, in DiffInput) (*mcp.CallToolResult, scoping.VersionDiff, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, scoping.VersionDiff{}, err
	}
	from, err := requireID("from", in.From)
	if err != nil {
		return nil, scoping.VersionDiff{}, err
	}
	to := strings.TrimSpace(in.To)
	if to == "" {
		to = scoping.Current
	}
	d, err := t.s.Svc.DiffVersions(ctx, a, id, from, to)
	if err != nil {
		return nil, scoping.VersionDiff{}, t.fail(err)
	}
	return nil, *d, nil
}

// TakeVersionInput are the arguments of scopekit_take_version.
type TakeVersionInput struct {
	ProjectID ID     `json:"project_id" jsonschema:"the project's id"`
	Name      string `json:"name,omitempty" jsonschema:"the version's name (at most 200 characters)"`
	Comment   string `json:"comment,omitempty"`
}

// TakeVersionOutput is the version taken (or the latest one).
type TakeVersionOutput struct {
	Created bool        `json:"created" jsonschema:"false when the latest version already held this scope"`
	Version VersionItem `json:"version"`
}

func (t *tools) takeVersion(ctx context.Context, req *mcp.CallToolRequest, in TakeVersionInput) (*mcp.CallToolResult, TakeVersionOutput, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, TakeVersionOutput{}, err
	}
	res, created, err := t.s.Svc.TakeVersion(ctx, a, id, in.Name, in.Comment)
	if err != nil {
		return nil, TakeVersionOutput{}, t.failWrite(err, map[string]string{views.NameName: "name", views.NameComment: "comment"})
	}
	return nil, TakeVersionOutput{Created: created, Version: versionItem(res.Records[0])}, nil
}

// OpenChangeOrderInput are the arguments of scopekit_open_change_order.
type OpenChangeOrderInput struct {
	ProjectID ID     `json:"project_id" jsonschema:"a won project's id"`
	Title     string `json:"title" jsonschema:"what the change is"`
	Reason    string `json:"reason,omitempty" jsonschema:"why"`
}

// ChangeOrderOutput is a change order with its figures.
type ChangeOrderOutput struct {
	ID              string `json:"id"`
	ProjectID       string `json:"project_id"`
	Number          int64  `json:"number"`
	Title           string `json:"title"`
	Status          string `json:"status"`
	BaseVersionID   string `json:"base_version_id"`
	Currency        string `json:"currency"`
	ContractRevenue string `json:"contract_revenue"`
	DeltaRevenue    string `json:"delta_revenue"`
	DeltaCost       string `json:"delta_cost"`
	DeltaMargin     string `json:"delta_margin"`
}

func changeOrderOutput(r *engine.Record) ChangeOrderOutput {
	co := views.ChangeOrder{Record: r}
	return ChangeOrderOutput{ID: r.ID, ProjectID: co.Project(), Number: co.Number(), Title: co.Title(), Status: co.Status(),
		BaseVersionID: co.BaseVersion(), Currency: co.Currency(), ContractRevenue: r.Str(views.NameContractRevenue),
		DeltaRevenue: r.Str(views.NameDeltaRevenue), DeltaCost: r.Str(views.NameDeltaCost), DeltaMargin: r.Str(views.NameDeltaMargin)}
}

func (t *tools) openChangeOrder(ctx context.Context, req *mcp.CallToolRequest, in OpenChangeOrderInput) (*mcp.CallToolResult, ChangeOrderOutput, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, ChangeOrderOutput{}, err
	}
	w := &engine.Input{Attrs: map[string]json.RawMessage{}, Rels: map[string]engine.RelInput{views.NameProject: ref(views.TypeProjects, id)}}
	for name, v := range map[string]string{views.NameTitle: in.Title, views.NameReason: in.Reason} {
		if v != "" || name == views.NameTitle {
			b, _ := json.Marshal(v)
			w.Attrs[name] = b
		}
	}
	res, err := t.s.Svc.Create(ctx, a, views.TypeChangeOrders, w, opts)
	if err != nil {
		return nil, ChangeOrderOutput{}, t.failWrite(err, map[string]string{views.NameTitle: "title", views.NameReason: "reason", views.NameProject: "project_id"})
	}
	return nil, changeOrderOutput(res.Records[0]), nil
}

// ChangeOrderInput names a change order.
type ChangeOrderInput struct {
	ChangeOrderID ID `json:"change_order_id" jsonschema:"the change order's id"`
}

// ChangeOrderDeltasOutput is a change order and its deltas.
type ChangeOrderDeltasOutput struct {
	ChangeOrder ChangeOrderOutput   `json:"change_order"`
	Deltas      scoping.VersionDiff `json:"deltas"`
}

func (t *tools) changeOrderDeltas(ctx context.Context, req *mcp.CallToolRequest, in ChangeOrderInput) (*mcp.CallToolResult, ChangeOrderDeltasOutput, error) {
	id, a, err := t.caller(ctx, req, "change_order_id", in.ChangeOrderID)
	if err != nil {
		return nil, ChangeOrderDeltasOutput{}, err
	}
	co, err := t.s.Svc.Get(ctx, a, views.TypeChangeOrders, id, engine.ListParams{}, opts)
	if err != nil {
		return nil, ChangeOrderDeltasOutput{}, t.fail(err)
	}
	d, err := t.s.Svc.ChangeOrderDeltas(ctx, a, id)
	if err != nil {
		return nil, ChangeOrderDeltasOutput{}, t.fail(err)
	}
	return nil, ChangeOrderDeltasOutput{ChangeOrder: changeOrderOutput(co.Records[0]), Deltas: *d}, nil
}

// ShareInput are the arguments of scopekit_share_document.
type ShareInput struct {
	DocumentID ID  `json:"document_id" jsonschema:"a finished SOW or change order document with a PDF"`
	ExpiresIn  int `json:"expires_in,omitempty" jsonschema:"days the link works, 1 to 365 (default 30)"`
}

// ShareOutput is a share link.
type ShareOutput struct {
	RequestID      string `json:"request_id"`
	URL            string `json:"url" jsonschema:"the link for the client, shown this once"`
	ExpiresAt      string `json:"expires_at"`
	DocumentSHA256 string `json:"document_sha256"`
}

func (t *tools) shareDocument(ctx context.Context, req *mcp.CallToolRequest, in ShareInput) (*mcp.CallToolResult, ShareOutput, error) {
	id, a, err := t.caller(ctx, req, "document_id", in.DocumentID)
	if err != nil {
		return nil, ShareOutput{}, err
	}
	if in.ExpiresIn < 0 || in.ExpiresIn > scoping.MaxExpiryDays {
		return nil, ShareOutput{}, argError("expires_in", "must be from 1 to %d days", scoping.MaxExpiryDays)
	}
	res, token, err := t.s.Svc.Share(ctx, a, id, in.ExpiresIn)
	if err != nil {
		return nil, ShareOutput{}, t.fail(err)
	}
	r := res.Records[0]
	return nil, ShareOutput{RequestID: r.ID, URL: strings.TrimRight(t.s.BaseURL, "/") + AcceptPath + token,
		ExpiresAt: r.Str(views.NameExpiresAt), DocumentSHA256: r.Str(views.NameDocumentSha256)}, nil
}

// AcceptPath is where a share link's page is served (webapp.AcceptPath).
const AcceptPath = "/app/accept/"
