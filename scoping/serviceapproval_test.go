package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The approval workflow module (serviceapproval.go): catalog service
// approval (docs/approval.md, "Catalog service approval").

// saService creates a catalog service on line lob with two subservices,
// one of them archived, and returns its id.
func (w *wfWorld) saService(name, lob string) string {
	w.t.Helper()
	phase := w.create(w.sys, "phases", attrs("name", `"Plan"`, "position", `1`), nil).ID
	res := w.create(w.sys, "resources", attrs("name", `"`+name+` engineer"`, "hourly-rate", `"150"`), nil).ID
	rels := map[string]engine.RelInput{"phase": rel("phases", phase), "resource": rel("resources", res)}
	if lob != "" {
		rels["line-of-business"] = rel("lines-of-business", lob)
	}
	svc := w.create(w.sys, "services", attrs("name", `"`+name+`"`, "hours", `8`, "sku", `"SKU-1"`, "description", `"Looks at it"`), rels).ID
	w.create(w.sys, "subservices", attrs("name", `"Survey"`, "hours", `"1.5"`, "quantity", `2`, "position", `1`),
		map[string]engine.RelInput{"service": rel("services", svc)})
	old := w.create(w.sys, "subservices", attrs("name", `"Old"`, "hours", `1`), map[string]engine.RelInput{"service": rel("services", svc)}).ID
	_, err := w.update(w.sys, "subservices", old, attrs("active", `false`), nil)
	require.NoError(w.t, err)
	return svc
}

// Ensure a service goes draft -> pending_approval -> approved through
// SubmitService and ApproveService, each refusing a service in another
// state (409), and that approving records the version with its active
// subservices in approved-services and approved-subservices.
func TestServiceApprovalLifecycle(t *testing.T) {
	w := newWfWorld(t)
	uID, u := w.member("u@acme.test", "Sales") // catalog view
	w.create(w.sys, "service-approvers", nil, map[string]engine.RelInput{"user": rel("users", uID), "line-of-business": rel("lines-of-business", w.network)})
	id := w.saService("Assessment", w.network)
	s := w.get("services", id)
	assert.Equal(t, "draft", s.Str("state"))
	assert.Equal(t, int64(1), s.Int("version"))

	_, err := w.svc.ApproveService(w.ctx, u, id)
	wfCode(t, scopekit.ECONFLICT, err)
	res, err := w.svc.SubmitService(w.ctx, w.admin, id)
	require.NoError(t, err)
	assert.Equal(t, "pending_approval", res.Records[0].Str("state"))
	_, err = w.svc.SubmitService(w.ctx, w.admin, id)
	wfCode(t, scopekit.ECONFLICT, err)

	// a catalog manager who is not the line's approver may not approve
	_, err = w.svc.ApproveService(w.ctx, w.admin, id)
	wfCode(t, scopekit.EFORBIDDEN, err)
	res, err = w.svc.ApproveService(w.ctx, u, id)
	require.NoError(t, err)
	assert.Equal(t, "approved", res.Records[0].Str("state"))
	_, err = w.svc.ApproveService(w.ctx, u, id)
	wfCode(t, scopekit.ECONFLICT, err)
	_, err = w.svc.SubmitService(w.ctx, w.admin, id)
	wfCode(t, scopekit.ECONFLICT, err)

	versions := w.list("approved-services", map[string]string{"service": id})
	require.Len(t, versions, 1)
	v := versions[0]
	assert.Equal(t, int64(1), v.Int("version"))
	assert.Equal(t, "approved", v.Str("state"))
	assert.Equal(t, id, v.Str("service-id"))
	assert.Equal(t, "Assessment", v.Str("name"))
	assert.Equal(t, "Looks at it", v.Str("description"))
	assert.Equal(t, "SKU-1", v.Str("sku"))
	assert.Equal(t, "8", v.Str("hours"))
	assert.Equal(t, engine.FormatTime(wfNow), v.Str("approved-at"))
	assert.Equal(t, uID, v.Rel("approved-by"))
	for _, r := range []string{"phase", "line-of-business", "resource"} {
		assert.Equal(t, s.Rel(r), v.Rel(r), r)
	}
	subs := w.list("approved-subservices", map[string]string{"approved-service": v.ID})
	require.Len(t, subs, 1, "archived subservices are not recorded")
	assert.Equal(t, "Survey", subs[0].Str("name"))
	assert.Equal(t, "1.5", subs[0].Str("hours"))
	assert.Equal(t, "2", subs[0].Str("quantity"))
	assert.Equal(t, id, subs[0].Rel("service"))
	assert.NotEmpty(t, subs[0].Rel("subservice"))
}

