package expr_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/expr"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

// answers is the scope of the tests: answers.<slug>.
func answers(m map[string]any) expr.Scope {
	return func(p []string) any {
		if len(p) != 2 || p[0] != "answers" {
			return nil
		}
		return m[p[1]]
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func eval(t *testing.T, src string, m map[string]any) (any, error) {
	t.Helper()
	n, err := expr.Parse(src, expr.Formula)
	require.NoError(t, err, src)
	return expr.Eval(n, answers(m))
}

// Ensure arithmetic is exact decimal arithmetic with the usual
// precedence.
func TestEvalArithmetic(t *testing.T) {
	m := map[string]any{"users": dec("101"), "sites": dec("3"), "wifi": true, "cloud": "aws",
		"clouds": []string{"aws", "azure"}, "third": dec("0.1"), "name": "Globex", "start": "2026-03-01"}
	for _, tc := range []struct {
		src  string
		want any
	}{
		{"ceil(answers.users / 50)", dec("3")},
		{"floor(answers.users / 50)", dec("2")},
		{"answers.users / 50", dec("2.02")},
		{"1 + 2 * 3", dec("7")},
		{"(1 + 2) * 3", dec("9")},
		{"10 - 2 - 3", dec("5")},
		{"10 - 2 + 3", dec("11")},
		{"2 * 3 / 4", dec("1.5")},
		{"answers.users-1", dec("100")},
		{"-answers.sites + 1", dec("-2")},
		{"answers.third + answers.third + answers.third", dec("0.3")},
		{"round(2.345, 2)", dec("2.35")},
		{"round(-2.5)", dec("-3")},
		{"min(answers.sites, 2, 5)", dec("2")},
		{"max(answers.sites, 2, 5)", dec("5")},
		{"1 / 3", dec("0.33333333333333333333")},
		{"answers.sites > 2 && answers.wifi", true},
		{"answers.sites > 3 || !answers.wifi", false},
		{"answers.cloud == \"aws\"", true},
		{"answers.cloud != 'aws'", false},
		{"contains(answers.clouds, \"azure\")", true},
		{"contains(answers.clouds, \"gcp\")", false},
		{"contains(answers.name, \"lob\")", true},
		{"len(answers.clouds)", dec("2")},
		{"len(answers.name)", dec("6")},
		{"len(answers.missing)", dec("0")},
		{"answers.wifi ? answers.sites * 2 : 0", dec("6")},
		{"answers.missing ? 1 : 2", dec("2")},
		{"answers.missing > 3", false},
		{"answers.missing == null", true},
		{"answers.start >= \"2026-01-01\"", true},
		{"1.0 == 1", true},
		{"answers.sites === 3", true},
	} {
		got, err := eval(t, tc.src, m)
		require.NoError(t, err, tc.src)
		if d, ok := tc.want.(decimal.Decimal); ok {
			require.IsType(t, decimal.Decimal{}, got, tc.src)
			require.True(t, d.Equal(got.(decimal.Decimal)), "%s = %v, want %v", tc.src, got, d)
			continue
		}
		require.Equal(t, tc.want, got, tc.src)
	}
}

// Ensure what cannot be computed is an error that says why, never a
// panic or a wrong number.
func TestEvalProblems(t *testing.T) {
	m := map[string]any{"zero": dec("0"), "name": "Globex", "clouds": []string{"aws"}, "big": dec("999999999999999999999999999999")}
	for _, tc := range []struct{ src, want string }{
		{"1 / answers.zero", "division by zero: answers.zero is 0"},
		{"1 / (answers.zero * 2)", "division by zero"},
		{"answers.missing * 2", "answers.missing has no value"},
		{"answers.name + 1", "answers.name is a text, not a number"},
		{"answers.big * answers.big", "a number is too large"},
		{"answers.big + 1", "a number is too large"},
		{"answers.clouds < 2", "compares numbers or texts"},
		{"1 < \"a\"", "compares a number with a text"},
		{"round(1, 0.5)", "round's places must be a whole number"},
		{"round(1, 21)", "round's places must be a whole number"},
		{"len(1)", "len takes a list or a text"},
	} {
		_, err := eval(t, tc.src, m)
		require.ErrorContains(t, err, tc.want, tc.src)
	}
}

// Ensure the parser's bounds hold for arithmetic, and that templates'
// syntax still refuses arithmetic.
func TestParseBounds(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40), "nested too deeply"},
		{strings.Repeat("-", 40) + "1", "nested too deeply"},
		{strings.Repeat("1+", 600) + "1", "at most 1000 characters"},
		{"1234567890123456789012345678901", "more than 30 digits"},
		{"sqrt(4)", `unknown function "sqrt"`},
		{"ceil(1, 2)", "ceil takes 1 argument(s)"},
		{"min()", "min takes at least 1 argument(s)"},
		{"ceil(1", "missing , or )"},
		{"1 | money", `unexpected "|"`},
		{"1 +", "incomplete expression"},
	} {
		_, err := expr.Parse(tc.src, expr.Formula)
		require.ErrorContains(t, err, tc.want, tc.src)
	}
	tmpl := &expr.Syntax{MaxDepth: 50}
	for _, tc := range []struct{ src, want string }{
		{"a * b", `unexpected '*'`},
		{"a / b", `unexpected '/'`},
		{"-a", "- may only lead a number"},
		{"ceil(a)", `unexpected "("`},
	} {
		_, err := expr.Parse(tc.src, tmpl)
		require.ErrorContains(t, err, tc.want, tc.src)
	}
	// a template's path may hold a dash; a negative number stays one
	n, err := expr.Parse("a-b + -1", tmpl)
	require.NoError(t, err)
	require.Equal(t, []string{"a-b"}, n.Args[0].Path)
	require.Equal(t, "-1", fmt.Sprint(n.Args[1].Lit))
}

