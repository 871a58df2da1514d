// Package jsonapitest checks in tests that response bodies are valid JSON:API
// 1.0 documents, using the official schema kept beside the repository at
// ../shared/jsonapi-schema (see ../shared/README.md). A clone without that
// folder skips those tests instead of failing them; under CI (the CI
// environment variable set, as .ci/run sets it) a missing schema fails
// every test that would check a document, so that the check cannot turn
// itself off unseen.
package jsonapitest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// memberNamePattern is the schema's member-name pattern plus one optional
// trailing "?": the interface spec's attribute "psa?" is the one known
// deviation from JSON:API that the HTTP contract accepts.
const memberNamePattern = `^[a-zA-Z0-9]{1}(?:[-\w]*[a-zA-Z0-9])?\??$`

var (
	once     sync.Once
	compiled *jsonschema.Schema
	where    string // the schema path looked at, for messages
	errLoad  error
	missing  bool // the schema file is absent outside CI: skip, do not fail
)

// underCI reports whether the tests run in CI, where the schema must be
// there.
func underCI() bool { return os.Getenv("CI") != "" }

// Validator returns a function that fails tb when body is not a valid JSON:API
// document. The schema is found by walking up from the working directory to
// the directory holding go.mod and taking ../shared/jsonapi-schema/schema.json
// from there; it is compiled once per test binary. When the file is absent,
// Validator skips the calling test.
func Validator(tb testing.TB) func(tb testing.TB, body []byte) {
	tb.Helper()
	once.Do(load)
	switch {
	case missing:
		tb.Skipf("JSON:API schema not found at %s: %v", where, errLoad)
	case errLoad != nil:
		tb.Fatalf("JSON:API schema at %s: %v", where, errLoad)
	}
	return validate
}

func validate(tb testing.TB, body []byte) {
	tb.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		tb.Errorf("body is not JSON: %v\n%s", err, body)
		return
	}
	if err := compiled.Validate(doc); err != nil {
		tb.Errorf("body is not a valid JSON:API document: %v\n%s", err, body)
	}
}

func load() {
	root, err := moduleRoot()
	if err != nil {
		where, errLoad = "../shared/jsonapi-schema/schema.json", err
	} else {
		where = filepath.Join(filepath.Dir(root), "shared", "jsonapi-schema", "schema.json")
		compiled, errLoad = compile(where)
	}
	missing = errors.Is(errLoad, os.ErrNotExist) && !underCI()
	if errors.Is(errLoad, os.ErrNotExist) && underCI() {
		errLoad = fmt.Errorf("%w (CI is set: the JSON:API schema must be there, or no answer is schema-checked)", errLoad)
	}
}

// moduleRoot returns the nearest directory at or above the working directory
// that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod at or above the working directory: %w", os.ErrNotExist)
		}
		dir = parent
	}
}

func compile(path string) (*jsonschema.Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	if err := allowPSA(doc); err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	// Links must be absolute URIs ("format": "uri"); without this the schema
	// would accept any string, as format is only an annotation in 2020-12.
	c.AssertFormat()
	if err := c.AddResource(path, doc); err != nil {
		return nil, err
	}
	return c.Compile(path)
}

// allowPSA widens the schema's member-name pattern to accept "psa?".
func allowPSA(doc any) error {
	root, _ := doc.(map[string]any)
	defs, _ := root["definitions"].(map[string]any)
	name, _ := defs["memberName"].(map[string]any)
	if name == nil {
		return errors.New(`schema has no definitions.memberName to widen for "psa?"`)
	}
	name["pattern"] = memberNamePattern
	return nil
}

// Check validates body like Validator's function when the schema is
// available and does nothing otherwise (logging once where it looked), so
// that end-to-end tests still run on a clone without ../shared.
func Check(tb testing.TB, body []byte) {
	tb.Helper()
	once.Do(load)
	switch {
	case missing:
		skipNote.Do(func() { tb.Logf("JSON:API schema not found at %s: responses are not schema-checked", where) })
	case errLoad != nil:
		tb.Fatalf("JSON:API schema at %s: %v", where, errLoad)
	default:
		validate(tb, body)
	}
}

var skipNote sync.Once