// Ensure the permissions of service approval: submitting needs catalog
// manage; approving a service whose line has no approver needs catalog
// manage; an unknown or another account's service is not found.
func TestServiceApprovalPermissions(t *testing.T) {
	w := newWfWorld(t)
	_, sales := w.member("s@acme.test", "Sales") // catalog view
	w.role("No catalog", map[string]string{"projects": "manage"}, "all")
	_, none := w.member("n@acme.test", "No catalog")
	id := w.saService("Assessment", w.security) // no approver on Security
	other := wfAccount(t, w.svc, "other", "USD")

	for _, tc := range []struct {
		name  string
		fn    func(a *engine.Actor, id string) error
		actor *engine.Actor
		id    string
		code  string
	}{
		{"submit with catalog view", w.submitService, sales, id, scopekit.EFORBIDDEN},
		{"submit without catalog", w.submitService, none, id, scopekit.EFORBIDDEN},
		{"submit unknown", w.submitService, w.admin, "999999", scopekit.ENOTFOUND},
		{"submit another account's", w.submitService, other, id, scopekit.ENOTFOUND},
		{"approve without catalog", w.approveService, none, id, scopekit.EFORBIDDEN},
		{"approve unknown", w.approveService, w.admin, "999999", scopekit.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wfCode(t, tc.code, tc.fn(tc.actor, tc.id))
		})
	}
	assert.Equal(t, "draft", w.get("services", id).Str("state"))

	require.NoError(t, w.submitService(w.admin, id))
	wfCode(t, scopekit.EFORBIDDEN, w.approveService(sales, id))
	require.NoError(t, w.approveService(w.admin, id), "no approver on the line: any catalog manager")
	assert.Len(t, w.list("approved-services", map[string]string{"service": id}), 1)
	assert.Equal(t, "approved", w.get("services", id).Str("state"))
}

func (w *wfWorld) submitService(a *engine.Actor, id string) error {
	_, err := w.svc.SubmitService(w.ctx, a, id)
	return err
}

func (w *wfWorld) approveService(a *engine.Actor, id string) error {
	_, err := w.svc.ApproveService(w.ctx, a, id)
	return err
}

// Ensure editing an approved service makes a new draft version while the
// approved version stays listed; approving the new version replaces it
// (one approved version per service, with the subservices as they are
// now); an edit that changes nothing a version records, or an edit of a
// draft, makes no new version; archiving and restoring carry over to the
// approved version's active flag.
func TestServiceApprovalVersions(t *testing.T) {
	w := newWfWorld(t)
	id := w.saService("Assessment", "")
	approve := func() {
		t.Helper()
		require.NoError(t, w.submitService(w.admin, id))
		require.NoError(t, w.approveService(w.admin, id))
	}
	// an edit of a draft is not a new version
	_, err := w.update(w.sys, "services", id, attrs("hours", `9`), nil)
	require.NoError(t, err)
	assert.Equal(t, int64(1), w.get("services", id).Int("version"))
	approve()

	// an edit changing no recorded field keeps the approved state
	_, err = w.update(w.sys, "services", id, attrs("hours", `9`), nil)
	require.NoError(t, err)
	assert.Equal(t, "approved", w.get("services", id).Str("state"))

	for _, edit := range []struct {
		name string
		do   func() error
	}{
		{"an attribute", func() error { _, err := w.update(w.sys, "services", id, attrs("hours", `12`), nil); return err }},
		{"a relationship", func() error {
			_, err := w.update(w.sys, "services", id, nil, map[string]engine.RelInput{"line-of-business": rel("lines-of-business", w.network)})
			return err
		}},
	} {
		before := w.get("services", id).Int("version")
		require.NoError(t, edit.do(), edit.name)
		s := w.get("services", id)
		assert.Equal(t, "draft", s.Str("state"), edit.name)
		assert.Equal(t, before+1, s.Int("version"), edit.name)
		versions := w.list("approved-services", map[string]string{"service": id})
		require.Len(t, versions, 1, edit.name)
		assert.Equal(t, int64(before), versions[0].Int("version"), "the approved version stays until the new one is approved")
		if edit.name == "an attribute" {
			assert.Equal(t, "9", versions[0].Str("hours"))
		}
		w.create(w.sys, "subservices", attrs("name", `"Extra `+edit.name+`"`, "hours", `1`), map[string]engine.RelInput{"service": rel("services", id)})
		approve()
	}
	versions := w.list("approved-services", map[string]string{"service": id})
	require.Len(t, versions, 1)
	assert.Equal(t, int64(3), versions[0].Int("version"))
	assert.Equal(t, "12", versions[0].Str("hours"))
	assert.Equal(t, w.network, versions[0].Rel("line-of-business"))
	assert.Len(t, w.list("approved-subservices", map[string]string{"service": id}), 3, "the previous versions' subservices are gone")
	assert.Len(t, w.list("approved-services", map[string]string{"line-of-business": w.network}), 1)

	_, err = w.update(w.sys, "services", id, attrs("active", `false`), nil)
	require.NoError(t, err)
	assert.Equal(t, "approved", w.get("services", id).Str("state"), "archiving is not an edit")
	assert.False(t, w.get("approved-services", versions[0].ID).Active())
	assert.Empty(t, w.list("approved-services", map[string]string{"service": id}), "archived versions are listed only on request")
	_, err = w.update(w.sys, "services", id, attrs("active", `true`), nil)
	require.NoError(t, err)
	assert.True(t, w.get("approved-services", versions[0].ID).Active())
}
