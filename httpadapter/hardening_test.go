package httpadapter_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Regression tests of the defects an outside probe found (docs/limits.md).

// Ensure a 32,760-character unique or indexed string answers 422 naming
// the field (it used to be a 500 "key too large" from the store), and a
// value at the limit is stored, found by equality and unique.
func TestLongIndexedStrings(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	long := strings.Repeat("n", 32760)
	for _, tc := range []struct{ typ, field string }{
		{"clients", "name"}, {"services", "name"}, {"resources", "name"}, {"lines-of-business", "name"},
		{"roles", "name"}, {"currencies", "code"}, {"users", "email"},
	} {
		attrs := map[string]string{"name": "x"}
		switch tc.typ {
		case "users":
			attrs["email"] = "x@example.test"
		case "currencies":
			attrs = map[string]string{"code": "CHF", "conversion-rate": "1.1"}
		}
		attrs[tc.field] = long
		var b strings.Builder
		b.WriteString("{")
		for k, v := range attrs {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			b.WriteString(`"` + k + `":"` + v + `"`)
		}
		b.WriteString("}")
		r := e.req(http.MethodPost, "/acme/v1/"+tc.typ, tok, doc(tc.typ, "", b.String()))
		first := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/"+tc.field)
		assert.Contains(t, first["detail"], "too long", tc.typ)
	}
	// at the limit: stored, filtered by and unique
	name := strings.Repeat("é", engine.MaxStringChars)
	id := e.create("/v2/clients", tok, "clients", `{"name":"`+name+`"}`)
	assert.Equal(t, name, e.get("/v2/clients/"+id, tok).attr("name"))
	assertError(t, e.req(http.MethodPost, "/v2/clients", tok, doc("clients", "", `{"name":"`+strings.ToUpper(name)+`"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/name")
	r := e.get("/acme/v1/users?filter[email]="+url.QueryEscape(strings.Repeat("e", 300)), tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Empty(t, r.list())
	// a text attribute takes 64 KiB, not more
	svc := e.create("/v2/services", tok, "services", `{"name":"Long text"}`)
	e.patch("/v2/services/"+svc, tok, "services", svc, `{"description":"`+strings.Repeat("d", engine.MaxTextBytes)+`"}`)
	assertError(t, e.req(http.MethodPatch, "/v2/services/"+svc, tok, doc("services", svc, `{"description":"`+strings.Repeat("d", engine.MaxTextBytes+1)+`"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/description")
}

// Ensure null is refused where it broke rules: active null used to make
// a record vanish from every list but filter[active]=true,false; a role's
// project-visibility null let an assigned user see every project.
func TestNullRules(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Kept"}`)
	r := e.req(http.MethodPatch, "/v2/clients/"+client, tok, doc("clients", client, `{"active":null}`))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/active")
	assert.Equal(t, []string{client}, e.get("/v2/clients", tok).ids())

	role := e.create("/acme/v1/roles", tok, "roles", `{"name":"Assigned only","permissions":{"projects":"manage","clients":"view"},"project-visibility":"assigned"}`)
	for _, body := range []string{`{"project-visibility":null}`, `{"project-visibility":""}`, `{"permissions":null}`} {
		assertError(t, e.req(http.MethodPatch, "/acme/v1/roles/"+role, tok, doc("roles", role, body)), http.StatusUnprocessableEntity, "")
	}
	assert.Equal(t, "assigned", e.get("/acme/v1/roles/"+role, tok).attr("project-visibility"))

	// a role stored without project-visibility (as the defect left them)
	// shows only assigned projects: visibility fails closed
	projectFixture(e, tok)
	uid, utok := e.user("acme", "assigned@acme.test", "Assigned only")
	_ = uid
	assert.Len(t, e.get("/v2/projects", tok).list(), 1)
	assert.Empty(t, e.get("/v2/projects", utok).list())
	require.NoError(t, e.db.Update(context.Background(), func(tx engine.Tx) error {
		rec, err := tx.Get("roles", e.accts["acme"], role)
		if err != nil {
			return err
		}
		delete(rec.Attrs, "project-visibility")
		return tx.Replace(rec)
	}))
	assert.Empty(t, e.get("/v2/projects", utok).list(), "a role without project-visibility must not see every project")

	// enums, booleans and minor-units refuse null; an optional decimal
	// goes back to no value, one with a default back to its default
	svc := e.create("/v2/services", tok, "services", `{"name":"S","hours":"3"}`)
	for _, attr := range []string{"service-type", "payment-frequency", "active"} {
		assertError(t, e.req(http.MethodPatch, "/v2/services/"+svc, tok, doc("services", svc, `{"`+attr+`":null}`)), http.StatusUnprocessableEntity, "/data/attributes/"+attr)
	}
	assert.Nil(t, e.patch("/v2/services/"+svc, tok, "services", svc, `{"hours":null}`).attr("hours"))
	cur := e.create("/acme/v1/currencies", tok, "currencies", `{"code":"EUR","conversion-rate":"0.9"}`)
	assertError(t, e.req(http.MethodPatch, "/acme/v1/currencies/"+cur, tok, doc("currencies", cur, `{"minor-units":null}`)), http.StatusUnprocessableEntity, "/data/attributes/minor-units")
	sub := e.create("/v2/subservices", tok, "subservices", `{"name":"Sub","quantity":"4"}`, "service", "services", svc)
	assert.Equal(t, "1", e.patch("/v2/subservices/"+sub, tok, "subservices", sub, `{"quantity":null}`).attr("quantity"))
}

// Ensure the default currency's rate is always 1, and decimals padded
// with spaces are refused.
func TestDefaultCurrencyRateAndPaddedDecimals(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	usd := ""
	for _, c := range e.get("/acme/v1/currencies", tok).list() {
		if c["attributes"].(map[string]any)["code"] == "USD" {
			usd = c["id"].(string)
		}
	}
	require.NotEmpty(t, usd)
	for _, rate := range []string{`"5"`, `5`, `"1.5"`, `"0.999"`} {
		assertError(t, e.req(http.MethodPatch, "/acme/v1/currencies/"+usd, tok, doc("currencies", usd, `{"conversion-rate":`+rate+`}`)),
			http.StatusUnprocessableEntity, "/data/attributes/conversion-rate")
	}
	e.patch("/acme/v1/currencies/"+usd, tok, "currencies", usd, `{"conversion-rate":"1.000"}`)
	assert.Equal(t, "1", e.get("/acme/v1/currencies/"+usd, tok).attr("conversion-rate"))
	// and the default currency keeps its code and cannot be deleted
	assertError(t, e.req(http.MethodPatch, "/acme/v1/currencies/"+usd, tok, doc("currencies", usd, `{"code":"EUR"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/code")
	assertError(t, e.req(http.MethodDelete, "/acme/v1/currencies/"+usd, tok, ""), http.StatusConflict, "")
	eur := e.create("/acme/v1/currencies", tok, "currencies", `{"code":"EUR","conversion-rate":"0.9"}`)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/currencies/"+eur, tok, "").Status)
	assert.Equal(t, "USD", e.get("/acme/v1/currencies/"+usd, tok).attr("code"))

	for _, padded := range []string{`" 5 "`, `" 5"`, `"5 "`, `"\t5"`, `"5\n"`} {
		assertError(t, e.req(http.MethodPost, "/acme/v1/currencies", tok, doc("currencies", "", `{"code":"EUR","conversion-rate":`+padded+`}`)),
			http.StatusUnprocessableEntity, "/data/attributes/conversion-rate")
		assertError(t, e.req(http.MethodPost, "/v2/services", tok, doc("services", "", `{"name":"Pad","hours":`+padded+`}`)),
			http.StatusUnprocessableEntity, "/data/attributes/hours")
	}
}

// Ensure currency codes are ISO 4217 and minor-units come from the
// standard unless given.
func TestCurrencyCodesISO4217(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, code := range []string{"ZZZZZZ", "12", "€€€", "ZZZ", "eur", "XXX", ""} {
		r := e.req(http.MethodPost, "/acme/v1/currencies", tok, doc("currencies", "", `{"code":"`+code+`","conversion-rate":"2"}`))
		assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/code")
	}
	for code, units := range map[string]float64{"JPY": 0, "EUR": 2, "BHD": 3} {
		id := e.create("/acme/v1/currencies", tok, "currencies", `{"code":"`+code+`","conversion-rate":"2"}`)
		assert.EqualValues(t, units, e.get("/acme/v1/currencies/"+id, tok).attr("minor-units"), code)
	}
	id := e.create("/acme/v1/currencies", tok, "currencies", `{"code":"KWD","conversion-rate":"0.3","minor-units":2}`)
	assert.EqualValues(t, 2, e.get("/acme/v1/currencies/"+id, tok).attr("minor-units"), "a given minor-units wins")
}

// Ensure the Bearer scheme is case-insensitive (RFC 9110 11.1).
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
		r := e.req(http.MethodGet, "/v2/clients", "", "", "Authorization", scheme+" "+tok)
		assert.Equal(t, http.StatusOK, r.Status, "%s: %s", scheme, r.Body)
	}
	r := e.req(http.MethodGet, "/v2/clients", "", "", "Authorization", "Bearer  "+tok)
	assert.Equal(t, http.StatusOK, r.Status, "extra spaces: %s", r.Body)
	for _, bad := range []string{"Basic " + tok, "Bearer", "Bearer ", "Bearertoken", tok} {
		assertError(t, e.req(http.MethodGet, "/v2/clients", "", "", "Authorization", bad), http.StatusUnauthorized, "")
	}
}

// Ensure invalid UTF-8 and NUL characters are refused in text attributes
// (naming the field) and in query parameters (naming the parameter),
// instead of being replaced or stored.
func TestInvalidTextRefused(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for name, value := range map[string]string{
		"invalid UTF-8":   "\"a\xffb\"",
		"NUL":             `"a\u0000b"`,
		"lone surrogate":  `"a\ud800b"`,
		"low surrogate":   `"\udfff"`,
		"overlong UTF-8":  "\"\xc0\xaf\"",
		"NUL in an array": `["a\u0000"]`,
	} {
		field := "name"
		if strings.HasPrefix(value, "[") {
			field = "tag-list"
		}
		body := doc("clients", "", `{"`+field+`":`+value+`}`)
		if field == "tag-list" {
			proj := projectFixture(e, tok)
			body = doc("projects", proj, `{"tag-list":`+value+`}`)
			r := e.req(http.MethodPatch, "/v2/projects/"+proj, tok, body)
			require.Contains(t, []int{400, 422}, r.Status, "%s: %s", name, r.Body)
			assertError(t, r, r.Status, "/data/attributes/tag-list")
			continue
		}
		r := e.req(http.MethodPost, "/v2/clients", tok, body)
		require.Contains(t, []int{400, 422}, r.Status, "%s: %s", name, r.Body)
		assertError(t, r, r.Status, "/data/attributes/name")
	}
	// an escaped pair is a real character
	id := e.create("/v2/clients", tok, "clients", `{"name":"smile \ud83d\ude00"}`)
	assert.Equal(t, "smile 😀", e.get("/v2/clients/"+id, tok).attr("name"))
	// objects: keys and values
	assertError(t, e.req(http.MethodPatch, "/v2/clients/"+id, tok, doc("clients", id, `{"user-defined-fields":{"a\u0000":"x"}}`)),
		http.StatusUnprocessableEntity, "/data/attributes/user-defined-fields")

	for _, q := range []string{"filter[name]=a%00b", "filter[name]=%ff", "filter%ff=1", "x=%00"} {
		r := e.get("/v2/clients?"+q, tok)
		assertError(t, r, http.StatusBadRequest, "")
		src, _ := r.firstError()["source"].(map[string]any)
		assert.NotEmpty(t, src["parameter"], "%s: %s", q, r.Body)
	}
}

// Ensure a receiver's Retry-After cannot postpone a retry beyond
// webhook.MaxRetryAfter, in seconds or as an HTTP date (it used to be
// honoured without bound).
func TestRetryAfterIsCapped(t *testing.T) {
	for _, value := range []string{"99999999999999999999", "31536000", time.Now().Add(400 * 24 * time.Hour).UTC().Format(http.TimeFormat)} {
		f := newHookFlow(t)
		rc := newReceiver(t, func(_ int, w http.ResponseWriter) {
			w.Header().Set("Retry-After", value)
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		sub, _ := f.subscribe("service_status_changed", rc.URL)
		startDispatcher(t, f.e, nil)
		f.setStatus("on_hold")
		rc.next(t, 2*time.Second)
		a := attrsOf(f.publications(sub, 1)[0])
		done, err := time.Parse(time.RFC3339, a["completed-at"].(string))
		require.NoError(t, err)
		next, err := time.Parse(time.RFC3339, a["next-attempt-at"].(string))
		require.NoError(t, err, "Retry-After %s", value)
		assert.WithinDuration(t, done.Add(webhook.MaxRetryAfter), next, time.Minute, "Retry-After %s", value)
	}
}

// Ensure the event outbox is pruned: Purge deletes events older than the
// retention that no delivery waits on, keeps those still being
// delivered, and reads only old records (publications and events index
// created-at).
func TestOutboxPruned(t *testing.T) {
	f := newHookFlow(t)
	ctx := context.Background()
	f.setStatus("on_hold") // no subscription yet: an event without deliveries
	rc := newReceiver(t, status(http.StatusServiceUnavailable))
	f.subscribe("service_status_changed", rc.URL)
	f.setStatus("in_progress") // an event with a pending delivery (no dispatcher runs)
	events := func() []*engine.Record {
		var out []*engine.Record
		require.NoError(t, f.e.db.View(ctx, func(tx engine.Tx) error {
			recs, _, err := tx.List(&engine.Query{Type: "events", AllAccounts: true})
			out = recs
			return err
		}))
		return out
	}
	all := events()
	require.Len(t, all, 2)
	n, err := f.e.db.Purge(ctx, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Zero(t, n, "nothing is older than the retention")
	n, err = f.e.db.Purge(ctx, time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	left := events()
	require.Len(t, left, 1)
	assert.Equal(t, "in_progress", left[0].Str("new-status"), "the event still being delivered is kept")
}
