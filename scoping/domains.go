package scoping

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Verified domains (docs/auth.md "Single sign-on", docs/resources.md
// "verified-domains"): an account claims an email domain and proves that
// it controls it with a DNS TXT record holding the claim's token, or an
// operator of the server marks it verified. Only a verified domain lets
// the account's identity providers route sign-ins, take passwords away
// and provision members (sso.go); a domain verified by one account can be
// neither claimed nor verified by another.

// Statuses of a verified-domains record, and how it was verified.
const (
	DomainPending      = "pending"
	DomainVerified     = "verified"
	VerifiedByDNS      = "dns"
	VerifiedByOperator = "operator"
)

// DomainRecordPrefix begins the TXT record that proves a claim; the
// claim's verification token follows it.
const DomainRecordPrefix = "scopekit-domain-verification="

// domainRecordLabel is the label below the domain where the record may be
// published instead of at the domain itself.
const domainRecordLabel = "_scopekit."

// dnsTimeout bounds each TXT lookup of a verification.
const dnsTimeout = 5 * time.Second

// Resolver looks up DNS TXT records; *net.Resolver is one.
type Resolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// SSOConfig is what identity providers and verified domains need from
// outside scoping; the composition root plugs it in (package sso provides
// the parts).
type SSOConfig struct {
	// CheckIssuer checks an issuer URL by OpenID discovery when an
	// identity provider is registered or its issuer changes, before the
	// write's transaction opens; its error text completes
	// "issuer-url ...". nil checks only the URL's form.
	CheckIssuer func(ctx context.Context, issuer string) error
	// Resolver answers the TXT lookups of domain verification; nil is
	// net.DefaultResolver.
	Resolver Resolver
}

func (c SSOConfig) resolver() Resolver {
	if c.Resolver == nil {
		return net.DefaultResolver
	}
	return c.Resolver
}

func declareDomains(s *engine.Schema) {
	register(s, &engine.TypeDef{Name: "verified-domains", Guard: "settings", WriteGuards: []string{"users"},
		Attrs: cat([]engine.AttrDef{unique(str("domain"))},
			computed(str("verification-token"), enum("status", "", DomainPending, DomainVerified),
				engine.AttrDef{Name: "verified-at", Kind: engine.KindTime},
				enum("verified-by", "", VerifiedByDNS, VerifiedByOperator))),
		Filters: eq("domain", "status"),
		Hooks:   engine.Hooks{Defaults: domainDefaults, Validate: validateDomain, Delete: deleteDomain}})
}

// domainDefaults makes a new claim pending with a fresh token, its domain
// in lower case (before the uniqueness check).
func domainDefaults(_ context.Context, _ *engine.Call, rec *engine.Record) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	rec.Attrs[views.NameDomain] = normalDomain(rec.Str(views.NameDomain))
	rec.Attrs[views.NameVerificationToken] = hex.EncodeToString(b[:])
	rec.Attrs[views.NameStatus] = DomainPending
	return nil
}

func normalDomain(d string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
}

// validateDomain checks a claim: an email domain, never changed once
// claimed, not verified by another account (409). Writes need settings
// and users manage, like identity providers' (the type's WriteGuards),
// and as much as every role of the account (atTop), as providers do.
func validateDomain(_ context.Context, c *engine.Call, rec, old *engine.Record) []error {
	if err := atTop(c, whyDomains); err != nil {
		return []error{err}
	}
	d := normalDomain(rec.Str(views.NameDomain))
	p := engine.AttrPointer(views.NameDomain)
	switch {
	case old != nil && d != old.Str(views.NameDomain):
		return []error{engine.Invalid(p, "domain cannot change; claim the new domain and delete this claim")}
	case old != nil:
		rec.Attrs[views.NameDomain] = d
		return nil
	case !validDomain(d):
		return []error{engine.Invalid(p, "%q is not an email domain such as example.com", d)}
	}
	rec.Attrs[views.NameDomain] = d
	if err := domainFree(c.Tx, d, rec.AccountID); err != nil {
		return []error{err}
	}
	return nil
}

