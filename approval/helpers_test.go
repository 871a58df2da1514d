package approval_test

import (
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func intp(n int) *int { return &n }

var (
	t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Hour)
	t2 = t1.Add(time.Hour)
)

// facts returns the facts of a project of line "net" with a service of
// line "cloud", figures in the default currency.
func facts() approval.Facts {
	return approval.Facts{
		Money: map[string]decimal.Decimal{
			approval.FieldContractRevenue: d("12000"),
			approval.FieldContractCost:    d("8000"),
			approval.FieldContractProfit:  d("4000"),
		},
		ContractMargin:  d("0.3333"),
		TotalHours:      d("80"),
		LineOfBusiness:  "net",
		LinesOfBusiness: []string{"net", "cloud"},
		Client:          "c1",
		PaymentTerm:     "p1",
	}
}

// all is a coverage of every line by approvers.
func all(approvers ...string) []approval.Coverage {
	return []approval.Coverage{{Approvers: approvers}}
}

// wantCode fails t unless err carries code ("" = no error).
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := scopekit.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %q, want %q", err, got, code)
	}
}

// step returns a pending step requiring approvers, submitted by "s".
func step(required int, submitterApproves bool, approvers ...string) *approval.Step {
	p := approval.Plan{Approvers: approvers, RequiredApprovals: required, SubmitterApproves: submitterApproves}
	return p.NewStep("s")
}

// statuses lists the statuses of the requirements of s.
func statuses(s *approval.Step) map[string]string {
	m := map[string]string{}
	for _, r := range s.Requirements {
		m[r.UserID] = r.Status
	}
	return m
}
