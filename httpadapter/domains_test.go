package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/internal/dnstest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the verified-domains resource over HTTP: a claim answers its
// token, the verify action finds the TXT record on a real DNS server (at
// the domain or at _scopekit.<domain>) or says why not (422), a domain is
// one account's (409 that names no account), and only who holds settings
// and users manage writes.
func TestVerifiedDomains_HTTP(t *testing.T) {
	e := mustEnv(t)
	dns := dnstest.Start(t)
	e.svc.SSO.Resolver = dns.Resolver()
	admin := e.admin()
	path := "/acme/v1/verified-domains"
	created := e.req(http.MethodPost, path, admin, doc("verified-domains", "", `{"domain":" Acme.Test "}`))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	id := created.data()["id"].(string)
	require.Equal(t, "acme.test", created.attr("domain"))
	require.Equal(t, "pending", created.attr("status"))
	token, _ := created.attr("verification-token").(string)
	require.Len(t, token, 32)
	require.Nil(t, created.attr("verified-at"))

	verify := func(id, token string) *resp {
		t.Helper()
		return e.req(http.MethodPost, path+"/"+id+"/verify", token, "")
	}
	e422 := assertError(t, verify(id, admin), http.StatusUnprocessableEntity, "")
	require.Contains(t, e422["detail"], `no TXT record "scopekit-domain-verification=`+token+`" at acme.test or _scopekit.acme.test`)
	dns.SetTXT("acme.test", "scopekit-domain-verification=not-this-claims")
	e422 = assertError(t, verify(id, admin), http.StatusUnprocessableEntity, "")
	require.Contains(t, e422["detail"], "another token")
	dns.SetTXT("_scopekit.acme.test", "scopekit-domain-verification="+token)
	ok := verify(id, admin)
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Body)
	require.Equal(t, "verified", ok.attr("status"))
	require.Equal(t, "dns", ok.attr("verified-by"))
	require.NotNil(t, ok.attr("verified-at"))
	require.Equal(t, []string{id}, e.get(path+"?filter[status]=verified", admin).ids())

	// one account per domain; the detail names no account
	globex := e.token("globex", "admin@globex.test", "Account Admin")
	for _, r := range []*resp{
		e.req(http.MethodPost, "/globex/v1/verified-domains", globex, doc("verified-domains", "", `{"domain":"ACME.test"}`)),
		e.req(http.MethodPost, "/globex/v1/identity-providers", globex, doc("identity-providers", "",
			`{"name":"Mine","issuer-url":"https://login.globex.test","client-id":"x","client-secret":"y","email-domains":["acme.test"]}`)),
	} {
		e409 := assertError(t, r, http.StatusConflict, "")
		require.Contains(t, e409["detail"], "acme.test is verified by another account")
		require.NotContains(t, string(r.Body), "Acme")
		require.NotContains(t, string(r.Body), `"acme"`)
	}
	// another account's claim is not there to see or verify
	assertError(t, e.req(http.MethodPost, "/globex/v1/verified-domains/"+id+"/verify", globex, ""), http.StatusNotFound, "")
	assertError(t, e.get("/globex/v1/verified-domains/"+id, globex), http.StatusNotFound, "")

	e.req(http.MethodPost, path, admin, doc("verified-domains", "", `{"domain":"eu.acme.test"}`))
	assertError(t, e.req(http.MethodPost, path, admin, doc("verified-domains", "", `{"domain":"acme.test"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/domain")
	assertError(t, e.req(http.MethodPost, path, admin, doc("verified-domains", "", `{"domain":"-acme.test"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/domain")
	assertError(t, e.req(http.MethodPatch, path+"/"+id, admin, doc("verified-domains", id, `{"domain":"other.test"}`)),
		http.StatusUnprocessableEntity, "/data/attributes/domain")

	// settings manage alone neither claims, verifies nor releases
	require.NoError(t, e.svc.Setup(t.Context(), func(a *scoping.Admin) error {
		_, err := a.EnsureRole(e.accts["acme"], "Settings Only", map[string]string{"settings": "manage"}, "all")
		return err
	}))
	settings := e.token("acme", "settings@acme.test", "Settings Only")
	require.Len(t, e.get(path, settings).ids(), 2)
	assertError(t, e.req(http.MethodPost, path, settings, doc("verified-domains", "", `{"domain":"third.test"}`)), http.StatusForbidden, "")
	assertError(t, verify(id, settings), http.StatusForbidden, "")
	assertError(t, e.req(http.MethodDelete, path+"/"+id, settings, ""), http.StatusForbidden, "")

	// released, the domain is free for another account
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, path+"/"+id, admin, "").Status)
	require.Equal(t, http.StatusCreated, e.req(http.MethodPost, "/globex/v1/verified-domains", globex,
		doc("verified-domains", "", `{"domain":"acme.test"}`)).Status)
}

// Ensure accounts racing to verify one domain end with one holder, on
// either store (pgstore serializes the reads across accounts that the
// check makes).
func TestVerifiedDomains_Race(t *testing.T) {
	e := mustEnv(t)
	ctx := context.Background()
	var ids []string
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		for i := range 6 {
			acct, err := a.EnsureAccount(fmt.Sprintf("racer%d", i), "Racer", "USD")
			if err != nil {
				return err
			}
			ids = append(ids, acct.ID)
		}
		return nil
	}))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.svc.Setup(ctx, func(a *scoping.Admin) error {
				_, err := a.VerifyDomain(id, "race.test")
				return err
			})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "%v", err)
	}
	require.Equal(t, 1, won)
}
