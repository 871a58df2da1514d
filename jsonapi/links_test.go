package jsonapi_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/jsonapi"
)

// Ensure paging links exist exactly where a page does, keep the caller's
// parameters, and go into a valid list document.
func TestPageLinks(t *testing.T) {
	const projects = "http://127.0.0.1:8080/v2/projects"
	keep := "filter%5Bactive%5D=true%2Cfalse&include=client&"
	tests := []struct {
		name                string
		raw                 string
		number, size, pages int
		self, first, last   string
		next, prev          string // "" => absent
	}{
		{
			name: "first of three", raw: "filter[active]=true,false&include=client&page[size]=10",
			number: 1, size: 10, pages: 3,
			self:  projects + "?" + keep + "page%5Bnumber%5D=1&page%5Bsize%5D=10",
			first: projects + "?" + keep + "page%5Bnumber%5D=1&page%5Bsize%5D=10",
			last:  projects + "?" + keep + "page%5Bnumber%5D=3&page%5Bsize%5D=10",
			next:  projects + "?" + keep + "page%5Bnumber%5D=2&page%5Bsize%5D=10",
		},
		{
			name: "middle", raw: "page[number]=2&page[size]=10&filter[active]=true,false&include=client",
			number: 2, size: 10, pages: 3,
			self:  projects + "?" + keep + "page%5Bnumber%5D=2&page%5Bsize%5D=10",
			first: projects + "?" + keep + "page%5Bnumber%5D=1&page%5Bsize%5D=10",
			last:  projects + "?" + keep + "page%5Bnumber%5D=3&page%5Bsize%5D=10",
			next:  projects + "?" + keep + "page%5Bnumber%5D=3&page%5Bsize%5D=10",
			prev:  projects + "?" + keep + "page%5Bnumber%5D=1&page%5Bsize%5D=10",
		},
		{
			name: "last", raw: "page[number]=3&page[size]=10&filter[active]=true,false&include=client",
			number: 3, size: 10, pages: 3,
			self:  projects + "?" + keep + "page%5Bnumber%5D=3&page%5Bsize%5D=10",
			first: projects + "?" + keep + "page%5Bnumber%5D=1&page%5Bsize%5D=10",
			last:  projects + "?" + keep + "page%5Bnumber%5D=3&page%5Bsize%5D=10",
			prev:  projects + "?" + keep + "page%5Bnumber%5D=2&page%5Bsize%5D=10",
		},
		{
			name: "no records", raw: "",
			number: 1, size: 250, pages: 0,
			self:  projects + "?page%5Bnumber%5D=1",
			first: projects + "?page%5Bnumber%5D=1",
			last:  projects + "?page%5Bnumber%5D=1",
		},
		{
			name: "one page, default size not spelled out", raw: "sort=-created-at,name&fields[projects]=name",
			number: 1, size: 250, pages: 1,
			self:  projects + "?fields%5Bprojects%5D=name&page%5Bnumber%5D=1&sort=-created-at%2Cname",
			first: projects + "?fields%5Bprojects%5D=name&page%5Bnumber%5D=1&sort=-created-at%2Cname",
			last:  projects + "?fields%5Bprojects%5D=name&page%5Bnumber%5D=1&sort=-created-at%2Cname",
		},
		{
			name: "past the end: prev is the last page", raw: "page[number]=9&version=2",
			number: 9, size: 250, pages: 2,
			self:  projects + "?page%5Bnumber%5D=9&version=2",
			first: projects + "?page%5Bnumber%5D=1&version=2",
			last:  projects + "?page%5Bnumber%5D=2&version=2",
			prev:  projects + "?page%5Bnumber%5D=2&version=2",
		},
		{
			name: "past the end with no records", raw: "page[number]=4",
			number: 4, size: 250, pages: 0,
			self:  projects + "?page%5Bnumber%5D=4",
			first: projects + "?page%5Bnumber%5D=1",
			last:  projects + "?page%5Bnumber%5D=1",
			prev:  projects + "?page%5Bnumber%5D=1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := mustQuery(t, tt.raw)
			before := raw.Encode()
			links := jsonapi.PageLinks(projects, raw, tt.number, tt.size, tt.pages)
			assert.Equal(t, before, raw.Encode(), "the caller's values must not change")
			want := jsonapi.Links{"self": tt.self, "first": tt.first, "last": tt.last}
			if tt.next != "" {
				want["next"] = tt.next
			}
			if tt.prev != "" {
				want["prev"] = tt.prev
			}
			assert.Equal(t, want, links)

			// Following a link parses back to the same parameters.
			u, err := url.Parse(links["first"])
			require.NoError(t, err)
			q, err := jsonapi.ParseQuery(u.Query())
			require.NoError(t, err)
			assert.Equal(t, 1, q.PageNumber)

			encode(t, &jsonapi.Document{List: true, Links: links,
				Meta: map[string]any{"record-count": tt.pages * tt.size, "page-count": tt.pages}})
		})
	}
}

func TestPageLinksNilQuery(t *testing.T) {
	links := jsonapi.PageLinks("http://x/v2/services", nil, 1, 250, 2)
	assert.Equal(t, "http://x/v2/services?page%5Bnumber%5D=2", links["next"])
}
