package jsonapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/internal/jsonapitest"
	"github.com/scopekit/scopekit/jsonapi"
)

// vectorFacts reads what a request vector says about itself: its data's type
// and id, and the pointers its "errors-present-in-document" meta names.
func vectorFacts(t *testing.T, body []byte) (typ, id string, hasID bool, pointers []string) {
	t.Helper()
	var v struct {
		Data json.RawMessage `json:"data"`
		Meta struct {
			Errors []struct {
				Source struct {
					Pointer string `json:"pointer"`
				} `json:"source"`
			} `json:"errors-present-in-document"`
		} `json:"meta"`
	}
	require.NoError(t, json.Unmarshal(body, &v))
	var data map[string]any
	_ = json.Unmarshal(v.Data, &data) // not an object in some invalid vectors
	typ, _ = data["type"].(string)
	id, hasID = data["id"].(string)
	for _, e := range v.Meta.Errors {
		pointers = append(pointers, e.Source.Pointer)
	}
	return typ, id, hasID, pointers
}

// assertVectorError checks that err is a *jsonapi.Error pointing at or below
// one of the places the vector names.
func assertVectorError(t *testing.T, err error, pointers []string) {
	t.Helper()
	require.Error(t, err)
	e := asError(t, err)
	assert.Equal(t, 400, e.Status)
	for _, p := range pointers {
		if strings.HasPrefix(e.Pointer, strings.TrimSuffix(p, "/")) {
			return
		}
	}
	t.Errorf("pointer %q is not at or below any of %q (%s)", e.Pointer, pointers, e.Detail)
}

// Ensure the schema's own create vectors: valid ones decode (a client-generated
// id is our documented 403), invalid ones are 400s at the place they name.
func TestRequestVectorsCreate(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		for name, body := range vectors(t, vectorDir(t, "tests/request/resource/create/valid")) {
			t.Run(name, func(t *testing.T) {
				typ, _, hasID, _ := vectorFacts(t, body)
				doc, err := jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: typ, Create: true})
				if hasID {
					require.Error(t, err)
					e := asError(t, err)
					assert.Equal(t, 403, e.Status)
					assert.Equal(t, "/data/id", e.Pointer)
					assert.Contains(t, e.Detail, "client-generated ids are not supported")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, typ, doc.Type)
				assert.False(t, doc.HasID)
			})
		}
	})
	t.Run("invalid", func(t *testing.T) {
		for name, body := range vectors(t, vectorDir(t, "tests/request/resource/create/invalid")) {
			t.Run(name, func(t *testing.T) {
				_, _, _, pointers := vectorFacts(t, body)
				_, err := jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: "article", Create: true})
				assertVectorError(t, err, pointers)
			})
		}
	})
	t.Run("relationships", func(t *testing.T) {
		body := vectors(t, vectorDir(t, "tests/request/resource/create/valid"))["post_resource_with_relationships.json"]
		require.NotNil(t, body)
		doc, err := jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: "article", Create: true})
		require.NoError(t, err)
		assert.Equal(t, map[string]jsonapi.RelationshipInput{
			"toOne":  {Data: []jsonapi.Identifier{{Type: "status", ID: "140"}}},
			"toMany": {ToMany: true, Data: []jsonapi.Identifier{{Type: "tag", ID: "15"}, {Type: "tag", ID: "32"}}},
		}, doc.Relationships)
	})
}

