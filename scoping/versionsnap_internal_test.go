package scoping

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/stretchr/testify/require"
)

// Ensure a stored version that is not what was frozen is refused, never
// misread: a blob that is not gzip, one whose bytes do not match the
// version's digest, another format, and bytes that end early.
func TestReadSnapshotRefusesDamage(t *testing.T) {
	raw := []byte(`{"format":1,"lines":{"project-phases":[{"id":"2","attributes":{"name":"Plan \"1\""}}]},"pricing":{"phases":[]},"project":{"id":"1","attributes":{}}}`)
	blob, err := compressSnapshot(raw)
	require.NoError(t, err)
	s, err := readSnapshot(blob, digestOf(raw))
	require.NoError(t, err)
	require.Len(t, s.Lines["project-phases"], 1)
	id, ok := lineID(s.Lines["project-phases"][0])
	require.True(t, ok)
	require.Equal(t, "2", id)

	for name, tc := range map[string]struct {
		blob   []byte
		digest string
	}{
		"not gzip":     {[]byte("fixture"), ""},
		"wrong digest": {blob, digestOf([]byte("other"))},
	} {
		_, err := readSnapshot(tc.blob, tc.digest)
		require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err), name)
	}
	for _, bad := range []string{`{"format":2,"lines":{},"pricing":{},"project":{}}`, `{"format":1}`, `{"format":1,"lines":{"x":[{"id":"1"`,
		`{"format":1,"lines":{},"pricing":`, `{"format":1,"lines":{},"pricing":{},"project":[`, `nope`, `{"format":x,`} {
		_, err := decodeScope([]byte(bad))
		require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err), bad)
	}
	_, ok = lineID(json.RawMessage(`{"attributes":{}}`))
	require.False(t, ok)
	_, ok = lineID(json.RawMessage(`{"id":"12`))
	require.False(t, ok)
	require.Equal(t, -1, valueEnd([]byte(`"open`)))
	require.Equal(t, 3, valueEnd([]byte(`123`)))
}

// Ensure the canonical writer writes each kind of value a record holds as
// JSON a reader reads back the same.
func TestAppendValue(t *testing.T) {
	for _, v := range []any{"a\"b\\c\n\r\t\x01", true, json.Number("12"), int64(-3), 7, map[string]any{"b": 1, "a": []any{"x"}}, []any{"y", json.Number("2")}} {
		b := appendValue(nil, v)
		var back any
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		want, _ := json.Marshal(v)
		var w any
		require.NoError(t, json.Unmarshal(want, &w))
		require.Equal(t, w, back)
	}
	require.Equal(t, "null", string(appendValue(nil, func() {})))
}
