package documents_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// Ensure the acceptance certificate is a PDF a reader reads back: the
// title, each label and value (a long digest wrapped, text outside
// Windows-1252 as "?", parentheses and backslashes kept), on as many
// pages as its rows need.
func TestCertificatePDF(t *testing.T) {
	digest := strings.Repeat("0123456789abcdef", 4)
	rows := [][2]string{{"Name", "Zoë O'Brien (CFO) \\ Ops"}, {"Document SHA-256", digest}, {"Chinese", "王"},
		{"Consent text (version 3)", strings.Repeat("I agree to the terms. ", 30)}}
	pdf, err := documents.CertificatePDF("Acceptance certificate", rows)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(pdf), "%PDF-1.4"))
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext is not installed (.ci/run installs poppler-utils)")
	}
	text := pdfToText(t, pdf)
	for _, want := range []string{"Acceptance certificate", "Zoë O'Brien (CFO) \\ Ops", digest[:40], "Chinese", "?", "I agree to the terms.", "page 1 of 1"} {
		require.Contains(t, text, want)
	}
	var many [][2]string
	for range 80 {
		many = append(many, [2]string{"Row", "value"})
	}
	pdf, err = documents.CertificatePDF("Long", many)
	require.NoError(t, err)
	require.Contains(t, pdfToText(t, pdf), "page 3 of 3")
}

func pdfToText(t *testing.T, pdf []byte) string {
	t.Helper()
	in := filepath.Join(t.TempDir(), "c.pdf")
	require.NoError(t, os.WriteFile(in, pdf, 0o600))
	out, err := exec.Command("pdftotext", "-layout", in, "-").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}
