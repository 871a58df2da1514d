package scoping

import (
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

// The hours of a line beside its price figures: whether they are its
// catalog's (custom-hours), and the actual hours recorded.

// catalogLines loads the catalog services and subservices the lines of
// recs were added from.
func catalogLines(c *engine.Call, recs []*engine.Record) (map[string]*engine.Record, error) {
	var sids, subids []string
	for _, r := range recs {
		switch r.Type {
		case views.TypeProjectServices:
			if id := r.Rel(views.NameService); id != "" {
				sids = append(sids, id)
			}
		case views.TypeProjectSubservices:
			if id := r.Rel(views.NameSubservice); id != "" {
				subids = append(subids, id)
			}
		}
	}
	out := map[string]*engine.Record{}
	for _, q := range []struct {
		typ string
		ids []string
	}{{views.TypeServices, sids}, {views.TypeSubservices, subids}} {
		if len(q.ids) == 0 {
			continue
		}
		found, err := c.Find(q.typ, engine.Eq("id", q.ids...))
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			out[q.typ+"/"+f.ID] = f
		}
	}
	return out, nil
}

// customHours reports whether a line's unit hours differ from those of the
// catalog service or subservice it was added from (false without one).
func customHours(r *engine.Record, catalog map[string]*engine.Record) bool {
	key := views.TypeServices + "/" + r.Rel(views.NameService)
	if r.Type == views.TypeProjectSubservices {
		key = views.TypeSubservices + "/" + r.Rel(views.NameSubservice)
	}
	src, ok := catalog[key]
	if !ok {
		return false
	}
	return !r.Dec(views.NameUnitHours).Equal(src.Dec(views.NameHours))
}

// actualHours are the actual hours recorded on a line, nil for none.
func actualHours(r *engine.Record) *decimal.Decimal {
	d, ok := r.DecOK(views.NameActualHours)
	if !ok {
		return nil
	}
	return &d
}
