package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/dnstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// apiDo sends a request with the bearer token (and a JSON:API body when
// body is not "") and returns the status and the body.
func apiDo(t *testing.T, method, target, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, b
}

// verifiedDomains lists an account's verified-domains as domain -> status
// and verified-by.
func verifiedDomains(t *testing.T, base, slug, token string) map[string][2]string {
	t.Helper()
	status, body := apiDo(t, http.MethodGet, base+"/"+slug+"/v1/verified-domains", token, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var doc struct {
		Data []struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &doc))
	out := map[string][2]string{}
	for _, d := range doc.Data {
		status, _ := d.Attributes["status"].(string)
		by, _ := d.Attributes["verified-by"].(string)
		out[d.Attributes["domain"].(string)] = [2]string{status, by}
	}
	return out
}

// Ensure the demo holds demo.test from its creation, and `server
// verify-domain` marks a domain verified for an account (once, whatever
// the times it runs), refuses another account's domain and bad input with
// one line, and a database a server holds.
func TestVerifyDomainCommand(t *testing.T) {
	data := filepath.Join(t.TempDir(), "scopekit.db")
	s := startServer(t, data, nil, "-bootstrap", filepath.Join("testdata", "bootstrap.json"), "-demo")
	demoBot := token(t, s.URL, demoBotClientID, demoBotSecret)
	require.Equal(t, map[string][2]string{"demo.test": {"verified", "operator"}}, verifiedDomains(t, s.URL, "demo", demoBot))
	locked := runMain(t, 30*time.Second, nil, "verify-domain", "-data", data, "-account", "acme", "-domain", "acme.test")
	assert.Equal(t, 1, locked.Code)
	assert.Contains(t, locked.Stderr, "a server using the file must be stopped first")
	s.stop(t)

	for range 2 {
		r := runMain(t, 30*time.Second, []string{"SCOPEKIT_DATA=" + data}, "verify-domain", "-account", "acme", "-domain", " Acme.Test ")
		require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
		assert.Equal(t, []string{"acme.test is verified for the account acme"}, lines(r.Stdout))
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-account", "acme", "-domain", "DEMO.test"}, "scopekit: verify-domain: the domain demo.test is verified by another account; a domain is one account's"},
		{[]string{"-account", "nobody", "-domain", "acme.test"}, `scopekit: verify-domain: no account with the slug "nobody"`},
		{[]string{"-account", "acme", "-domain", "acme"}, `scopekit: verify-domain: "acme" is not an email domain such as example.com`},
		{[]string{"-account", "acme", "-domain", "@acme.test"}, `scopekit: verify-domain: "@acme.test" is not an email domain such as example.com`},
		{[]string{"-account", "acme"}, "scopekit: verify-domain: -account and -domain are required (see verify-domain -h)"},
		{[]string{"-account", "acme", "-domain", "acme.test", "extra"}, `scopekit: verify-domain: unexpected argument "extra" (flags only; see verify-domain -h)`},
		{[]string{"-acount", "acme"}, "scopekit: verify-domain: flag provided but not defined: -acount"},
	} {
		r := runMain(t, 30*time.Second, nil, append([]string{"verify-domain", "-data", data}, tc.args...)...)
		assert.Equal(t, 1, r.Code, "%v", tc.args)
		assert.Equal(t, []string{tc.want}, lines(r.Stderr), "%v", tc.args)
		assert.Empty(t, r.Stdout)
	}
	missing := runMain(t, 30*time.Second, nil, "verify-domain", "-data", filepath.Join(t.TempDir(), "none.db"), "-account", "acme", "-domain", "acme.test")
	assert.Equal(t, 1, missing.Code)
	assert.Contains(t, missing.Stderr, "does not exist")
	help := runMain(t, 30*time.Second, nil, "verify-domain", "-h")
	assert.Equal(t, 0, help.Code)
	assert.Contains(t, help.Stdout, "Usage: server verify-domain -account SLUG -domain DOMAIN")

	s = startServer(t, data, nil)
	acmeBot := token(t, s.URL, "acme-bot", "bot-secret")
	require.Equal(t, map[string][2]string{"acme.test": {"verified", "operator"}}, verifiedDomains(t, s.URL, "acme", acmeBot))
	require.Equal(t, map[string][2]string{"demo.test": {"verified", "operator"}}, verifiedDomains(t, s.URL, "demo", demoBot))
	s.stop(t)
}

// Ensure -dns-server points domain verification at that DNS server: a
// claim made through the API is verified once the server publishes its
// record.
func TestDNSServerFlag(t *testing.T) {
	dns := dnstest.Start(t)
	s := startServer(t, "", nil, "-dns-server", dns.Addr)
	bot := token(t, s.URL, demoBotClientID, demoBotSecret)
	post := func(path, body string) (int, map[string]any) {
		t.Helper()
		status, b := apiDo(t, http.MethodPost, s.URL+path, bot, body)
		var doc struct {
			Data struct {
				ID         string         `json:"id"`
				Attributes map[string]any `json:"attributes"`
			} `json:"data"`
		}
		require.NoError(t, json.Unmarshal(b, &doc), "%s", b)
		doc.Data.Attributes["id"] = doc.Data.ID
		return status, doc.Data.Attributes
	}
	status, claim := post("/demo/v1/verified-domains", `{"data":{"type":"verified-domains","attributes":{"domain":"intranet.example"}}}`)
	require.Equal(t, http.StatusCreated, status)
	dns.SetTXT("_scopekit.intranet.example", "scopekit-domain-verification="+claim["verification-token"].(string))
	status, got := post("/demo/v1/verified-domains/"+claim["id"].(string)+"/verify", "")
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "verified", got["status"])
	require.Equal(t, "dns", got["verified-by"])
	s.stop(t)
}
