package expr

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Syntax says what the parser admits beyond the common grammar, and its
// bounds.
type Syntax struct {
	// Filter, when set, admits filters (x | name:arg, templates) and
	// checks each one as it is parsed.
	Filter func(*Node) error
	// Arithmetic admits binary -, * and /, a unary minus on any operand
	// and calls of the functions of Funcs; paths then hold no dash (a-b
	// is a minus). Without it a minus only writes a negative number: a
	// template computes nothing.
	Arithmetic bool
	// MaxOperands bounds the operands one chain of + holds (0: none).
	MaxOperands int
	// MaxDepth bounds nesting: parentheses, negations, brackets,
	// ternaries and calls.
	MaxDepth int
	// MaxLen bounds the source in characters (0: none).
	MaxLen int
	// MaxDigits bounds the digits of a number written in the source (0:
	// none).
	MaxDigits int
}

// Formula is the syntax of questionnaires' expressions: arithmetic and
// the functions, at most 1,000 characters, 32 levels of nesting and
// numbers of MaxIntDigits digits.
var Formula = &Syntax{Arithmetic: true, MaxLen: 1000, MaxDepth: 32, MaxDigits: MaxIntDigits}

// Funcs are the functions an arithmetic expression may call, with the
// least and most arguments each takes (-1: any number).
var Funcs = map[string][2]int{
	"ceil": {1, 1}, "floor": {1, 1}, "round": {1, 2}, "min": {1, -1}, "max": {1, -1},
	"contains": {2, 2}, "len": {1, 1},
}

// FuncNames lists the functions for messages.
const FuncNames = "ceil, floor, round, min, max, contains, len"

// Parse parses s under syn.
//
// The grammar, by precedence (arithmetic only where marked):
//
//	filtered = ternary { "|" name { ":" add } }          (Filter)
//	ternary  = or [ "?" ternary ":" ternary ]
//	or       = and { "||" and }
//	and      = cmp { "&&" cmp }
//	cmp      = add [ ("=="|"!="|"==="|"!=="|"<"|">"|"<="|">=") add ]
//	add      = mul { ("+"|"-") mul }                     ("-": arithmetic)
//	mul      = unary { ("*"|"/") unary }                 (arithmetic)
//	unary    = "!" unary | "-" unary | postfix
//	postfix  = primary { ".name" | "[" filtered "]" }
//	primary  = "(" filtered ")" | name "(" [ filtered { "," filtered } ] ")"
//	         | path | this | $index | string | number | true | false | null
func Parse(s string, syn *Syntax) (*Node, error) {
	if syn.MaxLen > 0 && utf8.RuneCountInString(s) > syn.MaxLen {
		return nil, fmt.Errorf("an expression is at most %d characters long", syn.MaxLen)
	}
	toks, err := syn.lex(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return nil, fmt.Errorf("empty tag")
	}
	p := &parser{syn: syn, toks: toks}
	e, err := p.filtered()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, fmt.Errorf("unexpected %q", t.text)
	}
	return e, nil
}

type parser struct {
	syn   *Syntax
	toks  []token
	pos   int
	depth int
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }
func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

