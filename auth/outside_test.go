package auth_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Ensure CheckEmail takes one address as a mailbox is written alone and
// refuses everything else, with a reason that does not quote it.
func TestCheckEmail(t *testing.T) {
	for _, ok := range []string{"ada@acme.test", "Ada.Lovelace+sso@Acme.Test", "o'neil@sub.acme.test", "jörg@acme.test",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 180) + ".test"} {
		require.NoError(t, auth.CheckEmail(ok), ok)
	}
	for _, tt := range []struct{ email, reason string }{
		{"", "empty"},
		{"ada", "not one address"},
		{"ada@", "not one address"},
		{"@acme.test", "not one address"},
		{"a@b@evil.test", "not one address"},
		{`"a@b"@evil.test`, "not one address"},
		{"Ada <ada@acme.test>", "not one address"},
		{"<ada@acme.test>", "not one address"},
		{"ada@acme.test (Ada)", "not one address"},
		{"ada@acme.test, eve@evil.test", "not one address"},
		{" ada@acme.test", "not one address"},
		{"ada@acme.test\r\nBcc: eve@evil.test", "control character"},
		{"ada@acme.test\n", "control character"},
		{"ada\x00@acme.test", "control character"},
		{"ada\x7f@acme.test", "control character"},
		{"ada\xff@acme.test", "UTF-8"},
		{strings.Repeat("a", 245) + "@acme.test", "254 bytes"},
		{"ada@localhost", "domain name"},
		{"ada@[127.0.0.1]", "domain"},
	} {
		err := auth.CheckEmail(tt.email)
		require.Error(t, err, "%q", tt.email)
		require.Contains(t, err.Error(), tt.reason, "%q", tt.email)
		if len(tt.email) > 3 {
			require.NotContains(t, err.Error(), tt.email[1:len(tt.email)-1], "quoted")
		}
	}
}

// Ensure CleanName keeps a name one line of at most MaxNameChars
// characters.
func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Ada Lovelace":                  "Ada Lovelace",
		"  Ada \r\n Lovelace\x00 ":      "Ada Lovelace",
		"Ada\tByron\u2028Lovelace":      "Ada Byron Lovelace",
		"\x00\x01":                      "",
		"Zoë \xff":                      "Zoë \uFFFD",
		strings.Repeat("é", 100_000):    strings.Repeat("é", auth.MaxNameChars),
		strings.Repeat("a", 199) + " b": strings.Repeat("a", 199),
	} {
		got := auth.CleanName(in)
		require.Equal(t, want, got, "%q", in)
		require.LessOrEqual(t, utf8.RuneCountInString(got), auth.MaxNameChars)
	}
}

// Ensure NormalizeIssuer gives one spelling of an issuer and refuses what
// is no issuer URL.
func TestNormalizeIssuer(t *testing.T) {
	for in, want := range map[string]string{
		"https://login.example.com":                   "https://login.example.com",
		"https://login.example.com/":                  "https://login.example.com",
		"HTTPS://Login.Example.COM:443/":              "https://login.example.com",
		"https://login.example.com:8443/realms/Acme/": "https://login.example.com:8443/realms/Acme",
		"http://127.0.0.1:80/":                        "http://127.0.0.1",
		"http://LOCALHOST:8080//":                     "http://localhost:8080",
		"http://[::1]:9000/x/":                        "http://[::1]:9000/x",
	} {
		got, err := auth.NormalizeIssuer(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
		again, err := auth.NormalizeIssuer(got)
		require.NoError(t, err)
		require.Equal(t, got, again, "stable")
	}
	for in, reason := range map[string]string{
		"http://login.example.com":            "https",
		"ftp://login.example.com":             "https",
		"http://10.0.0.1":                     "https",
		"login.example.com":                   "absolute",
		"https://login.example.com/?tenant=1": "query",
		"https://login.example.com/?":         "query",
		"https://login.example.com/#x":        "fragment",
		"https://user:pw@login.example.com":   "absolute",
		"https://":                            "absolute",
		"https://%zz":                         "absolute",
	} {
		_, err := auth.NormalizeIssuer(in)
		require.Error(t, err, in)
		require.Contains(t, err.Error(), reason, in)
	}
}