// Ensure the schema's update vectors: valid ones decode with the id of the
// path, conflict with another id, and the invalid one is a 400.
func TestRequestVectorsUpdate(t *testing.T) {
	t.Run("valid", func(t *testing.T) {
		for name, body := range vectors(t, vectorDir(t, "tests/request/resource/update/valid")) {
			t.Run(name, func(t *testing.T) {
				typ, id, hasID, _ := vectorFacts(t, body)
				require.True(t, hasID)
				doc, err := jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: typ, ID: id})
				require.NoError(t, err)
				assert.Equal(t, id, doc.ID)
				assert.True(t, doc.HasID)

				_, err = jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: typ, ID: id + "0"})
				assert.Equal(t, 409, asError(t, err).Status)
			})
		}
	})
	t.Run("invalid", func(t *testing.T) {
		for name, body := range vectors(t, vectorDir(t, "tests/request/resource/update/invalid")) {
			t.Run(name, func(t *testing.T) {
				_, _, _, pointers := vectorFacts(t, body)
				_, err := jsonapi.DecodeWrite(body, jsonapi.DecodeOptions{Type: "article", ID: "2"})
				assertVectorError(t, err, pointers)
			})
		}
	})
	t.Run("identifier without id", func(t *testing.T) {
		for name, body := range vectors(t, vectorDir(t, "tests/request/relationship/update/invalid")) {
			t.Run(name, func(t *testing.T) {
				_, _, _, pointers := vectorFacts(t, body)
				_, err := jsonapi.DecodeIdentifier(body, "tag")
				assertVectorError(t, err, pointers)
			})
		}
	})
}

// Ensure the schema helper agrees with the schema's own response vectors:
// every valid one passes and every invalid one fails.
func TestValidatorResponseVectors(t *testing.T) {
	validate := jsonapitest.Validator(t)
	for name, body := range vectors(t, vectorDir(t, "tests/response/valid")) {
		t.Run("valid/"+name, func(t *testing.T) {
			validate(t, body)
		})
	}
	for name, body := range vectors(t, vectorDir(t, "tests/response/invalid")) {
		t.Run("invalid/"+name, func(t *testing.T) {
			rec := &recordingTB{TB: t}
			validate(rec, body)
			assert.True(t, rec.failed, "the validator accepted an invalid document")
		})
	}
	t.Run("psa? is the one accepted deviation", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		validate(rec, []byte(`{"data":{"type":"accounts","id":"1","attributes":{"psa?":true}}}`))
		assert.False(t, rec.failed, rec.msg)
		validate(rec, []byte(`{"data":{"type":"accounts","id":"1","attributes":{"psa!":true}}}`))
		assert.True(t, rec.failed)
	})
	t.Run("not JSON", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		validate(rec, []byte(`{"data":`))
		assert.True(t, rec.failed)
		assert.Contains(t, rec.msg, "not JSON")
	})
	t.Run("relative links are not URIs", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		validate(rec, []byte(`{"data":null,"links":{"self":"/v2/projects"}}`))
		assert.True(t, rec.failed)
	})
}

