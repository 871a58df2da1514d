package scopekit_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Ensure go.mod declares the lowest Go version the module can: the
// highest go line among the modules it requires (the go command refuses
// a lower one), which is also the version the module's own code may use
// the features of. A module that imports this one (the client's users)
// must declare at least this version, so it is never raised beyond what
// a dependency demands (docs/client.md, "Go version").
func TestGoDirective(t *testing.T) {
	declared := goLine(t)
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goBin, "list", "-m", "-f", "{{if not .Main}}{{.GoVersion}} {{.Path}}{{end}}", "all").Output()
	if err != nil {
		t.Skipf("go list -m all: %v (no module cache?)", err)
	}
	highest, by := "1.0", ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		v, path, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if ok && v != "" && compareGo(v, highest) > 0 {
			highest, by = v, path
		}
	}
	if compareGo(declared, highest) != 0 {
		t.Fatalf("go.mod declares go %s; the modules it requires need %s (%s): declare that", declared, highest, by)
	}
}

// goLine returns the version of go.mod's go directive.
func goLine(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "go "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("go.mod has no go directive")
	return ""
}

// compareGo compares Go versions of the form 1.N or 1.N.P (a missing
// part is 0).
func compareGo(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(pa), len(pb)) {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}
