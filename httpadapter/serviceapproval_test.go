package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a catalog service goes draft → pending → approved through its
// actions, only a service approver of its line of business approves it,
// editing an approved service makes a new draft version, and the approved
// collections show the most recent approved version.
func TestCatalogServiceApproval(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	approverID, approver := e.user("acme", "approver@acme.test", "Read Only")
	other := e.token("acme", "other@acme.test", "Sales")

	lob := e.create("/v2/lines-of-business", admin, "lines-of-business", `{"name":"Network"}`)
	e.create("/acme/v1/service-approvers", admin, "service-approvers", "{}", "user", "users", approverID, "line-of-business", "lines-of-business", lob)
	svc := e.create("/v2/services", admin, "services", `{"name":"Firewall","hours":8}`, "line-of-business", "lines-of-business", lob)
	e.create("/v2/subservices", admin, "subservices", `{"name":"Rules","hours":2}`, "service", "services", svc)
	base := "/acme/v1/services/" + svc

	show := e.get("/v2/services/"+svc, admin)
	assert.Equal(t, "draft", show.attr("state"))
	assert.EqualValues(t, 1, show.attr("version"))

	// approving a draft is a conflict; a non-manager cannot submit
	assert.Equal(t, http.StatusConflict, e.req(http.MethodPost, base+"/approve", approver, "").Status)
	assert.Equal(t, http.StatusForbidden, e.req(http.MethodPost, base+"/submit-for-approval", approver, "").Status)
	r := e.req(http.MethodPost, base+"/submit-for-approval", admin, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "pending_approval", r.attr("state"))
	assert.Equal(t, http.StatusConflict, e.req(http.MethodPost, base+"/submit-for-approval", admin, "").Status)

	// a catalog manager who is not an approver of the line cannot approve; the approver can
	assert.Equal(t, http.StatusForbidden, e.req(http.MethodPost, base+"/approve", admin, "").Status)
	assert.Equal(t, http.StatusForbidden, e.req(http.MethodPost, base+"/approve", other, "").Status)
	r = e.req(http.MethodPost, base+"/approve", approver, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("state"))

	approved := e.get("/v2/approved-services?filter[line-of-business]="+lob, admin)
	require.Equal(t, http.StatusOK, approved.Status, "%s", approved.Body)
	require.Len(t, approved.list(), 1)
	a := approved.list()[0]["attributes"].(map[string]any)
	assert.Equal(t, "Firewall", a["name"])
	assert.EqualValues(t, 1, a["version"])
	assert.Equal(t, svc, a["service-id"])
	subs := e.get("/v2/approved-subservices?filter[service]="+svc, admin)
	require.Len(t, subs.list(), 1)
	assert.Equal(t, "Rules", subs.list()[0]["attributes"].(map[string]any)["name"])

	// editing makes version 2 a draft; the approved collection keeps version 1
	r = e.patch("/v2/services/"+svc, admin, "services", svc, `{"hours":10}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "draft", r.attr("state"))
	assert.EqualValues(t, 2, r.attr("version"))
	a = e.get("/v2/approved-services", admin).list()[0]["attributes"].(map[string]any)
	assert.EqualValues(t, 1, a["version"])
	assert.Equal(t, "8", a["hours"])

	// approving version 2 replaces it
	require.Equal(t, http.StatusOK, e.req(http.MethodPost, base+"/submit-for-approval", admin, "").Status)
	require.Equal(t, http.StatusOK, e.req(http.MethodPost, base+"/approve", approver, "").Status)
	list := e.get("/v2/approved-services", admin)
	require.Len(t, list.list(), 1)
	assert.EqualValues(t, 2, list.list()[0]["attributes"].(map[string]any)["version"])
	assert.Len(t, e.get("/v2/approved-subservices?filter[service]="+svc, admin).list(), 1)

	// approved collections are read-only and filter like services
	assert.Equal(t, http.StatusMethodNotAllowed, e.req(http.MethodPost, "/v2/approved-services", admin, doc("approved-services", "", `{"name":"x"}`)).Status)
	assert.Len(t, e.get("/v2/approved-services?filter[name]=fire", admin).list(), 1)
	assert.Empty(t, e.get("/v2/approved-services?filter[name]=nothing", admin).list())
	assert.Equal(t, http.StatusBadRequest, e.get("/v2/approved-services?filter[owner]=1", admin).Status)

	// archiving the catalog service archives its approved version in lists
	require.Equal(t, http.StatusOK, e.patch("/v2/services/"+svc, admin, "services", svc, `{"active":false}`).Status)
	assert.Empty(t, e.get("/v2/approved-services", admin).list())
	assert.Len(t, e.get("/v2/approved-services?filter[active]=false", admin).list(), 1)
}

// Ensure a line of business without approvers lets any catalog manager
// approve.
func TestCatalogServiceApprovalWithoutApprovers(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	viewer := e.token("acme", "viewer@acme.test", "Read Only")
	svc := e.create("/v2/services", admin, "services", `{"name":"Backup"}`)
	require.Equal(t, http.StatusOK, e.req(http.MethodPost, "/acme/v1/services/"+svc+"/submit-for-approval", admin, "").Status)
	assert.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/services/"+svc+"/approve", viewer, "").Status)
	r := e.req(http.MethodPost, "/acme/v1/services/"+svc+"/approve", admin, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "approved", r.attr("state"))
}
