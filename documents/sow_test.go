package documents_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/stretchr/testify/require"
)

// schema returns every path of v2 merge data, from its Go types: list
// items are addressed without an index; open maps (user_defined_fields)
// are marked with a trailing ".*".
func schema() map[string]bool {
	paths := map[string]bool{}
	fixed := reflect.TypeFor[pricing.Fixed]()
	table := reflect.TypeFor[pricing.ResourceTable]()
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		if prefix != "" {
			paths[prefix] = true
		}
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		join := func(name string) string {
			if prefix == "" {
				return name
			}
			return prefix + "." + name
		}
		switch {
		case t == fixed:
		case t == table: // encoded as one list: the rows, then the total row
			walk(reflect.TypeFor[pricing.ResourceRow](), prefix)
			walk(reflect.TypeFor[pricing.ResourceTotal](), prefix)
		case t.Kind() == reflect.Map:
			paths[join("*")] = true
		case t.Kind() == reflect.Struct:
			for f := range t.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				walk(f.Type, join(name))
			}
		}
	}
	walk(reflect.TypeFor[mergedata.V2](), "")
	return paths
}

// Ensure every tag of the Standard SOW reads a path v2 merge data has,
// resolved as Render resolves it: in the innermost loop's items first,
// then outward; and that the check finds a path that is not there.
func TestStandardSOWPathsExist(t *testing.T) {
	tags, err := documents.Tags(context.Background(), documents.StandardSOW())
	require.NoError(t, err)
	require.NotEmpty(t, tags)
	require.NoError(t, missingPath(t, documents.StandardSOW()))
	for _, bad := range []string{"{project.nope}", "{#phases}{#services}{hourz}{/services}{/phases}", "{#locations}{subservices}{/locations}"} {
		require.Error(t, missingPath(t, template(t, p("{project.project_name}", "{#phases}{services.length}{/phases}", bad))), bad)
	}
	require.NoError(t, missingPath(t, template(t, p("{#phases}{#services}{currency.unit}{name}{/services}{/phases}{project.user_defined_fields.region}"))))
}

// missingPath returns an error naming the first tag path of tpl that v2
// merge data does not have.
func missingPath(t *testing.T, tpl []byte) error {
	scoped, err := documents.TagScopes(tpl)
	require.NoError(t, err)
	paths := schema()
	has := func(p string) bool {
		if paths[p] {
			return true
		}
		for i := strings.LastIndex(p, "."); i > 0; i = strings.LastIndex(p[:i], ".") {
			if paths[p[:i]+".*"] {
				return true
			}
		}
		return false
	}
	// resolve qualifies p in scopes (already qualified), innermost first.
	resolve := func(p string, scopes []string) (string, bool) {
		for i := len(scopes) - 1; i >= 0; i-- {
			if q := scopes[i] + "." + p; has(q) {
				return q, true
			}
		}
		return p, has(p)
	}
	for _, sp := range scoped {
		var quals []string
		for _, s := range sp.Scopes {
			q, ok := resolve(s, quals)
			if !ok {
				return fmt.Errorf("the loop path %q is not in v2 merge data", s)
			}
			quals = append(quals, q)
		}
		if _, ok := resolve(sp.Path, quals); !ok {
			return fmt.Errorf("the tag path %q (inside %v) is not in v2 merge data", sp.Path, sp.Scopes)
		}
	}
	return nil
}

// sowText renders the Standard SOW for a snapshot and returns its body's
// text.
func sowText(t *testing.T, e *env) (docx []byte, text string) {
	t.Helper()
	snap := e.demo()
	out, err := documents.Render(context.Background(), documents.StandardSOW(), mergedata.BuildV2(snap, now))
	require.NoError(t, err)
	return out, plain(entry(t, out, "word/document.xml"))
}

