package documents

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// expr is a parsed tag expression, in the anchor's (docxtemplater's
// angular-expressions) syntax: paths, literals, member and index access,
// operators, a ternary and filters.
type expr struct {
	// "path", "lit", "this", "$index", "member" (a.name), "index" (a[b]),
	// "!", "neg", "+" (args joined), "&&", "||", "==", "!=", "===", "!==",
	// "<", ">", "<=", ">=", "?:" (a ? b : c), "filter" (a | name:args)
	op   string
	path []string // op "path": the segments; "member": the name; "filter": the filter's name
	rel  bool     // op "path": written with a leading "." or "this.": resolved in the current item only
	lit  any      // op "lit": string, json.Number, bool or nil
	a, b *expr
	c    *expr   // op "?:": the else branch
	args []*expr // op "filter": the arguments; "+": the operands, in order
}

// maxOperands bounds the operands one tag joins with +: a template joins
// a few values, and a tag of many thousands only keeps a worker busy.
const maxOperands = 1000

// token kinds of the expression lexer.
const (
	tEOF = iota
	tPath
	tString
	tNumber
	tOp
)

type token struct {
	kind int
	text string
}

// quotes open and close string literals: straight quotes and the curly
// ones Word's autocorrect types.
const quotes = "\"'“”‘’„"

// operators, longest first.
var operators = []string{"===", "!==", "==", "!=", ">=", "<=", "&&", "||", ">", "<", "!", "(", ")",
	"[", "]", "?", ":", "|", "+", "-"}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case strings.ContainsRune(quotes, r):
			j := i + size
			for j < len(s) {
				q, qs := utf8.DecodeRuneInString(s[j:])
				if strings.ContainsRune(quotes, q) {
					break
				}
				j += qs
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string")
			}
			toks = append(toks, token{tString, s[i+size : j]})
			_, qs := utf8.DecodeRuneInString(s[j:])
			i = j + qs
		case r >= '0' && r <= '9' || (r == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && !operand(toks)):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if _, err := decimal.NewFromString(s[i:j]); err != nil {
				return nil, fmt.Errorf("bad number %q", s[i:j])
			}
			toks = append(toks, token{tNumber, s[i:j]})
			i = j
		case isPathRune(r) || r == '.' || r == '$':
			j := i + size
			for j < len(s) {
				q, qs := utf8.DecodeRuneInString(s[j:])
				if !isPathRune(q) && q != '.' && !(q == '-' && j > i && j+1 < len(s) && isPathRune(rune(s[j+1]))) {
					break
				}
				j += qs
			}
			toks = append(toks, token{tPath, s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if r == '@' {
					return nil, fmt.Errorf("raw XML insertion ({@…}) is not supported: a value is always inserted as text; use {%s} and format the paragraph in the template", strings.TrimSpace(s[i+1:]))
				}
				return nil, fmt.Errorf("unexpected %q", r)
			}
			toks = append(toks, token{tOp, op})
			i += len(op)
		}
	}
	return append(toks, token{kind: tEOF}), nil
}

// operand reports whether the last token ends an operand, so that a "-"
// after it is a minus, not a negative number's sign.
func operand(toks []token) bool {
	if len(toks) == 0 {
		return false
	}
	t := toks[len(toks)-1]
	return t.kind != tOp || t.text == ")" || t.text == "]"
}

func isPathRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// parser is a recursive-descent parser of
//
//	filtered = ternary { "|" name { ":" add } }
//	ternary  = or [ "?" ternary ":" ternary ]
//	or       = and { "||" and }
//	and      = cmp { "&&" cmp }
//	cmp      = add [ ("=="|"!="|"==="|"!=="|"<"|">"|"<="|">=") add ]
//	add      = unary { "+" unary }
//	unary    = "!" unary | "-" unary | postfix
//	postfix  = primary { ".name" | "[" filtered "]" }
//	primary  = "(" filtered ")" | path | this | $index | string | number | true | false | null
type parser struct {
	toks  []token
	pos   int
	depth int
}

func parseExpr(s string) (*expr, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return nil, fmt.Errorf("empty tag")
	}
	p := &parser{toks: toks}
	e, err := p.filtered()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, fmt.Errorf("unexpected %q", t.text)
	}
	return e, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }
func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

