package documents

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// expr is a parsed tag expression: a path, a literal, a comparison, a
// negation or a logical operator.
type expr struct {
	op   string   // "path", "lit", "!", "&&", "||", "==", "!=", "<", ">", "<=", ">="
	path []string // op "path": the segments; nil for "." (the current item)
	rel  bool     // op "path": written with a leading ".": resolved in the current item only
	lit  any      // op "lit": string, json.Number, bool or nil
	a, b *expr
}

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
		case r >= '0' && r <= '9' || (r == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if _, err := decimal.NewFromString(s[i:j]); err != nil {
				return nil, fmt.Errorf("bad number %q", s[i:j])
			}
			toks = append(toks, token{tNumber, s[i:j]})
			i = j
		case isPathRune(r) || r == '.':
			j := i
			for j < len(s) {
				q, qs := utf8.DecodeRuneInString(s[j:])
				if !isPathRune(q) && q != '.' && !(q == '-' && j > i) {
					break
				}
				j += qs
			}
			toks = append(toks, token{tPath, s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range []string{"==", "!=", ">=", "<=", "&&", "||", ">", "<", "!", "(", ")"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected %q", r)
			}
			toks = append(toks, token{tOp, op})
			i += len(op)
		}
	}
	return append(toks, token{kind: tEOF}), nil
}

func isPathRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// parser is a recursive-descent parser of
//
//	or   = and { "||" and }
//	and  = cmp { "&&" cmp }
//	cmp  = unary [ ("=="|"!="|"<"|">"|"<="|">=") unary ]
//	unary = "!" unary | "(" or ")" | path | string | number | true | false | null
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
	e, err := p.or()
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

// enter counts one more level of nesting (a parenthesis or a "!") and
// refuses expressions nested deeper than 50; leave undoes it.
func (p *parser) enter() error {
	if p.depth++; p.depth > 50 {
		return fmt.Errorf("expression nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) or() (*expr, error) {
	defer p.leave()
	if err := p.enter(); err != nil {
		return nil, err
	}
	a, err := p.and()
	for err == nil && p.peek() == (token{tOp, "||"}) {
		p.next()
		var b *expr
		if b, err = p.and(); err == nil {
			a = &expr{op: "||", a: a, b: b}
		}
	}
	return a, err
}

func (p *parser) and() (*expr, error) {
	a, err := p.cmp()
	for err == nil && p.peek() == (token{tOp, "&&"}) {
		p.next()
		var b *expr
		if b, err = p.cmp(); err == nil {
			a = &expr{op: "&&", a: a, b: b}
		}
	}
	return a, err
}

func (p *parser) cmp() (*expr, error) {
	a, err := p.unary()
	if err != nil {
		return nil, err
	}
	switch t := p.peek(); t.text {
	case "==", "!=", "<", ">", "<=", ">=":
		if t.kind != tOp {
			break
		}
		p.next()
		b, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &expr{op: t.text, a: a, b: b}, nil
	}
	return a, nil
}

func (p *parser) unary() (*expr, error) {
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
		case "null":
			return &expr{op: "lit"}, nil
		}
		return pathExpr(t.text)
	case tOp:
		switch t.text {
		case "!":
			defer p.leave()
			if err := p.enter(); err != nil {
				return nil, err
			}
			a, err := p.unary()
			if err != nil {
				return nil, err
			}
			return &expr{op: "!", a: a}, nil
		case "(":
			e, err := p.or()
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

// pathExpr parses "a.b.c", "." and ".a.b" (relative to the current item).
func pathExpr(s string) (*expr, error) {
	if s == "." {
		return &expr{op: "path"}, nil
	}
	e := &expr{op: "path"}
	if strings.HasPrefix(s, ".") {
		e.rel, s = true, s[1:]
	}
	e.path = strings.Split(s, ".")
	for _, seg := range e.path {
		if seg == "" {
			return nil, fmt.Errorf("bad path %q", s)
		}
	}
	return e, nil
}

// paths appends the paths e reads, as written ("phases.length" as phases).
func (e *expr) paths(dst []string) []string {
	if e == nil {
		return dst
	}
	switch e.op {
	case "path":
		segs := e.path
		if n := len(segs); n > 1 && segs[n-1] == "length" {
			segs = segs[:n-1]
		}
		if len(segs) > 0 {
			dst = append(dst, strings.Join(segs, "."))
		}
		return dst
	case "lit":
		return dst
	}
	return e.b.paths(e.a.paths(dst))
}

// eval evaluates e in the scopes (the innermost last). Values are those of
// a decoded JSON tree: map[string]any, []any, string, json.Number, bool, nil.
func (e *expr) eval(scopes []any) any {
	switch e.op {
	case "path":
		return resolve(e, scopes)
	case "lit":
		return e.lit
	case "!":
		return !truthy(e.a.eval(scopes))
	case "&&":
		return truthy(e.a.eval(scopes)) && truthy(e.b.eval(scopes))
	case "||":
		return truthy(e.a.eval(scopes)) || truthy(e.b.eval(scopes))
	}
	return compare(e.op, e.a.eval(scopes), e.b.eval(scopes))
}

// resolve finds a path: its first segment in the innermost scope that has
// it, then outward; the rest inside that value. "length" of a list or text
// is its length, a number segment indexes a list. Missing is nil.
func resolve(e *expr, scopes []any) any {
	if len(scopes) == 0 {
		return nil
	}
	if e.path == nil {
		return scopes[len(scopes)-1]
	}
	var cur any
	found := false
	for i := len(scopes) - 1; i >= 0; i-- {
		if m, ok := scopes[i].(map[string]any); ok {
			if v, ok := m[e.path[0]]; ok {
				cur, found = v, true
				break
			}
		}
		if e.rel {
			break
		}
	}
	if !found {
		return nil
	}
	for _, seg := range e.path[1:] {
		cur = field(cur, seg)
	}
	return cur
}

func field(v any, seg string) any {
	switch t := v.(type) {
	case map[string]any:
		return t[seg]
	case []any:
		if seg == "length" {
			return json.Number(strconv.Itoa(len(t)))
		}
		if i, err := strconv.Atoi(seg); err == nil && strconv.Itoa(i) == seg && i >= 0 && i < len(t) {
			return t[i]
		}
	case string:
		if seg == "length" {
			return json.Number(strconv.Itoa(utf8.RuneCountInString(t)))
		}
	}
	return nil
}

// truthy: missing, null, false, "", 0, an empty list and an empty object are
// false; everything else is true.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		d, err := decimal.NewFromString(string(t))
		return err != nil || !d.IsZero()
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// text is a value as a document shows it: lists and objects show nothing.
func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return ""
}

// number reads v as a decimal: a JSON number or a text that is one (money,
// hours and quantities are texts in merge data).
func number(v any) (decimal.Decimal, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = string(t)
	case string:
		s = strings.TrimSpace(t)
	default:
		return decimal.Decimal{}, false
	}
	if s == "" || strings.ContainsAny(s, "eE") {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

// compare compares two values: as numbers when both are numbers, else as
// texts.
func compare(op string, a, b any) bool {
	c := order(a, b)
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	}
	return c >= 0
}

// order is -1, 0 or 1 as a sorts before, with or after b.
func order(a, b any) int {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x.Cmp(y)
		}
	}
	return strings.Compare(text(a), text(b))
}
