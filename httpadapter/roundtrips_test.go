package httpadapter_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counted starts a test API on PostgreSQL whose store's round trips and
// statements are counted per request.
func counted(t *testing.T) (*testEnv, *pgtest.Counter) {
	t.Helper()
	c := &pgtest.Counter{}
	e := mustEnv(t, func(e *testEnv) {
		e.pg = true
		e.pgOpts = []pgstore.Option{pgstore.WithTracer(c)}
		e.wrap = func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(w, r.WithContext(c.Mark(r.Context())))
			})
		}
	})
	return e, c
}

// Ensure each route reaches PostgreSQL in no more round trips and
// statements than docs/scale-out.md documents for it, once the caller's
// token and actor are in memory: a read in one round trip, no N+1.
// Statements count BEGIN and COMMIT; a round trip is one pgx batch.
func TestRoundTrips(t *testing.T) {
	e, c := counted(t)
	tok := e.admin()
	cl := e.create("/v2/clients", tok, "clients", `{"name":"C1"}`)
	p := e.create("/v2/projects", tok, "projects", `{"project-name":"P1"}`, "client", "clients", cl)
	svc := e.create("/acme/v1/services", tok, "services", `{"name":"S1"}`)
	gone := [2]string{e.create("/v2/clients", tok, "clients", `{"name":"Gone 1"}`), e.create("/v2/clients", tok, "clients", `{"name":"Gone 2"}`)}
	for _, r := range []struct {
		method, path, body string
		trips, stmts       int
	}{
		{"GET", "/v2/projects/" + p, "", 1, 1},
		{"GET", "/v2/clients/" + cl, "", 1, 1},
		{"GET", "/v1/me", "", 0, 0},
		{"GET", "/v2/projects?page[size]=250", "", 1, 4},
		{"GET", "/v2/projects?include=client", "", 2, 9},
		{"GET", "/acme/v1/projects/" + p, "", 1, 1},
		{"GET", "/v2/projects/" + p + "/project-services", "", 1, 4},
		{"POST", "/v2/clients", doc("clients", "", `{"name":"C-%d"}`), 3, 5},
		// a project is created with its first version: the version's id
		// (its blob is kept under it) is one more round trip
		{"POST", "/v2/projects", doc("projects", "", `{"project-name":"P-%d"}`, "client", "clients", cl), 6, 17},
		{"PATCH", "/v2/projects/" + p, doc("projects", p, `{"project-name":"Q-%d"}`), 3, 7},
		{"POST", "/acme/v1/project-services", doc("project-services", "", `{"name":"L-%d","quantity":2}`, "project", "projects", p, "service", "services", svc), 6, 20},
		{"DELETE", "/v2/clients/%d", "", 3, 6},
	} {
		for i := range 2 { // the second: prepared statements in every connection used
			path := strings.ReplaceAll(r.path, "%d", gone[i])
			body := strings.ReplaceAll(r.body, "%d", strconv.Itoa(i))
			c.Reset()
			res := e.req(r.method, path, tok, body)
			require.Less(t, res.Status, 300, "%s %s: %s", r.method, path, res.Body)
		}
		trips, stmts := c.Counts()
		msg := fmt.Sprintf("%s %s: %d round trips, %d statements:\n\t%s", r.method, r.path, trips, len(stmts), strings.Join(stmts, "\n\t"))
		assert.LessOrEqual(t, trips, r.trips, msg)
		assert.LessOrEqual(t, len(stmts), r.stmts, msg)
	}

	// a token seen for the first time: the token with its credential, the
	// membership, the actor (account, user and role) and the read
	fresh := e.token("acme", "fresh@acme.test", "Sales")
	c.Reset()
	require.Equal(t, http.StatusOK, e.get("/v2/clients/"+cl, fresh).Status)
	trips, stmts := c.Counts()
	msg := fmt.Sprintf("first request of a token: %d round trips, %d statements:\n\t%s", trips, len(stmts), strings.Join(stmts, "\n\t"))
	assert.LessOrEqual(t, trips, 4, msg)
	assert.LessOrEqual(t, len(stmts), 7, msg)
}
