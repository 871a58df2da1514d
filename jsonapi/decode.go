package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Members JSON:API 1.0 allows in the objects of a request document. Anything
// else is rejected rather than ignored, so a misspelt member ("atributes")
// fails loudly instead of silently updating nothing. "links" and "included"
// are accepted (and ignored) so a client may send back what it fetched.
var (
	topMembers          = []string{"data", "meta", "jsonapi", "links", "included"}
	resourceMembers     = []string{"type", "id", "attributes", "relationships", "links", "meta"}
	relationshipMembers = []string{"data", "meta", "links"}
	identifierMembers   = []string{"type", "id", "meta"}
)

// RelationshipInput is a relationship of a write document.
type RelationshipInput struct {
	ToMany bool         // "data" was an array
	Data   []Identifier // to-one: empty when "data" was null, else one element
}

// WriteDocument is a decoded create/update body. Its maps are never nil.
type WriteDocument struct {
	Type          string
	ID            string // "" when absent
	HasID         bool
	Attributes    map[string]json.RawMessage // raw values; types are checked by the caller, which knows the schema
	Relationships map[string]RelationshipInput
	Meta          map[string]any // top-level "meta" (e.g. {"confirm": true}); decoded with UseNumber
}

// DecodeOptions say which request a write document belongs to.
type DecodeOptions struct {
	Type   string // the collection's type; a different data.type => 409 pointer /data/type
	ID     string // on update, the id in the path; a different data.id => 409 pointer /data/id; data.id missing on update => 400 /data/id
	Create bool   // on create, any data.id => 403 pointer /data/id ("client-generated ids are not supported"); takes precedence over ID
}

// DecodeWrite decodes and checks a create or update body. It checks the
// document's structure only (JSON:API's rules, member names, the type and
// id); attribute values are left raw for the caller. The error is always an
// *Error: 400 for a malformed document, 403 for a client-generated id on
// create, 409 for a type or id that conflicts with the URL.
func DecodeWrite(body []byte, opt DecodeOptions) (*WriteDocument, error) {
	doc, err := decodeWrite(body, opt)
	if err != nil {
		return nil, err
	}
	return doc, nil
}

func decodeWrite(body []byte, opt DecodeOptions) (*WriteDocument, *Error) {
	top, err := decodeTop(body, topMembers)
	if err != nil {
		return nil, err
	}
	data, err := primaryData(top, "a single resource object")
	if err != nil {
		return nil, err
	}
	if err := onlyMembers(data, resourceMembers, "/data", "the resource object"); err != nil {
		return nil, err
	}
	doc := &WriteDocument{
		Attributes:    map[string]json.RawMessage{},
		Relationships: map[string]RelationshipInput{},
	}
	if doc.Type, err = resourceType(data, opt.Type); err != nil {
		return nil, err
	}
	if doc.ID, doc.HasID, err = resourceID(data, opt); err != nil {
		return nil, err
	}
	if raw, ok := data["attributes"]; ok {
		if doc.Attributes, err = attributes(raw); err != nil {
			return nil, err
		}
	}
	if raw, ok := data["relationships"]; ok {
		if doc.Relationships, err = relationships(raw, doc.Attributes); err != nil {
			return nil, err
		}
	}
	if err := mustBeObject(data, "links", "/data/links"); err != nil {
		return nil, err
	}
	if _, err := optionalMeta(data, "/data/meta"); err != nil {
		return nil, err
	}
	if doc.Meta, err = optionalMeta(top, "/meta"); err != nil {
		return nil, err
	}
	return doc, nil
}

// DecodeIdentifier decodes {"data": {"type": T, "id": I}} (a body naming one
// existing record, e.g. apply-blueprint) and checks the type (409 on mismatch,
// 400 when id missing/not a string). The error is always an *Error.
func DecodeIdentifier(body []byte, typ string) (Identifier, error) {
	id, err := decodeIdentifierBody(body, typ)
	if err != nil {
		return Identifier{}, err
	}
	return id, nil
}

