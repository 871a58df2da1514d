package httpadapter_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Query parameters of list and show routes (docs/http.md "Paging", "Archiving";
// docs/resources.md "Filters"): paging, filters, sort, include, sparse
// fieldsets, and archiving.

// Ensure paging: 250 by default, at most 1000, bad sizes and numbers are
// 400 naming the parameter, a page past the end is empty with the real
// meta, and page-count is the ceiling.
func TestPaging(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for i := range 260 {
		e.seed("acme", "clients", fmt.Sprintf(`{"name":"Client %03d"}`, i))
	}

	r := e.get("/acme/v1/clients", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Len(t, r.list(), 250, "default page size")
	assert.EqualValues(t, 260, r.meta("record-count"))
	assert.EqualValues(t, 2, r.meta("page-count"))

	r = e.get("/acme/v1/clients?page[number]=2", tok)
	assert.Len(t, r.list(), 10)

	r = e.get("/v2/clients?page[size]=1000", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Len(t, r.list(), 260)
	assert.EqualValues(t, 1, r.meta("page-count"))

	for _, tc := range []struct{ size, count, lastLen int }{
		{100, 3, 60}, {26, 10, 26}, {7, 38, 1}, {259, 2, 1}, {260, 1, 260}, {261, 1, 260},
	} {
		last := e.get(fmt.Sprintf("/v2/clients?page[size]=%d&page[number]=%d", tc.size, tc.count), tok)
		require.Equal(t, http.StatusOK, last.Status, "%s", last.Body)
		assert.EqualValues(t, tc.count, last.meta("page-count"), "size %d", tc.size)
		assert.Len(t, last.list(), tc.lastLen, "size %d", tc.size)
	}

	past := e.get("/v2/clients?page[size]=100&page[number]=5", tok)
	require.Equal(t, http.StatusOK, past.Status, "%s", past.Body)
	assert.Empty(t, past.list())
	assert.NotNil(t, past.Doc["data"], "data is an empty array, not null")
	assert.EqualValues(t, 260, past.meta("record-count"))
	assert.EqualValues(t, 3, past.meta("page-count"))

	for _, q := range []string{"page[size]=1001", "page[size]=0", "page[size]=-1", "page[size]=abc", "page[size]=", "page[size]=1.5"} {
		assertError(t, e.get("/v2/clients?"+q, tok), http.StatusBadRequest, "page[size]")
	}
	for _, q := range []string{"page[number]=0", "page[number]=-2", "page[number]=x"} {
		assertError(t, e.get("/v2/clients?"+q, tok), http.StatusBadRequest, "page[number]")
	}
}

// Ensure an empty collection has page-count 0.
func TestPagingEmpty(t *testing.T) {
	e := mustEnv(t)
	r := e.get("/v2/clients", e.admin())
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Empty(t, r.list())
	assert.EqualValues(t, 0, r.meta("record-count"))
	assert.EqualValues(t, 0, r.meta("page-count"))
}

// linkQuery parses a link of a document's top-level links.
func linkQuery(t *testing.T, r *resp, name string) (url.Values, bool) {
	t.Helper()
	links, _ := r.Doc["links"].(map[string]any)
	s, ok := links[name].(string)
	if !ok {
		return nil, false
	}
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u.Query(), true
}

// Ensure paging links exist exactly where they apply and keep the
// caller's filters, include and sort.
func TestPagingLinks(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Globex"}`)
	for i := range 5 {
		e.create("/v2/projects", tok, "projects", fmt.Sprintf(`{"project-name":"Alpha %d"}`, i), "client", "clients", client)
	}
	e.create("/v2/projects", tok, "projects", `{"project-name":"Beta"}`, "client", "clients", client)

	keep := "filter[name]=alpha&include=client&sort=-created-at&page[size]=2"
	for _, tc := range []struct {
		number                 int
		first, last, prev, nxt string // "" = absent
	}{
		{1, "1", "3", "", "2"},
		{2, "1", "3", "1", "3"},
		{3, "1", "3", "2", ""},
	} {
		for _, prefix := range []string{"/v2", "/acme/v1"} {
			r := e.get(fmt.Sprintf("%s/projects?%s&page[number]=%d", prefix, keep, tc.number), tok)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			assert.EqualValues(t, 5, r.meta("record-count"))
			for name, want := range map[string]string{"self": fmt.Sprint(tc.number), "first": tc.first, "last": tc.last, "prev": tc.prev, "next": tc.nxt} {
				q, ok := linkQuery(t, r, name)
				if want == "" {
					assert.False(t, ok, "page %d has no %s link", tc.number, name)
					continue
				}
				require.True(t, ok, "page %d has a %s link: %s", tc.number, name, r.Doc["links"])
				assert.Equal(t, want, q.Get("page[number]"), "%s of page %d", name, tc.number)
				assert.Equal(t, "2", q.Get("page[size]"))
				assert.Equal(t, "alpha", q.Get("filter[name]"))
				assert.Equal(t, "client", q.Get("include"))
				assert.Equal(t, "-created-at", q.Get("sort"))
			}
			links := r.Doc["links"].(map[string]any)
			assert.True(t, strings.Contains(links["first"].(string), prefix+"/projects?"), "%v", links["first"])
		}
	}

	// following next from the first page walks every record once, in order
	seen := map[string]bool{}
	path := "/v2/projects?" + keep
	for range 10 {
		r := e.get(path, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		for _, id := range r.ids() {
			assert.False(t, seen[id], "id %s seen twice", id)
			seen[id] = true
		}
		links := r.Doc["links"].(map[string]any)
		next, ok := links["next"].(string)
		if !ok {
			break
		}
		u, err := url.Parse(next)
		require.NoError(t, err)
		path = u.RequestURI()
	}
	assert.Len(t, seen, 5)

	// a single page has no prev and no next
	r := e.get("/v2/projects", tok)
	_, hasPrev := linkQuery(t, r, "prev")
	_, hasNext := linkQuery(t, r, "next")
	assert.False(t, hasPrev)
	assert.False(t, hasNext)
	first, _ := linkQuery(t, r, "first")
	last, _ := linkQuery(t, r, "last")
	assert.Equal(t, "1", first.Get("page[number]"))
	assert.Equal(t, "1", last.Get("page[number]"))
}

// Ensure filter[ids] selects exactly the records named.
func TestFilterIDs(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	a := e.create("/v2/clients", tok, "clients", `{"name":"A"}`)
	e.create("/v2/clients", tok, "clients", `{"name":"B"}`)
	c := e.create("/v2/clients", tok, "clients", `{"name":"C"}`)
	r := e.get("/v2/clients?filter[ids]="+a+","+c, tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{a, c}, r.ids())
	assert.EqualValues(t, 2, r.meta("record-count"))
	r = e.get("/v2/clients?filter[ids]="+a+",99999", tok)
	assert.Equal(t, []string{a}, r.ids())
	assert.EqualValues(t, 1, r.meta("record-count"))
}

// Ensure filter[active]: omitted or true lists active records, false the
// archived ones, true,false both; collections that do not archive reject it.
func TestFilterActive(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	active := e.create("/v2/clients", tok, "clients", `{"name":"Active"}`)
	archived := e.create("/v2/clients", tok, "clients", `{"name":"Archived"}`)
	r := e.patch("/v2/clients/"+archived, tok, "clients", archived, `{"active":false}`)
	assert.Equal(t, false, r.attr("active"))

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{active}},
		{"?filter[active]=true", []string{active}},
		{"?filter[active]=false", []string{archived}},
		{"?filter[active]=true,false", []string{active, archived}},
		{"?filter[active]=false,true", []string{active, archived}},
	} {
		r := e.get("/v2/clients"+tc.query, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.ElementsMatch(t, tc.want, r.ids(), tc.query)
		assert.EqualValues(t, len(tc.want), r.meta("record-count"), tc.query)
	}
	assertError(t, e.get("/v2/clients?filter[active]=maybe", tok), http.StatusBadRequest, "filter[active]")

	// restoring with active: true brings it back
	e.patch("/v2/clients/"+archived, tok, "clients", archived, `{"active":true}`)
	assert.Len(t, e.get("/v2/clients", tok).list(), 2)

	for _, path := range []string{"/acme/v1/project-teammates", "/acme/v1/currencies", "/acme/v1/resource-rates", "/acme/v1/roles"} {
		assertError(t, e.get(path+"?filter[active]=true", tok), http.StatusBadRequest, "filter[active]")
	}
}

// Ensure an unknown filter is 400 with the detail and parameter named.
func TestUnknownFilter(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, path := range []string{"/v2/clients", "/v2/projects", "/acme/v1/users", "/acme/v1/clients/1"} {
		first := assertError(t, e.get(path+"?filter[foo]=1", tok), http.StatusBadRequest, "filter[foo]")
		assert.Contains(t, first["detail"], "filter[foo] is not allowed")
	}
	// a filter of another collection is not allowed here either
	assertError(t, e.get("/v2/clients?filter[status]=draft", tok), http.StatusBadRequest, "filter[status]")
}

// Ensure the projects filters: status, client, name (case-insensitive
// substring), created-after/before in date and time forms, teammate and
// my-projects.
func TestProjectFilters(t *testing.T) {
	e := mustEnv(t)
	adminID, tok := e.user("acme", "admin@acme.test", "Account Admin")
	engID, _ := e.user("acme", "eng@acme.test", "Engineer")
	c1 := e.create("/v2/clients", tok, "clients", `{"name":"Initech"}`)
	c2 := e.create("/v2/clients", tok, "clients", `{"name":"Hooli"}`)
	r := e.req(http.MethodPost, "/v2/projects", tok, doc("projects", "", `{"project-name":"Firewall Refresh"}`, "client", "clients", c1))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	p1, t1 := r.data()["id"].(string), r.attr("created-at").(string)
	r = e.req(http.MethodPost, "/v2/projects", tok, doc("projects", "", `{"project-name":"Office move"}`, "client", "clients", c2))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	p2, t2 := r.data()["id"].(string), r.attr("created-at").(string)
	require.Less(t, t1, t2)
	p3 := e.create("/v2/projects", tok, "projects", `{"project-name":"New firewall"}`, "client", "clients", c2)
	e.create("/acme/v1/project-teammates", tok, "project-teammates", "", "project", "projects", p1, "user", "users", adminID)
	e.create("/acme/v1/project-teammates", tok, "project-teammates", "", "project", "projects", p2, "user", "users", engID)
	e.create("/acme/v1/project-teammates", tok, "project-teammates", "", "project", "projects", p3, "user", "users", engID)
	day := t1[:10]

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"filter[status]=draft", []string{p1, p2, p3}},
		{"filter[status]=approved", nil},
		{"filter[status]=draft,approved", []string{p1, p2, p3}},
		{"filter[client]=" + c1, []string{p1}},
		{"filter[client]=" + c2, []string{p2, p3}},
		{"filter[client]=" + c1 + "," + c2, []string{p1, p2, p3}},
		{"filter[name]=FIREWALL", []string{p1, p3}},
		{"filter[name]=ice%20mo", []string{p2}},
		{"filter[name]=nothing", nil},
		{"filter[created-after]=" + day, []string{p1, p2, p3}},
		{"filter[created-before]=" + day, nil},
		{"filter[created-after]=" + url.QueryEscape(t2), []string{p2, p3}},
		{"filter[created-before]=" + url.QueryEscape(t1), []string{p1}},
		{"filter[created-after]=" + url.QueryEscape(t1) + "&filter[created-before]=" + url.QueryEscape(t2), []string{p1, p2}},
		{"filter[created-after]=2000-01-01T00:00:00%2B02:00", []string{p1, p2, p3}},
		{"filter[teammate]=" + engID, []string{p2, p3}},
		{"filter[teammate]=" + adminID, []string{p1}},
		{"filter[teammate]=" + adminID + "," + engID, []string{p1, p2, p3}},
		{"filter[my-projects]=true", []string{p1}},
		{"filter[my-projects]=false", []string{p1, p2, p3}},
		{"filter[client]=" + c2 + "&filter[name]=firewall", []string{p3}},
	} {
		r := e.get("/v2/projects?"+tc.query, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", tc.query, r.Body)
		assert.ElementsMatch(t, tc.want, r.ids(), tc.query)
	}
	for _, bad := range []string{"created-after=yesterday", "created-before=2024-13-01", "created-after=2024-01-01T10:00", "my-projects=yes"} {
		name, value, _ := strings.Cut(bad, "=")
		param := "filter[" + name + "]"
		assertError(t, e.get("/v2/projects?"+param+"="+value, tok), http.StatusBadRequest, param)
	}
}

// Ensure the filters of clients, users, services, resource-rates and
// service-approvers.
func TestCollectionFilters(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	e.create("/v2/clients", tok, "clients", `{"name":"Globex Corporation"}`)
	e.create("/v2/clients", tok, "clients", `{"name":"Initech"}`)

	invited := e.create("/acme/v1/users", tok, "users", `{"name":"Ann","email":"ann@acme.test"}`)
	e.create("/acme/v1/users", tok, "users", `{"name":"Bob","email":"bob@acme.test"}`)

	plan := e.create("/v2/phases", tok, "phases", `{"name":"Plan"}`)
	build := e.create("/v2/phases", tok, "phases", `{"name":"Build"}`)
	s1 := e.create("/v2/services", tok, "services", `{"name":"Firewall install"}`, "phase", "phases", plan)
	s2 := e.create("/v2/services", tok, "services", `{"name":"Firewall monitoring","service-type":"managed_services"}`, "phase", "phases", build)
	s3 := e.create("/v2/services", tok, "services", `{"name":"Wi-Fi survey"}`, "phase", "phases", build)

	rt1 := e.create("/v2/rate-tables", tok, "rate-tables", `{"name":"Standard"}`)
	rt2 := e.create("/v2/rate-tables", tok, "rate-tables", `{"name":"Partner"}`)
	eng := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)
	pm := e.create("/v2/resources", tok, "resources", `{"name":"PM"}`)
	rr1 := e.create("/acme/v1/resource-rates", tok, "resource-rates", `{"hourly-rate":100}`, "rate-table", "rate-tables", rt1, "resource", "resources", eng)
	rr2 := e.create("/acme/v1/resource-rates", tok, "resource-rates", `{"hourly-rate":150}`, "rate-table", "rate-tables", rt1, "resource", "resources", pm)
	rr3 := e.create("/acme/v1/resource-rates", tok, "resource-rates", `{"hourly-rate":90}`, "rate-table", "rate-tables", rt2, "resource", "resources", eng)

	lob1 := e.create("/v2/lines-of-business", tok, "lines-of-business", `{"name":"Security"}`)
	lob2 := e.create("/v2/lines-of-business", tok, "lines-of-business", `{"name":"Networking"}`)
	bob := e.get("/acme/v1/users?filter[email]=bob@acme.test", tok).ids()
	require.Len(t, bob, 1)
	sa1 := e.create("/acme/v1/service-approvers", tok, "service-approvers", "", "user", "users", invited, "line-of-business", "lines-of-business", lob1)
	sa2 := e.create("/acme/v1/service-approvers", tok, "service-approvers", "", "user", "users", bob[0], "line-of-business", "lines-of-business", lob1)
	sa3 := e.create("/acme/v1/service-approvers", tok, "service-approvers", "", "user", "users", invited, "line-of-business", "lines-of-business", lob2)

	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/v2/services?filter[name]=FIREWALL", []string{s1, s2}},
		{"/v2/services?filter[phase]=" + build, []string{s2, s3}},
		{"/v2/services?filter[service-type]=managed_services", []string{s2}},
		{"/v2/services?filter[service-type]=professional_services&filter[phase]=" + build, []string{s3}},
		{"/acme/v1/resource-rates?filter[rate-table]=" + rt1, []string{rr1, rr2}},
		{"/acme/v1/resource-rates?filter[resource]=" + eng, []string{rr1, rr3}},
		{"/acme/v1/resource-rates?filter[rate-table]=" + rt2 + "&filter[resource]=" + eng, []string{rr3}},
		{"/acme/v1/service-approvers?filter[user]=" + invited, []string{sa1, sa3}},
		{"/acme/v1/service-approvers?filter[line-of-business]=" + lob1, []string{sa1, sa2}},
		{"/acme/v1/users?filter[email]=ann@acme.test", []string{invited}},
		{"/acme/v1/users?filter[email]=ANN@acme.test", []string{invited}},
	} {
		r := e.get(tc.path, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", tc.path, r.Body)
		assert.ElementsMatch(t, tc.want, r.ids(), tc.path)
	}

	r := e.get("/v2/clients?filter[name]=glob", tok)
	require.Len(t, r.list(), 1)
	assert.Equal(t, "Globex Corporation", r.list()[0]["attributes"].(map[string]any)["name"])
	assert.Len(t, e.get("/v2/clients?filter[name]=CORP", tok).list(), 1)
	assert.Len(t, e.get("/v2/clients?filter[name]=e", tok).list(), 2)

	// users by status: the two created ones are invited, the admin is active
	r = e.get("/acme/v1/users?filter[status]=invited", tok)
	assert.Len(t, r.list(), 2)
	r = e.get("/acme/v1/users?filter[status]=active", tok)
	require.Len(t, r.list(), 1)
	assert.Equal(t, "admin@acme.test", r.list()[0]["attributes"].(map[string]any)["email"])

	// service approvers with their line of business included
	r = e.get("/acme/v1/service-approvers?filter[user]="+invited+"&include=line-of-business", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{lob1, lob2}, includedIDs(r, "lines-of-business"))
}

// includedIDs returns the ids of the included records of a type.
func includedIDs(r *resp, typ string) []string {
	var out []string
	inc, _ := r.Doc["included"].([]any)
	for _, v := range inc {
		m, _ := v.(map[string]any)
		if m["type"] == typ {
			out = append(out, m["id"].(string))
		}
	}
	return out
}

// Ensure include works for users (roles), project resources (resource) and
// line-of-business approvals, each included record once; unknown
// relationships are 400.
func TestInclude(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	roles := e.get("/acme/v1/roles", tok)
	roleID := map[string]string{}
	for _, r := range roles.list() {
		roleID[r["attributes"].(map[string]any)["name"].(string)] = r["id"].(string)
	}
	e.token("acme", "eng@acme.test", "Engineer")
	e.token("acme", "eng2@acme.test", "Engineer")

	r := e.get("/acme/v1/users?include=roles", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{roleID["Account Admin"], roleID["Engineer"]}, includedIDs(r, "roles"), "each role once")

	client := e.create("/v2/clients", tok, "clients", `{"name":"C"}`)
	proj := e.create("/v2/projects", tok, "projects", `{"project-name":"P"}`, "client", "clients", client)
	res := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)
	pr := e.create("/acme/v1/project-resources", tok, "project-resources", "", "project", "projects", proj, "resource", "resources", res)
	r = e.get("/acme/v1/project-resources?filter[project]="+proj+"&include=resource", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []string{pr}, r.ids())
	assert.Equal(t, []string{res}, includedIDs(r, "resources"))
	r = e.get("/acme/v1/project-resources/"+pr+"?include=resource,project", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []string{res}, includedIDs(r, "resources"))
	assert.Equal(t, []string{proj}, includedIDs(r, "projects"))

	level := e.create("/acme/v1/approval-levels", tok, "approval-levels", `{"name":"Technical review"}`)
	lob := e.create("/v2/lines-of-business", tok, "lines-of-business", `{"name":"Security"}`)
	users := e.get("/acme/v1/users", tok).ids()
	require.Len(t, users, 3)
	body := `{"data":{"type":"line-of-business-approvals","attributes":{"required-approvals":2},"relationships":{` +
		`"approval-level":{"data":{"type":"approval-levels","id":"` + level + `"}},` +
		`"line-of-business":{"data":{"type":"lines-of-business","id":"` + lob + `"}},` +
		`"approvers":{"data":[{"type":"users","id":"` + users[0] + `"},{"type":"users","id":"` + users[1] + `"}]}}}}`
	c := e.req(http.MethodPost, "/acme/v1/line-of-business-approvals", tok, body)
	require.Equal(t, http.StatusCreated, c.Status, "%s", c.Body)
	r = e.get("/acme/v1/line-of-business-approvals?include=approval-level,line-of-business,approvers", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []string{level}, includedIDs(r, "approval-levels"))
	assert.Equal(t, []string{lob}, includedIDs(r, "lines-of-business"))
	assert.ElementsMatch(t, users[:2], includedIDs(r, "users"))
	r = e.get("/acme/v1/approval-levels/"+level+"?include=line-of-business-approvals", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []string{c.data()["id"].(string)}, includedIDs(r, "line-of-business-approvals"))

	for _, path := range []string{"/v2/clients?include=owner", "/v2/projects?include=client,owner", "/v2/projects/" + proj + "?include=nothing"} {
		assertError(t, e.get(path, tok), http.StatusBadRequest, "include")
	}
}

