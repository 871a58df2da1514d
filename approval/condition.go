package approval

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// The fields a condition can read.
const (
	FieldContractRevenue = "contract_revenue"
	FieldContractCost    = "contract_cost"
	FieldContractProfit  = "contract_profit"
	FieldContractMargin  = "contract_margin"
	FieldTotalHours      = "total_hours"
	FieldLineOfBusiness  = "line_of_business"
	FieldClient          = "client"
	FieldPaymentTerm     = "payment_term"
	// The change a submission makes to the contract before it: a change
	// order's against its base version; a project's against no contract
	// at all (its own figures).
	FieldDeltaRevenue = "delta_revenue"
	FieldDeltaCost    = "delta_cost"
	FieldDeltaMargin  = "delta_margin" // the new margin less the old
)

// The operators of a condition.
const (
	OpGt  = "gt"
	OpGte = "gte"
	OpLt  = "lt"
	OpLte = "lte"
	OpEq  = "eq"
	OpNe  = "ne"
)

// Fields lists every field a condition can read, in the order of
// docs/approval.md.
var Fields = []string{FieldContractRevenue, FieldContractCost, FieldContractProfit,
	FieldContractMargin, FieldTotalHours, FieldLineOfBusiness, FieldClient, FieldPaymentTerm,
	FieldDeltaRevenue, FieldDeltaCost, FieldDeltaMargin}

// Operators lists every operator; id fields accept only eq and ne.
var Operators = []string{OpGt, OpGte, OpLt, OpLte, OpEq, OpNe}

// MoneyFields lists the money fields: the caller converts them into the
// account's default currency before Next compares them (docs/approval.md rule 3).
var MoneyFields = []string{FieldContractRevenue, FieldContractCost, FieldContractProfit, FieldDeltaRevenue, FieldDeltaCost}

// maxExponent bounds the exponent of a numeric value: comparing decimals
// rescales them, and a value such as 1e999999999 would make that rescaling
// allocate without bound.
const maxExponent = 28

// Condition is one condition of a level. Field is one of Fields; Operator
// one of Operators (only eq and ne for the id fields line_of_business,
// client and payment_term); Value is a decimal string for the numeric
// fields (money, contract_margin as the ratio pricing computes, e.g.
// "0.25", and total_hours) and an id for the others.
type Condition struct {
	Field, Operator, Value string
}

// Validate reports whether c is a condition Next can evaluate: an
// *scopekit.Error EINVALID whose Field names the member at fault (field,
// operator or value), or nil.
func (c Condition) Validate() error {
	switch {
	case isNumeric(c.Field):
		if !slices.Contains(Operators, c.Operator) {
			return invalid("operator", "operator must be one of %s", strings.Join(Operators, ", "))
		}
		if _, err := parseNumber(c.Value); err != nil {
			return invalid("value", "value of %s must be a decimal number: %s", c.Field, err)
		}
	case isID(c.Field):
		if c.Operator != OpEq && c.Operator != OpNe {
			return invalid("operator", "operator of %s must be eq or ne", c.Field)
		}
		if strings.TrimSpace(c.Value) == "" {
			return invalid("value", "value of %s must be an id", c.Field)
		}
	default:
		return invalid("field", "field must be one of %s", strings.Join(Fields, ", "))
	}
	return nil
}

// ParseConditions validates the conditions attribute of a level as stored
// (a JSON array decoded with UseNumber: []any whose items are
// map[string]any with the members field, operator and value, each a string
// or, for value, a json.Number) and returns it. nil (the attribute absent
// or null) is no condition. Anything else is an *scopekit.Error EINVALID
// whose Field is "conditions", or "conditions/<index>/<member>" for one
// item; the caller may prefix it into a JSON pointer.
func ParseConditions(raw any) ([]Condition, error) {
	var items []any
	switch v := raw.(type) {
	case nil:
		return nil, nil
	case []any:
		items = v
	case []map[string]any:
		items = make([]any, len(v))
		for i, m := range v {
			items[i] = m
		}
	default:
		return nil, invalid("conditions", "conditions must be a list of objects with field, operator and value")
	}
	conds := make([]Condition, 0, len(items))
	for i, item := range items {
		c, err := parseCondition(item)
		if err != nil {
			e := err.(*scopekit.Error)
			path := fmt.Sprintf("conditions/%d", i)
			if e.Field != "" {
				path += "/" + e.Field
			}
			return nil, invalid(path, "condition %d: %s", i, e.Message)
		}
		conds = append(conds, c)
	}
	return conds, nil
}

