package jsonapi

import (
	"maps"
	"net/url"
	"strconv"
	"strings"
)

// PageLinks returns self/first/last and next/prev (when they exist) for a list
// response, keeping every parameter of the caller's query (filters, include,
// sort, fields, others) and replacing only page[number] (and page[size] when
// the caller gave it). base is scheme+host+path, e.g.
// "http://127.0.0.1:8080/v2/projects". pageCount 0 => first and last point to
// page 1. Query strings are deterministic (sorted keys, as url.Values.Encode
// does), so links can be compared and cached.
//
// self is the requested page, with page[number] always spelled out. On a page
// past the end, prev points to the last page rather than to another empty one.
func PageLinks(base string, raw url.Values, number, size, pageCount int) Links {
	number = max(number, 1)
	last := max(pageCount, 1)
	_, sizeGiven := raw["page[size]"]
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	link := func(n int) string {
		q := maps.Clone(raw)
		if q == nil {
			q = url.Values{}
		}
		q.Set("page[number]", strconv.Itoa(n))
		if sizeGiven {
			q.Set("page[size]", strconv.Itoa(size))
		}
		return base + sep + q.Encode()
	}
	links := Links{"self": link(number), "first": link(1), "last": link(last)}
	if number < pageCount {
		links["next"] = link(number + 1)
	}
	if number > 1 {
		links["prev"] = link(min(number-1, last))
	}
	return links
}
