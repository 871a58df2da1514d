package engine_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// FuzzDecodeAttr holds every declared attribute's decoding to the rules
// of limits.go (over the domain's declarations), whatever the JSON: it never panics, refuses with a 400 or
// 422 naming the attribute, and what it accepts is clean text within the
// attribute's limit and survives a JSON round trip.
func FuzzDecodeAttr(f *testing.F) {
	for _, s := range []string{`null`, `""`, `"x"`, `" 5 "`, `"5"`, `5`, `-1`, `1e400`, `1.5`, `true`, `{}`, `[]`,
		`["a"]`, `{"a":"b"}`, `"a\u0000b"`, `"\ud800"`, `"\ud83d\ude00"`, "\"\xff\"", `"2026-01-02"`,
		`"2026-01-02T03:04:05Z"`, `"` + strings.Repeat("n", 300) + `"`, `[` + strings.Repeat(`"a",`, 50) + `"a"]`} {
		f.Add([]byte(s))
	}
	var attrs []*engine.AttrDef
	for _, def := range scoping.DefaultSchema().Types() {
		for i := range def.Attrs {
			if !def.Attrs[i].Computed {
				attrs = append(attrs, &def.Attrs[i])
			}
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the JSON:API decoder refuses it before the engine sees it
		}
		for _, a := range attrs {
			v, e := engine.DecodeAttr(a, raw)
			if e != nil {
				if v != nil || (e.Code != scopekit.EBADREQUEST && e.Code != scopekit.EINVALID) || e.Field != engine.AttrPointer(a.Name) ||
					!strings.Contains(e.Message, a.Name) {
					t.Fatalf("%s: bad refusal %#v", a.Name, e)
				}
				continue
			}
			if v == nil {
				if !a.Nullable() && !a.Required {
					t.Fatalf("%s: null accepted", a.Name)
				}
				continue
			}
			if msg := engine.BadText(v); msg != "" {
				t.Fatalf("%s: accepted %q: %s", a.Name, raw, msg)
			}
			if s, ok := v.(string); ok {
				n, unit := a.MaxLength()
				l := len(s)
				if unit == "characters" {
					l = utf8.RuneCountInString(s)
				}
				if n > 0 && l > n {
					t.Fatalf("%s: %d %s accepted", a.Name, l, unit)
				}
				if a.Kind == engine.KindDecimal && strings.TrimSpace(s) != s {
					t.Fatalf("%s: padded decimal %q accepted", a.Name, s)
				}
			}
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("%s: accepted value does not encode: %v", a.Name, err)
			}
		}
	})
}
