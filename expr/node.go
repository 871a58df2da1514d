// Package expr is ScopeKit's one expression language: the anchor's
// angular-expression syntax (paths, literals, == != > < >= <=, && || !,
// ternaries, parentheses) that document templates and questionnaires
// share. One lexer and parser serve both, under a Syntax that says what
// each admits: templates add filters (x | money) and compute nothing;
// questionnaires add arithmetic (+ - * /) and the functions of Funcs, and
// evaluate in decimal (Eval), never in floating point.
//
// Expressions are bounded where they are parsed (Syntax.MaxLen,
// MaxDepth, MaxDigits) and evaluate in time linear in their size: every
// node is visited at most once and every number stays within a fixed
// number of digits.
package expr

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Node is a parsed expression.
type Node struct {
	// Op is what the node does: "path", "lit", "$index", "member" (a.name),
	// "index" (a[b]), "!", "neg" (-a), "+" (Args added or joined, in
	// order), "-", "*", "/", "&&", "||", "==", "!=", "===", "!==", "<",
	// ">", "<=", ">=", "?:" (A ? B : C), "filter" (A | name:Args) and
	// "call" (name(Args)).
	Op string
	// Path: op "path" the segments (nil: the current item); "member" the
	// name; "filter" and "call" the name.
	Path []string
	// Rel marks a path written with a leading "." or "this.": resolved in
	// the current item only.
	Rel bool
	// Lit is the value of op "lit": a string, json.Number, bool or nil.
	Lit     any
	A, B, C *Node
	Args    []*Node
}

// Kids returns the sub-expressions of n.
func (n *Node) Kids() []*Node {
	k := make([]*Node, 0, 3+len(n.Args))
	for _, x := range []*Node{n.A, n.B, n.C} {
		if x != nil {
			k = append(k, x)
		}
	}
	return append(k, n.Args...)
}

// Paths appends the paths n reads, as written ("phases.length" as phases;
// phases[0].name as phases).
func (n *Node) Paths(dst []string) []string {
	if n == nil {
		return dst
	}
	if n.Op == "path" {
		segs := n.Path
		if k := len(segs); k > 1 && segs[k-1] == "length" {
			segs = segs[:k-1]
		}
		if len(segs) > 0 {
			dst = append(dst, strings.Join(segs, "."))
		}
		return dst
	}
	for _, k := range n.Kids() {
		dst = k.Paths(dst)
	}
	return dst
}

// IsPath reports whether n reads a value (a path, member or index) rather
// than computing one.
func (n *Node) IsPath() bool {
	switch n.Op {
	case "path":
		return true
	case "member", "index":
		return n.A.IsPath()
	}
	return false
}

// Describe writes a path back as text (a.b.c, .a, a[0].b) and names any
// other expression by what it is, for messages.
func (n *Node) Describe() string {
	switch n.Op {
	case "path":
		if n.Path == nil {
			return "this"
		}
		s := strings.Join(n.Path, ".")
		if n.Rel {
			s = "." + s
		}
		return s
	case "member":
		return n.A.Describe() + "." + n.Path[0]
	case "index":
		return n.A.Describe() + "[" + n.B.Describe() + "]"
	case "lit":
		switch v := n.Lit.(type) {
		case string:
			return strconv.Quote(v)
		case json.Number:
			return string(v)
		case bool:
			return strconv.FormatBool(v)
		}
		return "null"
	case "$index":
		return "$index"
	case "filter":
		return n.A.Describe()
	case "call":
		return n.Path[0] + "(…)"
	}
	return "the expression"
}