func decodeIdentifierBody(body []byte, typ string) (Identifier, *Error) {
	top, err := decodeTop(body, topMembers)
	if err != nil {
		return Identifier{}, err
	}
	data, err := primaryData(top, fmt.Sprintf(`a resource identifier object {"type": %q, "id": ...}`, typ))
	if err != nil {
		return Identifier{}, err
	}
	if err := onlyMembers(data, identifierMembers, "/data", "the resource identifier"); err != nil {
		return Identifier{}, err
	}
	var id Identifier
	if id.Type, err = resourceType(data, typ); err != nil {
		return Identifier{}, err
	}
	s, ok := stringMember(data, "id")
	if !ok || s == "" {
		return Identifier{}, badRequest("/data/id", `the resource identifier needs an "id" member that is a non-empty string`)
	}
	id.ID = s
	if _, err := optionalMeta(data, "/data/meta"); err != nil {
		return Identifier{}, err
	}
	if _, err := optionalMeta(top, "/meta"); err != nil {
		return Identifier{}, err
	}
	return id, nil
}

// DecodeMeta decodes an optional body {"meta": {...}} (action bodies such as
// {"meta": {"comment": "..."}}); an empty body gives an empty map. Anything
// but an object with optional "meta" object => 400. The error is always an
// *Error; numbers are json.Number.
func DecodeMeta(body []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]any{}, nil
	}
	top, err := decodeTop(body, []string{"meta"})
	if err != nil {
		return nil, err
	}
	meta, err := optionalMeta(top, "/meta")
	if err != nil {
		return nil, err
	}
	return meta, nil
}

// decodeTop parses the top level of a request body and checks its members
// and the shapes of the members that are ignored.
func decodeTop(body []byte, allowed []string) (map[string]json.RawMessage, *Error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, badRequest("/", `the request body is empty; send a JSON:API document with a "data" member`)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			return nil, badRequest("/", "the request body is not valid JSON: %s (at byte %d)", se.Error(), se.Offset)
		}
		top = nil
	}
	if top == nil {
		return nil, badRequest("/", "the request body must be a JSON object, not %s", kind(trimmed))
	}
	if err := onlyMembers(top, allowed, "", "the top-level document"); err != nil {
		return nil, err
	}
	if err := mustBeObject(top, "jsonapi", "/jsonapi"); err != nil {
		return nil, err
	}
	if err := mustBeObject(top, "links", "/links"); err != nil {
		return nil, err
	}
	if raw, ok := top["included"]; ok && kind(raw) != "an array" {
		return nil, badRequest("/included", `"included" must be an array, not %s`, kind(raw))
	}
	return top, nil
}

// primaryData returns the members of the object in top's "data".
func primaryData(top map[string]json.RawMessage, want string) (map[string]json.RawMessage, *Error) {
	raw, ok := top["data"]
	if !ok {
		return nil, badRequest("/data", `the request body has no "data" member; it must be %s`, want)
	}
	data, ok := object(raw)
	if !ok {
		return nil, badRequest("/data", `"data" must be %s, not %s`, want, kind(raw))
	}
	return data, nil
}

func resourceType(data map[string]json.RawMessage, want string) (string, *Error) {
	expect := ""
	if want != "" {
		expect = fmt.Sprintf(" (%q here)", want)
	}
	raw, ok := data["type"]
	if !ok {
		return "", badRequest("/data/type", `"data" has no "type" member; it must name the resource type%s`, expect)
	}
	s, ok := str(raw)
	if !ok || s == "" {
		return "", badRequest("/data/type", `"type" must be a non-empty string naming the resource type%s, not %s`, expect, kind(raw))
	}
	if want != "" && s != want {
		return "", &Error{Status: 409, Pointer: "/data/type",
			Detail: fmt.Sprintf(`"type" is %q but this endpoint takes %q`, s, want)}
	}
	return s, nil
}