func parseCondition(item any) (Condition, error) {
	m, ok := item.(map[string]any)
	if !ok {
		return Condition{}, invalid("", "must be an object with field, operator and value")
	}
	var unknown []string
	for k := range m {
		if k != "field" && k != "operator" && k != "value" {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		k := slices.Min(unknown) // the same member whatever the map's order
		return Condition{}, invalid(k, "%q is not a member of a condition (field, operator, value)", k)
	}
	var c Condition
	for _, member := range []struct {
		name string
		dst  *string
	}{{"field", &c.Field}, {"operator", &c.Operator}, {"value", &c.Value}} {
		switch v := m[member.name].(type) {
		case string:
			*member.dst = v
		case json.Number:
			if member.name != "value" {
				return Condition{}, invalid(member.name, "%s must be a string", member.name)
			}
			*member.dst = v.String()
		case nil:
			return Condition{}, invalid(member.name, "%s is required", member.name)
		default:
			return Condition{}, invalid(member.name, "%s must be a string", member.name)
		}
	}
	return c, c.Validate()
}

// Holds reports whether c holds for the project's facts f, as Next
// evaluates it: for a review that says which conditions a project meets.
// Errors: EINVALID for a condition Validate refuses; EINTERNAL for a money
// condition whose figure is missing from f.Money.
func (c Condition) Holds(f Facts) (bool, error) {
	if err := c.Validate(); err != nil {
		return false, err
	}
	return c.holds(&f)
}

// holds evaluates c against f.
func (c Condition) holds(f *Facts) (bool, error) {
	if isID(c.Field) {
		var got string
		switch c.Field {
		case FieldLineOfBusiness:
			got = f.LineOfBusiness
		case FieldClient:
			got = f.Client
		case FieldPaymentTerm:
			got = f.PaymentTerm
		}
		return (got == c.Value) == (c.Operator == OpEq), nil
	}
	want, err := parseNumber(c.Value)
	if err != nil {
		return false, err
	}
	var got decimal.Decimal
	switch c.Field {
	case FieldContractMargin:
		got = f.ContractMargin
	case FieldDeltaMargin:
		got = f.DeltaMargin
	case FieldTotalHours:
		got = f.TotalHours
	default:
		var ok bool
		if got, ok = f.Money[c.Field]; !ok {
			return false, scopekit.Errorf(scopekit.EINTERNAL, "approval: the facts have no %s", c.Field)
		}
	}
	n := got.Cmp(want)
	switch c.Operator {
	case OpGt:
		return n > 0, nil
	case OpGte:
		return n >= 0, nil
	case OpLt:
		return n < 0, nil
	case OpLte:
		return n <= 0, nil
	case OpEq:
		return n == 0, nil
	}
	return n != 0, nil
}

func parseNumber(s string) (decimal.Decimal, error) {
	if len(s) > 100 {
		return decimal.Decimal{}, fmt.Errorf("too long")
	}
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		return decimal.Decimal{}, fmt.Errorf("%q is not a number", s)
	}
	if e := d.Exponent(); e > maxExponent || e < -maxExponent {
		return decimal.Decimal{}, fmt.Errorf("%q is out of range", s)
	}
	return d, nil
}

func isNumeric(field string) bool {
	return slices.Contains(MoneyFields, field) || field == FieldContractMargin || field == FieldTotalHours || field == FieldDeltaMargin
}

func isID(field string) bool {
	return field == FieldLineOfBusiness || field == FieldClient || field == FieldPaymentTerm
}

func invalid(field, format string, args ...any) *scopekit.Error {
	return scopekit.FieldErrorf(scopekit.EINVALID, field, format, args...)
}
