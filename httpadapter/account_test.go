package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure an administrator sets the account's locale with PATCH
// /{slug}/v1/account: a BCP 47 tag, stored in its canonical form, shown
// by GET (en-US before any is set) and in merge data, the locale the
// documents print in; anything else is a 422 naming locale and changes
// nothing. And that the account's self link is the address it is served
// at.
func TestAccountLocale(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	s := e.seedWorkedExample()
	locale := func() any {
		t.Helper()
		r := e.get("/acme/v1/account", tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.attr("locale")
	}
	printedIn := func() any {
		t.Helper()
		return mergeData(t, e.get(mergeDataPath(s.ProjectID, "?version=2"), tok), s.ProjectID, 2)["locale"]
	}
	assert.Equal(t, "en-US", locale(), "the default it prints with")
	assert.Equal(t, "en-US", printedIn())

	r := e.get("/acme/v1/account", tok)
	self := r.data()["links"].(map[string]any)["self"].(string)
	assert.Equal(t, e.srv.URL+"/acme/v1/account", self)
	assert.Equal(t, self, r.Doc["links"].(map[string]any)["self"])
	assert.Equal(t, http.StatusOK, e.get(self[len(e.srv.URL):], tok).Status, "the self link resolves")

	for _, tc := range []struct{ given, stored string }{
		{"de-DE", "de-DE"},
		{"fr-ch", "fr-CH"},
		{"en_US", "en-US"},
	} {
		r := e.patch("/acme/v1/account", tok, "accounts", e.accts["acme"], `{"locale":"`+tc.given+`"}`)
		assert.Equal(t, tc.stored, r.attr("locale"), tc.given)
		assert.Equal(t, e.srv.URL+"/acme/v1/account", r.data()["links"].(map[string]any)["self"], tc.given)
		assert.Equal(t, tc.stored, locale(), tc.given)
		assert.Equal(t, tc.stored, printedIn(), tc.given)
	}

	for _, bad := range []string{`"xx-YY"`, `"german"`, `""`, `"und"`, `"x-private"`, `" de-DE"`} {
		assertError(t, e.req(http.MethodPatch, "/acme/v1/account", tok, doc("accounts", e.accts["acme"], `{"locale":`+bad+`}`)),
			http.StatusUnprocessableEntity, "/data/attributes/locale")
	}
	assertError(t, e.req(http.MethodPatch, "/acme/v1/account", tok, doc("accounts", e.accts["acme"], `{"locale":5}`)),
		http.StatusBadRequest, "/data/attributes/locale")
	// a refused locale writes nothing of the PATCH
	assertError(t, e.req(http.MethodPatch, "/acme/v1/account", tok, doc("accounts", e.accts["acme"], `{"locale":"xx","mfa-required":true}`)),
		http.StatusUnprocessableEntity, "/data/attributes/locale")
	assert.Equal(t, false, e.get("/acme/v1/account", tok).attr("mfa-required"))
	assert.Equal(t, "en-US", locale())
	// null sets it back to the default
	e.patch("/acme/v1/account", tok, "accounts", e.accts["acme"], `{"locale":"de-DE"}`)
	assert.Equal(t, "en-US", e.patch("/acme/v1/account", tok, "accounts", e.accts["acme"], `{"locale":null}`).attr("locale"))

	sales := e.token("acme", "sid@acme.test", "Sales")
	assertError(t, e.req(http.MethodPatch, "/acme/v1/account", sales, doc("accounts", e.accts["acme"], `{"locale":"de-DE"}`)), http.StatusForbidden, "")
	assert.Equal(t, "en-US", locale())
}