// Ensure Validator skips, with a message naming where it looked, when the
// schema is absent, and fails instead under CI: the test binary runs itself
// in a directory with a go.mod and no ../shared beside it.
func TestValidatorSkipsWithoutSchema(t *testing.T) {
	if os.Getenv("JSONAPITEST_CHILD") == "1" {
		jsonapitest.Validator(t)
		t.Fatal("Validator did not skip")
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/x\n"), 0o644))
	cmd := exec.Command(os.Args[0], "-test.run=^TestValidatorSkipsWithoutSchema$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JSONAPITEST_CHILD=1", "CI=")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	want := filepath.Join(filepath.Dir(dir), "shared", "jsonapi-schema", "schema.json")
	assert.Contains(t, string(out), "JSON:API schema not found at "+want)
	assert.Contains(t, string(out), "--- SKIP: TestValidatorSkipsWithoutSchema")

	cmd = exec.Command(os.Args[0], "-test.run=^TestValidatorSkipsWithoutSchema$", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JSONAPITEST_CHILD=1", "CI=true")
	out, err = cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Contains(t, string(out), "JSON:API schema at "+want)
	assert.Contains(t, string(out), "CI is set: the JSON:API schema must be there")
}

// wire types mirror the shapes this package produces, strictly: a vector
// that does not fit them (link objects, "jsonapi", relationship meta, error
// links) is one the encoder can never produce.
type wireDoc struct {
	Data     json.RawMessage        `json:"data"`
	Included []wireResource         `json:"included"`
	Errors   []*jsonapi.ErrorObject `json:"errors"`
	Meta     map[string]any         `json:"meta"`
	Links    jsonapi.Links          `json:"links"`
}

type wireResource struct {
	Type          string                      `json:"type"`
	ID            string                      `json:"id"`
	Attributes    map[string]any              `json:"attributes"`
	Relationships map[string]wireRelationship `json:"relationships"`
	Links         jsonapi.Links               `json:"links"`
	Meta          map[string]any              `json:"meta"`
}

type wireRelationship struct {
	Data  json.RawMessage `json:"data"`
	Links jsonapi.Links   `json:"links"`
}

func strict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// toDocument converts a vector to a Document, or reports that it cannot be
// represented.
func toDocument(b []byte) (*jsonapi.Document, error) {
	var w wireDoc
	if err := strict(b, &w); err != nil {
		return nil, err
	}
	d := &jsonapi.Document{Meta: w.Meta, Links: w.Links, Errors: w.Errors}
	for _, r := range w.Included {
		res, err := toResource(r)
		if err != nil {
			return nil, err
		}
		d.Included = append(d.Included, res)
	}
	switch {
	case len(w.Errors) > 0:
	case w.Data == nil:
		return nil, errNotRepresentable
	case w.Data[0] == '[':
		var list []wireResource
		if err := strict(w.Data, &list); err != nil {
			return nil, err
		}
		d.List, d.DataList = true, []*jsonapi.Resource{}
		for _, r := range list {
			res, err := toResource(r)
			if err != nil {
				return nil, err
			}
			d.DataList = append(d.DataList, res)
		}
	case string(w.Data) != "null":
		var r wireResource
		if err := strict(w.Data, &r); err != nil {
			return nil, err
		}
		res, err := toResource(r)
		if err != nil {
			return nil, err
		}
		d.Data = res
	}
	return d, nil
}

var errNotRepresentable = errors.New("a document the encoder does not produce (meta only, or relationship links other than related)")

func toResource(w wireResource) (*jsonapi.Resource, error) {
	r := &jsonapi.Resource{Type: w.Type, ID: w.ID, Attributes: w.Attributes, Links: w.Links, Meta: w.Meta}
	for name, wr := range w.Relationships {
		rel := &jsonapi.Relationship{Related: wr.Links["related"], HasData: wr.Data != nil}
		for k := range wr.Links {
			if k != "related" {
				return nil, errNotRepresentable // output relationships carry only a related link
			}
		}
		switch {
		case wr.Data == nil, string(wr.Data) == "null":
		case wr.Data[0] == '[':
			rel.ToMany = true
			if err := strict(wr.Data, &rel.Many); err != nil {
				return nil, err
			}
		default:
			rel.One = &jsonapi.Identifier{}
			if err := strict(wr.Data, rel.One); err != nil {
				return nil, err
			}
		}
		if r.Relationships == nil {
			r.Relationships = map[string]*jsonapi.Relationship{}
		}
		r.Relationships[name] = rel
	}
	return r, nil
}

// dropEmptyObjects removes members whose value is {}: the encoder omits empty
// attributes and meta, which JSON:API treats the same as absent.
func dropEmptyObjects(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if m, ok := x.(map[string]any); ok && len(m) == 0 {
				delete(v, k)
				continue
			}
			v[k] = dropEmptyObjects(x)
		}
	case []any:
		for i, x := range v {
			v[i] = dropEmptyObjects(x)
		}
	}
	return v
}

// Ensure the valid response vectors decode into the shapes this package
// produces where they fit, and re-encode to the same, schema-valid document.
func TestResponseVectorsRoundTrip(t *testing.T) {
	represented := 0
	for name, body := range vectors(t, vectorDir(t, "tests/response/valid")) {
		t.Run(name, func(t *testing.T) {
			doc, err := toDocument(body)
			if err != nil {
				t.Logf("not in the shapes this package produces (%v); decoding did not crash", err)
				return
			}
			represented++
			got := encode(t, doc)
			var want, have any
			require.NoError(t, json.Unmarshal(body, &want))
			require.NoError(t, json.Unmarshal(got, &have))
			assert.Equal(t, dropEmptyObjects(want), dropEmptyObjects(have))
		})
	}
	assert.GreaterOrEqual(t, represented, 8, "most valid vectors should fit the encoder's shapes")
}
