package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The property tests of the attribute rules: they walk every declared
// type and attribute, so a type added later is covered without a line
// here.

// probeEnv is a test API with the demo catalog and project in acme, and a
// probe record of every writable type that the walk may change freely.
type probeEnv struct {
	*testEnv
	tok    string
	probes map[string]string // type -> id of its probe record
}

func mustProbeEnv(t *testing.T) *probeEnv {
	e := mustEnv(t)
	p := &probeEnv{testEnv: e, tok: e.admin(), probes: map[string]string{}}
	ctx := context.Background()
	a, err := e.svc.SystemActor(ctx, e.accts["acme"])
	require.NoError(t, err)
	_, err = demodata.Seed(ctx, e.svc, a, "")
	require.NoError(t, err)
	for _, def := range writableTypes() {
		p.probes[def.Name] = p.probe(def)
	}
	return p
}

// writableTypes are the served types with generic writes.
func writableTypes() []*engine.TypeDef {
	var out []*engine.TypeDef
	for _, def := range scoping.DefaultSchema().Types() {
		if def.Served() && !def.ReadOnly {
			out = append(out, def)
		}
	}
	return out
}

// probe creates a record of def through the API from valid values of its
// required attributes and relationships (the first record of each target
// type), and returns its id; it fails the test when it cannot.
func (p *probeEnv) probe(def *engine.TypeDef) string {
	p.t.Helper()
	attrs := map[string]any{}
	for _, a := range def.Attrs {
		if a.Required && !a.Computed {
			attrs[a.Name] = validValue(def, &a)
		}
	}
	if _, ok := def.Attr("client-secret"); ok { // written, never read back: not required of updates
		attrs["client-secret"] = "probe secret"
	}
	body, _ := json.Marshal(attrs)
	var rels []string
	for _, rd := range def.Rels {
		if rd.Required && rd.Stored() && !rd.ReadOnly {
			id := p.firstOf(rd.Type)
			if def.Name == "change-orders" { // a change order is of a won project
				id = p.wonProject()
			}
			rels = append(rels, rd.Name, rd.Type, id)
		}
	}
	if def.Name == "project-subservices" { // owned through the project service
		rels = append(rels, "project-service", "project-services", p.firstOf("project-services"))
	}
	if _, ok := def.Rel("document-template"); ok { // a sow needs a template with a file: the built-in one
		std := p.get("/acme/v1/document-templates?filter[name]=Standard", p.tok).ids()
		require.NotEmpty(p.t, std)
		rels = append(rels, "document-template", "document-templates", std[0])
	}
	r := p.req(http.MethodPost, "/acme/v1/"+def.Name, p.tok, doc(def.Name, "", string(body), rels...))
	want := http.StatusCreated
	if def.Async {
		want = http.StatusAccepted
	}
	require.Equal(p.t, want, r.Status, "probe %s: %s", def.Name, r.Body)
	return r.data()["id"].(string)
}

// wonProject creates a project and sets it won.
func (p *probeEnv) wonProject() string {
	p.t.Helper()
	id := p.create("/acme/v1/projects", p.tok, "projects", `{"project-name":"Won probe"}`, "client", "clients", p.firstOf("clients"))
	for _, st := range []string{"approved", "won"} {
		r := p.patch("/acme/v1/projects/"+id, p.tok, "projects", id, `{"status":"`+st+`"}`)
		require.Equal(p.t, http.StatusOK, r.Status, "%s", r.Body)
	}
	return id
}

func (p *probeEnv) firstOf(typ string) string {
	p.t.Helper()
	if id, ok := p.probes[typ]; ok {
		return id
	}
	q := ""
	if def, _ := scoping.DefaultSchema().Lookup(typ); def.Archives {
		q = "?filter[active]=true,false"
	}
	r := p.get("/acme/v1/"+typ+q, p.tok)
	require.Equal(p.t, http.StatusOK, r.Status, "%s", r.Body)
	ids := r.ids()
	require.NotEmpty(p.t, ids, "no %s in the demo data", typ)
	return ids[0]
}

// validValue is a value of a's kind that its type accepts.
func validValue(def *engine.TypeDef, a *engine.AttrDef) any {
	switch {
	case a.Name == "email":
		return "probe-" + def.Name + "@example.test"
	case a.Name == "destination-url":
		return "http://127.0.0.1:9/hooks"
	case a.Name == "issuer-url":
		return "https://login.example.test"
	case a.Name == "email-domains":
		return []string{"probe-" + def.Name + ".example.test"}
	case def.Name == "verified-domains" && a.Name == "domain":
		return "probe.example.test"
	case def.Name == "currencies" && a.Name == "code":
		return "CHF"
	}
	switch a.Kind {
	case engine.KindEnum:
		return a.Enum[0]
	case engine.KindDecimal:
		return "1"
	case engine.KindInt:
		return 1
	case engine.KindBool:
		return false
	case engine.KindDate:
		return "2026-01-02"
	case engine.KindTime:
		return "2026-01-02T03:04:05Z"
	case engine.KindObject:
		return map[string]any{}
	case engine.KindList:
		return []string{"a"}
	}
	return "probe_" + strings.ReplaceAll(def.Name, "-", "_")
}

