package httpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"

	"github.com/julienschmidt/httprouter"
	"github.com/scopekit/scopekit"
)

// Error codes of POST /oauth/invitations/{token}/accept, in the
// {"error", "error_description"} shape of the token endpoint.
const (
	invitationNotFound  = "not_found"
	invitationBadPasswd = "invalid_password"
	// invitationElsewhere: the invited person signs in to another account
	// without a password; an invitation cannot give them one
	invitationElsewhere = "password_elsewhere"
)

// acceptInvitation serves POST /oauth/invitations/{token}/accept (docs/auth.md
// "Invitations"). The body is a form or JSON {"password": "..."}, at most
// 64 KiB. Answers: 204 once the membership is active; 404 not_found for an
// unknown, used or revoked token; 422 invalid_password for a password
// shorter than 12 characters (or longer than 72 bytes), or, when the
// invited email already has a password from another account, for any
// other password than that one (it is kept); 409 password_elsewhere when
// the invited person has no password and already signs in to another
// account (single sign-on): nothing is stored; 400 invalid_request for a
// malformed body, a missing or repeated password; 413, 415, 405 for a body
// too large, another content type, another method; 429/403 when
// throttled like the token endpoint.
func (s *Server) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		oauthWriteError(w, http.StatusMethodNotAllowed, "invalid_request", "invitations are accepted with POST")
		return
	}
	if !s.admitAuthPost(w, r, writeJSONRefusal) {
		return
	}
	password, status, msg := readInvitationPassword(w, r)
	if status != 0 {
		oauthWriteError(w, status, "invalid_request", msg)
		return
	}
	token := httprouter.ParamsFromContext(r.Context()).ByName("token")
	_, err := s.Svc.AcceptInvitationWithPassword(r.Context(), s.Auth, token, password)
	switch scopekit.ErrorCode(err) {
	case "":
		w.WriteHeader(http.StatusNoContent)
	case scopekit.ENOTFOUND:
		oauthWriteError(w, http.StatusNotFound, invitationNotFound, "no pending invitation has this token (unknown, already accepted or revoked)")
	case scopekit.EINVALID:
		oauthWriteError(w, http.StatusUnprocessableEntity, invitationBadPasswd, scopekit.List(err)[0].Message)
	case scopekit.ECONFLICT:
		oauthWriteError(w, http.StatusConflict, invitationElsewhere, scopekit.List(err)[0].Message)
	default:
		logger(r).Error("accept invitation: internal error", "error", err.Error(), "request_id", requestID(r))
		oauthWriteError(w, http.StatusInternalServerError, "server_error", "Internal error")
	}
}

// readInvitationPassword reads the password from a form or JSON body; a
// non-zero status says why it could not.
func readInvitationPassword(w http.ResponseWriter, r *http.Request) (password string, status int, msg string) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/x-www-form-urlencoded" && mt != "application/json") {
		return "", http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded or application/json"
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, oauthMaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return "", http.StatusRequestEntityTooLarge, "the request body is larger than 64 KiB"
	}
	if isTimeout(err) {
		return "", http.StatusRequestTimeout, "the request body was not received in time"
	}
	if err != nil {
		return "", http.StatusBadRequest, "the request body could not be read"
	}
	if mt == "application/json" {
		return passwordFromJSON(body)
	}
	form, err := url.ParseQuery(string(body))
	switch {
	case err != nil:
		return "", http.StatusBadRequest, "the form body is malformed"
	case len(form["password"]) > 1:
		return "", http.StatusBadRequest, "parameter password is repeated"
	case len(form["password"]) == 0:
		return "", http.StatusBadRequest, "missing required parameter: password"
	}
	return form.Get("password"), 0, ""
}

// passwordFromJSON reads {"password": "..."}: an object whose password
// member is a string and appears once; other members are ignored.
func passwordFromJSON(body []byte) (string, int, string) {
	bad := func(msg string) (string, int, string) { return "", http.StatusBadRequest, msg }
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return bad(`the body must be a JSON object such as {"password": "..."}`)
	}
	var password *string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return bad("the JSON body is malformed")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return bad("the JSON body is malformed")
		}
		if key != "password" {
			continue
		}
		if password != nil {
			return bad("member password is repeated")
		}
		var p string
		if bytes.Equal(raw, []byte("null")) || json.Unmarshal(raw, &p) != nil {
			return bad("password must be a JSON string")
		}
		password = &p
	}
	if _, err := dec.Token(); err != nil {
		return bad("the JSON body is malformed")
	}
	if _, err := dec.Token(); err != io.EOF {
		return bad("the JSON body has data after its object")
	}
	if password == nil {
		return bad("missing required member: password")
	}
	return *password, 0, ""
}
