package expr

import (
	"fmt"
	"slices"
	"strings"
)

// Type is the kind of value an arithmetic expression gives.
type Type int

// The types Check tells apart; Any is a value whose kind is known only
// when evaluated (null, a ternary of two kinds).
const (
	Any Type = iota
	Number
	Text
	Bool
	List
)

func (t Type) String() string {
	return [...]string{"a value", "a number", "a text", "true or false", "a list"}[t]
}

// Env tells Check about the paths an expression reads.
type Env struct {
	// Path returns the type of the value at path, or why the path may
	// not be read.
	Path func(path []string) (Type, error)
	// Options returns the values a text or list at path may hold (nil:
	// any), so that a literal compared with it or looked for in it is
	// checked.
	Options func(path []string) []string
}

// Check returns the type of an arithmetic expression's value, or the
// first problem found before any answer is known: a path env refuses, an
// operand of the wrong type (a text in a sum, a list compared with a
// number), a literal that is none of a select's options, a construct
// that has no meaning outside templates (this, $index, a[b], filters).
func Check(n *Node, env *Env) (Type, error) {
	switch n.Op {
	case "lit":
		switch n.Lit.(type) {
		case string:
			return Text, nil
		case bool:
			return Bool, nil
		case nil:
			return Any, nil
		}
		return Number, nil
	case "path":
		if n.Rel || n.Path == nil {
			return Any, fmt.Errorf("%s: a path is written in full", n.Describe())
		}
		return env.Path(n.Path)
	case "!", "&&", "||":
		for _, k := range n.Kids() {
			if _, err := Check(k, env); err != nil {
				return Any, err
			}
		}
		return Bool, nil
	case "?:":
		if _, err := Check(n.A, env); err != nil {
			return Any, err
		}
		b, err := Check(n.B, env)
		if err != nil {
			return Any, err
		}
		c, err := Check(n.C, env)
		if err != nil || b != c {
			return Any, err
		}
		return b, nil
	case "==", "!=", "===", "!==":
		if _, err := comparable(n, env); err != nil {
			return Any, err
		}
		return Bool, nil
	case "<", ">", "<=", ">=":
		t, err := comparable(n, env)
		if err == nil && t != Any && t != Number && t != Text {
			err = fmt.Errorf("%s compares numbers or texts, not %s", n.Op, t)
		}
		return Bool, err
	case "neg", "+", "-", "*", "/":
		for _, k := range n.Kids() {
			if err := want(k, env, Number, n.Op+" computes with numbers"); err != nil {
				return Any, err
			}
		}
		return Number, nil
	case "call":
		return checkCall(n, env)
	}
	return Any, fmt.Errorf("%s is not supported here", n.Describe())
}

// want checks that n gives a value of type t (or one known only when
// evaluated); why says what needs it.
func want(n *Node, env *Env, t Type, why string) error {
	got, err := Check(n, env)
	if err != nil {
		return err
	}
	if got != Any && got != t {
		return fmt.Errorf("%s is %s: %s", n.Describe(), got, why)
	}
	return nil
}

// comparable checks the two sides of a comparison: of one type, and a
// literal compared with a select being one of its options.
func comparable(n *Node, env *Env) (Type, error) {
	a, err := Check(n.A, env)
	if err != nil {
		return Any, err
	}
	b, err := Check(n.B, env)
	if err != nil {
		return Any, err
	}
	if a != Any && b != Any && a != b {
		return Any, fmt.Errorf("%s compares %s with %s", n.Op, a, b)
	}
	if err := optionOf(n.A, n.B, env); err != nil {
		return Any, err
	}
	if err := optionOf(n.B, n.A, env); err != nil {
		return Any, err
	}
	if a == Any {
		return b, nil
	}
	return a, nil
}

// optionOf checks that lit, when it is a text literal, is one of the
// options of the path p (when p is a path with options).
func optionOf(p, lit *Node, env *Env) error {
	s, ok := lit.Lit.(string)
	if p.Op != "path" || lit.Op != "lit" || !ok || env.Options == nil {
		return nil
	}
	opts := env.Options(p.Path)
	if opts == nil || slices.Contains(opts, s) {
		return nil
	}
	return fmt.Errorf("%q is not an option of %s (the options are %s)", s, p.Describe(), strings.Join(opts, ", "))
}

func checkCall(n *Node, env *Env) (Type, error) {
	name := n.Path[0]
	switch name {
	case "ceil", "floor", "round", "min", "max":
		for _, a := range n.Args {
			if err := want(a, env, Number, name+" takes numbers"); err != nil {
				return Any, err
			}
		}
		return Number, nil
	case "contains":
		hay, err := Check(n.Args[0], env)
		if err != nil {
			return Any, err
		}
		if hay != Any && hay != List && hay != Text {
			return Any, fmt.Errorf("contains looks in a list or a text, not in %s", hay)
		}
		if err := want(n.Args[1], env, Text, "contains looks for a text"); err != nil {
			return Any, err
		}
		return Bool, optionOf(n.Args[0], n.Args[1], env)
	case "len":
		t, err := Check(n.Args[0], env)
		if err == nil && t != Any && t != List && t != Text {
			err = fmt.Errorf("len takes a list or a text, not %s", t)
		}
		return Number, err
	}
	return Any, fmt.Errorf("unknown function %q (the functions are %s)", name, FuncNames)
}
