package scopekit_test

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/scopekit/scopekit"

// layers lists, for the packages whose place in the layering is a rule
// (docs/architecture.md), every package of this module they may depend
// on, directly or not. The root package is always allowed, and so are the
// internal packages, whose own dependencies are held to the same list.
var layers = map[string][]string{
	"engine":        {},
	"scoping/views": {"engine", "pricing"},
	"pricing":       {},
	"approval":      {},
	"jsonapi":       {},
	"client":        {"jsonapi"},
	"expr":          {},
	"documents":     {"expr"},
	"office":        {},
	"webhook":       {"engine", "scoping/views", "pricing"},
	"mergedata":     {"engine", "scoping/views", "pricing"},
	"workbook":      {"engine", "scoping/views", "pricing", "mergedata"},
	"catalogimport": {"engine", "scoping/views", "pricing"},
	// the workspace: an adapter over the use cases (scoping, auth, sso,
	// the catalog import) that reads typed views and builds merge data; never a store, the
	// engine's storage, another adapter or jsonapi
	"webapp": {"scoping", "scoping/views", "engine", "pricing", "approval", "expr", "auth", "sso", "mergedata", "internal/bounded", "catalogimport"},

	// the stores persist what the engine, auth and webhook declare, for
	// the schema they are opened with: no import of the domain
	"boltstore": {"engine", "auth", "webhook", "scoping/views", "pricing"},
	"pgstore":   {"engine", "auth", "webhook", "scoping/views", "pricing"},

	// the adapters call the use cases; neither reaches a store
	"httpadapter": {"scoping", "engine", "scoping/views", "pricing", "approval", "expr", "auth", "sso", "webhook",
		"jsonapi", "mergedata", "catalogimport"},
	"mcpadapter": {"scoping", "engine", "scoping/views", "pricing", "approval", "expr", "auth", "catalogimport"},
}

// adapters are the packages that serve the use cases over a protocol; no
// adapter depends on another.
var adapters = []string{"httpadapter", "mcpadapter", "webapp"}

// roots are the composition roots: each may import every package, and
// only programs (examples/...) and tests import it.
var roots = []string{"app"}

// noHTTP are packages that must not import net/http, directly.
var noHTTP = []string{"engine", "scoping", "scoping/views", "pricing", "approval", "mergedata", "documents", "office", "catalogimport", "expr"}

// Ensure each package depends only on the layers below it.
func TestLayers(t *testing.T) {
	for pkg, allowed := range layers {
		for dep, importer := range deps(t, pkg) {
			if dep != "" && !strings.HasPrefix(dep, "internal/") && !slices.Contains(allowed, dep) {
				t.Errorf("%s depends on %s (imported by %s)", pkg, dep, importer)
			}
		}
	}
	for _, pkg := range adapters {
		for dep, importer := range deps(t, pkg) {
			if slices.Contains(adapters, dep) {
				t.Errorf("adapter %s depends on adapter %s (imported by %s)", pkg, dep, importer)
			}
		}
	}
	for _, pkg := range noHTTP {
		if slices.Contains(imports(t, pkg), "net/http") {
			t.Errorf("%s imports net/http", pkg)
		}
	}
	for _, pkg := range packages(t) {
		if strings.HasPrefix(pkg, "examples/") {
			continue
		}
		for _, root := range roots {
			if pkg != root && slices.Contains(imports(t, pkg), module+"/"+root) {
				t.Errorf("%s imports the composition root %s: only programs (examples/...) may", pkg, root)
			}
		}
	}
}

// packages lists the module's packages (directories with non-test Go
// files), relative to its root.
func packages(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != ".") {
			return filepath.SkipDir
		}
		if p, err := build.ImportDir(path, 0); err == nil && len(p.GoFiles) > 0 && path != "." {
			out = append(out, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// imports returns what the package at dir (relative to the module root)
// imports in its non-test files.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	p, err := build.ImportDir(filepath.FromSlash(dir), 0)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	return p.Imports
}

// deps returns the module's packages pkg depends on, directly or not
// ("" for the root), each with a package that imports it.
func deps(t *testing.T, pkg string) map[string]string {
	via := map[string]string{}
	queue := []string{pkg}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, imp := range imports(t, cur) {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if _, seen := via[rel]; seen || rel == pkg {
				continue
			}
			via[rel] = cur
			if rel != "" {
				queue = append(queue, rel)
			}
		}
	}
	return via
}

// maxLines is how long a file of the module may grow; past it, a file is
// split by concept (generated files are exempt).
const maxLines = 600

// Ensure no Go file of the module is longer than maxLines.
func TestFileLength(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || (strings.HasPrefix(n, ".") && path != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte("Code generated")) && bytes.Contains(src, []byte("DO NOT EDIT")) {
			return nil
		}
		if n := bytes.Count(src, []byte("\n")); n > maxLines {
			t.Errorf("%s has %d lines (at most %d)", path, n, maxLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Ensure the media types of the Office formats are written once, in
// internal/ooxml, and named from there elsewhere.
func TestMediaTypesOnce(t *testing.T) {
	literal := regexp.MustCompile(`"application/vnd\.openxmlformats-officedocument\.\w+ml\.\w+"`)
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if filepath.ToSlash(filepath.Dir(path)) != "internal/ooxml" && literal.Match(src) {
			t.Errorf("%s spells an Office media type (%s): name it from internal/ooxml", path, literal.Find(src))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// transactionAPI are the engine's names through which code would run its
// own transactions (and write records raw) rather than call a use case.
var transactionAPI = []string{"Engine", "Call", "Tx", "Store", "New", "BlobTx"}

// Ensure the adapters name none of the engine's transaction API: they
// call scoping.Service's use cases, which hold the domain's rules.
func TestAdaptersUseNoTransactions(t *testing.T) {
	for _, pkg := range adapters {
		files, err := filepath.Glob(filepath.Join(pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "engine" && slices.Contains(transactionAPI, sel.Sel.Name) {
					t.Errorf("%s names engine.%s: call a use case of scoping.Service instead", path, sel.Sel.Name)
				}
				return true
			})
		}
	}
}
