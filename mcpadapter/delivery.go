package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/pricing"
)

// The delivery tools: the figures of pricing.DeliveryFigures, as REST
// and merge data serve them (a line without actual hours recorded has no
// variance: null).

// DeliveryRollupOutput is a project's delivery rollup.
type DeliveryRollupOutput struct {
	ProjectID string `json:"project_id"`
	Currency  string `json:"currency"`
	pricing.DeliveryRollup
}

// EstimateVsActualOutput is a project's estimate-versus-actual table.
type EstimateVsActualOutput struct {
	ProjectID string          `json:"project_id"`
	Currency  string          `json:"currency"`
	Rows      []EstimateRow   `json:"rows"`
	Phases    []PhaseEstimate `json:"phases"`
	Total     EstimateTotals  `json:"total"`
}

// EstimateRow is one line of the table (pricing.EstimateRow).
type EstimateRow struct {
	ServiceID    string        `json:"service_id"`
	SubserviceID string        `json:"subservice_id" jsonschema:"empty on a service's own row"`
	Name         string        `json:"name"`
	PhaseID      string        `json:"phase_id"`
	Status       string        `json:"status"`
	HourlyCost   pricing.Fixed `json:"hourly_cost"`
	EstimateTotals
}

// PhaseEstimate is the total of one phase (pricing.PhaseEstimate).
type PhaseEstimate struct {
	PhaseID string `json:"phase_id"`
	Name    string `json:"name"`
	EstimateTotals
}

// EstimateTotals are the figures of a row or a total
// (pricing.EstimateTotals); the variances are null when no line under
// them has actual hours recorded.
type EstimateTotals struct {
	EstimatedHours pricing.Fixed  `json:"estimated_hours"`
	ActualHours    pricing.Fixed  `json:"actual_hours"`
	VarianceHours  *pricing.Fixed `json:"variance_hours" jsonschema:"actual - estimated hours of the lines with actual hours; null without actual hours"`
	VarianceRatio  *pricing.Fixed `json:"variance_ratio" jsonschema:"variance / estimated hours of the lines with actual hours; null without actual hours"`
	EstimatedCost  pricing.Fixed  `json:"estimated_cost"`
	ActualCost     pricing.Fixed  `json:"actual_cost"`
	VarianceCost   *pricing.Fixed `json:"variance_cost" jsonschema:"actual - estimated cost of the lines with actual hours; null without actual hours"`
}

func (t *tools) deliveryRollup(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, DeliveryRollupOutput, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, DeliveryRollupOutput{}, err
	}
	d, err := t.s.Svc.Delivery(ctx, a, id)
	if err != nil {
		return nil, DeliveryRollupOutput{}, t.fail(err)
	}
	return nil, DeliveryRollupOutput{ProjectID: id, Currency: d.Currency.Code, DeliveryRollup: d.Rollup}, nil
}

func (t *tools) estimateVsActual(ctx context.Context, req *mcp.CallToolRequest, in ProjectInput) (*mcp.CallToolResult, EstimateVsActualOutput, error) {
	id, a, err := t.caller(ctx, req, "project_id", in.ProjectID)
	if err != nil {
		return nil, EstimateVsActualOutput{}, err
	}
	d, err := t.s.Svc.Delivery(ctx, a, id)
	if err != nil {
		return nil, EstimateVsActualOutput{}, t.fail(err)
	}
	ev := d.EstimateVsActual
	out := EstimateVsActualOutput{ProjectID: id, Currency: d.Currency.Code,
		Rows: make([]EstimateRow, 0, len(ev.Rows)), Phases: make([]PhaseEstimate, 0, len(ev.Phases)), Total: EstimateTotals(ev.Total)}
	for _, r := range ev.Rows {
		out.Rows = append(out.Rows, EstimateRow{ServiceID: r.ServiceID, SubserviceID: r.SubserviceID, Name: r.Name,
			PhaseID: r.PhaseID, Status: r.Status, HourlyCost: r.HourlyCost, EstimateTotals: EstimateTotals(r.EstimateTotals)})
	}
	for _, p := range ev.Phases {
		out.Phases = append(out.Phases, PhaseEstimate{PhaseID: p.PhaseID, Name: p.Name, EstimateTotals: EstimateTotals(p.EstimateTotals)})
	}
	return nil, out, nil
}
