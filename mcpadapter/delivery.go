package mcpadapter

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
)

// The delivery tools: the figures of pricing.DeliveryFigures, as REST
// serves them, except that the estimate-versus-actual table leaves the
// variances of a line that has no actual hours recorded null: a service
// not started is not 100 % under its estimate.

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
	VarianceHours  *pricing.Fixed `json:"variance_hours" jsonschema:"actual - estimated hours; null without actual hours"`
	VarianceRatio  *pricing.Fixed `json:"variance_ratio" jsonschema:"variance / estimated hours; null without actual hours"`
	EstimatedCost  pricing.Fixed  `json:"estimated_cost"`
	ActualCost     pricing.Fixed  `json:"actual_cost"`
	VarianceCost   *pricing.Fixed `json:"variance_cost" jsonschema:"actual - estimated cost; null without actual hours"`
}

func estimateTotals(e pricing.EstimateTotals, actual bool) EstimateTotals {
	out := EstimateTotals{EstimatedHours: e.EstimatedHours, ActualHours: e.ActualHours,
		EstimatedCost: e.EstimatedCost, ActualCost: e.ActualCost}
	if actual {
		out.VarianceHours, out.VarianceRatio, out.VarianceCost = &e.VarianceHours, &e.VarianceRatio, &e.VarianceCost
	}
	return out
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
	// the snapshot: the figures and the lines they come from, in one read
	snap, err := t.s.Svc.Snapshot(ctx, a, id)
	if err != nil {
		return nil, EstimateVsActualOutput{}, t.fail(err)
	}
	recorded := map[[2]string]bool{} // lines with actual hours, by service and subservice id
	for i, sv := range snap.Services {
		recorded[[2]string{sv.ID, ""}] = sv.Attrs[views.NameActualHours] != nil
		for _, sub := range snap.Subservices[i] {
			recorded[[2]string{sv.ID, sub.ID}] = sub.Attrs[views.NameActualHours] != nil
		}
	}
	ev := snap.Delivery.EstimateVsActual
	out := EstimateVsActualOutput{ProjectID: id, Currency: snap.Delivery.Currency.Code,
		Rows: make([]EstimateRow, 0, len(ev.Rows)), Phases: make([]PhaseEstimate, 0, len(ev.Phases))}
	phases, anyActual := map[string]bool{}, false
	for _, r := range ev.Rows {
		actual := recorded[[2]string{r.ServiceID, r.SubserviceID}]
		phases[r.PhaseID] = phases[r.PhaseID] || actual
		anyActual = anyActual || actual
		out.Rows = append(out.Rows, EstimateRow{ServiceID: r.ServiceID, SubserviceID: r.SubserviceID, Name: r.Name,
			PhaseID: r.PhaseID, Status: r.Status, HourlyCost: r.HourlyCost, EstimateTotals: estimateTotals(r.EstimateTotals, actual)})
	}
	for _, p := range ev.Phases {
		out.Phases = append(out.Phases, PhaseEstimate{PhaseID: p.PhaseID, Name: p.Name, EstimateTotals: estimateTotals(p.EstimateTotals, phases[p.PhaseID])})
	}
	out.Total = estimateTotals(ev.Total, anyActual)
	return nil, out, nil
}
