package documents_test

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure package documents stays the pure template engine: of this
// module's packages it depends, directly or not, on the root package only,
// never on the domain (scoping, pricing, mergedata, approval, auth,
// webhook, workbook), a store or an adapter.
func TestImportsNoDomain(t *testing.T) {
	const module = "github.com/scopekit/scopekit"
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	via := map[string]string{module + "/documents": ""} // package -> its importer
	queue := []string{module + "/documents"}
	for len(queue) > 0 {
		path := queue[0]
		queue = queue[1:]
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, module), "/")))
		pkg, err := build.ImportDir(dir, 0)
		require.NoError(t, err, path)
		for _, imp := range pkg.Imports {
			if _, seen := via[imp]; seen || (imp != module && !strings.HasPrefix(imp, module+"/")) {
				continue
			}
			via[imp] = path
			queue = append(queue, imp)
		}
	}
	var bad []string
	for pkg, importer := range via {
		if pkg != module && pkg != module+"/documents" {
			bad = append(bad, pkg+" (imported by "+importer+")")
		}
	}
	slices.Sort(bad)
	require.Empty(t, bad, "documents depends on module packages other than the root")
}
