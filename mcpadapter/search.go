package mcpadapter

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// SearchProjectsInput are the arguments of scopekit_search_projects.
type SearchProjectsInput struct {
	Query          string `json:"query,omitempty" jsonschema:"case-insensitive substring of the project name"`
	Status         string `json:"status,omitempty" jsonschema:"project status: draft, pending_approval, approved, won, lost or canceled"`
	Client         ID     `json:"client,omitempty" jsonschema:"the client: its id (the client_id of a project), or its name, or the start of the only name that begins with it (the answer's matched says which it picked)"`
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
	// Filters are the filters that applied, by argument; a client by name
	// and id.
	Filters map[string]string `json:"filters" jsonschema:"the filters that applied, by argument"`
	Note    string            `json:"note,omitempty" jsonschema:"when nothing matched: which filters applied"`
	// Matched says which client a name picked.
	Matched []NameMatch `json:"matched,omitempty" jsonschema:"which record each name argument picked"`
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
	a, err := t.ses.actor(ctx, req)
	if err != nil {
		return nil, out, t.fail(err)
	}
	filters, applied := map[string]string{}, map[string]string{}
	for name, v := range map[string]string{views.NameName: in.Query, views.NameStatus: in.Status, views.NameClient: string(in.Client),
		"created-after": in.CreatedAfter, "created-before": in.CreatedBefore,
		"approved-after": in.ApprovedAfter, "approved-before": in.ApprovedBefore} {
		if v = strings.TrimSpace(v); v != "" {
			filters[name], applied[argName(name)] = v, v
		}
	}
	if v := filters[views.NameClient]; v != "" {
		c, err := t.client(ctx, a, v, &out.Matched)
		if err != nil {
			return nil, out, err
		}
		filters[views.NameClient], applied["client"] = c.id, c.String()
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
	out.Total, out.Filters = res.Total, applied
	if page*size < res.Total {
		out.NextCursor = encodeCursor(page+1, size)
	}
	if res.Total == 0 {
		out.Note = noMatch(applied)
	}
	return nil, out, nil
}

// noMatch says that no project matched the filters that applied.
func noMatch(applied map[string]string) string {
	if len(applied) == 0 {
		return "you can see no active project (archived projects are not searched)"
	}
	fs := make([]string, 0, len(applied))
	for _, arg := range slices.Sorted(maps.Keys(applied)) {
		fs = append(fs, fmt.Sprintf("%s %q", arg, applied[arg]))
	}
	return "no project you can see matched " + strings.Join(fs, ", ") + " (archived projects are not searched)"
}

// clientRef is a client a search names.
type clientRef struct{ id, name string }

func (c clientRef) String() string {
	if c.name == "" {
		return "id " + c.id
	}
	return fmt.Sprintf("%s (id %s)", c.name, c.id)
}

// client resolves the client argument of a search: by id or name for a
// user who can see clients, else as an id (the project filter needs only
// projects view).
func (t *tools) client(ctx context.Context, a *engine.Actor, v string, matched *[]NameMatch) (clientRef, error) {
	if !a.Can(t.guard(views.TypeClients), false) {
		return clientRef{id: v}, nil
	}
	rec, err := t.resolve(ctx, a, lookup{arg: "client", what: "client", typ: views.TypeClients, matched: matched}, ID(v))
	if err != nil {
		return clientRef{}, err
	}
	return clientRef{id: rec.ID, name: views.Client{Record: rec}.Name()}, nil
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
