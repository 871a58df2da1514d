package mergedata_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/stretchr/testify/require"
)

// Ensure the demo project's v1 and v2 trees are those of the golden files:
// a field added later never changes another's value.
func TestGolden(t *testing.T) {
	e := mustEnv(t)
	snap := e.snapshot(e.seedDemo().ProjectID)
	for _, tc := range []struct {
		file string
		tree any
	}{
		{"demo_v1.json", mergedata.BuildV1(snap, now)},
		{"demo_v2.json", mergedata.BuildV2(snap, now)},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := json.MarshalIndent(tc.tree, "", "  ")
			require.NoError(t, err)
			golden(t, tc.file, append(b, '\n'))
		})
	}
}
