package jsonapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/jsonapi"
)

var (
	create = jsonapi.DecodeOptions{Type: "projects", Create: true}
	update = jsonapi.DecodeOptions{Type: "projects", ID: "7"}
)

// withRels wraps a relationships object in an otherwise valid create body.
func withRels(rels string) string {
	return `{"data":{"type":"projects","relationships":` + rels + `}}`
}

// Ensure every malformed write document gets the status and pointer the HTTP
// contract names, with a detail that names the member.
func TestDecodeWriteErrors(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		opt     jsonapi.DecodeOptions
		status  int
		pointer string
		detail  string // a substring of Detail
	}{
		{"empty body", ``, create, 400, "/", "empty"},
		{"whitespace body", " \n\t", create, 400, "/", "empty"},
		{"malformed JSON", `{"data":`, create, 400, "/", "not valid JSON"},
		{"trailing garbage", `{"data":{"type":"projects"}} x`, create, 400, "/", "not valid JSON"},
		{"too deeply nested", strings.Repeat("[", 20000), create, 400, "/", "not valid JSON"},
		{"body is an array", `[{"data":{}}]`, create, 400, "/", "must be a JSON object, not an array"},
		{"body is null", `null`, create, 400, "/", "not null"},
		{"body is a string", `"data"`, create, 400, "/", "not a string"},
		{"no data", `{}`, create, 400, "/data", `no "data" member`},
		{"only meta", `{"meta":{"confirm":true}}`, create, 400, "/data", `no "data" member`},
		{"data null", `{"data":null}`, create, 400, "/data", "not null"},
		{"data array", `{"data":[{"type":"projects"}]}`, create, 400, "/data", "single resource object, not an array"},
		{"data string", `{"data":"projects"}`, create, 400, "/data", "not a string"},
		{"unknown top-level member", `{"data":{"type":"projects"},"date":1}`, create, 400, "/date", `unknown member "date"`},
		{"unknown top-level member needing escapes", `{"data":{"type":"projects"},"a/b~c":1}`, create, 400, "/a~1b~0c", `"a/b~c"`},
		{"unknown resource member", `{"data":{"type":"projects","atributes":{}}}`, create, 400, "/data/atributes", `unknown member "atributes"`},
		{"missing type", `{"data":{"attributes":{"name":"x"}}}`, create, 400, "/data/type", `"type"`},
		{"non-string type", `{"data":{"type":5}}`, create, 400, "/data/type", "not a number"},
		{"null type", `{"data":{"type":null}}`, create, 400, "/data/type", "not null"},
		{"empty type", `{"data":{"type":""}}`, create, 400, "/data/type", "non-empty string"},
		{"type mismatch", `{"data":{"type":"clients"}}`, create, 409, "/data/type", `"clients" but this endpoint takes "projects"`},
		{"type mismatch on update", `{"data":{"type":"clients","id":"7"}}`, update, 409, "/data/type", `"projects"`},
		{"id on create", `{"data":{"type":"projects","id":"7"}}`, create, 403, "/data/id", "client-generated ids are not supported"},
		{"empty id on create", `{"data":{"type":"projects","id":""}}`, create, 403, "/data/id", "client-generated"},
		{"create wins over ID", `{"data":{"type":"projects","id":"7"}}`, jsonapi.DecodeOptions{Type: "projects", ID: "7", Create: true}, 403, "/data/id", "client-generated"},
		{"non-string id on create", `{"data":{"type":"projects","id":7}}`, create, 400, "/data/id", "must be a string"},
		{"id missing on update", `{"data":{"type":"projects","attributes":{}}}`, update, 400, "/data/id", `"7"`},
		{"id mismatch on update", `{"data":{"type":"projects","id":"8"}}`, update, 409, "/data/id", `"8" but the URL names "7"`},
		{"non-string id on update", `{"data":{"type":"projects","id":7}}`, update, 400, "/data/id", "must be a string, not a number"},
		{"attributes array", `{"data":{"type":"projects","attributes":[]}}`, create, 400, "/data/attributes", "must be an object"},
		{"attributes null", `{"data":{"type":"projects","attributes":null}}`, create, 400, "/data/attributes", "not null"},
		{"attribute named id", `{"data":{"type":"projects","attributes":{"id":"1"}}}`, create, 400, "/data/attributes/id", `"id" is not allowed`},
		{"attribute named type", `{"data":{"type":"projects","attributes":{"type":"x"}}}`, create, 400, "/data/attributes/type", `"type" is not allowed`},
		{"attribute named relationships", `{"data":{"type":"projects","attributes":{"relationships":{}}}}`, create, 400, "/data/attributes/relationships", "reserves"},
		{"attribute named links", `{"data":{"type":"projects","attributes":{"links":{}}}}`, create, 400, "/data/attributes/links", "reserves"},
		{"attribute with plus", `{"data":{"type":"projects","attributes":{"key+":1}}}`, create, 400, "/data/attributes/key+", `"key+" is not a valid member name`},
		{"attribute with space", `{"data":{"type":"projects","attributes":{"a b":1}}}`, create, 400, "/data/attributes/a b", "member name"},
		{"attribute starting with dash", `{"data":{"type":"projects","attributes":{"-a":1}}}`, create, 400, "/data/attributes/-a", "member name"},
		{"attribute ending with underscore", `{"data":{"type":"projects","attributes":{"a_":1}}}`, create, 400, "/data/attributes/a_", "member name"},
		{"attribute non-ASCII", `{"data":{"type":"projects","attributes":{"é":1}}}`, create, 400, "/data/attributes/é", "member name"},
		{"attribute empty name", `{"data":{"type":"projects","attributes":{"":1}}}`, create, 400, "/data/attributes/", "member name"},
		{"attribute only question mark", `{"data":{"type":"projects","attributes":{"?":1}}}`, create, 400, "/data/attributes/?", "member name"},
		{"attribute two question marks", `{"data":{"type":"projects","attributes":{"psa??":1}}}`, create, 400, "/data/attributes/psa??", "member name"},
		{"attribute with slash", `{"data":{"type":"projects","attributes":{"a/b":1}}}`, create, 400, "/data/attributes/a~1b", "member name"},
		{"relationships array", withRels(`[]`), create, 400, "/data/relationships", "must be an object"},
		{"relationship not an object", withRels(`{"client":"3"}`), create, 400, "/data/relationships/client", `relationship "client" must be an object`},
		{"relationship without data", withRels(`{"client":{"meta":{"bad":"wrong"}}}`), create, 400, "/data/relationships/client", `no "data" member`},
		{"relationship unknown member", withRels(`{"client":{"data":null,"date":1}}`), create, 400, "/data/relationships/client/date", `unknown member "date"`},
		{"relationship links not object", withRels(`{"client":{"data":null,"links":"x"}}`), create, 400, "/data/relationships/client/links", "must be an object"},
		{"relationship meta not object", withRels(`{"client":{"data":null,"meta":1}}`), create, 400, "/data/relationships/client/meta", "must be an object"},
		{"relationship named type", withRels(`{"type":{"data":{"type":"status","id":"140"}}}`), create, 400, "/data/relationships/type", `"type" is not allowed`},
		{"relationship named id", withRels(`{"id":{"data":null}}`), create, 400, "/data/relationships/id", `"id" is not allowed`},
		{"relationship named links", withRels(`{"links":{"data":null}}`), create, 400, "/data/relationships/links", "reserves"},
		{"relationship bad name", withRels(`{"not-allowed+":{"data":null}}`), create, 400, "/data/relationships/not-allowed+", "member name"},
		{"relationship also an attribute", `{"data":{"type":"projects","attributes":{"client":"3"},"relationships":{"client":{"data":null}}}}`, create, 400, "/data/relationships/client", "both an attribute and a relationship"},
		{"linkage string", withRels(`{"client":{"data":"3"}}`), create, 400, "/data/relationships/client/data", "not a string"},
		{"linkage number", withRels(`{"client":{"data":3}}`), create, 400, "/data/relationships/client/data", "not a number"},
		{"linkage boolean", withRels(`{"client":{"data":true}}`), create, 400, "/data/relationships/client/data", "not a boolean"},
		{"identifier without id", withRels(`{"client":{"data":{"type":"clients"}}}`), create, 400, "/data/relationships/client/data", `"type"`},
		{"identifier without type", withRels(`{"client":{"data":{"id":"3"}}}`), create, 400, "/data/relationships/client/data", `"id"`},
		{"identifier numeric id", withRels(`{"client":{"data":{"type":"clients","id":3}}}`), create, 400, "/data/relationships/client/data", "non-empty strings"},
		{"identifier empty id", withRels(`{"client":{"data":{"type":"clients","id":""}}}`), create, 400, "/data/relationships/client/data", "non-empty strings"},
		{"identifier empty type", withRels(`{"client":{"data":{"type":"","id":"3"}}}`), create, 400, "/data/relationships/client/data", "non-empty strings"},
		{"identifier unknown member", withRels(`{"client":{"data":{"type":"clients","id":"3","name":"x"}}}`), create, 400, "/data/relationships/client/data", `unknown member "name"`},
		{"identifier meta not object", withRels(`{"client":{"data":{"type":"clients","id":"3","meta":[]}}}`), create, 400, "/data/relationships/client/data/meta", "must be an object"},
		{"to-many item without type", withRels(`{"tags":{"data":[{"type":"tags","id":"1"},{"id":"2"}]}}`), create, 400, "/data/relationships/tags/data/1", `item 1 of relationship "tags"`},
		{"to-many item not an object", withRels(`{"tags":{"data":[null]}}`), create, 400, "/data/relationships/tags/data/0", "not null"},
		{"to-many nested array", withRels(`{"tags":{"data":[[]]}}`), create, 400, "/data/relationships/tags/data/0", "not an array"},
		{"resource links not object", `{"data":{"type":"projects","links":[]}}`, create, 400, "/data/links", "must be an object"},
		{"resource meta not object", `{"data":{"type":"projects","meta":"x"}}`, create, 400, "/data/meta", "must be an object"},
		{"meta not object", `{"data":{"type":"projects"},"meta":[]}`, create, 400, "/meta", `"meta" must be an object, not an array`},
		{"meta null", `{"data":{"type":"projects"},"meta":null}`, create, 400, "/meta", "not null"},
		{"meta bad member name", `{"data":{"type":"projects"},"meta":{"a b":true}}`, create, 400, "/meta/a b", "member name"},
		{"jsonapi not object", `{"data":{"type":"projects"},"jsonapi":"1.0"}`, create, 400, "/jsonapi", "must be an object"},
		{"links not object", `{"data":{"type":"projects"},"links":1}`, create, 400, "/links", "must be an object"},
		{"included not array", `{"data":{"type":"projects"},"included":{}}`, create, 400, "/included", "must be an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := jsonapi.DecodeWrite([]byte(tt.body), tt.opt)
			require.Error(t, err)
			assert.Nil(t, doc)
			e := asError(t, err)
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, tt.pointer, e.Pointer)
			assert.Empty(t, e.Parameter)
			assert.Contains(t, e.Detail, tt.detail)
			assert.Contains(t, e.Error(), tt.pointer)
			// The adapter's error document for it is valid JSON:API.
			body, merr := errorDocument(e).MarshalJSON()
			require.NoError(t, merr)
			schemaValid(t, body)
		})
	}
}