// readBack fetches the probe record of typ, archived or not.
func (p *probeEnv) readBack(def *engine.TypeDef) *resp {
	p.t.Helper()
	q := ""
	if def.Archives {
		q = "?filter[active]=true,false"
	}
	return p.get("/acme/v1/"+def.Name+"/"+p.probes[def.Name]+q, p.tok)
}

// Ensure every attribute of every writable type answers each JSON kind
// with a 2xx or a 4xx naming the attribute, never a 5xx, and that the
// record still reads back afterwards (defects 2, 3 and 9 of the probe).
func TestPropertyEveryAttributeEveryKind(t *testing.T) {
	p := mustProbeEnv(t)
	oversized := strings.Repeat("é", engine.MaxTextBytes) // over every limit, in bytes and characters
	kinds := map[string]string{
		"string":    `"x"`,
		"number":    `12.5`,
		"integer":   `3`,
		"negative":  `-1`,
		"bool":      `true`,
		"object":    `{"k":"v"}`,
		"array":     `["a"]`,
		"null":      `null`,
		"empty":     `""`,
		"oversized": `"` + oversized + `"`,
		"nul":       `"a\u0000b"`,
		"surrogate": `"\udc00"`,
		"padded":    `" 5 "`,
		"huge":      `1e400`,
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range kinds {
			if !yield(k) {
				return
			}
		}
	})
	walked := 0
	for _, def := range writableTypes() {
		id := p.probes[def.Name]
		for _, a := range def.Attrs {
			if a.Computed {
				continue
			}
			walked++
			for _, kind := range names {
				body := doc(def.Name, id, `{"`+a.Name+`":`+kinds[kind]+`}`)
				r := p.req(http.MethodPatch, "/acme/v1/"+def.Name+"/"+id, p.tok, body)
				what := fmt.Sprintf("%s.%s = %s", def.Name, a.Name, kind)
				require.Less(t, r.Status, 500, "%s: %s", what, r.Body)
				if r.Status >= 400 {
					assertNamesField(t, r, "/data/attributes/"+a.Name, what)
				}
				back := p.readBack(def)
				require.Equal(t, http.StatusOK, back.Status, "%s: the record no longer reads back: %s", what, back.Body)
				switch kind {
				case "oversized", "nul", "surrogate":
					assert.GreaterOrEqual(t, r.Status, 400, "%s is accepted", what)
				case "padded":
					if a.Kind == engine.KindDecimal {
						assert.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s is accepted", what)
					}
				}
			}
		}
		// the record is still listed
		r := p.get("/acme/v1/"+def.Name+"?filter[ids]="+id, p.tok)
		if def.Archives {
			r = p.get("/acme/v1/"+def.Name+"?filter[active]=true,false&filter[ids]="+id, p.tok)
		}
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, []string{id}, r.ids(), "%s %s is not listed", def.Name, id)
	}
	t.Logf("%d attributes of %d types, %d JSON kinds each", walked, len(writableTypes()), len(kinds))
}

// assertNamesField checks that r is a JSON:API error with an error whose
// source pointer is ptr or a member of it.
func assertNamesField(t *testing.T, r *resp, ptr, what string) {
	t.Helper()
	assertError(t, r, r.Status, "")
	for _, e := range r.errors() {
		src, _ := e["source"].(map[string]any)
		if got, _ := src["pointer"].(string); got == ptr || strings.HasPrefix(got, ptr+"/") {
			return
		}
	}
	t.Errorf("%s: no error names %s: %s", what, ptr, r.Body)
}

// Ensure null is decided per attribute kind for every declared attribute:
// required, boolean, enum and NotNull attributes answer 422 naming the
// field and keep their value; the others go back to their default (or no
// value). Archived records stay findable: active null is refused.
func TestPropertyNullEveryAttribute(t *testing.T) {
	p := mustProbeEnv(t)
	for _, def := range writableTypes() {
		id := p.probes[def.Name]
		for _, a := range def.Attrs {
			if a.Computed {
				continue
			}
			what := def.Name + "." + a.Name
			before := p.readBack(def).attr(a.Name)
			r := p.req(http.MethodPatch, "/acme/v1/"+def.Name+"/"+id, p.tok, doc(def.Name, id, `{"`+a.Name+`":null}`))
			if !a.Nullable() {
				e := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/"+a.Name)
				assert.Contains(t, e["detail"], a.Name, what)
				assert.Equal(t, before, p.readBack(def).attr(a.Name), "%s changed by a refused null", what)
				continue
			}
			if r.Status >= 400 { // a rule of the type (not of null) may refuse the default
				e := assertError(t, r, r.Status, "")
				require.Less(t, r.Status, 500, "%s: %s", what, r.Body)
				t.Logf("%s = null refused by a type rule: %v", what, e["detail"])
				continue
			}
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", what, r.Body)
			got := p.readBack(def).attr(a.Name)
			if a.Default == nil {
				assert.Nil(t, got, "%s = null must clear it", what)
			} else {
				assert.EqualValues(t, fmt.Sprint(a.Default), fmt.Sprint(got), "%s = null must restore the default", what)
			}
		}
	}
}
