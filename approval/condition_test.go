package approval_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/approval"
	"github.com/shopspring/decimal"
)

// applies reports whether a level with conds, covering every line, applies
// to f.
func applies(t *testing.T, f approval.Facts, conds ...approval.Condition) bool {
	t.Helper()
	_, ok, err := approval.Next([]approval.Level{{ID: "1", Position: 1, Conditions: conds, Coverage: all("a")}}, f, approval.Start)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return ok
}

// Ensure every operator compares every numeric field: below, at and above
// its value.
func TestConditionNumericOperators(t *testing.T) {
	// Each field's fact in facts(): revenue 12000, cost 8000, profit 4000,
	// margin 0.3333, hours 80.
	at := map[string]string{"contract_revenue": "12000", "contract_cost": "8000.00",
		"contract_profit": "4000", "contract_margin": "0.3333", "total_hours": "80"}
	below := map[string]string{"contract_revenue": "11999.99", "contract_cost": "7999",
		"contract_profit": "-4000", "contract_margin": "0.3332", "total_hours": "79.5"}
	above := map[string]string{"contract_revenue": "12000.01", "contract_cost": "1e4",
		"contract_profit": "4000.001", "contract_margin": "0.5", "total_hours": "80.01"}
	// want[op] = result when the value is below, at and above the fact.
	want := map[string][3]bool{
		"gt":  {true, false, false},
		"gte": {true, true, false},
		"lt":  {false, false, true},
		"lte": {false, true, true},
		"eq":  {false, true, false},
		"ne":  {true, false, true},
	}
	for field := range at {
		for _, op := range approval.Operators {
			for i, v := range []string{below[field], at[field], above[field]} {
				t.Run(field+" "+op+" "+v, func(t *testing.T) {
					if got := applies(t, facts(), approval.Condition{Field: field, Operator: op, Value: v}); got != want[op][i] {
						t.Fatalf("got %v, want %v", got, want[op][i])
					}
				})
			}
		}
	}
}