// Ensure valid write documents decode to what the caller needs, with raw
// attribute values and UseNumber meta.
func TestDecodeWrite(t *testing.T) {
	t.Run("create with everything", func(t *testing.T) {
		body := `{
			"data": {
				"type": "projects",
				"attributes": {"name": "Mail migration", "psa?": true, "hours": 1.50, "payment-info": {"terms": "net 30"}, "msa-date": null},
				"relationships": {
					"client": {"data": {"type": "clients", "id": "3"}},
					"owner": {"data": null, "meta": {"why": "unassigned"}},
					"tags": {"data": [{"type": "tags", "id": "1"}, {"type": "tags", "id": "2", "meta": {}}]},
					"phases": {"data": [], "links": {"related": "http://x/phases"}}
				},
				"links": {"self": "http://x/projects"},
				"meta": {"ignored": true}
			},
			"meta": {"confirm": true, "rate": 1.50, "big": 12345678901234567890},
			"jsonapi": {"version": "1.0"},
			"links": {"self": "http://x"}
		}`
		doc, err := jsonapi.DecodeWrite([]byte(body), create)
		require.NoError(t, err)
		assert.Equal(t, "projects", doc.Type)
		assert.False(t, doc.HasID)
		assert.Empty(t, doc.ID)
		require.Len(t, doc.Attributes, 5)
		assert.JSONEq(t, `"Mail migration"`, string(doc.Attributes["name"]))
		assert.Equal(t, "1.50", string(doc.Attributes["hours"]), "raw values keep their spelling")
		assert.Equal(t, "true", string(doc.Attributes["psa?"]))
		assert.Equal(t, "null", string(doc.Attributes["msa-date"]))
		assert.JSONEq(t, `{"terms":"net 30"}`, string(doc.Attributes["payment-info"]))
		assert.Equal(t, map[string]jsonapi.RelationshipInput{
			"client": {Data: []jsonapi.Identifier{{Type: "clients", ID: "3"}}},
			"owner":  {Data: []jsonapi.Identifier{}},
			"tags":   {ToMany: true, Data: []jsonapi.Identifier{{Type: "tags", ID: "1"}, {Type: "tags", ID: "2"}}},
			"phases": {ToMany: true, Data: []jsonapi.Identifier{}},
		}, doc.Relationships)
		assert.Equal(t, map[string]any{"confirm": true, "rate": json.Number("1.50"), "big": json.Number("12345678901234567890")}, doc.Meta)
	})
	t.Run("update", func(t *testing.T) {
		doc, err := jsonapi.DecodeWrite([]byte(`{"data":{"type":"projects","id":"7","attributes":{"active":false}}}`), update)
		require.NoError(t, err)
		assert.Equal(t, "7", doc.ID)
		assert.True(t, doc.HasID)
		assert.Equal(t, "false", string(doc.Attributes["active"]))
	})
	t.Run("minimal document has empty, non-nil maps", func(t *testing.T) {
		doc, err := jsonapi.DecodeWrite([]byte(`{"data":{"type":"projects"}}`), create)
		require.NoError(t, err)
		assert.NotNil(t, doc.Attributes)
		assert.NotNil(t, doc.Relationships)
		assert.NotNil(t, doc.Meta)
		assert.Empty(t, doc.Attributes)
	})
	t.Run("no expected type or id", func(t *testing.T) {
		doc, err := jsonapi.DecodeWrite([]byte(` {"data":{"type":"anything","id":"x"}} `), jsonapi.DecodeOptions{})
		require.NoError(t, err)
		assert.Equal(t, "anything", doc.Type)
		assert.Equal(t, "x", doc.ID)
		assert.True(t, doc.HasID)
	})
	t.Run("attribute values are not checked here", func(t *testing.T) {
		doc, err := jsonapi.DecodeWrite([]byte(`{"data":{"type":"projects","attributes":{"name":5,"x":{"id":1,"a b":2}}}}`), create)
		require.NoError(t, err)
		assert.Equal(t, "5", string(doc.Attributes["name"]))
	})
	t.Run("included is tolerated", func(t *testing.T) {
		_, err := jsonapi.DecodeWrite([]byte(`{"data":{"type":"projects"},"included":[]}`), create)
		require.NoError(t, err)
	})
}