// Ensure the Standard SOW filled for the worked example of pricing.md
// shows the project, its phases, services and subservices, and every
// figure of the contract the client signs; and, being the client's copy,
// no cost, profit or margin.
func TestStandardSOWDemo(t *testing.T) {
	e := mustEnv(t)
	out, text := sowText(t, e)
	for _, want := range []string{
		demodata.ProjectName, "Globex Corporation", "Acme Consulting", "November 22, 2026",
		"Assess Globex's network and replace its perimeter firewalls.",
		"Plan", "Implement", "Assessment", "Site survey", "Report", "Firewall deployment",
		"Project management", "Kickoff", "Airfare", "Per diem", "Firewall appliance",
		"$9669.25", "$1125.00", "$10794.25", "$1569.25", "$3999.98", "48.86", "29.37", "19.49",
		"Payment term: Fixed fee.", "Travel and expenses are part of the contract value.",
		"Materials are quoted for information", "All amounts are in USD.",
	} {
		require.Contains(t, text, want)
	}
	for _, cost := range []string{"5696.30", "5097.95", "0.4723", "4616.30", "5052.95"} {
		require.NotContains(t, text, cost)
	}
	require.NotContains(t, text, "{")
	// The footer names the project; the first page has none.
	require.Contains(t, plain(entry(t, out, "word/footer1.xml")), demodata.ProjectName+" · Statement of Work")
	// Hardware excluded: no materials row in the pricing summary.
	require.NotContains(t, text, "|Materials|$3999.98")
	require.Contains(t, text, "|Total contract value|$10794.25")
	require.Contains(t, text, "|Travel and expense|$1125.00")
}

// Ensure the Standard SOW converts to PDF and looks right page by page
// (skipped without LibreOffice's soffice and poppler's pdftoppm and
// pdftotext), by a soffice of its own and by the warm converter alike:
// the same text, the same pages. With -update it rewrites
// testdata/standard-sow-page1.png, the page a person looks at.
func TestStandardSOWPDF(t *testing.T) {
	lo, err := documents.NewLibreOffice("")
	if err != nil {
		t.Skipf("no PDF converter: %v", err)
	}
	for _, prog := range []string{"pdftoppm", "pdftotext"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not installed (Debian: poppler-utils)", prog)
		}
	}
	e := mustEnv(t)
	docx, _ := sowText(t, e)
	pdf, err := lo.ToPDF(t.Context(), docx)
	require.NoError(t, err)
	text, pages := checkSOWPDF(t, pdf)
	if *update {
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "standard-sow-page1.png"), pages[0], 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(os.TempDir(), "standard-sow-page2.png"), pages[1], 0o644))
	}

	pool := officePool(t, 1)
	pdf, err = pool.ToPDF(t.Context(), docx)
	require.NoError(t, err)
	warm, _ := pool.Counts()
	require.Equal(t, int64(1), warm)
	warmText, warmPages := checkSOWPDF(t, pdf)
	require.Equal(t, text, warmText, "the warm converter's PDF reads the same")
	require.Equal(t, pages, warmPages, "the warm converter's pages look the same")
}

// checkSOWPDF checks the demo SOW's PDF and returns its text and its
// first two pages as PNG.
func checkSOWPDF(t *testing.T, pdf []byte) (string, [][]byte) {
	t.Helper()
	require.True(t, strings.HasPrefix(string(pdf), "%PDF"))
	dir := t.TempDir()
	pdfPath := filepath.Join(dir, "sow.pdf")
	require.NoError(t, os.WriteFile(pdfPath, pdf, 0o644))
	txt, err := exec.Command("pdftotext", "-layout", pdfPath, "-").Output()
	require.NoError(t, err)
	for _, want := range []string{demodata.ProjectName, "Statement of Work", "$10794.25", "Page 2 of"} {
		require.Contains(t, string(txt), want)
	}
	require.NoError(t, exec.Command("pdftoppm", "-r", "60", "-png", "-f", "1", "-l", "2", pdfPath, filepath.Join(dir, "page")).Run())
	files, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	require.Len(t, files, 2)
	var pages [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		pages = append(pages, b)
	}
	return string(txt), pages
}
