package auth

import "fmt"

// OAuth error codes of RFC 6749 section 5.2 (and invalid_resource_owner of
// the interface spec).
const (
	InvalidRequest       = "invalid_request"
	InvalidClient        = "invalid_client"
	InvalidGrant         = "invalid_grant"
	InvalidResourceOwner = "invalid_resource_owner"
	UnsupportedGrantType = "unsupported_grant_type"
	UnauthorizedClient   = "unauthorized_client"
)

// OAuthError is an RFC 6749 error: Code is one of InvalidRequest,
// InvalidClient, InvalidGrant, InvalidResourceOwner, UnsupportedGrantType,
// UnauthorizedClient or MFARequired; Status is 400, or 401 for invalid_client. Description
// is safe to show: it names parameters, never their values.
type OAuthError struct {
	Code        string
	Description string
	Status      int
}

// Error implements the error interface.
func (e *OAuthError) Error() string {
	return fmt.Sprintf("oauth %s: %s", e.Code, e.Description)
}

// NewOAuthError returns an *OAuthError with the status RFC 6749 gives its
// code: 401 for invalid_client, 400 otherwise.
func NewOAuthError(code, description string) *OAuthError {
	status := 400 // auth stays free of net/http (docs/auth.md)
	if code == InvalidClient {
		status = 401
	}
	return &OAuthError{Code: code, Description: description, Status: status}
}

// TokenRequest is the parameters of one POST /oauth/token, client
// credentials included whether they came in the form or with HTTP Basic.
// A parameter sent with an empty value counts as missing (RFC 6749 3.1).
type TokenRequest struct {
	GrantType    string
	ClientID     string
	ClientSecret string
	Username     string
	Password     string
	RefreshToken string
	Code         string
	RedirectURI  string
	CodeVerifier string
	// MFACode is the second factor of a password grant (mfa_code): a TOTP
	// code or a recovery code, after an mfa_required answer.
	MFACode string
	// Present names the form parameters that were sent, so that a
	// redirect_uri sent empty with the password grant is still refused.
	// Callers outside HTTP may leave it nil.
	Present map[string]bool
}

// TokenResponse is the successful answer of POST /oauth/token.
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	CreatedAt    int64  `json:"created_at"`
}
