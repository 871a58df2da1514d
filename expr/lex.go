package expr

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// token kinds of the lexer.
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

// operators, longest first; arithmetic adds theirs.
var (
	operators      = []string{"===", "!==", "==", "!=", ">=", "<=", "&&", "||", ">", "<", "!", "(", ")", "[", "]", "?", ":", "|", "+", "-"}
	arithOperators = append(append([]string(nil), operators...), "*", "/", ",")
)

func (syn *Syntax) lex(s string) ([]token, error) {
	ops := operators
	if syn.Arithmetic {
		ops = arithOperators
	}
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
		case r >= '0' && r <= '9' || (!syn.Arithmetic && r == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && !operand(toks)):
			j := i + 1
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			d, err := decimal.NewFromString(s[i:j])
			if err != nil {
				return nil, fmt.Errorf("bad number %q", s[i:j])
			}
			if syn.MaxDigits > 0 && len(d.Coefficient().String()) > syn.MaxDigits {
				return nil, fmt.Errorf("the number %.20s… has more than %d digits", s[i:j], syn.MaxDigits)
			}
			toks = append(toks, token{tNumber, s[i:j]})
			i = j
		case isPathRune(r) || r == '.' || r == '$':
			j := i + size
			for j < len(s) {
				q, qs := utf8.DecodeRuneInString(s[j:])
				// templates' paths may hold a dash (kebab-case keys);
				// arithmetic reads a-b as a minus
				dash := !syn.Arithmetic && q == '-' && j > i && j+1 < len(s) && isPathRune(rune(s[j+1]))
				if !isPathRune(q) && q != '.' && !dash {
					break
				}
				j += qs
			}
			toks = append(toks, token{tPath, s[i:j]})
			i = j
		default:
			op := ""
			for _, o := range ops {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if r == '@' && !syn.Arithmetic {
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