func resourceID(data map[string]json.RawMessage, opt DecodeOptions) (string, bool, *Error) {
	raw, ok := data["id"]
	if !ok {
		if !opt.Create && opt.ID != "" {
			return "", false, badRequest("/data/id", `"data" has no "id" member; an update must send "id": %q, the id in the URL`, opt.ID)
		}
		return "", false, nil
	}
	s, ok := str(raw)
	if !ok {
		return "", false, badRequest("/data/id", `"id" must be a string, not %s`, kind(raw))
	}
	switch {
	case opt.Create:
		return "", false, &Error{Status: 403, Pointer: "/data/id",
			Detail: `client-generated ids are not supported: remove "id" from the resource object and the server assigns one`}
	case opt.ID != "" && s != opt.ID:
		return "", false, &Error{Status: 409, Pointer: "/data/id",
			Detail: fmt.Sprintf(`"id" is %q but the URL names %q; they must match`, s, opt.ID)}
	}
	return s, true, nil
}

func attributes(raw json.RawMessage) (map[string]json.RawMessage, *Error) {
	attrs, ok := object(raw)
	if !ok {
		return nil, badRequest("/data/attributes", `"attributes" must be an object, not %s`, kind(raw))
	}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		if err := fieldName(name, "attribute", pointer("data", "attributes", name)); err != nil {
			return nil, err
		}
	}
	return attrs, nil
}

func relationships(raw json.RawMessage, attrs map[string]json.RawMessage) (map[string]RelationshipInput, *Error) {
	rels, ok := object(raw)
	if !ok {
		return nil, badRequest("/data/relationships", `"relationships" must be an object, not %s`, kind(raw))
	}
	out := make(map[string]RelationshipInput, len(rels))
	for _, name := range slices.Sorted(maps.Keys(rels)) {
		at := pointer("data", "relationships", name)
		if err := fieldName(name, "relationship", at); err != nil {
			return nil, err
		}
		if _, dup := attrs[name]; dup {
			return nil, badRequest(at, "%q is both an attribute and a relationship; JSON:API fields share one namespace, so send it once", name)
		}
		in, err := relationship(rels[name], name, at)
		if err != nil {
			return nil, err
		}
		out[name] = in
	}
	return out, nil
}

func relationship(raw json.RawMessage, name, at string) (RelationshipInput, *Error) {
	rel, ok := object(raw)
	if !ok {
		return RelationshipInput{}, badRequest(at, `relationship %q must be an object with a "data" member, not %s`, name, kind(raw))
	}
	if err := onlyMembers(rel, relationshipMembers, at, fmt.Sprintf("relationship %q", name)); err != nil {
		return RelationshipInput{}, err
	}
	linkage, ok := rel["data"]
	if !ok {
		return RelationshipInput{}, badRequest(at, `relationship %q has no "data" member; send {"data": {"type": ..., "id": ...}}, {"data": null} or {"data": [...]}`, name)
	}
	if err := mustBeObject(rel, "links", at+"/links"); err != nil {
		return RelationshipInput{}, err
	}
	if _, err := optionalMeta(rel, at+"/meta"); err != nil {
		return RelationshipInput{}, err
	}
	at += "/data"
	switch kind(linkage) {
	case "null":
		return RelationshipInput{Data: []Identifier{}}, nil
	case "an object":
		id, err := identifier(linkage, at, fmt.Sprintf("the data of relationship %q", name))
		if err != nil {
			return RelationshipInput{}, err
		}
		return RelationshipInput{Data: []Identifier{id}}, nil
	case "an array":
		var items []json.RawMessage
		_ = json.Unmarshal(linkage, &items) // the body was validated as a whole
		in := RelationshipInput{ToMany: true, Data: make([]Identifier, 0, len(items))}
		for i, item := range items {
			id, err := identifier(item, at+"/"+strconv.Itoa(i), fmt.Sprintf("item %d of relationship %q", i, name))
			if err != nil {
				return RelationshipInput{}, err
			}
			in.Data = append(in.Data, id)
		}
		return in, nil
	}
	return RelationshipInput{}, badRequest(at, `the "data" of relationship %q must be null, a resource identifier object or an array of them, not %s`, name, kind(linkage))
}

