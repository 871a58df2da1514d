// Package jsonapi reads and writes JSON:API 1.0 documents: the output
// documents of the HTTP adapter (resources, relationships, error objects,
// paging links), the write documents clients send (decoded and checked
// against the spec's structural rules, not against any resource schema), and
// the query string (paging, filters, include, sparse fieldsets, sort).
//
// It knows nothing about ScopeKit's resource types: callers map domain
// records to Resource values and check attribute values themselves. It
// imports the standard library only, so any adapter can use it.
package jsonapi

import (
	"errors"
	"io"
)

// MediaType is the JSON:API media type, for Content-Type and Accept.
const MediaType = "application/vnd.api+json"

// Links is a links object whose members are URL strings ("self", "related",
// "first", ...). Link objects with href/meta are not needed by the adapter.
type Links map[string]string

// Raw is a value already encoded: valid, compact JSON exactly as
// encoding/json writes it (HTML characters escaped), for a value rendered
// once and served many times. The encoder copies it as it is; build it
// with json.Marshal.
type Raw []byte

// MarshalJSON implements json.Marshaler.
func (r Raw) MarshalJSON() ([]byte, error) { return r, nil }

// Identifier is a resource identifier object.
type Identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// Relationship is a relationship object of an output resource. HasData says
// whether "data" is emitted (a relationship the caller did not load carries
// links only); ToMany chooses array vs object/null linkage.
type Relationship struct {
	ToMany  bool
	HasData bool
	One     *Identifier  // to-one; nil with HasData => "data": null
	Many    []Identifier // to-many; empty with HasData => "data": []
	// Related is the relationship's "related" link (omitted when empty). A
	// plain string rather than a Links map: a page of resources carries
	// thousands of relationships, and one map each dominated its cost.
	Related string
}

// errEmptyRelationship is returned for a relationship with neither data nor
// links: JSON:API requires at least one, and emitting an invented
// "data": null would tell the client something false.
var errEmptyRelationship = errors.New("jsonapi: relationship has neither data nor links")

// MarshalJSON encodes r as {"data": ..., "links": {...}}. It fails when r has
// neither data nor links.
func (r *Relationship) MarshalJSON() ([]byte, error) {
	return marshalWith(func(e *encoder) error { return e.relationship(r) })
}

// Resource is a resource object of an output document. Its JSON form (with
// encoding/json or inside a Document) omits empty members.
type Resource struct {
	Type          string                   `json:"type"`
	ID            string                   `json:"id"`
	Attributes    map[string]any           `json:"attributes,omitempty"`
	Relationships map[string]*Relationship `json:"relationships,omitempty"`
	Links         Links                    `json:"links,omitempty"`
	Meta          map[string]any           `json:"meta,omitempty"`
	// Fields, when set, writes the attributes and relationships in place
	// of the two maps. Only a Document's encoding reads it (encoding/json
	// does not), so resources that use it are encoded inside a Document.
	Fields FieldSource `json:"-"`
	// Rendered, when set, is the whole resource object as EncodeResource
	// wrote it before; a Document's encoding copies it in place of every
	// other member (Type and ID still name the resource, for included).
	Rendered Raw `json:"-"`
}

// EncodeResource returns r's resource object as a Document writes it,
// for a caller that serves the same resource again (Resource.Rendered).
func EncodeResource(r *Resource) (Raw, error) {
	return marshalWith(func(e *encoder) error { return e.resource(r) })
}

// ErrorSource says which part of the request an error is about.
type ErrorSource struct {
	Pointer   string `json:"pointer,omitempty"`
	Parameter string `json:"parameter,omitempty"`
}

// ErrorObject is one entry of a document's "errors" member.
type ErrorObject struct {
	Status string       `json:"status"`
	Title  string       `json:"title"`
	Detail string       `json:"detail,omitempty"`
	Code   string       `json:"code,omitempty"`
	Source *ErrorSource `json:"source,omitempty"`
	// Meta says more about the error where no pointer into the request
	// document can (a cell of an uploaded file).
	Meta map[string]any `json:"meta,omitempty"`
}

// Document is a top-level document. Exactly one of: single (Data, which may be
// nil => "data": null), list (List true => "data": DataList, [] when empty),
// or errors (Errors non-empty => no "data" member).
//
// Errors take precedence over data, and Included is dropped from an errors
// document, because JSON:API forbids "included" without "data". Included
// resources whose type and id already appeared (in the primary data or
// earlier in Included) are skipped: a compound document must hold each
// resource once.
type Document struct {
	Data     *Resource
	DataList []*Resource
	List     bool
	Included []*Resource // emitted only when non-empty
	Meta     map[string]any
	Links    Links
	Errors   []*ErrorObject
}

// MarshalJSON encodes d. Its members appear in the order data (or errors),
// included, meta, links; map keys are sorted, so output is deterministic.
func (d *Document) MarshalJSON() ([]byte, error) {
	return marshalWith(func(e *encoder) error { return e.document(d) })
}

// Write encodes d to w followed by a newline, as json.Encoder would; HTML
// characters are escaped as encoding/json does by default. Large documents
// are written in chunks of about 32 KiB between resources, so an encoding
// error late in a long list (a value encoding/json rejects) leaves a
// partial document on w; callers that must not send one encode with
// MarshalJSON first.
func Write(w io.Writer, d *Document) error {
	e := getEncoder()
	defer putEncoder(e)
	e.w = w
	if err := e.document(d); err != nil {
		return err
	}
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf, '\n')
	_, err := w.Write(e.buf)
	return err
}
