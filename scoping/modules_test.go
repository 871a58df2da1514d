package scoping

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/modtable"
)

// Ensure the table of modules in docs/architecture.md says where things
// are: every file of the package is in one row, every declare* function
// of declarations is in the row of its file, and each row's types are
// those its functions declare.
func TestModuleTable(t *testing.T) {
	mods, err := modtable.Read(filepath.Join("..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	rowOf := map[string]string{} // file → module
	for _, m := range mods {
		for _, f := range m.Files {
			if prev, ok := rowOf[f]; ok {
				t.Errorf("%s is in two modules: %s and %s", f, prev, m.Name)
			}
			rowOf[f] = m.Name
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := rowOf[f]; !ok && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s is in no module of the table", f)
		}
	}
	for f, m := range rowOf {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("module %s names %s, which is not a file of the package", m, f)
		}
	}

	declaredBy := map[string]string{} // declare* function → module
	for _, m := range mods {
		for _, d := range m.Declares {
			declaredBy[d] = m.Name
		}
	}
	types := map[string][]string{} // module → the types its functions declare
	for _, declare := range declarations {
		fn := runtime.FuncForPC(reflect.ValueOf(declare).Pointer())
		name := fn.Name()[strings.LastIndex(fn.Name(), ".")+1:]
		file, _ := fn.FileLine(fn.Entry())
		m, ok := declaredBy[name]
		switch {
		case !ok:
			t.Errorf("%s is in no module of the table", name)
			continue
		case rowOf[filepath.Base(file)] != m:
			t.Errorf("%s is in module %s, its file %s in %q", name, m, filepath.Base(file), rowOf[filepath.Base(file)])
		}
		delete(declaredBy, name)
		s := engine.NewSchema(Permissions...)
		declare(s)
		for _, def := range s.Types() {
			types[m] = append(types[m], def.Name)
		}
	}
	for name := range declaredBy {
		t.Errorf("the table names %s, which declarations does not list", name)
	}
	for _, m := range mods {
		want := slices.Sorted(slices.Values(types[m.Name]))
		if got := slices.Sorted(slices.Values(m.Types)); !slices.Equal(got, want) {
			t.Errorf("module %s: the table says types %v, its functions declare %v", m.Name, got, want)
		}
	}
}