// deleteDomain releases a claim: the account's providers stop routing
// and provisioning for the domain.
func deleteDomain(_ context.Context, c *engine.Call, rec *engine.Record) error {
	if err := atTop(c, whyDomains); err != nil {
		return err
	}
	return c.Remove(mustLookup(c.Engine.Schema(), views.TypeVerifiedDomains), rec)
}

// domainFree returns ECONFLICT when another account than accountID has
// verified domain d. It reads across accounts: a store serializes the
// writes that do (pgstore locks the type's all-accounts scan), so two
// accounts cannot both verify one domain.
func domainFree(tx engine.Tx, d, accountID string) error {
	recs, _, err := tx.List(&engine.Query{Type: views.TypeVerifiedDomains, AllAccounts: true,
		Where: []engine.Cond{engine.Eq(views.NameDomain, d), engine.Eq(views.NameStatus, DomainVerified)}})
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.AccountID != accountID {
			return scopekit.Errorf(scopekit.ECONFLICT, "the domain %s is verified by another account; a domain is one account's", d)
		}
	}
	return nil
}

// newDomainsFree returns ECONFLICT when an identity provider of the
// account lists a domain that another account has verified and that its
// stored version (old, nil on create) did not list: a provider cannot
// even name another account's domain.
func newDomainsFree(tx engine.Tx, domains []string, old *engine.Record, accountID string) error {
	var before []string
	if old != nil {
		before = (views.IdentityProvider{Record: old}).EmailDomains()
	}
	for _, d := range domains {
		if slices.Contains(before, d) {
			continue
		}
		if err := domainFree(tx, d, accountID); err != nil {
			return err
		}
	}
	return nil
}

// markVerified records that the claim rec (stored when stored is true)
// is verified, by how, unless another account has verified its domain
// meanwhile (ECONFLICT).
func markVerified(tx engine.Tx, rec *engine.Record, stored bool, by string, now time.Time) error {
	if err := domainFree(tx, rec.Str(views.NameDomain), rec.AccountID); err != nil {
		return err
	}
	rec.Attrs[views.NameStatus], rec.Attrs[views.NameVerifiedBy] = DomainVerified, by
	rec.Attrs[views.NameVerifiedAt] = engine.FormatTime(now)
	if !stored {
		return tx.Insert(rec)
	}
	return tx.Replace(rec)
}

// VerifyDomain looks the claim id's TXT record up in DNS
// (DomainRecordPrefix and the claim's token, at the domain or at
// _scopekit.<domain>) and, when it is there, records the domain as
// verified by DNS; a claim already verified is answered as it is. The
// lookups run before the write transaction opens.
//
// Errors: EFORBIDDEN without settings and users manage or as much as
// every role of the account (atTop); ENOTFOUND for no
// such claim in the account; EINVALID (no field) when the record is not
// found, holds another token or the lookup fails, saying which;
// ECONFLICT when another account has verified the domain.
func (s *Service) VerifyDomain(ctx context.Context, a *engine.Actor, id string) (*engine.Result, error) {
	def := mustLookup(s.Schema(), views.TypeVerifiedDomains)
	if err := a.RequireWrite(def); err != nil {
		return nil, err
	}
	var claim *engine.Record
	err := s.read(ctx, a, func(c *engine.Call) error {
		var err error
		if claim, err = c.GetVisible(ctx, def, id, nil); err != nil {
			return err
		}
		return atTop(c, whyDomains)
	})
	if err != nil {
		return nil, err
	}
	v := views.VerifiedDomain{Record: claim}
	if v.Status() != DomainVerified {
		if err := s.lookUpClaim(ctx, v.Domain(), v.VerificationToken()); err != nil {
			return nil, err
		}
	}
	return s.recordAction(ctx, a, "settings", true, views.TypeVerifiedDomains, id, func(c *engine.Call, rec *engine.Record) error {
		cur := views.VerifiedDomain{Record: rec}
		switch {
		case cur.Status() == DomainVerified:
			return nil
		case cur.VerificationToken() != v.VerificationToken():
			return scopekit.Errorf(scopekit.ECONFLICT, "the claim of %s changed meanwhile; verify again", cur.Domain())
		}
		return markVerified(c.Tx, rec, true, VerifiedByDNS, s.Now())
	})
}