// Ensure DecodeIdentifier accepts exactly one identifier of the right type.
func TestDecodeIdentifier(t *testing.T) {
	id, err := jsonapi.DecodeIdentifier([]byte(`{"data":{"type":"blueprints","id":"3","meta":{"note":"x"}},"meta":{"confirm":true}}`), "blueprints")
	require.NoError(t, err)
	assert.Equal(t, jsonapi.Identifier{Type: "blueprints", ID: "3"}, id)

	tests := []struct {
		name    string
		body    string
		status  int
		pointer string
	}{
		{"empty body", ``, 400, "/"},
		{"malformed", `{"data":{`, 400, "/"},
		{"not an object", `[]`, 400, "/"},
		{"no data", `{"meta":{}}`, 400, "/data"},
		{"data null", `{"data":null}`, 400, "/data"},
		{"data array", `{"data":[{"type":"blueprints","id":"3"}]}`, 400, "/data"},
		{"unknown top-level member", `{"data":{"type":"blueprints","id":"3"},"x":1}`, 400, "/x"},
		{"attributes are not an identifier's", `{"data":{"type":"blueprints","id":"3","attributes":{}}}`, 400, "/data/attributes"},
		{"type missing", `{"data":{"id":"3"}}`, 400, "/data/type"},
		{"type not a string", `{"data":{"type":1,"id":"3"}}`, 400, "/data/type"},
		{"type mismatch", `{"data":{"type":"projects","id":"3"}}`, 409, "/data/type"},
		{"id missing", `{"data":{"type":"blueprints"}}`, 400, "/data/id"},
		{"id not a string", `{"data":{"type":"blueprints","id":3}}`, 400, "/data/id"},
		{"id empty", `{"data":{"type":"blueprints","id":""}}`, 400, "/data/id"},
		{"identifier meta not object", `{"data":{"type":"blueprints","id":"3","meta":1}}`, 400, "/data/meta"},
		{"meta not object", `{"data":{"type":"blueprints","id":"3"},"meta":1}`, 400, "/meta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := jsonapi.DecodeIdentifier([]byte(tt.body), "blueprints")
			require.Error(t, err)
			assert.Zero(t, id)
			e := asError(t, err)
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, tt.pointer, e.Pointer)
			assert.NotEmpty(t, e.Detail)
		})
	}
}

