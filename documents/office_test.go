package documents_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/stretchr/testify/require"
)

// slidesText returns the text of each slide of a PPTX, a line per
// paragraph, a "|" between table cells.
func slidesText(t *testing.T, pptx []byte) []string {
	t.Helper()
	var out []string
	for i := 1; ; i++ {
		name := fmt.Sprintf("ppt/slides/slide%d.xml", i)
		if !hasEntry(t, pptx, name) {
			return out
		}
		x := string(entry(t, pptx, name))
		x = regexp.MustCompile(`</a:tc>`).ReplaceAllString(x, "|")
		x = regexp.MustCompile(`</a:p>|<a:br/>`).ReplaceAllString(x, "\n")
		x = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(strings.ReplaceAll(x, "</a:tr>", "\n"), "")
		x = strings.ReplaceAll(x, "\n|", "|")
		out = append(out, strings.TrimSpace(unescape.Replace(x)))
	}
}

var unescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&quot;", `"`, "&#39;", "'")

// hasEntry reports whether the zip b has the entry name.
func hasEntry(t testing.TB, b []byte, name string) bool {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	for _, f := range zr.File {
		if f.Name == name {
			return true
		}
	}
	return false
}

// proposal renders the Standard proposal for the demo project.
func proposal(t *testing.T) []byte {
	t.Helper()
	e := mustEnv(t)
	out, err := documents.RenderFormat(context.Background(), documents.FormatPPTX, documents.StandardProposal(), mergedata.BuildV2(e.demo(), now))
	require.NoError(t, err)
	return out
}

// Ensure every tag of the Standard proposal reads a path v2 merge data
// has, and that the proposal filled for the demo project shows the
// project, the client, the summary, the services and the contract total.
func TestStandardProposalDemo(t *testing.T) {
	tags, err := documents.TagsFormat(context.Background(), documents.FormatPPTX, documents.StandardProposal())
	require.NoError(t, err)
	require.Contains(t, tags, "project.project_name")
	require.NoError(t, missingPath(t, documents.StandardProposal()))
	slides := slidesText(t, proposal(t))
	require.Len(t, slides, 4)
	t.Log(strings.Join(slides, "\n----\n"))
	all := strings.Join(slides, "\n")
	require.NotContains(t, all, "{")
	for _, want := range []string{demodata.ProjectName, "Prepared for Globex Corporation", "Acme Consulting", "November 22, 2026"} {
		require.Contains(t, slides[0], want)
	}
	require.Contains(t, slides[1], "Assess Globex's network and replace its perimeter firewalls.")
	require.Contains(t, slides[2], "Firewall deployment|1.00|16.25|$3,250.00|")
	require.Contains(t, slides[2], "Professional services||48.86|$9,669.25|")
	require.Contains(t, slides[3], "Contract total (USD)|$10,794.25|")
}

// pdfText converts an Office file to PDF (skipping without LibreOffice and
// poppler) and returns the PDF's path and its text. The warm converter
// (office.Pool) converts it too, where python3-uno is installed,
// and its PDF must read the same.
func pdfText(t *testing.T, file []byte) (string, string) {
	t.Helper()
	lo := officetest.Cold(t)
	for _, prog := range []string{"pdftoppm", "pdftotext"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not installed (Debian: poppler-utils)", prog)
		}
	}
	text := func(pdf []byte) (string, string) {
		path := filepath.Join(t.TempDir(), "out.pdf")
		require.NoError(t, os.WriteFile(path, pdf, 0o644))
		txt, err := exec.Command("pdftotext", "-layout", path, "-").Output()
		require.NoError(t, err)
		return path, string(txt)
	}
	pdf, err := lo.ToPDF(t.Context(), file)
	require.NoError(t, err)
	path, txt := text(pdf)

	pool := officetest.Warm(t, 1)
	pdf, err = pool.ToPDF(t.Context(), file)
	require.NoError(t, err)
	warm, cold := pool.Counts()
	require.Equal(t, [2]int64{1, 0}, [2]int64{warm, cold}, "converted by a listener")
	_, warmTxt := text(pdf)
	require.Equal(t, txt, warmTxt, "the warm converter's PDF reads the same")
	return path, txt
}

// Ensure the Standard proposal converts to PDF, a page per slide (skipped
// without LibreOffice's soffice, with its impress package, and poppler).
// With -update it rewrites testdata/standard-proposal-slide*.png, the
// slides a person looks at.
func TestStandardProposalPDF(t *testing.T) {
	path, txt := pdfText(t, proposal(t))
	for _, want := range []string{demodata.ProjectName, "Prepared for Globex Corporation", "Firewall deployment", "$10,794.25"} {
		require.Contains(t, txt, want)
	}
	dir := filepath.Dir(path)
	require.NoError(t, exec.Command("pdftoppm", "-r", "40", "-png", path, filepath.Join(dir, "slide")).Run())
	pages, _ := filepath.Glob(filepath.Join(dir, "slide*.png"))
	require.Len(t, pages, 4)
	if *update {
		for i, p := range pages {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join("testdata", fmt.Sprintf("standard-proposal-slide%d.png", i+1)), b, 0o644))
		}
	}
}
