package sso_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

// docServer serves a discovery document made by doc from the server's
// own URL (or answers status when doc is nil).
func docServer(t *testing.T, status int, doc func(base string) string) string {
	t.Helper()
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-configuration" || doc == nil {
			w.WriteHeader(status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(doc(base)))
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	return base
}

func discoveryDoc(issuer, base string) string {
	b, _ := json.Marshal(map[string]any{"issuer": issuer, "authorization_endpoint": base + "/authorize",
		"token_endpoint": base + "/token", "jwks_uri": base + "/keys", "id_token_signing_alg_values_supported": []string{"RS256", "HS256"}})
	return string(b)
}

// Ensure an issuer URL is checked by discovery: a real provider passes
// however its URL is spelt (trailing slash, case, default port), one that
// spells its own issuer with a trailing slash too; an unreachable one, a
// server without a discovery document, a document that is not one or
// names another issuer are refused with the reason, and the default
// client reaches only public addresses.
func TestCheckIssuer(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	u, err := url.Parse(f.op.Issuer)
	require.NoError(t, err)
	for _, iss := range []string{f.op.Issuer, f.op.Issuer + "/", "HTTP://" + strings.ToUpper(u.Host) + "/"} {
		require.NoError(t, f.rp.CheckIssuer(ctx, iss), iss)
	}
	slashed := docServer(t, 0, func(base string) string { return discoveryDoc(base+"/", base) })
	require.NoError(t, f.rp.CheckIssuer(ctx, slashed))

	for _, tt := range []struct{ issuer, want string }{
		{"http://127.0.0.1:1", "cannot be reached"},
		{docServer(t, http.StatusNotFound, nil), "has no OpenID Connect discovery document: http://127.0.0.1"},
		{docServer(t, 0, func(string) string { return "<html>welcome</html>" }), "is not a JSON object"},
		{docServer(t, 0, func(base string) string { return `{"issuer":"` + base + `"}` }), "has no authorization_endpoint"},
		{docServer(t, 0, func(base string) string { return discoveryDoc(base, base)[:40] + strings.Repeat(" ", 1<<20) + "}" }), "larger than"},
		{docServer(t, 0, func(base string) string { return discoveryDoc("https://login.other.test", base) }), `names ("https://login.other.test")`},
		{docServer(t, 0, func(base string) string { return discoveryDoc(base+"/tenant", base) }), "is not the issuer"},
	} {
		err := f.rp.CheckIssuer(ctx, tt.issuer)
		require.Error(t, err, tt.issuer)
		require.Contains(t, err.Error(), tt.want, tt.issuer)
	}
	err = (&sso.RelyingParty{}).CheckIssuer(ctx, f.op.Issuer)
	require.ErrorContains(t, err, "not public")
}

// Ensure a provider stored with a trailing slash (before issuers were
// normalized) still signs people in: discovery and ID tokens use the
// provider's own spelling.
func TestSignIn_IssuerSpelling(t *testing.T) {
	f := newFixture(t)
	f.idp.Issuer += "/"
	id, err := f.signIn(t, ada)
	require.NoError(t, err)
	require.Equal(t, "ada@acme.test", id.Email)
}
