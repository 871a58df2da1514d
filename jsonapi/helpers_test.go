package jsonapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/internal/jsonapitest"
	"github.com/scopekit/scopekit/jsonapi"
)

// schemaDir is the official JSON:API schema and its test vectors, beside the
// repository (../shared from the repository root).
const schemaDir = "../../shared/jsonapi-schema"

// vectorDir returns a folder of schema test vectors, skipping the test when
// the shared folder is absent (a user's clone has no ../shared).
func vectorDir(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join(schemaDir, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("JSON:API schema not found at %s: %v", dir, err)
	}
	return dir
}

// vectors returns the .json files under dir, read, by path relative to dir.
func vectors(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = b
		return err
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "no vectors under %s", dir)
	return out
}

// encode marshals d, checks that Write produces the same bytes plus a
// newline, and checks the result against the JSON:API schema.
func encode(t *testing.T, d *jsonapi.Document) []byte {
	t.Helper()
	got, err := d.MarshalJSON()
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, jsonapi.Write(&buf, d))
	require.Equal(t, string(got)+"\n", buf.String(), "Write and MarshalJSON disagree")
	require.True(t, json.Valid(got), "invalid JSON: %s", got)
	schemaValid(t, got)
	return got
}

// schemaValid checks body against the JSON:API schema in a subtest, so that
// only that check is skipped when the schema is absent.
func schemaValid(t *testing.T, body []byte) {
	t.Helper()
	t.Run("schema", func(t *testing.T) {
		jsonapitest.Validator(t)(t, body)
	})
}

// recordingTB stands in for a test so that a failing validation can be
// asserted instead of failing the real test.
type recordingTB struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
}

func (r *recordingTB) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

// asError returns err as *jsonapi.Error, failing the test when it is not one.
func asError(t testing.TB, err error) *jsonapi.Error {
	t.Helper()
	var e *jsonapi.Error
	require.True(t, errors.As(err, &e), "want *jsonapi.Error, got %T %v", err, err)
	return e
}

// errorDocument is the document the HTTP adapter would answer with for e.
func errorDocument(e *jsonapi.Error) *jsonapi.Document {
	return &jsonapi.Document{Errors: []*jsonapi.ErrorObject{{
		Status: strconv.Itoa(e.Status),
		Title:  http.StatusText(e.Status),
		Detail: e.Detail,
		Source: &jsonapi.ErrorSource{Pointer: e.Pointer, Parameter: e.Parameter},
	}}}
}

// pointerRE is the schema's pattern for source.pointer.
var pointerRE = regexp.MustCompile(`^(?:/(?:[^~/]|~0|~1)*)*$`)

// memberNameRE is the schema's member-name pattern plus the "psa?" allowance.
var memberNameRE = regexp.MustCompile(`^[a-zA-Z0-9](?:[-\w]*[a-zA-Z0-9])?\??$`)
