package approval_test

import (
	"fmt"
	"time"

	"github.com/scopekit/scopekit/approval"
	"github.com/shopspring/decimal"
)

// Walk a two-level workflow: a technical review of every project, then a
// business sign-off for projects above 50,000 in the default currency.
func Example() {
	conds, err := approval.ParseConditions([]any{
		map[string]any{"field": "contract_revenue", "operator": "gt", "value": "50000"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	levels := []approval.Level{
		{ID: "2", Position: 2, Kind: approval.KindBusiness, Conditions: conds,
			Coverage: []approval.Coverage{{Approvers: []string{"cfo"}}}},
		{ID: "1", Position: 1, Kind: approval.KindTechnical, RequiredApprovals: 1,
			Coverage: []approval.Coverage{{LineOfBusiness: "network", Approvers: []string{"ana", "ben"}}}},
	}
	facts := approval.Facts{
		// 60,000 EUR converted by the caller at 1.10 into the USD default.
		Money:           map[string]decimal.Decimal{approval.FieldContractRevenue: decimal.NewFromInt(66000)},
		LineOfBusiness:  "network",
		LinesOfBusiness: []string{"network"},
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

	after := approval.Start
	for {
		plan, ok, err := approval.Next(levels, facts, after)
		if err != nil {
			fmt.Println(err)
			return
		}
		if !ok {
			fmt.Println("project approved")
			return
		}
		fmt.Printf("level %s (%s): %v must sign\n", plan.LevelID, plan.Kind, plan.Approvers)
		step := plan.NewStep("sam")
		o, err := step.Approve(approval.Actor{UserID: plan.Approvers[0]}, now, "looks good")
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s approves: %s, step %s\n", plan.Approvers[0], o, step.Status)
		after = plan.Position
	}
	// Output:
	// level 1 (technical): [ana ben] must sign
	// ana approves: completed, step approved
	// level 2 (business): [cfo] must sign
	// cfo approves: completed, step approved
	// project approved
}