// Ensure eq and ne compare the id fields, and that line_of_business reads
// the project's own line, not its services'.
func TestConditionIDOperators(t *testing.T) {
	tests := []struct {
		field, op, value string
		want             bool
	}{
		{"line_of_business", "eq", "net", true},
		{"line_of_business", "ne", "net", false},
		{"line_of_business", "eq", "cloud", false}, // a service's line only
		{"line_of_business", "ne", "cloud", true},
		{"client", "eq", "c1", true},
		{"client", "eq", "c2", false},
		{"client", "ne", "c2", true},
		{"client", "ne", "c1", false},
		{"payment_term", "eq", "p1", true},
		{"payment_term", "eq", "p2", false},
		{"payment_term", "ne", "p2", true},
		{"payment_term", "ne", "p1", false},
	}
	for _, tt := range tests {
		t.Run(tt.field+" "+tt.op+" "+tt.value, func(t *testing.T) {
			if got := applies(t, facts(), approval.Condition{Field: tt.field, Operator: tt.op, Value: tt.value}); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("a project without a line of business", func(t *testing.T) {
		f := facts()
		f.LineOfBusiness, f.LinesOfBusiness = "", nil
		if applies(t, f, approval.Condition{Field: "line_of_business", Operator: "eq", Value: "net"}) ||
			!applies(t, f, approval.Condition{Field: "line_of_business", Operator: "ne", Value: "net"}) {
			t.Fatal("eq must fail and ne hold")
		}
	})
}

// Ensure every condition of a level must hold, and that a level without
// conditions always applies.
func TestConditionsAllMustHold(t *testing.T) {
	big := approval.Condition{Field: "contract_revenue", Operator: "gte", Value: "10000"}
	client := approval.Condition{Field: "client", Operator: "eq", Value: "c1"}
	other := approval.Condition{Field: "client", Operator: "eq", Value: "c2"}
	long := approval.Condition{Field: "total_hours", Operator: "gt", Value: "100"}
	tests := []struct {
		name  string
		conds []approval.Condition
		want  bool
	}{
		{"none", nil, true},
		{"empty", []approval.Condition{}, true},
		{"one that holds", []approval.Condition{big}, true},
		{"two that hold", []approval.Condition{big, client}, true},
		{"one of two fails", []approval.Condition{big, other}, false},
		{"the first fails", []approval.Condition{long, big, client}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := applies(t, facts(), tt.conds...); got != tt.want {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// decode decodes a JSON text as the store does (UseNumber).
func decode(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
	return v
}

// Ensure ParseConditions accepts the conditions of docs/approval.md as stored.
func TestParseConditions(t *testing.T) {
	tests := []struct {
		name string
		raw  any
		want []approval.Condition
	}{
		{"null", nil, nil},
		{"empty", decode(t, `[]`), nil},
		{"a money string", decode(t, `[{"field":"contract_revenue","operator":"gt","value":"50000.00"}]`),
			[]approval.Condition{{"contract_revenue", "gt", "50000.00"}}},
		{"a JSON number", decode(t, `[{"field":"total_hours","operator":"lte","value":120.5}]`),
			[]approval.Condition{{"total_hours", "lte", "120.5"}}},
		{"an exponent", decode(t, `[{"field":"contract_cost","operator":"gte","value":1e4}]`),
			[]approval.Condition{{"contract_cost", "gte", "1e4"}}},
		{"a negative margin", decode(t, `[{"field":"contract_margin","operator":"lt","value":"-0.05"}]`),
			[]approval.Condition{{"contract_margin", "lt", "-0.05"}}},
		{"ids", decode(t, `[{"field":"line_of_business","operator":"eq","value":"3"},
			{"field":"client","operator":"ne","value":"17"},{"value":"2","operator":"eq","field":"payment_term"}]`),
			[]approval.Condition{{"line_of_business", "eq", "3"}, {"client", "ne", "17"}, {"payment_term", "eq", "2"}}},
		{"a numeric id", decode(t, `[{"field":"client","operator":"eq","value":17}]`),
			[]approval.Condition{{"client", "eq", "17"}}},
		{"a typed slice", []map[string]any{{"field": "client", "operator": "eq", "value": "1"}},
			[]approval.Condition{{"client", "eq", "1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approval.ParseConditions(tt.raw)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("condition %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// Ensure ParseConditions rejects anything else with EINVALID naming the
// item and member at fault.
func TestParseConditionsInvalid(t *testing.T) {
	tests := []struct {
		name  string
		raw   any
		field string // the error's Field
	}{
		{"not an array", decode(t, `{"field":"client","operator":"eq","value":"1"}`), "conditions"},
		{"a string", "contract_revenue > 5", "conditions"},
		{"a number", decode(t, `5`), "conditions"},
		{"an item that is not an object", decode(t, `["client eq 1"]`), "conditions/0"},
		{"a null item", decode(t, `[null]`), "conditions/0"},
		{"unknown field", decode(t, `[{"field":"contract_revenue","operator":"gt","value":"1"},
			{"field":"revenue","operator":"gt","value":"1"}]`), "conditions/1/field"},
		{"bad operator", decode(t, `[{"field":"total_hours","operator":">","value":"1"}]`), "conditions/0/operator"},
		{"upper-case operator", decode(t, `[{"field":"total_hours","operator":"GT","value":"1"}]`), "conditions/0/operator"},
		{"gt on line of business", decode(t, `[{"field":"line_of_business","operator":"gt","value":"1"}]`), "conditions/0/operator"},
		{"lte on client", decode(t, `[{"field":"client","operator":"lte","value":"1"}]`), "conditions/0/operator"},
		{"gte on payment term", decode(t, `[{"field":"payment_term","operator":"gte","value":"1"}]`), "conditions/0/operator"},
		{"non-numeric money", decode(t, `[{"field":"contract_revenue","operator":"gt","value":"lots"}]`), "conditions/0/value"},
		{"money with a currency", decode(t, `[{"field":"contract_cost","operator":"gt","value":"$100"}]`), "conditions/0/value"},
		{"blank number", decode(t, `[{"field":"contract_profit","operator":"gt","value":""}]`), "conditions/0/value"},
		{"huge exponent", decode(t, `[{"field":"total_hours","operator":"gt","value":"1e999999999"}]`), "conditions/0/value"},
		{"too long a number", []any{map[string]any{"field": "total_hours", "operator": "gt", "value": "1" + strings.Repeat("0", 100)}}, "conditions/0/value"},
		{"blank id", decode(t, `[{"field":"client","operator":"eq","value":" "}]`), "conditions/0/value"},
		{"boolean value", decode(t, `[{"field":"client","operator":"eq","value":true}]`), "conditions/0/value"},
		{"object value", decode(t, `[{"field":"total_hours","operator":"eq","value":{"amount":1}}]`), "conditions/0/value"},
		{"missing value", decode(t, `[{"field":"client","operator":"eq"}]`), "conditions/0/value"},
		{"missing field", decode(t, `[{"operator":"eq","value":"1"}]`), "conditions/0/field"},
		{"numeric field", decode(t, `[{"field":1,"operator":"eq","value":"1"}]`), "conditions/0/field"},
		{"numeric operator", decode(t, `[{"field":"client","operator":1,"value":"1"}]`), "conditions/0/operator"},
		{"unknown member", decode(t, `[{"field":"client","operator":"eq","value":"1","currency":"EUR"}]`), "conditions/0/currency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := approval.ParseConditions(tt.raw)
			wantCode(t, err, scopekit.EINVALID)
			if got != nil {
				t.Fatalf("got %v with the error", got)
			}
			if e := err.(*scopekit.Error); e.Field != tt.field {
				t.Fatalf("error %v names %q, want %q", err, e.Field, tt.field)
			}
		})
	}
}

// Ensure Next refuses a level whose condition it cannot evaluate (one
// built without ParseConditions), naming the level.
func TestNextInvalidCondition(t *testing.T) {
	levels := []approval.Level{{ID: "7", Position: 1, Coverage: all("a"),
		Conditions: []approval.Condition{{Field: "client", Operator: "gt", Value: "1"}}}}
	_, _, err := approval.Next(levels, facts(), approval.Start)
	wantCode(t, err, scopekit.EINVALID)
	if !strings.Contains(err.Error(), "level 7") {
		t.Fatalf("error %v does not name the level", err)
	}
}

// Ensure Holds evaluates one condition as Next does, and refuses what
// Next cannot evaluate.
func TestConditionHolds(t *testing.T) {
	for _, c := range []approval.Condition{
		{Field: "contract_margin", Operator: "lt", Value: "0.5"},
		{Field: "contract_margin", Operator: "lt", Value: "0.2"},
		{Field: "total_hours", Operator: "gte", Value: "80"},
		{Field: "contract_revenue", Operator: "gt", Value: "12000"},
		{Field: "client", Operator: "eq", Value: "c1"},
		{Field: "payment_term", Operator: "ne", Value: "p1"},
	} {
		got, err := c.Holds(facts())
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if want := applies(t, facts(), c); got != want {
			t.Fatalf("%+v: Holds = %v, Next applies = %v", c, got, want)
		}
	}
	if _, err := (approval.Condition{Field: "margin", Operator: "lt", Value: "1"}).Holds(facts()); scopekit.ErrorCode(err) != scopekit.EINVALID {
		t.Fatalf("an unknown field: %v", err)
	}
	f := facts()
	f.Money = nil
	if _, err := (approval.Condition{Field: "contract_cost", Operator: "lt", Value: "1"}).Holds(f); scopekit.ErrorCode(err) != scopekit.EINTERNAL {
		t.Fatalf("a missing money fact: %v", err)
	}
}

// Ensure conditions on a change's deltas: money deltas compare as the
// caller converted them (Facts.Money), the margin delta as it is; a
// negative value is a valid threshold.
func TestDeltaConditions(t *testing.T) {
	f := approval.Facts{Money: map[string]decimal.Decimal{"delta_revenue": decimal.RequireFromString("-1200.50"),
		"delta_cost": decimal.RequireFromString("300")}, DeltaMargin: decimal.RequireFromString("-0.0512")}
	for _, tc := range []struct {
		c    approval.Condition
		want bool
	}{
		{approval.Condition{Field: "delta_revenue", Operator: "lt", Value: "-1000"}, true},
		{approval.Condition{Field: "delta_revenue", Operator: "gt", Value: "0"}, false},
		{approval.Condition{Field: "delta_cost", Operator: "gte", Value: "300"}, true},
		{approval.Condition{Field: "delta_margin", Operator: "lt", Value: "-0.05"}, true},
		{approval.Condition{Field: "delta_margin", Operator: "lt", Value: "-0.06"}, false},
	} {
		got, err := tc.c.Holds(f)
		if err != nil || got != tc.want {
			t.Errorf("%+v: %v, %v; want %v", tc.c, got, err, tc.want)
		}
	}
	if err := (approval.Condition{Field: "delta_margin", Operator: "eq", Value: "x"}).Validate(); err == nil {
		t.Error("a non-numeric delta_margin value is refused")
	}
}
