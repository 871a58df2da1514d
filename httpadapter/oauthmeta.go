package httpadapter

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Where the auth host publishes its metadata: RFC 8414's well-known path,
// and OpenID Connect Discovery's, which MCP clients also try (RFC 8414
// section 3: the suffix is a general OAuth feature despite its name). An
// issuer without a path has no path-suffixed forms.
const (
	AuthServerMetadataPath  = "/.well-known/oauth-authorization-server"
	OpenIDConfigurationPath = "/.well-known/openid-configuration"
)

// AuthServerMetadata is the authorization server metadata (RFC 8414) of
// the auth host: enough for a client holding only a client id and secret
// (an MCP SDK's client-credentials provider, say) to find the token
// endpoint and how to authenticate there.
type AuthServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	// ScopesSupported is empty: a token grants what its user's role
	// allows, and a scope parameter changes nothing.
	ScopesSupported []string `json:"scopes_supported"`
}

// authServerMetadata serves AuthServerMetadata for the issuer authBase.
// Like any discovery document it is public and readable cross-origin.
func (s *Server) authServerMetadata(w http.ResponseWriter, r *http.Request) {
	issuer := s.authBase(r)
	body, _ := json.Marshal(AuthServerMetadata{ // cannot fail: strings only
		Issuer:                            issuer,
		AuthorizationEndpoint:             issuer + "/oauth/authorize",
		TokenEndpoint:                     issuer + tokenPath,
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "client_credentials", "password", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post"},
		ScopesSupported:                   []string{},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(append(body, '\n'))
}

// authBase is the auth host's scheme and host: AuthURL, else BaseURL,
// else the request's own (as the MCP adapter's resource metadata names
// it, so that the two agree).
func (s *Server) authBase(r *http.Request) string {
	if s.AuthURL != "" {
		return strings.TrimRight(s.AuthURL, "/")
	}
	return s.base(r)
}
