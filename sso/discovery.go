package sso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/scopekit/scopekit/auth"
)

// OpenID Connect discovery (OpenID Connect Discovery 1.0, section 4): the
// provider's document at {issuer}/.well-known/openid-configuration names
// its endpoints and its issuer. The document may spell the issuer with a
// trailing slash, upper-case host or default port where the account wrote
// it otherwise: they name the same provider when auth.NormalizeIssuer
// makes them equal, and the document's spelling is the one ID tokens are
// checked against.

// maxDiscoveryBytes bounds a discovery document.
const maxDiscoveryBytes = 1 << 20

// discoveryPath is where a provider publishes its discovery document,
// below its issuer URL.
const discoveryPath = "/.well-known/openid-configuration"

// signingAlgorithms are the ID token signatures go-oidc verifies; a
// document's other algorithms are ignored.
var signingAlgorithms = map[string]bool{
	oidc.RS256: true, oidc.RS384: true, oidc.RS512: true, oidc.ES256: true, oidc.ES384: true, oidc.ES512: true,
	oidc.PS256: true, oidc.PS384: true, oidc.PS512: true, oidc.EdDSA: true,
}

// CheckIssuer checks an issuer URL by discovery, as an account's identity
// provider is registered or changed: the document must be reachable
// (through the RelyingParty's client: public addresses only by default),
// be an OpenID Connect discovery document, and name the same issuer. The
// error's text completes "issuer-url ..." and quotes nothing secret.
func (rp *RelyingParty) CheckIssuer(ctx context.Context, issuer string) error {
	_, err := rp.discover(ctx, issuer)
	if e := (*Error)(nil); errors.As(err, &e) {
		return e.Err
	}
	return err
}

// discover fetches and checks the discovery document of issuer and
// returns the provider it describes. Failures are *Error: ReasonUnreachable,
// ReasonNotOpenID or ReasonIssuer.
func (rp *RelyingParty) discover(ctx context.Context, issuer string) (*oidc.Provider, error) {
	want, err := auth.NormalizeIssuer(issuer)
	if err != nil {
		return nil, &Error{Reason: ReasonNotOpenID, Err: err}
	}
	where := want + discoveryPath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, &Error{Reason: ReasonUnreachable, Err: fmt.Errorf("cannot be reached (%v)", err)}
	}
	req.Header.Set("Accept", "application/json")
	res, err := rp.httpClient().Do(req)
	if err != nil {
		return nil, &Error{Reason: ReasonUnreachable, Err: fmt.Errorf("cannot be reached (%v)", err)}
	}
	defer res.Body.Close()
	notOpenID := func(format string, args ...any) error {
		return &Error{Reason: ReasonNotOpenID, Err: fmt.Errorf("has no OpenID Connect discovery document: %s %s", where, fmt.Sprintf(format, args...))}
	}
	if res.StatusCode != http.StatusOK {
		return nil, notOpenID("answered %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDiscoveryBytes+1))
	switch {
	case err != nil:
		return nil, &Error{Reason: ReasonUnreachable, Err: fmt.Errorf("cannot be reached (%v)", err)}
	case len(body) > maxDiscoveryBytes:
		return nil, notOpenID("is larger than %d bytes", maxDiscoveryBytes)
	}
	var doc oidc.ProviderConfig
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, notOpenID("is not a JSON object")
	}
	for _, m := range [][2]string{{"issuer", doc.IssuerURL}, {"authorization_endpoint", doc.AuthURL},
		{"token_endpoint", doc.TokenURL}, {"jwks_uri", doc.JWKSURL}} {
		if strings.TrimSpace(m[1]) == "" {
			return nil, notOpenID("has no %s", m[0])
		}
	}
	if got, err := auth.NormalizeIssuer(doc.IssuerURL); err != nil || got != want {
		return nil, &Error{Reason: ReasonIssuer, Err: fmt.Errorf("is not the issuer its discovery document names (%.200q)", doc.IssuerURL)}
	}
	var algs []string // none: those the provider's keys name
	for _, a := range doc.Algorithms {
		if signingAlgorithms[a] {
			algs = append(algs, a)
		}
	}
	doc.Algorithms = algs
	return doc.NewProvider(oidc.ClientContext(ctx, rp.httpClient())), nil
}