// lookUpClaim finds the TXT record that proves the claim of domain with
// token, at the domain or at _scopekit.<domain>. Its EINVALID error says
// what the lookups found.
func (s *Service) lookUpClaim(ctx context.Context, domain, token string) error {
	want := DomainRecordPrefix + token
	names := []string{domain, domainRecordLabel + domain}
	var otherToken bool
	var failed error
	for _, name := range names {
		lctx, cancel := context.WithTimeout(ctx, dnsTimeout)
		txts, err := s.SSO.resolver().LookupTXT(lctx, name+".") // rooted: no search domain is tried
		cancel()
		var de *net.DNSError
		switch {
		case errors.As(err, &de) && de.IsNotFound:
			continue
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed = err
			continue
		}
		for _, t := range txts {
			t = strings.TrimSpace(t)
			if t == want {
				return nil
			}
			otherToken = otherToken || strings.HasPrefix(t, DomainRecordPrefix)
		}
	}
	where := fmt.Sprintf("%s or %s", names[0], names[1])
	switch {
	case otherToken:
		return scopekit.Errorf(scopekit.EINVALID, "the TXT record %s at %s holds another token than this claim's; publish %q", DomainRecordPrefix+"...", where, want)
	case failed != nil:
		return scopekit.Errorf(scopekit.EINVALID, "the DNS lookup of %s failed (%v); try again later", where, failed)
	}
	return scopekit.Errorf(scopekit.EINVALID, "no TXT record %q at %s yet; publish it, then verify again", want, where)
}

// VerifyDomain marks domain verified for the account, by an operator of
// the server (the example server's verify-domain command, for a
// deployment without public DNS): it claims the domain first when the
// account has no claim of it. ECONFLICT when another account has verified
// the domain; EINVALID for what is not an email domain.
func (a *Admin) VerifyDomain(accountID, domain string) (*engine.Record, error) {
	d := normalDomain(domain)
	if !validDomain(d) {
		return nil, scopekit.Errorf(scopekit.EINVALID, "%q is not an email domain such as example.com", domain)
	}
	tx := a.c.Tx
	if _, err := tx.Get(views.TypeAccounts, "", accountID); err != nil {
		return nil, err
	}
	recs, _, err := tx.List(&engine.Query{Type: views.TypeVerifiedDomains, AccountID: accountID,
		Where: []engine.Cond{engine.Eq(views.NameDomain, d)}, Limit: 1})
	if err != nil {
		return nil, err
	}
	rec, stored := engine.NewRecord(views.TypeVerifiedDomains, accountID), len(recs) > 0
	if stored {
		rec = recs[0]
		if (views.VerifiedDomain{Record: rec}).Status() == DomainVerified {
			return rec, nil
		}
	} else {
		rec.Attrs[views.NameDomain] = d
		if err := domainDefaults(context.Background(), a.c, rec); err != nil {
			return nil, err
		}
	}
	return rec, markVerified(tx, rec, stored, VerifiedByOperator, svcOf(a.c).Now())
}

// verifiedDomains returns the domains the account has verified.
func verifiedDomains(tx engine.Tx, accountID string) ([]string, error) {
	recs, _, err := tx.List(&engine.Query{Type: views.TypeVerifiedDomains, AccountID: accountID,
		Where: []engine.Cond{engine.Eq(views.NameStatus, DomainVerified)}})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = (views.VerifiedDomain{Record: r}).Domain()
	}
	return out, nil
}
