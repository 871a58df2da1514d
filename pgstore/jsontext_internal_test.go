package pgstore

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// stdDecode is what decodeObject must give: encoding/json with UseNumber.
func stdDecode(b []byte) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errJSON
	}
	return m, nil
}

var jsonSeeds = []string{
	`{}`, `{"a": 1}`, `{"a": -1.5e+10, "b": 0, "c": 1E-3}`, `{"s": "plain", "t": true, "f": false, "n": null}`,
	`{"nested": {"x": [1, "two", {"y": null}], "e": []}, "o": {}}`,
	`{"esc": "quote \" backslash \\ slash \/ \b\f\n\r\t \u0041\u00e9\u20ac \ud83d\ude00"}`,
	`{"lone": "\ud800 x", "pair-broken": "\ud800\u0041", "low": "\udc00", "nul": "a\u0000b"}`,
	"{\"utf8\": \"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\", \"bad\": \"\xff\xfe ok\"}",
	`{"dup": 1, "dup": 2}`, ` { "sp" :  [ 1 , 2 ] } `, `{"price-figures": {"revenue": "1234.56"}, "tags": ["a", "b"]}`,
	`{"a": 01}`, `{"a": +1}`, `{"a": 1.}`, `{"a": "unterminated}`, `{"a": tru}`, `{"a": 1,}`, `[1]`, `{"a": 1} x`,
	`{"ctl": "a` + "\x01" + `b"}`, `{"a": "\x"}`, `{"a": "\u12"}`,
}

// Ensure the decoder of JSONB text gives what encoding/json gives, and
// refuses (for the fallback) what encoding/json refuses.
func TestDecodeObjectMatchesEncodingJSON(t *testing.T) {
	for _, s := range jsonSeeds {
		want, werr := stdDecode([]byte(s))
		got, err := decodeObject([]byte(s))
		if werr != nil {
			require.Error(t, err, "%s", s)
			continue
		}
		if err != nil {
			continue // refused: the fallback decodes it as encoding/json does
		}
		require.Equal(t, want, got, "%s", s)
	}
}

func FuzzDecodeObject(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeObject(b)
		if err != nil {
			return
		}
		want, werr := stdDecode(b)
		require.NoError(t, werr, "%q", b)
		require.Equal(t, want, got, "%q", b)
	})
}

var relsSeeds = []string{
	`{}`, `{"client": ["1"]}`, `{"a": [], "b": ["1", "2"], "a": ["3"]}`, ` { "x" : [ "1" , "\u0032" ] } `,
	`{"a": null}`, `{"a": [1]}`, `{"a": "1"}`, `{"a": ["1",]}`, `{"a": ["1"]} x`, "{\"a\": [\"\xff\"]}",
}

// Ensure the relationships decoder gives what encoding/json gives, and
// refuses (for the fallback) what it refuses.
func FuzzDecodeRels(f *testing.F) {
	for _, s := range relsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeRels(b)
		if err != nil {
			return
		}
		var want map[string][]string
		require.NoError(t, json.Unmarshal(b, &want), "%q", b)
		require.Equal(t, want, got, "%q", b)
	})
}