// typeEnv is a questionnaire of a few questions, for Check.
var typeEnv = &expr.Env{
	Path: func(p []string) (expr.Type, error) {
		if len(p) != 2 || p[0] != "answers" {
			return expr.Any, fmt.Errorf("a path is answers.<question>")
		}
		switch p[1] {
		case "users":
			return expr.Number, nil
		case "cloud":
			return expr.Text, nil
		case "clouds":
			return expr.List, nil
		case "wifi":
			return expr.Bool, nil
		}
		return expr.Any, fmt.Errorf("no question %s", p[1])
	},
	Options: func(p []string) []string {
		if p[1] == "cloud" || p[1] == "clouds" {
			return []string{"aws", "azure"}
		}
		return nil
	},
}

// Ensure Check finds before any answer what can never work.
func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want expr.Type
	}{
		{"ceil(answers.users / 50)", expr.Number},
		{"answers.wifi && answers.users > 10", expr.Bool},
		{"answers.cloud == \"aws\"", expr.Bool},
		{"contains(answers.clouds, 'azure')", expr.Bool},
		{"answers.wifi ? 1 : 2", expr.Number},
		{"answers.wifi ? 1 : 'x'", expr.Any},
		{"len(answers.clouds) * 2", expr.Number},
	} {
		n, err := expr.Parse(tc.src, expr.Formula)
		require.NoError(t, err)
		got, err := expr.Check(n, typeEnv)
		require.NoError(t, err, tc.src)
		require.Equal(t, tc.want, got, tc.src)
	}
	for _, tc := range []struct{ src, want string }{
		{"answers.nope + 1", "no question nope"},
		{"project.name", "a path is answers.<question>"},
		{"answers.cloud + 1", "answers.cloud is a text: + computes with numbers"},
		{"answers.users == 'x'", "== compares a number with a text"},
		{"answers.cloud == 'gcp'", `"gcp" is not an option of answers.cloud (the options are aws, azure)`},
		{"contains(answers.clouds, 'gcp')", `"gcp" is not an option of answers.clouds`},
		{"contains(answers.users, 'x')", "contains looks in a list or a text, not in a number"},
		{"answers.clouds > 1", "compares a list with a number"},
		{"ceil(answers.wifi)", "answers.wifi is true or false: ceil takes numbers"},
		{"len(answers.users)", "len takes a list or a text, not a number"},
		{"this", "a path is written in full"},
		{".users", "a path is written in full"},
		{"answers[0]", "is not supported here"},
		{"$index", "is not supported here"},
	} {
		n, err := expr.Parse(tc.src, expr.Formula)
		require.NoError(t, err, tc.src)
		_, err = expr.Check(n, typeEnv)
		require.ErrorContains(t, err, tc.want, tc.src)
	}
}

// Ensure the longest and deepest expressions the syntax admits parse,
// check and evaluate fast (BenchmarkHostileExpression: about 0.2 ms each;
// the bound here leaves room for the race detector on a busy machine):
// evaluation is linear in the expression and every number keeps a
// bounded size.
func TestHostileExpressionsAreFast(t *testing.T) {
	m := map[string]any{"users": dec("999999999999999")}
	for _, src := range hostile() {
		start := time.Now()
		n, err := expr.Parse(src, expr.Formula)
		require.NoError(t, err, src[:40])
		_, err = expr.Check(n, typeEnv)
		require.NoError(t, err)
		_, _ = expr.Eval(n, answers(m))
		require.Less(t, time.Since(start), 500*time.Millisecond, src[:40])
	}
}

// hostile are expressions of the most the syntax admits: the longest
// chains of products, quotients and sums over large numbers, and the
// deepest nesting.
func hostile() []string {
	chain := func(op, operand string) string {
		var b strings.Builder
		b.WriteString(operand)
		for b.Len()+len(op)+len(operand) <= 1000 {
			b.WriteString(op + operand)
		}
		return b.String()
	}
	return []string{
		chain("*", "answers.users"),
		chain("/", "3"),
		chain("+", "answers.users"),
		chain("-", "999999999999999"),
		chain("*", "1.0000000000000000001"),
		strings.Repeat("ceil(", 31) + "answers.users" + strings.Repeat(")", 31),
		strings.Repeat("(", 31) + "answers.users" + strings.Repeat(")", 31),
		chain("&&", "answers.users > 1"),
	}
}

// BenchmarkHostileExpression measures parsing, checking and evaluating
// the most expensive expressions the syntax admits.
func BenchmarkHostileExpression(b *testing.B) {
	m := map[string]any{"users": dec("999999999999999")}
	srcs := hostile()
	for b.Loop() {
		for _, src := range srcs {
			n, err := expr.Parse(src, expr.Formula)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := expr.Check(n, typeEnv); err != nil {
				b.Fatal(err)
			}
			_, _ = expr.Eval(n, answers(m))
		}
	}
}

// FuzzParseEval: any text parses or is refused, and what parses checks
// and evaluates, under both syntaxes, without a panic.
func FuzzParseEval(f *testing.F) {
	for _, s := range []string{"ceil(answers.users / 50)", "a ? b : c", "contains(answers.x, 'y')", "1/0", "-(-(1))", "a | money:2", "{#a}"} {
		f.Add(s)
	}
	tmpl := &expr.Syntax{Filter: func(*expr.Node) error { return nil }, MaxDepth: 50, MaxOperands: 1000}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = expr.Parse(s, tmpl)
		n, err := expr.Parse(s, expr.Formula)
		if err != nil {
			return
		}
		_, _ = expr.Check(n, typeEnv)
		_, _ = expr.Eval(n, answers(map[string]any{"users": dec("3"), "clouds": []string{"aws"}}))
	})
}
