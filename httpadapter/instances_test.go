package httpadapter_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// onPG runs a test API on PostgreSQL whatever SCOPEKIT_TEST_STORE says.
func onPG(e *testEnv) { e.pg = true }

// sibling starts a second API on the database of e (another instance of
// the same deployment); it is closed when the test ends.
func (e *testEnv) sibling() *testEnv {
	e.t.Helper()
	b := &testEnv{t: e.t, path: filepath.Join(e.t.TempDir(), "unused.db"), pg: true, pgURL: e.pgURL, accts: e.accts}
	b.open()
	return b
}

// Ensure what an instance keeps in memory between requests (the principal
// of a token; the actor: account, user and role) follows the writes made
// through another instance on the same database: each write through A is
// seen by the very next request through B.
func TestInstancesSeeEachOthersWrites(t *testing.T) {
	a := mustEnv(t, onPG)
	b := a.sibling()
	admin := a.admin()
	uid, tok := a.user("acme", "bot@acme.test", "Sales")
	require.Equal(t, http.StatusOK, b.get("/v2/clients", tok).Status) // B keeps the token and the actor

	// the role loses the clients permission
	role := ""
	for _, r := range a.get("/acme/v1/roles", admin).list() {
		if attrs, _ := r["attributes"].(map[string]any); attrs["name"] == "Sales" {
			role = r["id"].(string)
		}
	}
	require.NotEmpty(t, role)
	a.patch("/acme/v1/roles/"+role, admin, "roles", role, `{"permissions":{"clients":"none"}}`)
	assertError(t, b.get("/v2/clients", tok), http.StatusForbidden, "")
	a.patch("/acme/v1/roles/"+role, admin, "roles", role, `{"permissions":{"clients":"manage"}}`)
	require.Equal(t, http.StatusOK, b.get("/v2/clients", tok).Status)

	// the account's slug changes: the old one is no account any more
	require.Equal(t, http.StatusOK, b.get("/acme/v1/clients", tok).Status)
	require.NoError(t, a.db.Update(context.Background(), func(tx engine.Tx) error {
		acct, err := tx.Get(views.TypeAccounts, "", a.accts["acme"])
		if err != nil {
			return err
		}
		acct.Attrs[views.NameSlug] = "acme-2"
		return tx.Replace(acct)
	}))
	assertError(t, b.get("/acme/v1/clients", tok), http.StatusNotFound, "")
	require.Equal(t, http.StatusOK, b.get("/acme-2/v1/clients", tok).Status)

	// the user is deactivated: its token no longer authenticates
	a.patch("/acme-2/v1/users/"+uid, admin, "users", uid, `{"active":false}`)
	assertError(t, b.get("/v2/clients", tok), http.StatusUnauthorized, "")

	// new credentials cut off the tokens of the old ones
	uid2, tok2 := a.user("acme", "robot@acme.test", "Sales")
	require.Equal(t, http.StatusOK, b.get("/v2/clients", tok2).Status)
	r := a.req(http.MethodPost, "/acme-2/v1/users/"+uid2+"/credentials", admin, "")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assertError(t, b.get("/v2/clients", tok2), http.StatusUnauthorized, "")
}