// Ensure an unknown include is 400 even when the collection is empty: the
// answer depends on the request, not on the data.
func TestUnknownIncludeOnEmptyList(t *testing.T) {
	e := mustEnv(t)
	assertError(t, e.get("/v2/clients?include=owner", e.admin()), http.StatusBadRequest, "include")
}

// Ensure sort on name, -name, created-at, -created-at and position, and
// 400 naming sort for anything else.
func TestSort(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	b := e.create("/v2/clients", tok, "clients", `{"name":"bravo","domain":"z.test"}`)
	a := e.create("/v2/clients", tok, "clients", `{"name":"Alpha","domain":"y.test"}`)
	c := e.create("/v2/clients", tok, "clients", `{"name":"charlie","domain":"x.test"}`)
	p3 := e.create("/v2/phases", tok, "phases", `{"name":"Operate","position":3}`)
	p1 := e.create("/v2/phases", tok, "phases", `{"name":"Plan","position":1}`)
	p10 := e.create("/v2/phases", tok, "phases", `{"name":"Retire","position":10}`)
	p2 := e.create("/v2/phases", tok, "phases", `{"name":"Build","position":2}`)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/v2/clients?sort=name", []string{a, b, c}},
		{"/v2/clients?sort=-name", []string{c, b, a}},
		{"/v2/clients?sort=created-at", []string{b, a, c}},
		{"/v2/clients?sort=-created-at", []string{c, a, b}},
		{"/acme/v1/clients?sort=-name&page[size]=2", []string{c, b}},
		{"/acme/v1/clients?sort=-name&page[size]=2&page[number]=2", []string{a}},
		{"/v2/phases?sort=position", []string{p1, p2, p3, p10}},
		{"/v2/phases?sort=-position", []string{p10, p3, p2, p1}},
		{"/v2/phases?sort=name", []string{p2, p3, p1, p10}},
	} {
		r := e.get(tc.path, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", tc.path, r.Body)
		assert.Equal(t, tc.want, r.ids(), tc.path)
	}
	for _, path := range []string{"/v2/clients?sort=domain", "/v2/clients?sort=position", "/v2/clients?sort=name,colour", "/v2/projects?sort=-contract-revenue"} {
		assertError(t, e.get(path, tok), http.StatusBadRequest, "sort")
	}
}

