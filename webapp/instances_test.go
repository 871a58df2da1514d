package webapp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
)

// Ensure two instances on one PostgreSQL database need no sticky
// sessions: a session begun on one is known to the other, a change made
// through the other with the first page's CSRF token is taken, and a
// sign-out on one ends the session on both.
func TestTwoInstancesShareSessions(t *testing.T) {
	url := pgtest.URL(t)
	a := newEnvOn(t, url)
	b := a.instance(url)
	br := a.browser()
	br.signIn("acme", "ada@acme.test")
	pid := a.seeded["acme"].ProjectID
	svc, scope := firstService(t, br, pid)

	p := br.get(b.srv.URL + "/app/acme/projects/" + pid)
	require.Equal(t, http.StatusOK, p.Status)
	require.True(t, strings.HasPrefix(p.URL, b.srv.URL), "served by the second instance, not sent to sign in: %s", p.URL)
	require.Equal(t, scope.csrf(t), p.csrf(t), "one session, one token")

	req, _ := http.NewRequest(http.MethodPost, b.srv.URL+"/app/acme/projects/"+pid+"/lines/services/"+svc,
		strings.NewReader(formOf("csrf", scope.csrf(t), "quantity", "5").Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	require.Equal(t, http.StatusOK, br.do(req).Status)
	require.Equal(t, "5", a.quantity(svc))

	req, _ = http.NewRequest(http.MethodPost, b.srv.URL+"/app/acme/signout", strings.NewReader(formOf("csrf", scope.csrf(t)).Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	br.do(req)
	p = br.get("/app/acme/projects")
	require.Contains(t, p.URL, "/oauth/authorize", "signed out on the first instance too")
}
