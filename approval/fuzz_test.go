package approval_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
)

// FuzzParseConditions parses fuzzed JSON as the store decodes it:
// ParseConditions must not panic and either fail with EINVALID or return
// conditions that validate and that Next evaluates without error.
func FuzzParseConditions(f *testing.F) {
	f.Add(`[{"field":"contract_revenue","operator":"gt","value":"50000"}]`)
	f.Add(`[{"field":"client","operator":"eq","value":17},{"field":"total_hours","operator":"lte","value":1e2}]`)
	f.Add(`[{"field":"contract_margin","operator":"ne","value":"-0.000000000000000000000000001"}]`)
	f.Add(`[{"field":"total_hours","operator":"gt","value":"1e-2147483648"}]`)
	f.Add(`[{"field":"payment_term","operator":"gt","value":"1"},null,[],"x"]`)
	f.Add(`{"field":"client"}`)
	f.Add(`null`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, text string) {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		var raw any
		if dec.Decode(&raw) != nil {
			return
		}
		conds, err := approval.ParseConditions(raw)
		if err != nil {
			var e *scopekit.Error
			if !errors.As(err, &e) || e.Code != scopekit.EINVALID {
				t.Fatalf("error %v is not EINVALID", err)
			}
			return
		}
		for i, c := range conds {
			if err := c.Validate(); err != nil {
				t.Fatalf("condition %d %+v parsed but does not validate: %v", i, c, err)
			}
		}
		levels := []approval.Level{{ID: "1", Position: 1, Conditions: conds, Coverage: all("a")}}
		if _, _, err := approval.Next(levels, facts(), approval.Start); err != nil {
			t.Fatalf("Next: %v", err)
		}
	})
}