// Ensure fields[type] limits the attributes served.
func TestSparseFieldsets(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	id := e.create("/v2/clients", tok, "clients", `{"name":"Globex","domain":"globex.test"}`)
	for _, path := range []string{"/v2/clients?fields[clients]=name", "/v2/clients/" + id + "?fields[clients]=name"} {
		r := e.get(path, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		d := r.data()
		if d == nil {
			require.Len(t, r.list(), 1)
			d = r.list()[0]
		}
		assert.Equal(t, map[string]any{"name": "Globex"}, d["attributes"], path)
	}
	r := e.get("/v2/clients?fields[clients]=name,domain", tok)
	assert.Equal(t, map[string]any{"name": "Globex", "domain": "globex.test"}, r.list()[0]["attributes"])
	// a fieldset of another type leaves clients whole
	r = e.get("/v2/clients?fields[projects]=project-name", tok)
	assert.Contains(t, r.list()[0]["attributes"], "domain")
}

// Ensure an archived record answers 404 unless filter[active] covers it.
func TestArchivedRecordShow(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	id := e.create("/v2/clients", tok, "clients", `{"name":"Old"}`)
	e.patch("/v2/clients/"+id, tok, "clients", id, `{"active":false}`)
	assertError(t, e.get("/v2/clients/"+id, tok), http.StatusNotFound, "")
	assertError(t, e.get("/acme/v1/clients/"+id, tok), http.StatusNotFound, "")
	assertError(t, e.get("/v2/clients/"+id+"?filter[active]=true", tok), http.StatusNotFound, "")
	for _, q := range []string{"false", "true,false"} {
		r := e.get("/v2/clients/"+id+"?filter[active]="+q, tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, false, r.attr("active"))
	}
}

// Ensure DELETE archives a record of an archiving type that is still
// referenced, removes an unreferenced one, and removes a project's
// children with it.
func TestDeleteArchivesOrRemoves(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	used := e.create("/v2/clients", tok, "clients", `{"name":"Used"}`)
	unused := e.create("/v2/clients", tok, "clients", `{"name":"Unused"}`)
	proj := e.create("/v2/projects", tok, "projects", `{"project-name":"P"}`, "client", "clients", used)
	svc := e.create("/v2/services", tok, "services", `{"name":"S","hours":2}`)
	e.create("/v2/subservices", tok, "subservices", `{"name":"Sub","hours":1}`, "service", "services", svc)
	ps := e.create("/v2/project-services", tok, "project-services", "", "project", "projects", proj, "service", "services", svc)
	subs := e.get("/v2/project-subservices?filter[project-service]="+ps, tok).ids()
	require.Len(t, subs, 1)
	loc := e.create("/acme/v1/project-locations", tok, "project-locations", `{"name":"HQ"}`, "project", "projects", proj)

	r := e.req(http.MethodDelete, "/v2/clients/"+used, tok, "")
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	assertError(t, e.get("/v2/clients/"+used, tok), http.StatusNotFound, "")
	kept := e.get("/v2/clients/"+used+"?filter[active]=false", tok)
	require.Equal(t, http.StatusOK, kept.Status, "archived, not removed: %s", kept.Body)
	assert.Equal(t, false, kept.attr("active"))
	assert.Equal(t, used, e.get("/v2/projects/"+proj, tok).rel("client"), "the project keeps its client")

	r = e.req(http.MethodDelete, "/v2/clients/"+unused, tok, "")
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	assertError(t, e.get("/v2/clients/"+unused+"?filter[active]=true,false", tok), http.StatusNotFound, "")

	r = e.req(http.MethodDelete, "/v2/projects/"+proj, tok, "")
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	assertError(t, e.get("/v2/projects/"+proj+"?filter[active]=true,false", tok), http.StatusNotFound, "")
	assertError(t, e.get("/v2/project-services/"+ps, tok), http.StatusNotFound, "")
	assertError(t, e.get("/v2/project-subservices/"+subs[0], tok), http.StatusNotFound, "")
	assertError(t, e.get("/acme/v1/project-locations/"+loc, tok), http.StatusNotFound, "")
	assert.Empty(t, e.get("/v2/project-services", tok).list())
	assert.Empty(t, e.get("/v2/project-subservices", tok).list())
	// the catalog is untouched
	assert.Equal(t, http.StatusOK, e.get("/v2/services/"+svc, tok).Status)

	// deleting twice is 404
	assertError(t, e.req(http.MethodDelete, "/v2/projects/"+proj, tok, ""), http.StatusNotFound, "")
}
