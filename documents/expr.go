package documents

import (
	"github.com/scopekit/scopekit/expr"
)

// maxOperands bounds the operands one tag joins with +: a template joins
// a few values, and a tag of many thousands only keeps a worker busy.
const maxOperands = 1000

// tagSyntax is what a tag's expression may hold: the anchor's
// (docxtemplater's angular-expressions) paths, literals, member and index
// access, operators, a ternary and filters; no arithmetic (a template
// computes nothing).
var tagSyntax = &expr.Syntax{Filter: checkFilter, MaxOperands: maxOperands, MaxDepth: 50}

func parseExpr(s string) (*expr.Node, error) { return expr.Parse(s, tagSyntax) }