// enter counts one more level of nesting and refuses expressions nested
// deeper than MaxDepth; leave undoes it.
func (p *parser) enter() error {
	if p.depth++; p.syn.MaxDepth > 0 && p.depth > p.syn.MaxDepth {
		return fmt.Errorf("expression nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) filtered() (*Node, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	e, err := p.ternary()
	for err == nil && p.isOp("|") {
		if p.syn.Filter == nil {
			return nil, fmt.Errorf("unexpected \"|\"")
		}
		p.next()
		t := p.next()
		if t.kind != tPath || strings.Contains(t.text, ".") {
			return nil, fmt.Errorf("a filter name must follow |")
		}
		f := &Node{Op: "filter", A: e, Path: []string{t.text}}
		for err == nil && p.isOp(":") {
			p.next()
			var arg *Node
			if arg, err = p.add(); err == nil {
				f.Args = append(f.Args, arg)
			}
		}
		if err == nil {
			err = p.syn.Filter(f)
		}
		e = f
	}
	return e, err
}

func (p *parser) ternary() (*Node, error) {
	c, err := p.or()
	if err != nil || !p.isOp("?") {
		return c, err
	}
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.next()
	a, err := p.ternary()
	if err != nil {
		return nil, err
	}
	if !p.isOp(":") {
		return nil, fmt.Errorf("missing : of a ? b : c")
	}
	p.next()
	b, err := p.ternary()
	if err != nil {
		return nil, err
	}
	return &Node{Op: "?:", A: c, B: a, C: b}, nil
}

func (p *parser) or() (*Node, error)  { return p.leftAssoc(p.and, "||") }
func (p *parser) and() (*Node, error) { return p.leftAssoc(p.cmp, "&&") }

// add parses operands joined by + into one node of all of them, which an
// evaluator joins in one pass (a tree of pairs would join texts again and
// again: quadratic in their number); an arithmetic minus ends the chain
// and starts a new one on its left.
func (p *parser) add() (*Node, error) {
	a, err := p.mul()
	if err != nil {
		return nil, err
	}
	var sum *Node // the + chain being built
	for p.isOp("+") || p.syn.Arithmetic && p.isOp("-") {
		op := p.next().text
		b, err := p.mul()
		if err != nil {
			return nil, err
		}
		if op == "-" {
			a, sum = &Node{Op: "-", A: a, B: b}, nil
			continue
		}
		if sum == nil {
			sum = &Node{Op: "+", Args: []*Node{a}}
			a = sum
		}
		if p.syn.MaxOperands > 0 && len(sum.Args) == p.syn.MaxOperands {
			if p.syn.Arithmetic {
				return nil, fmt.Errorf("more than %d values added with +", p.syn.MaxOperands)
			}
			return nil, fmt.Errorf("more than %d values joined with +: a tag joins a few values (a template computes nothing)", p.syn.MaxOperands)
		}
		sum.Args = append(sum.Args, b)
	}
	return a, nil
}

func (p *parser) mul() (*Node, error) {
	if !p.syn.Arithmetic {
		return p.unary()
	}
	return p.leftAssoc(p.unary, "*", "/")
}

// leftAssoc parses operands joined by one of ops, grouping from the left.
func (p *parser) leftAssoc(operand func() (*Node, error), ops ...string) (*Node, error) {
	a, err := operand()
	for err == nil && p.peek().kind == tOp && slices.Contains(ops, p.peek().text) {
		op := p.next().text
		var b *Node
		if b, err = operand(); err == nil {
			a = &Node{Op: op, A: a, B: b}
		}
	}
	return a, err
}

func (p *parser) cmp() (*Node, error) {
	a, err := p.add()
	if err != nil {
		return nil, err
	}
	switch t := p.peek(); t.text {
	case "==", "!=", "===", "!==", "<", ">", "<=", ">=":
		if t.kind != tOp {
			break
		}
		p.next()
		b, err := p.add()
		if err != nil {
			return nil, err
		}
		return &Node{Op: t.text, A: a, B: b}, nil
	}
	return a, nil
}

func (p *parser) unary() (*Node, error) {
	if p.isOp("!") || p.isOp("-") {
		op := p.next().text
		defer p.leave()
		if err := p.enter(); err != nil {
			return nil, err
		}
		a, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op == "-" {
			if _, ok := a.Lit.(json.Number); !p.syn.Arithmetic && (a.Op != "lit" || !ok) {
				return nil, fmt.Errorf("- may only lead a number (a template computes nothing)")
			}
			return &Node{Op: "neg", A: a}, nil
		}
		return &Node{Op: "!", A: a}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (*Node, error) {
	e, err := p.primary()
	for err == nil {
		switch t := p.peek(); {
		case t.kind == tPath && strings.HasPrefix(t.text, ".") && len(t.text) > 1:
			p.next()
			for _, seg := range strings.Split(t.text[1:], ".") {
				if seg == "" {
					return nil, fmt.Errorf("bad path %q", t.text)
				}
				e = &Node{Op: "member", A: e, Path: []string{seg}}
			}
		case p.isOp("["):
			p.next()
			var i *Node
			if i, err = p.filtered(); err != nil {
				return nil, err
			}
			if !p.isOp("]") {
				return nil, fmt.Errorf("missing ]")
			}
			p.next()
			e = &Node{Op: "index", A: e, B: i}
		default:
			return e, nil
		}
	}
	return nil, err
}

func (p *parser) primary() (*Node, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return &Node{Op: "lit", Lit: t.text}, nil
	case tNumber:
		return &Node{Op: "lit", Lit: json.Number(t.text)}, nil
	case tPath:
		switch t.text {
		case "true":
			return &Node{Op: "lit", Lit: true}, nil
		case "false":
			return &Node{Op: "lit", Lit: false}, nil
		case "null", "undefined":
			return &Node{Op: "lit"}, nil
		}
		if p.syn.Arithmetic && p.isOp("(") {
			return p.call(t.text)
		}
		return pathNode(t.text)
	case tOp:
		if t.text == "(" {
			e, err := p.filtered()
			if err != nil {
				return nil, err
			}
			if p.next() != (token{tOp, ")"}) {
				return nil, fmt.Errorf("missing )")
			}
			return e, nil
		}
		return nil, fmt.Errorf("unexpected %q", t.text)
	}
	return nil, fmt.Errorf("incomplete expression")
}

// call parses the arguments of a call of the function name, after its
// name.
func (p *parser) call(name string) (*Node, error) {
	arity, ok := Funcs[name]
	if !ok {
		return nil, fmt.Errorf("unknown function %q (the functions are %s)", name, FuncNames)
	}
	p.next() // ( (each argument counts as a level: filtered)
	n := &Node{Op: "call", Path: []string{name}}
	for !p.isOp(")") {
		if len(n.Args) > 0 {
			if !p.isOp(",") {
				return nil, fmt.Errorf("missing , or ) in %s(…)", name)
			}
			p.next()
		}
		a, err := p.filtered()
		if err != nil {
			return nil, err
		}
		n.Args = append(n.Args, a)
	}
	p.next()
	if len(n.Args) < arity[0] || arity[1] >= 0 && len(n.Args) > arity[1] {
		return nil, fmt.Errorf("%s takes %s", name, arityText(arity))
	}
	return n, nil
}

func arityText(a [2]int) string {
	switch {
	case a[1] < 0:
		return fmt.Sprintf("at least %d argument(s)", a[0])
	case a[0] == a[1]:
		return fmt.Sprintf("%d argument(s)", a[0])
	}
	return fmt.Sprintf("%d to %d arguments", a[0], a[1])
}

// pathNode parses "a.b.c", "." and ".a.b" (relative to the current item),
// "this" and "this.a" (the same), and "$index".
func pathNode(s string) (*Node, error) {
	if s == "." || s == "this" {
		return &Node{Op: "path"}, nil
	}
	e := &Node{Op: "path"}
	switch {
	case strings.HasPrefix(s, "."):
		e.Rel, s = true, s[1:]
	case strings.HasPrefix(s, "this."):
		e.Rel, s = true, s[len("this."):]
	}
	if s == "$index" {
		return &Node{Op: "$index"}, nil
	}
	if strings.HasPrefix(s, "$index.") {
		return &Node{Op: "member", A: &Node{Op: "$index"}, Path: []string{s[len("$index."):]}}, nil
	}
	e.Path = strings.Split(s, ".")
	for _, seg := range e.Path {
		if seg == "" || strings.Contains(seg, "$") {
			return nil, fmt.Errorf("bad path %q", s)
		}
	}
	return e, nil
}
