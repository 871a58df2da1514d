package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"

	"github.com/scopekit/scopekit/jsonapi"
)

// Document is a JSON:API document as the server answers it.
type Document struct {
	Data     json.RawMessage `json:"data"`
	Included []Resource      `json:"included,omitempty"`
	Meta     map[string]any  `json:"meta,omitempty"`
	Links    map[string]any  `json:"links,omitempty"`
}

// Resource is one resource object: attributes stay raw JSON until decoded
// into a typed value (DecodeAttributes) or read one by one (Attr).
type Resource struct {
	Type          string                     `json:"type"`
	ID            string                     `json:"id"`
	Attributes    map[string]json.RawMessage `json:"attributes,omitempty"`
	Relationships map[string]Relationship    `json:"relationships,omitempty"`
	Links         map[string]any             `json:"links,omitempty"`
	Meta          map[string]any             `json:"meta,omitempty"`
}

// Relationship is a relationship object: Data is null, one identifier or
// an array of them.
type Relationship struct {
	Data  json.RawMessage `json:"data,omitempty"`
	Links map[string]any  `json:"links,omitempty"`
}

// Attr decodes attribute name into v; a missing attribute leaves v as is.
func (r *Resource) Attr(name string, v any) error {
	raw, ok := r.Attributes[name]
	if !ok {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// DecodeAttributes decodes all attributes into v, a pointer to a struct
// with json tags: the generated attributes of the resource's type (e.g.
// *PhaseAttributes for a record of type phases) or a struct of one's own.
func (r *Resource) DecodeAttributes(v any) error {
	raw, err := json.Marshal(r.Attributes)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// RelID is the id of a to-one relationship's record ("" when empty or not
// sent).
func (r *Resource) RelID(name string) string {
	var id jsonapi.Identifier
	if rel, ok := r.Relationships[name]; ok && json.Unmarshal(rel.Data, &id) == nil {
		return id.ID
	}
	return ""
}

// RelIDs are the ids of a to-many relationship's records.
func (r *Resource) RelIDs(name string) []string {
	var ids []jsonapi.Identifier
	if rel, ok := r.Relationships[name]; ok && json.Unmarshal(rel.Data, &ids) == nil {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = id.ID
		}
		return out
	}
	return nil
}

// decode lets Resource serve as its own typed form.
func (r *Resource) decode(src *Resource) error {
	*r = *src
	return nil
}

// Decoded is what Get, List and the write helpers decode resources into:
// Resource itself or one of the typed records (*Project, *Client, ...).
type Decoded[T any] interface {
	*T
	decode(*Resource) error
}

// One is the single resource of d.
func (d *Document) One() (*Resource, error) {
	var r *Resource
	if err := json.Unmarshal(d.Data, &r); err != nil {
		return nil, fmt.Errorf("scopekit: the document's data is not one resource: %w", err)
	}
	if r == nil {
		return nil, errors.New("scopekit: the document's data is null")
	}
	return r, nil
}

// Many is the list of resources of d.
func (d *Document) Many() ([]Resource, error) {
	var rs []Resource
	if err := json.Unmarshal(d.Data, &rs); err != nil {
		return nil, fmt.Errorf("scopekit: the document's data is not a list: %w", err)
	}
	return rs, nil
}

// PageCount is meta.page-count of a list document (0 when absent).
func (d *Document) PageCount() int {
	n, _ := d.Meta["page-count"].(float64)
	return int(n)
}

// RecordCount is meta.record-count of a list document.
func (d *Document) RecordCount() int {
	n, _ := d.Meta["record-count"].(float64)
	return int(n)
}

func decodeAs[T any, P Decoded[T]](r *Resource) (*T, error) {
	v := new(T)
	if err := P(v).decode(r); err != nil {
		return nil, fmt.Errorf("scopekit: decode %s %s: %w", r.Type, r.ID, err)
	}
	return v, nil
}

func decodeOne[T any, P Decoded[T]](doc *Document, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	r, err := doc.One()
	if err != nil {
		return nil, err
	}
	return decodeAs[T, P](r)
}

// Get reads one resource at path (e.g. "/v2/projects/7") into T.
func Get[T any, P Decoded[T]](ctx context.Context, c *Client, path string, query url.Values) (*T, error) {
	return decodeOne[T, P](c.Call(ctx, http.MethodGet, path, query, nil))
}

// PageSize is the page size List asks for unless the query sets one.
const PageSize = 250

// List iterates over every resource of the collection at path (e.g.
// "/v2/clients") with the query's filters, include and sort. It reads
// meta.page-count from the first page once and then asks for each
// following page; an error ends the iteration after being yielded.
// Stopping the loop early asks for no more pages.
func List[T any, P Decoded[T]](ctx context.Context, c *Client, path string, query url.Values) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		q := url.Values{}
		for k, v := range query {
			q[k] = v
		}
		if q.Get("page[size]") == "" {
			q.Set("page[size]", strconv.Itoa(PageSize))
		}
		pages := 1
		for page := 1; page <= pages; page++ {
			q.Set("page[number]", strconv.Itoa(page))
			doc, err := c.Call(ctx, http.MethodGet, path, q, nil)
			var rs []Resource
			if err == nil {
				rs, err = doc.Many()
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if page == 1 {
				pages = doc.PageCount()
			}
			for i := range rs {
				v, err := decodeAs[T, P](&rs[i])
				if !yield(v, err) || err != nil {
					return
				}
			}
		}
	}
}

// Write is the body of a create or update: the attributes to set and the
// relationships to link, by name.
type Write struct {
	Attributes    map[string]any
	Relationships map[string]Link
}

// Link is the new value of a relationship: To("clients", "3") for a
// to-one, ToMany("users", "1", "2") for a to-many, Unlink() for none.
type Link struct{ data any }

// To links one record.
func To(typ, id string) Link { return Link{jsonapi.Identifier{Type: typ, ID: id}} }

// ToMany links a list of records of one type.
func ToMany(typ string, ids ...string) Link {
	l := make([]jsonapi.Identifier, len(ids))
	for i, id := range ids {
		l[i] = jsonapi.Identifier{Type: typ, ID: id}
	}
	return Link{l}
}

// Unlink empties a to-one relationship.
func Unlink() Link { return Link{} }

func (w Write) document(typ, id string) map[string]any {
	data := map[string]any{"type": typ}
	if id != "" {
		data["id"] = id
	}
	if len(w.Attributes) > 0 {
		data["attributes"] = w.Attributes
	}
	if len(w.Relationships) > 0 {
		rels := make(map[string]any, len(w.Relationships))
		for name, l := range w.Relationships {
			rels[name] = map[string]any{"data": l.data}
		}
		data["relationships"] = rels
	}
	return map[string]any{"data": data}
}

// Create creates a resource of type typ in the collection at path (e.g.
// "/v2/clients") and returns it as the server stored it.
func Create[T any, P Decoded[T]](ctx context.Context, c *Client, path, typ string, w Write) (*T, error) {
	return decodeOne[T, P](c.Call(ctx, http.MethodPost, path, nil, w.document(typ, "")))
}

// Update changes the resource at path (e.g. "/v2/clients/3") whose type
// and id are typ and id, and returns it.
func Update[T any, P Decoded[T]](ctx context.Context, c *Client, path, typ, id string, w Write) (*T, error) {
	return decodeOne[T, P](c.Call(ctx, http.MethodPatch, path, nil, w.document(typ, id)))
}

// Delete deletes (or archives, for types that archive referenced records)
// the resource at path.
func (c *Client) Delete(ctx context.Context, path string) error {
	_, err := c.Call(ctx, http.MethodDelete, path, nil, nil)
	return err
}
