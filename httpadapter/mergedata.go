package httpadapter

import (
	"net/http"
	"sync"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/mergedata"
)

// projectMergeData serves GET /{slug}/v1/projects/{id}/merge-data: v1 by
// default or with version=1, v2 with version=2 (docs/mergedata.md), as one
// resource of type merge-data whose attributes are the version (a number)
// and the tree. It needs merge_data view (403) and the project's
// visibility (404); printed_on is the service clock's date.
func (s *Server) projectMergeData(c *call) error {
	version, err := mergeDataVersion(c.q.Other["version"])
	if err != nil {
		return err
	}
	id := c.params.ByName("id")
	snap, err := s.Svc.MergeData(c.r.Context(), c.actor, id)
	if err != nil {
		return err
	}
	var tree any
	if version == mergedata.Version2 {
		tree = mergedata.BuildV2(snap, s.Svc.Now())
	} else {
		tree = mergedata.BuildV1(snap, s.Svc.Now())
	}
	self := c.view.prefix + "/projects/" + id + "/merge-data"
	writeDoc(c.w, c.r, http.StatusOK, &jsonapi.Document{
		Data: &jsonapi.Resource{Type: "merge-data", ID: id,
			Attributes: map[string]any{"version": version, "merge-data": tree}},
		Links: jsonapi.Links{"self": self},
	})
	return nil
}

// mergeDataSchema is v2's JSON Schema, generated once.
var mergeDataSchema = sync.OnceValue(mergedata.SchemaV2)

// serveMergeDataSchema serves GET /v1/merge-data/schema: the JSON Schema
// of v2 merge data (docs/mergedata-v2.schema.json), public like the
// reference: it describes the shape, never a project's values.
func serveMergeDataSchema(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/schema+json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(mergeDataSchema())
}

// mergeDataVersion reads the version query parameter: absent or "1" is v1,
// "2" is v2, anything else (or the parameter given twice) is 400.
func mergeDataVersion(vals []string) (int, error) {
	switch {
	case len(vals) == 0:
		return mergedata.Version1, nil
	case len(vals) == 1 && vals[0] == "1":
		return mergedata.Version1, nil
	case len(vals) == 1 && vals[0] == "2":
		return mergedata.Version2, nil
	}
	return 0, scopekit.ParamErrorf(scopekit.EBADREQUEST, "version", "version must be 1 or 2")
}
