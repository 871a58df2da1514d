package auth_test

import (
	"bytes"
	"context"
	"encoding/base32"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Ensure no token, client secret, password, TOTP seed or recovery code is
// stored in clear: every key and value of every bucket (nested ones
// included), and the raw file, are free of them.
func TestSecretsNotStoredInClear(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	cc := f.MustToken(t, ClientCredentials("acme-bot", BotSecret))
	pw := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	rt := f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal",
		ClientSecret: PortalSecret, RefreshToken: pw.RefreshToken})
	issuedCred, issuedSecret, err := f.Svc.IssueServiceCredential(ctx, "1", "bot")
	require.NoError(t, err)
	issued := f.MustToken(t, ClientCredentials(issuedCred.ClientID, issuedSecret))
	unusedCode := f.mustCode(t, authorizeReq(withPKCE))
	usedCode := f.mustCode(t, authorizeReq())
	byCode := f.MustToken(t, codeGrant(usedCode, callback, ""))
	seed, recovery := f.enrolAda(t)
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	ticket := requireSecondFactor(t, err, false, "").Ticket
	_, err = f.Svc.AuthorizeSecondFactor(ctx, authorizeReq(), ticket, recovery[0])
	require.NoError(t, err)
	rawSeed, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(seed)
	require.NoError(t, err)

	secrets := map[string]string{
		"client_credentials access token": cc.AccessToken,
		"password access token":           pw.AccessToken,
		"password refresh token":          pw.RefreshToken,
		"rotated access token":            rt.AccessToken,
		"rotated refresh token":           rt.RefreshToken,
		"issued-credential access token":  issued.AccessToken,
		"issued client secret":            issuedSecret,
		"unused authorization code":       unusedCode,
		"used authorization code":         usedCode,
		"code-grant access token":         byCode.AccessToken,
		"bootstrap client secret":         BotSecret,
		"application secret":              PortalSecret,
		"other application secret":        OtherSecret,
		"password":                        Password,
		"totp seed":                       seed,
		"totp seed, lower case":           strings.ToLower(seed),
		"totp seed, raw bytes":            string(rawSeed),
		"sign-in ticket":                  ticket,
	}
	for i, c := range recovery {
		secrets[fmt.Sprintf("recovery code %d", i)] = c
		secrets[fmt.Sprintf("recovery code %d without dashes", i)] = strings.ReplaceAll(c, "-", "")
	}
	var scanned int
	require.NoError(t, f.DB.Bolt().View(func(tx *bolt.Tx) error {
		var walk func(path string, b *bolt.Bucket) error
		walk = func(path string, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				scanned++
				for what, s := range secrets {
					require.Falsef(t, bytes.Contains(k, []byte(s)), "%s found in a key of %s", what, path)
					require.Falsef(t, bytes.Contains(v, []byte(s)), "%s found in a value of %s", what, path)
				}
				if v == nil {
					return walk(path+"/"+string(k), b.Bucket(k))
				}
				return nil
			})
		}
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { return walk(string(name), b) })
	}))
	require.Greater(t, scanned, 10, "the auth buckets hold the fixture")

	raw, err := os.ReadFile(f.DB.Path())
	require.NoError(t, err)
	for what, s := range secrets {
		require.Falsef(t, bytes.Contains(raw, []byte(s)), "%s found in the database file", what)
	}
}
