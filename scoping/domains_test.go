package scoping_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/dnstest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// claimDomain creates a claim of domain as a.
func claimDomain(t *testing.T, svc *scoping.Service, a *engine.Actor, domain string) *engine.Record {
	t.Helper()
	return acctCreate(t, svc, a, "verified-domains", attrs("domain", `"`+domain+`"`), nil)
}

// verifyDomain runs the DNS verification of claim id as a.
func verifyDomain(svc *scoping.Service, a *engine.Actor, id string) (*engine.Record, error) {
	res, err := svc.VerifyDomain(context.Background(), a, id)
	if err != nil {
		return nil, err
	}
	return res.Records[0], nil
}

// operatorVerify marks domain verified for the account as an operator.
func operatorVerify(svc *scoping.Service, accountID, domain string) (rec *engine.Record, err error) {
	err = svc.Setup(context.Background(), func(a *scoping.Admin) error {
		rec, err = a.VerifyDomain(accountID, domain)
		return err
	})
	return rec, err
}

// Ensure a claim is pending with a token of its own, its domain in one
// form, unique in the account and never changed, and that claims are
// written only by who holds settings and users manage.
func TestVerifiedDomains_Claims(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	acme, sys := acctAccount(t, svc, "acme")
	claim := claimDomain(t, svc, sys, " Example.COM. ")
	require.Equal(t, "example.com", claim.Str("domain"))
	require.Equal(t, scoping.DomainPending, claim.Str("status"))
	require.Regexp(t, regexp.MustCompile(`^[0-9a-f]{32}$`), claim.Str("verification-token"))
	require.NotContains(t, claim.Attrs, "verified-at")
	other := claimDomain(t, svc, sys, "other.test")
	require.NotEqual(t, claim.Str("verification-token"), other.Str("verification-token"))

	for _, tt := range []struct{ domain, text string }{
		{`"EXAMPLE.com"`, "already been taken"},
		{`"example"`, "not an email domain"},
		{`"@example.com"`, "not an email domain"},
		{`"ex ample.com"`, "not an email domain"},
		{`""`, "blank"},
	} {
		_, err := svc.Create(ctx, sys, "verified-domains", &engine.Input{Attrs: attrs("domain", tt.domain)}, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/domain", tt.text)
	}
	_, err := svc.Update(ctx, sys, "verified-domains", claim.ID, &engine.Input{Attrs: attrs("domain", `"example.org"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/domain", "cannot change")
	_, err = svc.Update(ctx, sys, "verified-domains", claim.ID, &engine.Input{Attrs: attrs("domain", `"Example.com"`)}, engine.Options{})
	require.NoError(t, err, "the same domain")
	// status and token are the server's
	res, err := svc.Update(ctx, sys, "verified-domains", claim.ID,
		&engine.Input{Attrs: attrs("status", `"verified"`, "verification-token", `"mine"`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, scoping.DomainPending, res.Records[0].Str("status"))
	require.Equal(t, claim.Str("verification-token"), res.Records[0].Str("verification-token"))
	_, err = svc.Update(ctx, sys, "verified-domains", claim.ID, &engine.Input{Attrs: attrs("status", `"verified"`)}, engine.Options{Strict: true})
	require.Equal(t, scopekit.EBADREQUEST, scopekit.ErrorCode(err))

	// settings manage alone does not decide who signs in
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureRole(acme.ID, "Settings Only", map[string]string{"settings": "manage"}, "all")
		return err
	}))
	settingsOnly := acctMember(t, svc, acme.ID, "set@acme.test", "Settings Only")
	sales := acctMember(t, svc, acme.ID, "sales@acme.test", "Sales")
	for _, a := range []*engine.Actor{settingsOnly, sales} {
		_, err = svc.Create(ctx, a, "verified-domains", &engine.Input{Attrs: attrs("domain", `"third.test"`)}, engine.Options{})
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(svc.Delete(ctx, a, "verified-domains", other.ID, engine.Options{})))
		_, err = verifyDomain(svc, a, claim.ID)
		require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	}
	list, err := svc.List(ctx, settingsOnly, "verified-domains", engine.ListParams{}, engine.Options{})
	require.NoError(t, err, "settings view reads")
	require.Len(t, list.Records, 2)
	require.NoError(t, svc.Delete(ctx, sys, "verified-domains", other.ID, engine.Options{}))
}

// Ensure verification looks the claim's TXT record up in DNS (a real DNS
// server on loopback) at the domain or at _scopekit.<domain>, refuses a
// missing record, another token and a failed lookup with the reason, and
// answers a verified claim without a lookup.
func TestVerifyDomain_DNS(t *testing.T) {
	svc, _, _ := hookService(t)
	dns := dnstest.Start(t)
	svc.SSO.Resolver = dns.Resolver()
	_, sys := acctAccount(t, svc, "acme")
	claim := claimDomain(t, svc, sys, "acme.test")
	record := scoping.DomainRecordPrefix + claim.Str("verification-token")

	_, err := verifyDomain(svc, sys, claim.ID)
	acctRequireErr(t, err, scopekit.EINVALID, "", `no TXT record "`+record+`" at acme.test or _scopekit.acme.test`)
	dns.SetTXT("acme.test", "v=spf1 -all", scoping.DomainRecordPrefix+"0123456789abcdef0123456789abcdef")
	_, err = verifyDomain(svc, sys, claim.ID)
	acctRequireErr(t, err, scopekit.EINVALID, "", "holds another token")
	dns.SetTXT("acme.test")
	dns.Fail("_scopekit.acme.test", true)
	_, err = verifyDomain(svc, sys, claim.ID)
	acctRequireErr(t, err, scopekit.EINVALID, "", "DNS lookup of acme.test or _scopekit.acme.test failed")
	dns.Fail("_scopekit.acme.test", false)
	got, err := svc.Get(context.Background(), sys, "verified-domains", claim.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, scoping.DomainPending, got.Records[0].Str("status"), "nothing changed")

	dns.SetTXT("_scopekit.acme.test", "unrelated", record)
	v, err := verifyDomain(svc, sys, claim.ID)
	require.NoError(t, err)
	require.Equal(t, scoping.DomainVerified, v.Str("status"))
	require.Equal(t, scoping.VerifiedByDNS, v.Str("verified-by"))
	require.Equal(t, engine.FormatTime(hookClock), v.Str("verified-at"))
	dns.SetTXT("_scopekit.acme.test")
	dns.Fail("acme.test", true)
	again, err := verifyDomain(svc, sys, claim.ID)
	require.NoError(t, err, "a verified claim needs no lookup")
	require.Equal(t, scoping.DomainVerified, again.Str("status"))

	// at the domain itself, in a record longer than one string
	sub := claimDomain(t, svc, sys, "eu.acme.test")
	dns.SetTXT("eu.acme.test", scoping.DomainRecordPrefix+sub.Str("verification-token")+strings.Repeat(" ", 300))
	v, err = verifyDomain(svc, sys, sub.ID)
	require.NoError(t, err)
	require.Equal(t, scoping.DomainVerified, v.Str("status"))

	_, err = verifyDomain(svc, sys, "999999")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure a domain is one account's: once verified by one, another can
// neither claim nor verify it (by DNS or by an operator), told so without
// naming the account; released, it can be verified by another.
func TestVerifiedDomains_OneAccount(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	dns := dnstest.Start(t)
	svc.SSO.Resolver = dns.Resolver()
	acme, acmeSys := acctAccount(t, svc, "acme")
	globex, globexSys := acctAccount(t, svc, "globex")
	early := claimDomain(t, svc, globexSys, "shared.test") // a claim before acme's verification
	dns.SetTXT("shared.test", scoping.DomainRecordPrefix+early.Str("verification-token"))

	held, err := operatorVerify(svc, acme.ID, "Shared.Test")
	require.NoError(t, err)
	require.Equal(t, scoping.VerifiedByOperator, held.Str("verified-by"))
	requireConflict := func(err error) {
		t.Helper()
		acctRequireErr(t, err, scopekit.ECONFLICT, "", "verified by another account")
		require.NotContains(t, err.Error(), "acme")
		require.NotContains(t, err.Error(), "Acme")
	}
	_, err = svc.Create(ctx, globexSys, "verified-domains", &engine.Input{Attrs: attrs("domain", `"SHARED.test"`)}, engine.Options{})
	requireConflict(err)
	_, err = verifyDomain(svc, globexSys, early.ID)
	requireConflict(err)
	_, err = operatorVerify(svc, globex.ID, "shared.test")
	requireConflict(err)
	again, err := operatorVerify(svc, acme.ID, "shared.test")
	require.NoError(t, err, "the holder again")
	require.Equal(t, held.ID, again.ID)

	require.NoError(t, svc.Delete(ctx, acmeSys, "verified-domains", held.ID, engine.Options{}))
	v, err := verifyDomain(svc, globexSys, early.ID)
	require.NoError(t, err)
	require.Equal(t, scoping.DomainVerified, v.Str("status"))

	_, err = operatorVerify(svc, acme.ID, "not a domain")
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	_, err = operatorVerify(svc, "999999", "fourth.test")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure the login page is offered only by an account whose provider
// covers a domain it has verified.
func TestSSOProviders_VerifiedOnly(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	acme, sys := acctAccount(t, svc, "acme")
	ps := scoping.IdentityProviders(svc)
	acctCreate(t, svc, sys, "identity-providers", idpAttrs(), nil)
	offered, err := ps.Any(ctx, acme.ID)
	require.NoError(t, err)
	require.False(t, offered, "acme.test is not verified")
	_, err = ps.Covering(ctx, acme.ID, "ada@acme.test")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = operatorVerify(svc, acme.ID, "acme.test")
	require.NoError(t, err)
	offered, err = ps.Any(ctx, acme.ID)
	require.NoError(t, err)
	require.True(t, offered)
	_, err = ps.Covering(ctx, acme.ID, "ada@acme.test")
	require.NoError(t, err)
}

// Ensure an identity provider cannot newly list a domain another account
// has verified (409), and keeps one it listed before.
func TestVerifiedDomains_Providers(t *testing.T) {
	ctx := context.Background()
	svc, _, _ := hookService(t)
	acme, _ := acctAccount(t, svc, "acme")
	_, globexSys := acctAccount(t, svc, "globex")
	early := acctCreate(t, svc, globexSys, "identity-providers", idpAttrs("email-domains", `["early.test"]`), nil)
	for _, d := range []string{"acme.test", "early.test"} {
		_, err := operatorVerify(svc, acme.ID, d)
		require.NoError(t, err)
	}
	_, err := svc.Create(ctx, globexSys, "identity-providers", &engine.Input{Attrs: idpAttrs("email-domains", `["globex.test","ACME.test"]`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "acme.test is verified by another account")
	acctRequireErr(t, idpUpdate(svc, globexSys, early.ID, attrs("email-domains", `["early.test","acme.test"]`), nil),
		scopekit.ECONFLICT, "", "acme.test")
	require.NoError(t, idpUpdate(svc, globexSys, early.ID, attrs("name", `"Still listed"`), nil), "listed before acme verified it")
}
