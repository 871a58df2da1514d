package jsonapi_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/jsonapi"
)

const base = "http://127.0.0.1:8080/v2"

func project(id string) *jsonapi.Resource {
	return &jsonapi.Resource{
		Type: "projects",
		ID:   id,
		Attributes: map[string]any{
			"name":        "Migration <phase 1> & more",
			"psa?":        true,
			"hours":       12.5,
			"created-at":  "2024-05-01T10:00:00Z",
			"description": nil,
		},
		Relationships: map[string]*jsonapi.Relationship{
			"client": {HasData: true, One: &jsonapi.Identifier{Type: "clients", ID: "3"},
				Related: base + "/projects/" + id + "/client"},
			"project-services": {ToMany: true, HasData: true,
				Many:    []jsonapi.Identifier{{Type: "project-services", ID: "10"}, {Type: "project-services", ID: "11"}},
				Related: base + "/projects/" + id + "/project-services"},
		},
		Links: jsonapi.Links{"self": base + "/projects/" + id},
	}
}

// Ensure documents encode to the JSON:API shapes the HTTP contract names, and
// that each validates against the official schema.
func TestDocumentEncoding(t *testing.T) {
	client := &jsonapi.Resource{Type: "clients", ID: "3", Attributes: map[string]any{"name": "Acme"}}
	tests := []struct {
		name string
		doc  *jsonapi.Document
		want string
	}{
		{
			name: "single",
			doc:  &jsonapi.Document{Data: project("7"), Links: jsonapi.Links{"self": base + "/projects/7"}},
			want: `{"data":{"type":"projects","id":"7",
				"attributes":{"created-at":"2024-05-01T10:00:00Z","description":null,"hours":12.5,"name":"Migration <phase 1> & more","psa?":true},
				"relationships":{
					"client":{"data":{"type":"clients","id":"3"},"links":{"related":"` + base + `/projects/7/client"}},
					"project-services":{"data":[{"type":"project-services","id":"10"},{"type":"project-services","id":"11"}],"links":{"related":"` + base + `/projects/7/project-services"}}},
				"links":{"self":"` + base + `/projects/7"}},
				"links":{"self":"` + base + `/projects/7"}}`,
		},
		{
			name: "null single",
			doc:  &jsonapi.Document{},
			want: `{"data":null}`,
		},
		{
			name: "empty list",
			doc: &jsonapi.Document{List: true,
				Meta:  map[string]any{"record-count": 0, "page-count": 0},
				Links: jsonapi.Links{"self": base + "/projects?page%5Bnumber%5D=1"}},
			want: `{"data":[],"meta":{"page-count":0,"record-count":0},"links":{"self":"` + base + `/projects?page%5Bnumber%5D=1"}}`,
		},
		{
			name: "list",
			doc: &jsonapi.Document{List: true, DataList: []*jsonapi.Resource{
				{Type: "clients", ID: "1", Attributes: map[string]any{"name": "A"}},
				{Type: "clients", ID: "2"},
			}},
			want: `{"data":[{"type":"clients","id":"1","attributes":{"name":"A"}},{"type":"clients","id":"2"}]}`,
		},
		{
			name: "compound with included, duplicates dropped",
			doc: &jsonapi.Document{
				Data:     &jsonapi.Resource{Type: "projects", ID: "7", Relationships: map[string]*jsonapi.Relationship{"client": {HasData: true, One: &jsonapi.Identifier{Type: "clients", ID: "3"}}}},
				Included: []*jsonapi.Resource{client, client, {Type: "projects", ID: "7"}, nil},
			},
			want: `{"data":{"type":"projects","id":"7","relationships":{"client":{"data":{"type":"clients","id":"3"}}}},
				"included":[{"type":"clients","id":"3","attributes":{"name":"Acme"}}]}`,
		},
		{
			name: "list with included",
			doc: &jsonapi.Document{List: true,
				DataList: []*jsonapi.Resource{{Type: "projects", ID: "7"}, {Type: "projects", ID: "8"}},
				Included: []*jsonapi.Resource{client, {Type: "projects", ID: "8"}},
			},
			want: `{"data":[{"type":"projects","id":"7"},{"type":"projects","id":"8"}],"included":[{"type":"clients","id":"3","attributes":{"name":"Acme"}}]}`,
		},
		{
			name: "empty included is omitted",
			doc:  &jsonapi.Document{Data: client, Included: []*jsonapi.Resource{}},
			want: `{"data":{"type":"clients","id":"3","attributes":{"name":"Acme"}}}`,
		},
		{
			name: "errors drop data and included",
			doc: &jsonapi.Document{
				Data:     client,
				Included: []*jsonapi.Resource{client},
				Meta:     map[string]any{"request-id": "abc"},
				Errors: []*jsonapi.ErrorObject{
					{Status: "400", Title: "Bad Request", Detail: "page[size] must be a whole number from 1 to 1000", Source: &jsonapi.ErrorSource{Parameter: "page[size]"}},
					{Status: "422", Title: "Unprocessable Entity", Detail: "name is blank", Code: "invalid", Source: &jsonapi.ErrorSource{Pointer: "/data/attributes/name"}},
				},
			},
			want: `{"errors":[
				{"status":"400","title":"Bad Request","detail":"page[size] must be a whole number from 1 to 1000","source":{"parameter":"page[size]"}},
				{"status":"422","title":"Unprocessable Entity","detail":"name is blank","code":"invalid","source":{"pointer":"/data/attributes/name"}}],
				"meta":{"request-id":"abc"}}`,
		},
		{
			name: "401 error without detail",
			doc:  &jsonapi.Document{Errors: []*jsonapi.ErrorObject{{Status: "401", Title: "Unauthorized"}}},
			want: `{"errors":[{"status":"401","title":"Unauthorized"}]}`,
		},
		{
			name: "relationship to-one null, to-many empty, links only",
			doc: &jsonapi.Document{Data: &jsonapi.Resource{Type: "projects", ID: "7", Relationships: map[string]*jsonapi.Relationship{
				"client":   {HasData: true},
				"services": {ToMany: true, HasData: true},
				"phases":   {ToMany: true, Related: base + "/projects/7/phases"},
				"owner":    {One: &jsonapi.Identifier{Type: "users", ID: "1"}, Related: base + "/projects/7/owner"},
			}}},
			want: `{"data":{"type":"projects","id":"7","relationships":{
				"client":{"data":null},
				"owner":{"links":{"related":"` + base + `/projects/7/owner"}},
				"phases":{"links":{"related":"` + base + `/projects/7/phases"}},
				"services":{"data":[]}}}}`,
		},
		{
			name: "resource meta and nested attribute values",
			doc: &jsonapi.Document{Data: &jsonapi.Resource{Type: "project-pricings", ID: "7",
				Attributes: map[string]any{
					"professional_services": map[string]any{"total": "1200.00", "lines": []any{map[string]any{"hours": 10, "rate": "120.00"}}},
					"warnings":              []string{},
					"currency":              "USD",
				},
				Meta: map[string]any{"computed": true}}},
			want: `{"data":{"type":"project-pricings","id":"7","attributes":{"currency":"USD",
				"professional_services":{"lines":[{"hours":10,"rate":"120.00"}],"total":"1200.00"},"warnings":[]},"meta":{"computed":true}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := encode(t, tt.doc)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

// Ensure output is byte-for-byte deterministic and in the documented member
// order, with HTML characters escaped as encoding/json does.
func TestDocumentEncodingIsDeterministic(t *testing.T) {
	doc := &jsonapi.Document{List: true, DataList: []*jsonapi.Resource{project("7"), project("8")},
		Meta:  map[string]any{"record-count": 2, "page-count": 1},
		Links: jsonapi.Links{"self": base + "/projects?a=1&b=2"}}
	first := encode(t, doc)
	for range 20 {
		again, err := doc.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
	s := string(first)
	assert.True(t, strings.HasPrefix(s, `{"data":[{"type":"projects","id":"7","attributes":{"created-at"`), s)
	assert.Contains(t, s, `"name":"Migration \u003cphase 1\u003e \u0026 more"`)
	assert.True(t, strings.HasSuffix(s, `],"meta":{"page-count":1,"record-count":2},"links":{"self":"`+base+`/projects?a=1\u0026b=2"}}`), s)
}

// Ensure the fast encoder writes exactly what encoding/json writes for the
// same Resource, for every kind of attribute value.
func TestResourceEncodingMatchesEncodingJSON(t *testing.T) {
	type money struct {
		Amount string `json:"amount"`
	}
	deep := map[string]any{"leaf": 1}
	for range 150 {
		deep = map[string]any{"n": deep}
	}
	deepList := []any{1}
	for range 150 {
		deepList = []any{deepList, "x"}
	}
	var nilMap map[string]any
	var nilSlice []any
	var nilPtr *money
	values := map[string]any{
		"html":        `<a href="x">&</a>`,
		"quote":       `say "hi" \ back`,
		"control":     "tab\tnew\nline\x01\x1f",
		"unicode":     "naïve café 日本 \u2028\u2029",
		"bad-utf8":    "a\xffb",
		"empty":       "",
		"int":         -42,
		"int64":       int64(math.MinInt64),
		"int32":       int32(7),
		"int8":        int8(-3),
		"uint":        uint(7),
		"uint64":      uint64(math.MaxUint64),
		"float":       0.1,
		"float-int":   3.0,
		"neg-zero":    math.Copysign(0, -1),
		"tiny":        1e-7,
		"small":       1e-6,
		"huge":        1e21,
		"big":         1e20,
		"neg":         -123.456,
		"float32":     float32(0.1),
		"bool":        false,
		"nil":         nil,
		"nil-map":     nilMap,
		"nil-slice":   nilSlice,
		"nil-ptr":     nilPtr,
		"struct":      money{Amount: "1.00"},
		"ptr":         &money{Amount: "2.00"},
		"time":        time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC),
		"raw":         json.RawMessage(`{ "b" : 1, "a" : [ 1 , 2 ] }`),
		"number":      json.Number("12.50"),
		"encoded":     jsonapi.Raw(`{"a":[1,2],"b":"\u003cx\u003e"}`),
		"strings":     []string{"a", "<b>"},
		"map-strings": map[string]string{"z": "1", "a": "2"},
		"nested":      map[string]any{"b": []any{1, "x", nil, map[string]any{"c": true}}, "a": 1.5},
		"deep":        deep,
		"deep-list":   deepList,
		"key<&>":      "html in a key",
	}
	r := &jsonapi.Resource{Type: "t<>", ID: "é", Attributes: values,
		Relationships: map[string]*jsonapi.Relationship{"r": {HasData: true}, "nil": nil},
		Links:         jsonapi.Links{"self": "http://x/?a=1&b=2"},
		Meta:          map[string]any{"m": 1}}
	want, err := json.Marshal(r)
	require.NoError(t, err)
	got, err := (&jsonapi.Document{Data: r}).MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, `{"data":`+string(want)+`}`, string(got))
}

// Ensure unencodable values and empty relationships are errors, not panics or
// invalid documents.
func TestDocumentEncodingErrors(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	tests := []struct {
		name string
		doc  *jsonapi.Document
		want string
	}{
		{"NaN", &jsonapi.Document{Data: &jsonapi.Resource{Type: "t", ID: "1", Attributes: map[string]any{"x": math.NaN()}}}, "unsupported value"},
		{"infinity in meta", &jsonapi.Document{Meta: map[string]any{"x": math.Inf(1)}}, "unsupported value"},
		{"cycle", &jsonapi.Document{Data: &jsonapi.Resource{Type: "t", ID: "1", Attributes: cyclic}}, "cycle"},
		{"channel", &jsonapi.Document{List: true, DataList: []*jsonapi.Resource{{Type: "t", ID: "1", Attributes: map[string]any{"c": make(chan int)}}}}, "unsupported type"},
		{"empty relationship", &jsonapi.Document{Data: &jsonapi.Resource{Type: "t", ID: "1", Relationships: map[string]*jsonapi.Relationship{"r": {ToMany: true}}}}, "neither data nor links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.doc.MarshalJSON()
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, jsonapi.Write(&bytes.Buffer{}, tt.doc), tt.want)
		})
	}
	t.Run("nil document", func(t *testing.T) {
		assert.Error(t, jsonapi.Write(&bytes.Buffer{}, nil))
	})
	t.Run("writer error", func(t *testing.T) {
		assert.ErrorIs(t, jsonapi.Write(failingWriter{}, &jsonapi.Document{}), errWrite)
	})
	t.Run("relationship marshals alone", func(t *testing.T) {
		b, err := json.Marshal(&jsonapi.Relationship{HasData: true, One: &jsonapi.Identifier{Type: "a", ID: "1"}})
		require.NoError(t, err)
		assert.Equal(t, `{"data":{"type":"a","id":"1"}}`, string(b))
		_, err = json.Marshal(&jsonapi.Relationship{})
		assert.ErrorContains(t, err, "neither data nor links")
	})
}

var errWrite = errors.New("write failed")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// page250 is a list page of the default size with about 20 attributes per
// resource, the shape of a projects or services page.
func page250() *jsonapi.Document {
	doc := &jsonapi.Document{List: true, Meta: map[string]any{"record-count": 1000, "page-count": 4},
		Links: jsonapi.Links{"self": base + "/projects?page%5Bnumber%5D=1", "next": base + "/projects?page%5Bnumber%5D=2"}}
	for i := range 250 {
		id := strconv.Itoa(i + 1)
		doc.DataList = append(doc.DataList, &jsonapi.Resource{
			Type: "projects", ID: id,
			Attributes: map[string]any{
				"name": "Project " + id, "active": true, "psa?": false, "status": "draft",
				"created-at": "2024-05-01T10:00:00Z", "updated-at": "2024-05-02T11:30:00Z",
				"msa-date": nil, "executive-summary": "Migrate the customer's mail to the cloud & train staff.",
				"solution-summary": "Phased migration", "our-responsibilities": "Plan, migrate, verify",
				"customer-responsibilities": "Provide admin access", "out-of-scope": "Hardware",
				"payment-info":  map[string]any{"pricing-model": "fixed_fee", "terms": "net 30"},
				"rate-table-id": 4, "total-revenue": "125000.00", "total-cost": "90000.00",
				"margin": 0.28, "hours": 1040.5, "tags": []any{"cloud", "email"}, "currency": "USD",
			},
			Relationships: map[string]*jsonapi.Relationship{
				"client": {HasData: true, One: &jsonapi.Identifier{Type: "clients", ID: "3"},
					Related: base + "/projects/" + id + "/client"},
				"project-services": {ToMany: true, Related: base + "/projects/" + id + "/project-services"},
			},
			Links: jsonapi.Links{"self": base + "/projects/" + id},
		})
	}
	return doc
}

func TestPage250IsValid(t *testing.T) {
	encode(t, page250())
}

func BenchmarkWriteList250(b *testing.B) {
	doc := page250()
	var buf bytes.Buffer
	require.NoError(b, jsonapi.Write(&buf, doc))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := jsonapi.Write(&buf, doc); err != nil {
			b.Fatal(err)
		}
	}
}

// Ensure a resource encoded once (EncodeResource) and served as Rendered
// writes the same document as the resource itself, in a list and as
// included (which Type and ID still dedupe).
func TestRenderedResource(t *testing.T) {
	res := func() *jsonapi.Resource {
		return &jsonapi.Resource{Type: "clients", ID: "9", Attributes: map[string]any{"name": "Globex <&>", "n": 3},
			Links: jsonapi.Links{"self": "http://x/clients/9"}}
	}
	b, err := jsonapi.EncodeResource(res())
	require.NoError(t, err)
	doc := func(r *jsonapi.Resource) string {
		var buf bytes.Buffer
		require.NoError(t, jsonapi.Write(&buf, &jsonapi.Document{List: true, DataList: []*jsonapi.Resource{r}, Included: []*jsonapi.Resource{r}}))
		return buf.String()
	}
	want := doc(res())
	assert.Equal(t, want, doc(&jsonapi.Resource{Type: "clients", ID: "9", Rendered: b}))
	assert.JSONEq(t, `{"type":"clients","id":"9","attributes":{"n":3,"name":"Globex \u003c\u0026\u003e"},"links":{"self":"http://x/clients/9"}}`, string(b))
}