// Ensure action bodies decode to their meta, and that anything else is a 400.
func TestDecodeMeta(t *testing.T) {
	ok := []struct {
		name string
		body string
		want map[string]any
	}{
		{"empty body", ``, map[string]any{}},
		{"whitespace", "\n ", map[string]any{}},
		{"empty object", `{}`, map[string]any{}},
		{"meta", `{"meta":{"comment":"Looks good","step":2}}`, map[string]any{"comment": "Looks good", "step": json.Number("2")}},
		{"empty meta", `{"meta":{}}`, map[string]any{}},
	}
	for _, tt := range ok {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonapi.DecodeMeta([]byte(tt.body))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	bad := []struct {
		name    string
		body    string
		pointer string
	}{
		{"malformed", `{"meta":`, "/"},
		{"array", `[]`, "/"},
		{"string", `"comment"`, "/"},
		{"data member", `{"data":{"type":"x"}}`, "/data"},
		{"meta null", `{"meta":null}`, "/meta"},
		{"meta array", `{"meta":["x"]}`, "/meta"},
		{"meta bad member name", `{"meta":{"com ment":"x"}}`, "/meta/com ment"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonapi.DecodeMeta([]byte(tt.body))
			require.Error(t, err)
			assert.Nil(t, got)
			e := asError(t, err)
			assert.Equal(t, 400, e.Status)
			assert.Equal(t, tt.pointer, e.Pointer)
		})
	}
}
