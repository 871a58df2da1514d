package jsonapi_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/jsonapi"
)

func mustQuery(t *testing.T, raw string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(raw)
	require.NoError(t, err)
	return v
}

// Ensure well-formed query strings parse into their parts and defaults.
func TestParseQuery(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want jsonapi.Query
	}{
		{
			name: "defaults",
			raw:  "",
			want: jsonapi.Query{PageNumber: 1, PageSize: jsonapi.DefaultPageSize,
				Filters: map[string]string{}, Fields: map[string][]string{}, Other: url.Values{}},
		},
		{
			name: "everything",
			raw: "page[number]=3&page[size]=1000&filter[active]=true,false&filter[name]=&include=client,project-services.service" +
				"&fields[projects]=name,psa?,client&fields[clients]=&sort=name,-created-at,client.name&version=2&foo[bar]=1&foo[bar]=2",
			want: jsonapi.Query{
				PageNumber: 3, PageSize: 1000,
				Filters: map[string]string{"active": "true,false", "name": ""},
				Include: []string{"client", "project-services.service"},
				Fields:  map[string][]string{"projects": {"name", "psa?", "client"}, "clients": {}},
				Sort:    []jsonapi.SortField{{Field: "name"}, {Field: "created-at", Desc: true}, {Field: "client.name"}},
				Other:   url.Values{"version": {"2"}, "foo[bar]": {"1", "2"}},
			},
		},
		{
			name: "smallest page",
			raw:  "page[size]=1&page[number]=1",
			want: jsonapi.Query{PageNumber: 1, PageSize: 1,
				Filters: map[string]string{}, Fields: map[string][]string{}, Other: url.Values{}},
		},
		{
			name: "empty include means none",
			raw:  "include=",
			want: jsonapi.Query{PageNumber: 1, PageSize: jsonapi.DefaultPageSize,
				Filters: map[string]string{}, Fields: map[string][]string{}, Other: url.Values{}},
		},
		{
			name: "leading zeros are still a number",
			raw:  "page[number]=007",
			want: jsonapi.Query{PageNumber: 7, PageSize: jsonapi.DefaultPageSize,
				Filters: map[string]string{}, Fields: map[string][]string{}, Other: url.Values{}},
		},
		{
			name: "look-alike names are other parameters",
			raw:  "pages=1&filters=x&Page[size]=5000",
			want: jsonapi.Query{PageNumber: 1, PageSize: jsonapi.DefaultPageSize,
				Filters: map[string]string{}, Fields: map[string][]string{},
				Other: url.Values{"pages": {"1"}, "filters": {"x"}, "Page[size]": {"5000"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := jsonapi.ParseQuery(mustQuery(t, tt.raw))
			require.NoError(t, err)
			assert.Equal(t, &tt.want, q)
		})
	}
}

// Ensure every malformed JSON:API parameter is a 400 naming the parameter.
func TestParseQueryErrors(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		param  string
		detail string
	}{
		{"size too large", "page[size]=1001", "page[size]", "from 1 to 1000"},
		{"size zero", "page[size]=0", "page[size]", "from 1 to 1000"},
		{"size negative", "page[size]=-1", "page[size]", "from 1 to 1000"},
		{"size not a number", "page[size]=ten", "page[size]", `not "ten"`},
		{"size empty", "page[size]=", "page[size]", "from 1 to 1000"},
		{"size with sign", "page[size]=%2B5", "page[size]", "from 1 to 1000"},
		{"size with space", "page[size]=%205", "page[size]", "from 1 to 1000"},
		{"size decimal", "page[size]=2.5", "page[size]", "from 1 to 1000"},
		{"size overflowing", "page[size]=99999999999999999999999", "page[size]", "from 1 to 1000"},
		{"number zero", "page[number]=0", "page[number]", "from 1 to"},
		{"number negative", "page[number]=-2", "page[number]", "from 1 to"},
		{"number not a number", "page[number]=last", "page[number]", "from 1 to"},
		{"number too large", "page[number]=2147483648", "page[number]", "2147483647"},
		{"unknown page parameter", "page[offset]=10", "page[offset]", "page[number] and page[size]"},
		{"bare page", "page=2", "page", "page[number] or page[size]"},
		{"unclosed page bracket", "page[size=5", "page[size", "page[number] or page[size]"},
		{"page given twice", "page[number]=1&page[number]=2", "page[number]", "given 2 times"},
		{"size given twice", "page[size]=10&page[size]=10", "page[size]", "given 2 times"},
		{"bare filter", "filter=active", "filter", "filter[name]=value"},
		{"empty filter name", "filter[]=x", "filter[]", "filter[name]=value"},
		{"nested filter", "filter[a][b]=x", "filter[a][b]", "filter[name]=value"},
		{"filter trailing text", "filter[a]x=1", "filter[a]x", "filter[name]=value"},
		{"filter given twice", "filter[active]=true&filter[active]=false", "filter[active]", "given 2 times"},
		{"bare fields", "fields=name", "fields", "fields[type]=a,b"},
		{"empty fields type", "fields[]=name", "fields[]", "fields[type]=a,b"},
		{"fields bad type", "fields[a%2Bb]=name", "fields[a+b]", `"a+b"`},
		{"fields empty entry", "fields[projects]=name,,client", "fields[projects]", `""`},
		{"fields bad entry", "fields[projects]=na me", "fields[projects]", `"na me"`},
		{"fields given twice", "fields[projects]=a&fields[projects]=b", "fields[projects]", "given 2 times"},
		{"include empty entry", "include=client,", "include", `""`},
		{"include bad path", "include=client..owner", "include", `"client..owner"`},
		{"include bad name", "include=cli%20ent", "include", `"cli ent"`},
		{"include with brackets", "include[projects]=client", "include[projects]", "include=a,b"},
		{"include given twice", "include=a&include=b", "include", "given 2 times"},
		{"sort empty", "sort=", "sort", `""`},
		{"sort empty entry", "sort=name,,id", "sort", `""`},
		{"sort bare dash", "sort=-", "sort", `"-"`},
		{"sort double dash", "sort=--name", "sort", `"--name"`},
		{"sort plus prefix", "sort=%2Bname", "sort", `"+name"`},
		{"sort with brackets", "sort[x]=name", "sort[x]", "sort=a,b"},
		{"sort given twice", "sort=a&sort=b", "sort", "given 2 times"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := jsonapi.ParseQuery(mustQuery(t, tt.raw))
			require.Error(t, err)
			assert.Nil(t, q)
			e := asError(t, err)
			assert.Equal(t, 400, e.Status)
			assert.Equal(t, tt.param, e.Parameter)
			assert.Empty(t, e.Pointer)
			assert.Contains(t, e.Detail, tt.detail)
			assert.Contains(t, e.Error(), tt.param)
		})
	}
}

// Ensure the reported error does not depend on map iteration order.
func TestParseQueryErrorIsStable(t *testing.T) {
	v := mustQuery(t, "sort=&page[size]=0&filter[]=1&include=,")
	for range 50 {
		_, err := jsonapi.ParseQuery(v)
		assert.Equal(t, "filter[]", asError(t, err).Parameter)
	}
}
