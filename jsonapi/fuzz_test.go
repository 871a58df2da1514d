package jsonapi_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scopekit/scopekit/jsonapi"
)

var fuzzSeeds = []string{
	``,
	` `,
	`null`,
	`[]`,
	`{}`,
	`{"data":null}`,
	`{"data":[]}`,
	`{"data":{}}`,
	`{"data":{"type":"projects"}}`,
	`{"data":{"type":"projects","id":"7"}}`,
	`{"data":{"type":"projects","id":7}}`,
	`{"data":{"type":"blueprints","id":"3"}}`,
	`{"data":{"type":"projects","attributes":{"name":"x","psa?":true,"hours":1.5}},"meta":{"confirm":true}}`,
	`{"data":{"type":"projects","attributes":{"id":1,"a/b~c":2}}}`,
	`{"data":{"type":"projects","relationships":{"client":{"data":{"type":"clients","id":"3"}},"tags":{"data":[{"type":"tags","id":"1"},{"type":"tags"}]},"owner":{"data":null}}}}`,
	`{"data":{"type":"projects","relationships":{"client":{"meta":{}}}}}`,
	`{"data":{"type":"projects","relationships":{"client":{"data":"3"}}}}`,
	`{"data":{"type":"projects","links":{"self":"x"},"meta":{}},"jsonapi":{"version":"1.0"},"links":{},"included":[]}`,
	`{"meta":{"comment":"ok"}}`,
	`{"meta":{"a b":1}}`,
	`{"data":{"type":"projects"},"data":{"type":"clients"}}`,
	`{"data":{"type":"pro\u006aects","attributes":{"\u00e9":1}}}`,
	`{"data":{"type":"projects","attributes":{"name":"a\u0000b","x":"\ud800","y":"\ud83d\ude00"}}}`,
	"{\"data\":{\"type\":\"projects\",\"attributes\":{\"name\":\"\xc0\xaf\"}}}",
	`{"data":{"type":"projects","attributes":{"name":null,"active":null,"tags":[null,{}]}}}`,
	"{\"data\":{\"type\":\"\xff\",\"attributes\":{\"\xfe\":1}}}",
	`{"data":` + strings.Repeat(`{"a":`, 100) + `1` + strings.Repeat(`}`, 100) + `}`,
	strings.Repeat(`[`, 10001),
}