// identifier decodes a resource identifier object of a relationship. Every
// problem with it points at the identifier itself.
func identifier(raw json.RawMessage, at, what string) (Identifier, *Error) {
	const shape = `a resource identifier object {"type": "...", "id": "..."} with non-empty strings`
	m, ok := object(raw)
	if !ok {
		return Identifier{}, badRequest(at, "%s must be %s, not %s", what, shape, kind(raw))
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(identifierMembers, k) {
			return Identifier{}, badRequest(at, `%s has an unknown member %q; a resource identifier has only "type", "id" and "meta"`, what, k)
		}
	}
	typ, okType := stringMember(m, "type")
	id, okID := stringMember(m, "id")
	if !okType || !okID || typ == "" || id == "" {
		return Identifier{}, badRequest(at, "%s must be %s", what, shape)
	}
	if _, err := optionalMeta(m, at+"/meta"); err != nil {
		return Identifier{}, err
	}
	return Identifier{Type: typ, ID: id}, nil
}

// fieldName checks an attribute or relationship name against JSON:API's
// member-name rules and its reserved names.
func fieldName(name, what, at string) *Error {
	if !validMemberName(name) {
		return badRequest(at, `%s name %q is not a valid member name: use letters, digits, "-" and "_", starting and ending with a letter or digit`, what, name)
	}
	switch name {
	case "type", "id":
		return badRequest(at, `%s %q is not allowed: "type" and "id" are members of the resource object itself`, what, name)
	case "relationships", "links":
		return badRequest(at, `%s %q is not allowed: JSON:API reserves the names "relationships" and "links"`, what, name)
	}
	return nil
}

// validMemberName reports whether s follows the member-name rule of the
// JSON:API schema (ASCII letters and digits, with "-" and "_" inside). One
// trailing "?" is also accepted because the interface spec names an
// attribute "psa?".
func validMemberName(s string) bool {
	s = strings.TrimSuffix(s, "?")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// optionalMeta decodes the "meta" member of m, if any, into a non-nil map.
func optionalMeta(m map[string]json.RawMessage, at string) (map[string]any, *Error) {
	raw, ok := m["meta"]
	if !ok {
		return map[string]any{}, nil
	}
	if kind(raw) != "an object" {
		return nil, badRequest(at, `"meta" must be an object, not %s`, kind(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var meta map[string]any
	if err := dec.Decode(&meta); err != nil {
		return nil, badRequest(at, `"meta" must be an object: %v`, err)
	}
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		if !validMemberName(k) {
			return nil, badRequest(at+pointer(k), `meta member name %q is not a valid member name: use letters, digits, "-" and "_", starting and ending with a letter or digit`, k)
		}
	}
	return meta, nil
}

// mustBeObject checks that member name of m, when present, is an object.
func mustBeObject(m map[string]json.RawMessage, name, at string) *Error {
	if raw, ok := m[name]; ok && kind(raw) != "an object" {
		return badRequest(at, "%q must be an object, not %s", name, kind(raw))
	}
	return nil
}

// onlyMembers rejects the first (in sorted order, so errors are stable)
// member of m that is not in allowed.
func onlyMembers(m map[string]json.RawMessage, allowed []string, at, what string) *Error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			return badRequest(at+pointer(k), "unknown member %q in %s; allowed members are %s", k, what, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// object returns the members of raw when it is a JSON object. raw is part of
// a body already validated as JSON.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if kind(raw) != "an object" {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	return m, true
}

func stringMember(m map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := m[name]
	if !ok {
		return "", false
	}
	return str(raw)
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if kind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// kind names the JSON type of raw for error details.
func kind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
