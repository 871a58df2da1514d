package httpadapter_test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a new user's tour works: create a client, a catalog service, a
// project and project services; list them with filters and paging; read
// them back.
func TestTour(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()

	me := e.get("/v1/me", tok)
	require.Equal(t, http.StatusOK, me.Status, "%s", me.Body)
	assert.Equal(t, "acme", me.attr("account-slug"))
	assert.Equal(t, e.accts["acme"], me.attr("account-id"))

	client := e.create("/acme/v1/clients", tok, "clients", `{"name":"Globex"}`)
	res := e.create("/v2/resources", tok, "resources", `{"name":"Engineer","hourly-rate":"200","hourly-cost":90}`)
	svc := e.create("/v2/services", tok, "services", `{"name":"Assessment","hours":8}`, "resource", "resources", res)
	e.create("/v2/subservices", tok, "subservices", `{"name":"Survey","hours":"1.5","quantity":3}`, "service", "services", svc)
	proj := e.create("/v2/projects", tok, "projects", `{"project-name":"Firewall refresh"}`, "client", "clients", client)

	r := e.req(http.MethodPost, "/v2/project-services", tok, doc("project-services", "", `{"quantity":2}`,
		"project", "projects", proj, "service", "services", svc))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "Assessment", r.attr("name"))
	assert.Equal(t, "8", r.attr("unit-hours"))
	assert.Contains(t, r.Header.Get("Location"), "/v2/project-services/")

	list := e.get("/v2/project-services?filter[project]="+proj+"&include=project-subservices", tok)
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Body)
	require.Len(t, list.list(), 1)
	assert.EqualValues(t, 1, list.meta("record-count"))
	inc, _ := list.Doc["included"].([]any)
	assert.Len(t, inc, 1)

	show := e.get("/acme/v1/projects/"+proj, tok)
	require.Equal(t, http.StatusOK, show.Status)
	assert.Equal(t, "Firewall refresh", show.attr("project-name"))
	assert.Equal(t, "draft", show.attr("status"))

	related := e.get("/acme/v1/projects/"+proj+"/project-services", tok)
	require.Equal(t, http.StatusOK, related.Status, "%s", related.Body)
	assert.Len(t, related.list(), 1)
}

// Ensure 50 concurrent creates are all stored and listed, and a restart
// keeps everything.
func TestConcurrentCreatesAndRestart(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := e.req(http.MethodPost, "/acme/v1/clients", tok, doc("clients", "", fmt.Sprintf(`{"name":"Client %02d"}`, i)))
			if r.Status != http.StatusCreated {
				errs <- string(r.Body)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	list := e.get("/acme/v1/clients?page[size]=20&page[number]=3", tok)
	require.Equal(t, http.StatusOK, list.Status)
	assert.EqualValues(t, 50, list.meta("record-count"))
	assert.EqualValues(t, 3, list.meta("page-count"))
	assert.Len(t, list.list(), 10)

	e.restart()
	list = e.get("/acme/v1/clients?page[size]=1000", tok)
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Body)
	assert.Len(t, list.list(), 50)
}

// Ensure another account's token sees nothing of this one.
func TestOtherAccountSeesNothing(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	other := e.token("globex", "admin@globex.test", "Account Admin")
	client := e.create("/acme/v1/clients", tok, "clients", `{"name":"Secret client"}`)

	assert.Equal(t, http.StatusNotFound, e.get("/v2/clients/"+client, other).Status)
	assert.Empty(t, e.get("/v2/clients", other).list())
	assert.Equal(t, http.StatusForbidden, e.get("/acme/v1/clients", other).Status)
	assert.Equal(t, http.StatusNotFound, e.req(http.MethodPatch, "/v2/clients/"+client, other, doc("clients", client, `{"name":"x"}`)).Status)
	assert.Equal(t, http.StatusNotFound, e.req(http.MethodDelete, "/v2/clients/"+client, other, "").Status)
	// a reference to another account's record is 422 naming the relationship
	r := e.req(http.MethodPost, "/v2/projects", other, doc("projects", "", `{"project-name":"p"}`, "client", "clients", client))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, "%s", r.Body)
	assert.Equal(t, "/data/relationships/client", r.firstError()["source"].(map[string]any)["pointer"])
	// and the record is untouched
	assert.Equal(t, "Secret client", e.get("/v2/clients/"+client, tok).attr("name"))
}

// Ensure a wrong method on the token endpoint answers in OAuth's format.
func TestTokenEndpointMethod(t *testing.T) {
	e := mustEnv(t)
	r := e.req(http.MethodGet, "/oauth/token", "", "")
	require.Equal(t, http.StatusMethodNotAllowed, r.Status)
	assert.Equal(t, "OPTIONS, POST", r.Header.Get("Allow"))
	assert.Contains(t, string(r.Body), `"error"`)
}
