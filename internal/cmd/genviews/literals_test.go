package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/scoping"
)

// recordArgs are the calls whose first string argument names a record
// type, attribute or relationship (a method of engine.Record, a Call or
// Tx, or a function of the engine).
var recordArgs = map[string]bool{
	"Str": true, "Bool": true, "Int": true, "Dec": true, "DecOK": true, "Rel": true, "SetRel": true,
	"Strings": true, "Object": true, "FieldValues": true, "Eq": true, "Lookup": true, "NewRecord": true,
	"Find": true, "ReadableType": true, "WritableType": true, "LookupType": true, "Given": true,
}

// recordFields are the composite-literal fields that hold a type,
// attribute or relationship name.
var recordFields = map[string]bool{"Type": true, "Field": true}

// engineOwn are the names the engine itself gives every type that has
// them (engine.Schema.Register) and the role attribute its guards read.
var engineOwn = map[string]bool{"active": true, "created-at": true, "updated-at": true, "permissions": true}

// Ensure no code outside the declarations and generated code names a
// declared type, attribute or relationship with a string literal where
// it reads or queries records: it uses the constants of scoping/views.
// Declarations are the bodies of the declare* functions of package
// scoping. The engine may name only its own attributes.
func TestNoNameLiterals(t *testing.T) {
	names := map[string]bool{}
	for _, def := range scoping.DefaultSchema().Types() {
		names[def.Name] = true
		for _, a := range def.Attrs {
			names[a.Name] = true
		}
		for _, r := range def.Rels {
			names[r.Name] = true
		}
	}
	root := "../../.."
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != root) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "Code generated") && strings.Contains(string(src), "DO NOT EDIT") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		inEngine := strings.HasPrefix(rel, "engine/")
		lit := func(e ast.Expr) {
			bl, ok := e.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return
			}
			if v, err := strconv.Unquote(bl.Value); err == nil && names[v] && !(inEngine && engineOwn[v]) {
				p := fset.Position(bl.Pos())
				found = append(found, rel+":"+strconv.Itoa(p.Line)+": "+bl.Value)
			}
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && f.Name.Name == "scoping" && strings.HasPrefix(fn.Name.Name, "declare") {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					name := ""
					switch fn := n.Fun.(type) {
					case *ast.SelectorExpr:
						name = fn.Sel.Name
					case *ast.Ident:
						name = fn.Name
					}
					if recordArgs[name] {
						for _, a := range n.Args {
							lit(a)
						}
					}
				case *ast.IndexExpr:
					if sel, ok := n.X.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Attrs" || sel.Sel.Name == "Rels") {
						lit(n.Index)
					}
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok && recordFields[k.Name] {
						lit(n.Value)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
	if len(found) > 0 {
		t.Logf("%d names written as literals: use the constants of scoping/views", len(found))
	}
}
