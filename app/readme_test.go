package app_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure the Go block of the README's "Using the library" is code of
// Example, so that it compiles and runs.
func TestReadmeEmbeddingIsTheExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)## Using the library\n.*?```go\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, m, "README.md has no Go block under \"Using the library\"")
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	var body strings.Builder
	for _, line := range strings.SplitAfter(string(m[1]), "\n") {
		if strings.TrimSpace(line) != "" {
			body.WriteString("\t")
		}
		body.WriteString(line)
	}
	require.Contains(t, string(src), body.String(), "the README's block is not Example's code")
}