// addVectorSeeds adds the schema's request vectors when the shared folder is
// there; the fuzz test runs without them too.
func addVectorSeeds(f *testing.F) {
	_ = filepath.WalkDir(filepath.Join(schemaDir, "tests/request"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".json" {
			if b, err := os.ReadFile(path); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

// checkDecodeError fails t unless err is a well-formed *jsonapi.Error: a
// status the contract allows, a detail, and a pointer the schema accepts.
func checkDecodeError(t *testing.T, err error) {
	t.Helper()
	e := asError(t, err)
	if e.Status != 400 && e.Status != 403 && e.Status != 409 {
		t.Fatalf("status %d: %v", e.Status, e)
	}
	if e.Detail == "" || e.Pointer == "" || e.Parameter != "" {
		t.Fatalf("incomplete error %#v", e)
	}
	if !pointerRE.MatchString(e.Pointer) || !utf8.ValidString(e.Pointer) {
		t.Fatalf("pointer %q is not a JSON pointer", e.Pointer)
	}
	_ = e.Error()
}

func FuzzDecodeWrite(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	addVectorSeeds(f)
	opts := []jsonapi.DecodeOptions{
		{},
		{Type: "projects", Create: true},
		{Type: "projects", ID: "7"},
		{Type: "article", ID: "2"},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, opt := range opts {
			doc, err := jsonapi.DecodeWrite(body, opt)
			if err != nil {
				if doc != nil {
					t.Fatal("document and error together")
				}
				checkDecodeError(t, err)
				continue
			}
			checkWriteDocument(t, doc, opt)
		}
		if id, err := jsonapi.DecodeIdentifier(body, "projects"); err != nil {
			checkDecodeError(t, err)
		} else if id.Type != "projects" || id.ID == "" {
			t.Fatalf("identifier %#v", id)
		}
		if meta, err := jsonapi.DecodeMeta(body); err != nil {
			checkDecodeError(t, err)
		} else if meta == nil {
			t.Fatal("nil meta without an error")
		}
	})
}

// checkWriteDocument checks the promises DecodeWrite makes about a success.
func checkWriteDocument(t *testing.T, doc *jsonapi.WriteDocument, opt jsonapi.DecodeOptions) {
	t.Helper()
	switch {
	case doc.Type == "" || opt.Type != "" && doc.Type != opt.Type:
		t.Fatalf("type %q with options %+v", doc.Type, opt)
	case opt.Create && doc.HasID:
		t.Fatal("an id was accepted on create")
	case !opt.Create && opt.ID != "" && (!doc.HasID || doc.ID != opt.ID):
		t.Fatalf("id %q with options %+v", doc.ID, opt)
	case doc.Attributes == nil || doc.Relationships == nil || doc.Meta == nil:
		t.Fatal("nil map in a decoded document")
	}
	for name, raw := range doc.Attributes {
		if !memberNameRE.MatchString(name) || name == "id" || name == "type" || name == "links" || name == "relationships" {
			t.Fatalf("attribute name %q accepted", name)
		}
		if !json.Valid(raw) {
			t.Fatalf("attribute %q is not JSON: %q", name, raw)
		}
	}
	for name, rel := range doc.Relationships {
		if !memberNameRE.MatchString(name) {
			t.Fatalf("relationship name %q accepted", name)
		}
		if _, dup := doc.Attributes[name]; dup {
			t.Fatalf("%q is both attribute and relationship", name)
		}
		if !rel.ToMany && len(rel.Data) > 1 {
			t.Fatalf("to-one %q with %d identifiers", name, len(rel.Data))
		}
		for _, id := range rel.Data {
			if id.Type == "" || id.ID == "" {
				t.Fatalf("empty identifier in %q", name)
			}
		}
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "page[number]=2&page[size]=10", "page[size]=1001", "page[x]=1", "page=1",
		"filter[active]=true,false&filter[name]=a", "filter[]=1", "filter=1", "filter[a][b]=1",
		"include=a,b.c", "include=", "include=,", "fields[projects]=a,b", "fields[]=a", "fields[p]=",
		"sort=-a,b", "sort=", "sort=-", "version=2&x[y]=1", "page[number]=1&page[number]=2",
		"filter[name]=a%00b", "filter[name]=%ff", "filter%ff=1", "x=%00", "filter[a%00]=1", "include=%c0%af",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, _ := url.ParseQuery(raw) // keeps what it could parse
		q, err := jsonapi.ParseQuery(v)
		if err != nil {
			e := asError(t, err)
			if q != nil || e.Status != 400 || e.Parameter == "" || e.Pointer != "" || e.Detail == "" {
				t.Fatalf("bad error %#v", e)
			}
			if _, ok := v[e.Parameter]; !ok && !namesUncleanKey(v, e.Parameter) {
				t.Fatalf("parameter %q is not in the query", e.Parameter)
			}
			return
		}
		for k, vs := range v { // what parses is clean text (an unnamed parameter is never read)
			if k == "" {
				continue
			}
			for _, s := range append([]string{k}, vs...) {
				if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
					t.Fatalf("parameter %q = %q accepted", k, vs)
				}
			}
		}
		if q.PageNumber < 1 || q.PageSize < 1 || q.PageSize > jsonapi.MaxPageSize {
			t.Fatalf("page %d size %d", q.PageNumber, q.PageSize)
		}
		for _, s := range q.Sort {
			if s.Field == "" || strings.HasPrefix(s.Field, "-") {
				t.Fatalf("sort field %q", s.Field)
			}
		}
		for _, inc := range q.Include {
			if inc == "" {
				t.Fatal("empty include")
			}
		}
		links := jsonapi.PageLinks("http://x/v2/projects", v, q.PageNumber, q.PageSize, 3)
		u, err := url.Parse(links["self"])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jsonapi.ParseQuery(u.Query()); err != nil {
			t.Fatalf("self link %q does not parse back: %v", links["self"], err)
		}
	})
}

// namesUncleanKey reports whether param names a key of v that is not
// clean text, as ParseQuery reports it (NUL and invalid UTF-8 as
// U+FFFD).
func namesUncleanKey(v url.Values, param string) bool {
	for k := range v {
		if (!utf8.ValidString(k) || strings.ContainsRune(k, 0)) &&
			strings.ToValidUTF8(strings.ReplaceAll(k, "\x00", "\uFFFD"), "\uFFFD") == param {
			return true
		}
	}
	return false
}

// FuzzStringEncoding holds the encoder's string escaping to encoding/json's.
func FuzzStringEncoding(f *testing.F) {
	for _, s := range []string{"", "plain", `<a href="x">&amp;</a>`, "tab\t\b\f\x00\x7f", "é\u2028\u2029日本", "\xff\xfe", "a\\b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := &jsonapi.Resource{Type: s, ID: s, Attributes: map[string]any{s: s, "x": []any{s}}, Links: jsonapi.Links{s: s}}
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := (&jsonapi.Document{Data: r}).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != `{"data":`+string(want)+`}` {
			t.Fatalf("encoding differs from encoding/json:\n got %s\nwant {\"data\":%s}", got, want)
		}
	})
}
