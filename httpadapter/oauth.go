package httpadapter

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"

	"github.com/scopekit/scopekit/auth"
)

// oauthMaxBodyBytes bounds a token request; a larger body answers 413 with
// an OAuth error body (invalid_request), like every other refusal here.
const oauthMaxBodyBytes = 64 << 10

// oauthParams are the parameters of RFC 6749 and docs/auth.md that the token
// endpoint reads. Each may be sent once (RFC 6749 3.2); other parameters
// are ignored, repeated or not.
var oauthParams = []string{
	"grant_type", "client_id", "client_secret", "username", "password",
	"refresh_token", "code", "redirect_uri", "code_verifier", "scope", "mfa_code",
}

// OAuthTokenHandler serves POST /oauth/token (docs/auth.md). The body must be
// application/x-www-form-urlencoded, at most 64 KiB; parameters in the URL
// query are ignored. Client credentials come from the form or from HTTP
// Basic (values URL-decoded, RFC 6749 2.3.1); both may be given only if
// they agree. Every answer carries Cache-Control: no-store and Pragma:
// no-cache and a JSON body: the token response, or {"error",
// "error_description"} with 400, 401 (invalid_client, plus
// WWW-Authenticate when Basic was used), 405 (not POST, with Allow), 413
// (body too large) or 500 (server_error, logged). The log never holds form
// values or headers.
func OAuthTokenHandler(svc *auth.Service, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Pragma", "no-cache")
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			oauthWriteError(w, http.StatusMethodNotAllowed, auth.InvalidRequest, "the token endpoint accepts POST only")
			return
		}
		req, basic, err := oauthParseRequest(w, r)
		var resp *auth.TokenResponse
		if err == nil {
			resp, err = svc.Token(r.Context(), req)
		}
		var oe *auth.OAuthError
		outcome := TokenGranted
		switch {
		case err == nil:
			oauthWriteJSON(w, http.StatusOK, resp)
		case errors.As(err, &oe):
			if oe.Code == auth.InvalidClient && basic {
				w.Header().Set("WWW-Authenticate", `Basic realm="scopekit"`)
			}
			status := oe.Status
			if status == 0 {
				status = http.StatusBadRequest
			}
			logger.Debug("oauth token refused", "error", oe.Code, "status", status, "request_id", requestID(r))
			outcome = oe.Code
			oauthWriteError(w, status, oe.Code, oe.Description)
		default:
			logger.Error("oauth token: internal error", "error", err.Error(), "request_id", requestID(r))
			outcome = "server_error"
			oauthWriteError(w, http.StatusInternalServerError, "server_error", "Internal error")
		}
		if info := infoOf(r); info != nil {
			info.grant, info.tokenOutcome = LabelOther, outcome
			if req != nil {
				info.grant = grantLabel(req.GrantType)
			}
		}
	})
}

// oauthParseRequest reads the form and the client credentials. basic
// reports whether the client used HTTP Basic (even a malformed one), so
// that invalid_client can ask for Basic in return.
func oauthParseRequest(w http.ResponseWriter, r *http.Request) (req *auth.TokenRequest, basic bool, err error) {
	basic = r.Header.Get("Authorization") != ""
	mt, _, perr := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if perr != nil || mt != "application/x-www-form-urlencoded" {
		return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "Content-Type must be application/x-www-form-urlencoded")
	}
	body, rerr := io.ReadAll(http.MaxBytesReader(w, r.Body, oauthMaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(rerr, &tooLarge) {
		return nil, basic, &auth.OAuthError{Code: auth.InvalidRequest, Status: http.StatusRequestEntityTooLarge,
			Description: "the request body is larger than 64 KiB"}
	}
	if isTimeout(rerr) {
		return nil, basic, &auth.OAuthError{Code: auth.InvalidRequest, Status: http.StatusRequestTimeout,
			Description: "the request body was not received in time"}
	}
	if rerr != nil {
		return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "the request body could not be read")
	}
	form, perr := url.ParseQuery(string(body))
	if perr != nil {
		return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "the form body is malformed")
	}
	present := make(map[string]bool, len(oauthParams))
	for _, name := range oauthParams {
		if vs, ok := form[name]; ok {
			if len(vs) > 1 {
				return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "parameter "+name+" is repeated")
			}
			present[name] = true
		}
	}
	req = &auth.TokenRequest{
		GrantType:    form.Get("grant_type"),
		ClientID:     form.Get("client_id"),
		ClientSecret: form.Get("client_secret"),
		Username:     form.Get("username"),
		Password:     form.Get("password"),
		RefreshToken: form.Get("refresh_token"),
		Code:         form.Get("code"),
		RedirectURI:  form.Get("redirect_uri"),
		CodeVerifier: form.Get("code_verifier"),
		MFACode:      form.Get("mfa_code"),
		Present:      present,
	}
	if basic {
		id, secret, err := oauthBasicCredentials(r)
		if err != nil {
			return nil, basic, err
		}
		if present["client_id"] && req.ClientID != id {
			return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "client_id in the form differs from the HTTP Basic credentials")
		}
		if present["client_secret"] && req.ClientSecret != secret {
			return nil, basic, auth.NewOAuthError(auth.InvalidRequest, "client_secret in the form differs from the HTTP Basic credentials")
		}
		req.ClientID, req.ClientSecret = id, secret
		present["client_id"], present["client_secret"] = true, true
	}
	return req, basic, nil
}

// oauthBasicCredentials decodes the Authorization header. Any other scheme,
// or a Basic value that does not decode, is a failed client authentication
// (invalid_client, RFC 6749 5.2: "unsupported authentication method").
func oauthBasicCredentials(r *http.Request) (id, secret string, err error) {
	bad := auth.NewOAuthError(auth.InvalidClient, "the Authorization header must hold HTTP Basic client credentials")
	rawID, rawSecret, ok := r.BasicAuth()
	if !ok {
		return "", "", bad
	}
	if id, err = url.QueryUnescape(rawID); err != nil {
		return "", "", bad
	}
	if secret, err = url.QueryUnescape(rawSecret); err != nil {
		return "", "", bad
	}
	return id, secret, nil
}

// oauthErrorBody is the RFC 6749 5.2 error object.
type oauthErrorBody struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func oauthWriteError(w http.ResponseWriter, status int, code, description string) {
	oauthWriteJSON(w, status, oauthErrorBody{Error: code, Description: description})
}

func oauthWriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // cannot happen for the two types written here
		status, body = http.StatusInternalServerError, []byte(`{"error":"server_error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