// enter counts one more level of nesting (a parenthesis, a "!", a
// bracket, a ternary) and refuses expressions nested deeper than 50;
// leave undoes it.
func (p *parser) enter() error {
	if p.depth++; p.depth > 50 {
		return fmt.Errorf("expression nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) filtered() (*expr, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	e, err := p.ternary()
	for err == nil && p.isOp("|") {
		p.next()
		t := p.next()
		if t.kind != tPath || strings.Contains(t.text, ".") {
			return nil, fmt.Errorf("a filter name must follow |")
		}
		f := &expr{op: "filter", a: e, path: []string{t.text}}
		for err == nil && p.isOp(":") {
			p.next()
			var arg *expr
			if arg, err = p.add(); err == nil {
				f.args = append(f.args, arg)
			}
		}
		if err == nil {
			err = checkFilter(f)
		}
		e = f
	}
	return e, err
}

func (p *parser) ternary() (*expr, error) {
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
	return &expr{op: "?:", a: c, b: a, c: b}, nil
}

func (p *parser) or() (*expr, error)  { return p.leftAssoc("||", p.and) }
func (p *parser) and() (*expr, error) { return p.leftAssoc("&&", p.cmp) }

// add parses operands joined by + into one node of all of them, which
// eval joins in one pass (a tree of pairs joined texts again and again:
// quadratic in their number).
func (p *parser) add() (*expr, error) {
	a, err := p.unary()
	if err != nil || !p.isOp("+") {
		return a, err
	}
	e := &expr{op: "+", args: []*expr{a}}
	for p.isOp("+") {
		p.next()
		if len(e.args) == maxOperands {
			return nil, fmt.Errorf("more than %d values joined with +: a tag joins a few values (a template computes nothing)", maxOperands)
		}
		b, err := p.unary()
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, b)
	}
	return e, nil
}

// leftAssoc parses operands joined by op, grouping from the left.
func (p *parser) leftAssoc(op string, operand func() (*expr, error)) (*expr, error) {
	a, err := operand()
	for err == nil && p.isOp(op) {
		p.next()
		var b *expr
		if b, err = operand(); err == nil {
			a = &expr{op: op, a: a, b: b}
		}
	}
	return a, err
}

func (p *parser) cmp() (*expr, error) {
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
		return &expr{op: t.text, a: a, b: b}, nil
	}
	return a, nil
}

func (p *parser) unary() (*expr, error) {
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
			// templates compute nothing: - only writes a negative number
			if _, ok := a.lit.(json.Number); a.op != "lit" || !ok {
				return nil, fmt.Errorf("- may only lead a number (a template computes nothing)")
			}
			return &expr{op: "neg", a: a}, nil
		}
		return &expr{op: "!", a: a}, nil
	}
	return p.postfix()
}

func (p *parser) postfix() (*expr, error) {
	e, err := p.primary()
	for err == nil {
		switch t := p.peek(); {
		case t.kind == tPath && strings.HasPrefix(t.text, ".") && len(t.text) > 1:
			p.next()
			for _, seg := range strings.Split(t.text[1:], ".") {
				if seg == "" {
					return nil, fmt.Errorf("bad path %q", t.text)
				}
				e = &expr{op: "member", a: e, path: []string{seg}}
			}
		case p.isOp("["):
			p.next()
			var i *expr
			if i, err = p.filtered(); err != nil {
				return nil, err
			}
			if !p.isOp("]") {
				return nil, fmt.Errorf("missing ]")
			}
			p.next()
			e = &expr{op: "index", a: e, b: i}
		default:
			return e, nil
		}
	}
	return nil, err
}

func (p *parser) primary() (*expr, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return &expr{op: "lit", lit: t.text}, nil
	case tNumber:
		return &expr{op: "lit", lit: json.Number(t.text)}, nil
	case tPath:
		switch t.text {
		case "true":
			return &expr{op: "lit", lit: true}, nil
		case "false":
			return &expr{op: "lit", lit: false}, nil
		case "null", "undefined":
			return &expr{op: "lit"}, nil
		}
		return pathExpr(t.text)
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

// pathExpr parses "a.b.c", "." and ".a.b" (relative to the current item),
// "this" and "this.a" (the same), and "$index".
func pathExpr(s string) (*expr, error) {
	if s == "." || s == "this" {
		return &expr{op: "path"}, nil
	}
	e := &expr{op: "path"}
	switch {
	case strings.HasPrefix(s, "."):
		e.rel, s = true, s[1:]
	case strings.HasPrefix(s, "this."):
		e.rel, s = true, s[len("this."):]
	}
	if s == "$index" {
		return &expr{op: "$index"}, nil
	}
	if strings.HasPrefix(s, "$index.") {
		return &expr{op: "member", a: &expr{op: "$index"}, path: []string{s[len("$index."):]}}, nil
	}
	e.path = strings.Split(s, ".")
	for _, seg := range e.path {
		if seg == "" || strings.Contains(seg, "$") {
			return nil, fmt.Errorf("bad path %q", s)
		}
	}
	return e, nil
}

// kids are the sub-expressions of e.
func (e *expr) kids() []*expr {
	k := make([]*expr, 0, 3+len(e.args))
	for _, x := range []*expr{e.a, e.b, e.c} {
		if x != nil {
			k = append(k, x)
		}
	}
	return append(k, e.args...)
}

// paths appends the paths e reads, as written ("phases.length" as phases;
// phases[0].name as phases).
func (e *expr) paths(dst []string) []string {
	if e == nil {
		return dst
	}
	if e.op == "path" {
		segs := e.path
		if n := len(segs); n > 1 && segs[n-1] == "length" {
			segs = segs[:n-1]
		}
		if len(segs) > 0 {
			dst = append(dst, strings.Join(segs, "."))
		}
		return dst
	}
	for _, k := range e.kids() {
		dst = k.paths(dst)
	}
	return dst
}

// isPath reports whether e reads a value (a path, member or index) rather
// than computing one: a section over it pushes the value as a scope.
func (e *expr) isPath() bool {
	switch e.op {
	case "path":
		return true
	case "member", "index":
		return e.a.isPath()
	}
	return false
}
