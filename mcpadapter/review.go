package mcpadapter

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/scoping/views"
)

// ReviewOutput is the review of a project's scope (scoping.ReviewScope).
type ReviewOutput struct {
	ProjectID string `json:"project_id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Ready     bool   `json:"ready" jsonschema:"true when there is no finding"`
	// Findings are what to fix or know, by kind.
	Findings []Finding `json:"findings"`
	// Approvals are the steps submitting the project now would need.
	Approvals []ApprovalStep `json:"approvals" jsonschema:"the approval steps submitting the project now would need, in order; empty: it would be approved at once"`
	// MarginThresholds are the approval levels' margin thresholds.
	MarginThresholds []MarginThreshold `json:"margin_thresholds" jsonschema:"the approval levels that apply below a contract margin; empty when your role cannot view settings"`
	Note             string            `json:"note,omitempty"`
	Pricing          PricingSummary    `json:"pricing"`
}

// Finding is one thing the review found.
type Finding struct {
	Kind     string `json:"kind" jsonschema:"zero_hours, no_resource, duplicate_line, empty_phase, missing_governance, margin_below or differs_from_catalog"`
	Message  string `json:"message"`
	LineType string `json:"line_type,omitempty" jsonschema:"the type of the line at fault (services, subservices, phases, resources, or catalog governances); empty for the project"`
	LineID   string `json:"line_id,omitempty"`
	LineName string `json:"line_name,omitempty"`
}

// ApprovalStep is an approval step a submission would create.
type ApprovalStep struct {
	LevelID           string     `json:"level_id"`
	Kind              string     `json:"kind" jsonschema:"technical, sales or business"`
	Position          int        `json:"position"`
	Approvers         []Approver `json:"approvers" jsonschema:"who may approve the step"`
	RequiredApprovals int        `json:"required_approvals" jsonschema:"approvals needed; 0: every approver"`
}

// Approver is a user who may approve a step.
type Approver struct {
	ID   string `json:"id"`
	Name string `json:"name" jsonschema:"empty when your role cannot view users"`
}

// MarginThreshold is an approval level's margin condition.
type MarginThreshold struct {
	LevelID  string `json:"level_id"`
	Kind     string `json:"kind"`
	Position int    `json:"position"`
	Operator string `json:"operator" jsonschema:"lt or lte"`
	Value    string `json:"value" jsonschema:"a margin ratio: 0.25 is 25%"`
	Below    bool   `json:"below" jsonschema:"the project's margin is below it: the level applies"`
}

// lineTypes name the lines of findings as the item types of the tools.
var lineTypes = map[string]string{}

func init() {
	for _, t := range itemTypes {
		lineTypes[t.typ] = t.arg
	}
	lineTypes[views.TypeProjectSubservices] = "subservices"
	lineTypes[views.TypeProjectResources] = "resources"
	lineTypes[views.TypeGovernances] = "catalog governances"
}

func (t *tools) reviewProjectScope(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, ReviewOutput, error) {
	var out ReviewOutput
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, out, err
	}
	rv, err := t.s.Svc.ReviewScope(ctx, a, id)
	if err != nil {
		return nil, out, t.fail(err)
	}
	p := rv.Snapshot.Project
	out = ReviewOutput{ProjectID: p.ID, Name: p.ProjectName(), Status: p.Status(), Ready: len(rv.Findings) == 0,
		Findings: make([]Finding, 0, len(rv.Findings)), Approvals: make([]ApprovalStep, 0, len(rv.Approvals)),
		MarginThresholds: make([]MarginThreshold, 0, len(rv.MarginThresholds)), Pricing: pricingSummary(rv.Snapshot.Pricing)}
	for _, f := range rv.Findings {
		out.Findings = append(out.Findings, Finding{Kind: f.Kind, Message: f.Message, LineType: lineTypes[f.Type], LineID: f.ID, LineName: f.Name})
	}
	for _, s := range rv.Approvals {
		step := ApprovalStep{LevelID: s.LevelID, Kind: s.Kind, Position: s.Position,
			Approvers: make([]Approver, 0, len(s.Approvers)), RequiredApprovals: s.RequiredApprovals}
		for _, id := range s.Approvers {
			step.Approvers = append(step.Approvers, Approver{ID: id, Name: rv.ApproverNames[id]})
		}
		out.Approvals = append(out.Approvals, step)
	}
	for _, m := range rv.MarginThresholds {
		out.MarginThresholds = append(out.MarginThresholds, MarginThreshold(m))
	}
	var notes []string
	if rv.SettingsHidden {
		notes = append(notes, "your role cannot view settings: the approval levels' margin thresholds are not shown")
	}
	if rv.UsersHidden && len(rv.Approvals) > 0 {
		notes = append(notes, "your role cannot view users: approvers are shown by id, without their names")
	}
	out.Note = strings.Join(notes, "; ")
	return nil, out, nil
}
