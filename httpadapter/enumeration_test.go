package httpadapter_test

import (
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/require"
)

// Enumeration (docs/auth.md "What an answer reveals"): the time of an
// answer must not tell an unknown user from a wrong password, nor an
// unknown client from a wrong secret.
//
// The test times pairs of requests through the real server and compares
// the medians. To stay stable on a loaded machine (and under -race, which
// slows everything about alike) the two kinds of a pair alternate in a
// random order, so that a busy moment weighs on both; medians ignore the
// outliers; and a pair that misses is measured again, up to five rounds:
// noise does not repeat, a leak does (the leaks this guards against, a
// skipped bcrypt or lookup, fail every round by far). The bcrypt cost is
// the tests' (bcrypt.MinCost): a password check is still the bulk of a
// password answer, so a refusal that skipped it would stand out as much
// as at the server's cost, and 800 password checks at DefaultCost would
// take most of a minute.

const (
	timingTries  = 200
	timingRounds = 5
	timingMargin = 0.10 // the medians may differ by less than this
)

// requireSameTime times a and b alternately and requires their medians
// within timingMargin of each other, in one of timingRounds rounds.
func requireSameTime(t *testing.T, name string, a, b func() time.Duration) {
	t.Helper()
	for range 20 { // warm up: connections, caches, the dummy digest
		a()
		b()
	}
	for round := 1; ; round++ {
		da, db := make([]time.Duration, 0, timingTries), make([]time.Duration, 0, timingTries)
		for range timingTries {
			if rand.IntN(2) == 0 {
				da = append(da, a())
				db = append(db, b())
			} else {
				db = append(db, b())
				da = append(da, a())
			}
		}
		ma, mb := median(da), median(db)
		diff := float64(max(ma, mb)-min(ma, mb)) / float64(min(ma, mb))
		t.Logf("%s, round %d: medians %v and %v (%.1f %%)", name, round, ma, mb, 100*diff)
		if diff < timingMargin {
			return
		}
		require.Less(t, round, timingRounds, "%s: the medians differ by %.1f %% in every round", name, 100*diff)
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// timed sends a form to path with c and returns how long the answer took,
// checking its status and, when want is not "", its body.
func timed(t *testing.T, c *http.Client, target string, form url.Values, status int, want string) time.Duration {
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	start := time.Now()
	res, err := c.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	took := time.Since(start)
	res.Body.Close()
	require.NoError(t, err)
	require.Equal(t, status, res.StatusCode, "%s", body)
	if want != "" {
		require.Equal(t, want, string(body))
	}
	return took
}

// Ensure an unknown email and a wrong password take the same time, on
// the password grant and on the login form, and an unknown client and a
// wrong secret too (with the same body).
func TestEnumerationTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("times 2,400 requests")
	}
	ae := mustAuthEnv(t, func(s *httpadapter.Server) { s.Throttle.Disabled = true })
	c := ae.srv.Client()
	token := ae.srv.URL + "/oauth/token"
	grant := func(username, password string) url.Values {
		return url.Values{"grant_type": {"password"}, "client_id": {aePortalID}, "client_secret": {aePortalSecret},
			"username": {username}, "password": {password}}
	}
	requireSameTime(t, "password grant: unknown email / wrong password",
		func() time.Duration {
			return timed(t, c, token, grant("nobody@acme.test", "a wrong password"), http.StatusBadRequest, "")
		},
		func() time.Duration {
			return timed(t, c, token, grant(aeAdaEmail, "a wrong password"), http.StatusBadRequest, "")
		})

	refused := `{"error":"invalid_client","error_description":"client authentication failed: unknown client_id or wrong client_secret"}` + "\n"
	client := func(id, secret string) url.Values {
		return url.Values{"grant_type": {"password"}, "client_id": {id}, "client_secret": {secret},
			"username": {aeAdaEmail}, "password": {aePassword}}
	}
	requireSameTime(t, "client: unknown id / wrong secret",
		func() time.Duration {
			return timed(t, c, token, client("nobody", aePortalSecret), http.StatusUnauthorized, refused)
		},
		func() time.Duration {
			return timed(t, c, token, client(aePortalID, "a wrong secret"), http.StatusUnauthorized, refused)
		})

	b := ae.browser()
	form := ae.fetch(b, http.MethodGet, authorizeURL(goodAuthorize()), "", "")
	login := func(email string) url.Values {
		v := form.hidden()
		v.Set("email", email)
		v.Set("password", "a wrong password")
		return v
	}
	requireSameTime(t, "login form: unknown email / wrong password",
		func() time.Duration {
			return timed(t, b, ae.srv.URL+"/oauth/authorize", login("nobody@acme.test"), http.StatusBadRequest, "")
		},
		func() time.Duration {
			return timed(t, b, ae.srv.URL+"/oauth/authorize", login(aeAdaEmail), http.StatusBadRequest, "")
		})
}
