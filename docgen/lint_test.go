package docgen_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/require"
)

// Ensure the configured lint checks against v2 merge data: the built-in
// Standard SOW and Standard proposal have no problems, a misspelled path
// has one with the nearest path.
func TestConfigLint(t *testing.T) {
	lint := docgen.New(nil).Config().Lint
	require.NotNil(t, lint)
	problems, err := lint(context.Background(), documents.FormatDOCX, documents.StandardSOW())
	require.NoError(t, err)
	require.Empty(t, problems)
	problems, err = lint(context.Background(), documents.FormatPPTX, documents.StandardProposal())
	require.NoError(t, err)
	require.Empty(t, problems)
	problems, err = lint(context.Background(), documents.FormatDOCX, docxtest.Build("{#phases}{#services}{revenu | money}{/services}{/phases}"))
	require.NoError(t, err)
	require.Equal(t, []string{"unknown path revenu in {revenu | money} in paragraph 1: did you mean revenue?"}, problems)
}
