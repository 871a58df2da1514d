package httpadapter

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit/auth"
)

// The login page of the authorization code flow (docs/auth.md "GET
// /oauth/authorize"). GET validates the request and shows the form; the
// form posts back to the same path with the request's parameters in
// hidden fields, a CSRF token, the email and the password. Success is a
// 302 to redirect_uri?code=...&state=...
//
// CSRF: GET sets a random cookie (HttpOnly, SameSite=Lax, Secure over TLS)
// and the form carries an HMAC of it under a key derived from the
// deployment's secret key (Server.Key), which every instance shares; a
// POST whose token is not the HMAC of its cookie is refused. A sign-in
// keeps nothing in an instance's memory: its form may be posted to
// another instance, or after a restart.
//
// The pages are rendered with html/template (escaped output), carry no
// script and no secret, and forbid framing; the CSS is inline under a
// per-response nonce.

const (
	csrfCookie = "scopekit_csrf"
	csrfField  = "csrf_token"
	// loginMaxBodyBytes bounds a posted login form.
	loginMaxBodyBytes = 64 << 10
)

// authorizeParams are the query parameters of the authorize request, each
// allowed once (RFC 6749 3.1); the login form adds email, password and
// the CSRF token.
var authorizeParams = []string{"response_type", "client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method"}

// loginMessages word the refusals of auth.LoginError for people.
var loginMessages = map[string]string{
	auth.LoginBadCredentials: "The email or password is incorrect.",
	auth.LoginServiceAccount: "Service accounts cannot sign in here; they authenticate with client credentials.",
	auth.LoginInvited:        "You have not accepted your invitation to this account yet. Accept it first, then sign in.",
	auth.LoginDeactivated:    "Your access to this account has been deactivated. Ask an administrator of the account.",
	auth.LoginNotMember:      "You are not a member of the account this application belongs to.",
	auth.LoginSSORequired:    "Your organization signs you in through its identity provider: choose single sign-on.",
	auth.LoginBadIdentity: "Your organization's identity provider sent an email address ScopeKit cannot accept " +
		"(it must be one address such as name@example.com), so you are not signed in. Ask your administrator.",
}

// loginPage is what the login template shows.
type loginPage struct {
	Nonce        string
	AppName      string
	RedirectHost string
	Error        string
	Email        string
	CSRF         string
	Hidden       []hiddenField
	SSO          bool // the account has an identity provider (sso.go)
}

type hiddenField struct{ Name, Value string }

// errorPage is what the error template shows.
type errorPage struct {
	Nonce   string
	Title   string
	Message string
}

const pageStyle = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:24rem;margin:1rem;padding:2rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
h1{margin:0 0 .25rem;font-size:1.5rem}
p{margin:.5rem 0}
.sub{color:#4b5563;margin-bottom:1.25rem}
label{display:block;margin:1rem 0 .25rem;font-weight:600}
input[type=email],input[type=password]{width:100%;padding:.6rem .75rem;border:1px solid #d1d5db;border-radius:.5rem;font:inherit}
input:focus{outline:2px solid #2563eb;outline-offset:1px}
button{width:100%;margin-top:1.5rem;padding:.7rem;border:0;border-radius:.5rem;background:#2563eb;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#1d4ed8}
.error{padding:.6rem .75rem;border-radius:.5rem;background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.fine{margin-top:1.25rem;color:#6b7280;font-size:.875rem}
label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
`

var pages = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in · ScopeKit</title>
<style nonce="{{.Nonce}}">` + pageStyle + `{{if .SSO}}` + ssoStyle + `{{end}}</style>
</head>
<body>
<main>
<h1>Sign in</h1>
<p class="sub">to continue to <strong id="app-name">{{.AppName}}</strong></p>
{{if .Error}}<p class="error" id="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="authorize" id="login">
<input type="hidden" name="` + csrfField + `" value="{{.CSRF}}">
{{range .Hidden}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="{{.Email}}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
` + mfaSetupCheckbox + `
<button type="submit" id="submit">Sign in</button>
{{if .SSO}}<button type="submit" id="sso" name="` + ssoField + `" value="1" class="alt" formnovalidate>Sign in with single sign-on</button>
{{end}}</form>
<p class="fine">After you sign in you will be sent back to {{.RedirectHost}}.</p>
</main>
</body>
</html>
`))

func init() {
	template.Must(pages.New("error").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{{.Title}} · ScopeKit</title>
<style nonce="{{.Nonce}}">` + pageStyle + `</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p class="error" id="error" role="alert">{{.Message}}</p>
<p class="fine">Go back to the application and start signing in again. If this keeps happening, tell the application's administrator.</p>
</main>
</body>
</html>
`))
}

// authorizePage serves GET /oauth/authorize.
func (s *Server) authorizePage(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		s.showError(w, r, http.StatusBadRequest, "The sign-in link is malformed.")
		return
	}
	req, app, ok := s.checkAuthorize(w, r, q)
	if !ok {
		return
	}
	s.showLogin(w, r, http.StatusOK, app, req, "", "")
}

// authorizeLogin serves POST /oauth/authorize: the login form.
func (s *Server) authorizeLogin(w http.ResponseWriter, r *http.Request) {
	if !s.admitAuthPost(w, r, s.pageRefusal) {
		return
	}
	form, ok := s.readPageForm(w, r, "email", "password", csrfField, ssoField)
	if !ok {
		return
	}
	req, app, ok := s.checkAuthorize(w, r, form)
	if !ok {
		return
	}
	email := strings.TrimSpace(form.Get("email"))
	if !s.csrfValid(r, form.Get(csrfField)) {
		s.showLogin(w, r, http.StatusForbidden, app, req, email,
			"This sign-in form has expired or did not come from this site. Please sign in again.")
		return
	}
	password := form.Get("password")
	if s.startSSO(w, r, app, req, email, password, form.Get(ssoField) != "") {
		return
	}
	if email == "" || password == "" {
		s.showLogin(w, r, http.StatusBadRequest, app, req, email, "Enter your email and your password.")
		return
	}
	req.SetUpMFA = form.Get(mfaSetupField) != ""
	code, err := s.Auth.Authorize(r.Context(), req, email, password)
	var le *auth.LoginError
	var sf *auth.SecondFactor
	switch {
	case errors.As(err, &sf): // mfapages.go
		s.showSecondFactor(w, r, http.StatusOK, app, req, sf)
		return
	case errors.As(err, &le):
		status := http.StatusForbidden
		if le.Reason == auth.LoginBadCredentials {
			status = http.StatusBadRequest
		}
		logger(r).Info("login refused", "reason", le.Reason, "request_id", requestID(r))
		s.showLogin(w, r, status, app, req, email, loginMessages[le.Reason])
		return
	case err != nil:
		s.authorizeFailed(w, r, req, err)
		return
	}
	s.redirectToClient(w, req, url.Values{"code": {code}})
}

// readPageForm reads the form a page of the sign-in posts; each field of
// once may be sent once. On failure it has answered with an error page.
func (s *Server) readPageForm(w http.ResponseWriter, r *http.Request, once ...string) (url.Values, bool) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		s.showError(w, r, http.StatusUnsupportedMediaType, "The sign-in form must be sent as application/x-www-form-urlencoded.")
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, loginMaxBodyBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		s.showError(w, r, http.StatusRequestEntityTooLarge, "The sign-in form is too large.")
		return nil, false
	}
	if isTimeout(err) {
		s.showError(w, r, http.StatusRequestTimeout, "The sign-in form was not received in time.")
		return nil, false
	}
	if err != nil {
		s.showError(w, r, http.StatusBadRequest, "The sign-in form could not be read.")
		return nil, false
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		s.showError(w, r, http.StatusBadRequest, "The sign-in form is malformed.")
		return nil, false
	}
	for _, name := range once {
		if len(form[name]) > 1 {
			s.showError(w, r, http.StatusBadRequest, "The sign-in form repeats the field "+name+".")
			return nil, false
		}
	}
	return form, true
}

// authorizeRequest reads the authorize parameters; msg is set when one is
// repeated (the request is then ambiguous and answered with a page).
func authorizeRequest(v url.Values) (req *auth.AuthorizeRequest, msg string) {
	for _, name := range authorizeParams {
		if len(v[name]) > 1 {
			return nil, "The sign-in link repeats the parameter " + name + "."
		}
	}
	return &auth.AuthorizeRequest{
		ResponseType:        v.Get("response_type"),
		ClientID:            v.Get("client_id"),
		RedirectURI:         v.Get("redirect_uri"),
		State:               v.Get("state"),
		CodeChallenge:       v.Get("code_challenge"),
		CodeChallengeMethod: v.Get("code_challenge_method"),
	}, ""
}

// checkAuthorize reads and checks the authorization request of a query or
// form shared by the page and its POST; on failure it has answered.
func (s *Server) checkAuthorize(w http.ResponseWriter, r *http.Request, v url.Values) (*auth.AuthorizeRequest, *auth.Application, bool) {
	req, msg := authorizeRequest(v)
	if msg != "" {
		s.showError(w, r, http.StatusBadRequest, msg)
		return nil, nil, false
	}
	app, err := s.Auth.CheckAuthorize(r.Context(), req)
	if err != nil {
		s.authorizeFailed(w, r, req, err)
		return nil, nil, false
	}
	return req, app, true
}

// authorizeFailed answers an error of CheckAuthorize or Authorize: a page
// when the client or redirect URI is not trusted, a redirect with error
// and state when they are, a logged 500 page otherwise.
func (s *Server) authorizeFailed(w http.ResponseWriter, r *http.Request, req *auth.AuthorizeRequest, err error) {
	var ae *auth.AuthorizeError
	switch {
	case errors.As(err, &ae) && ae.Redirect:
		s.redirectToClient(w, req, url.Values{"error": {ae.Code}, "error_description": {ae.Description}})
	case errors.As(err, &ae):
		msg := "This application's sign-in link is not valid: " + ae.Description + "."
		s.showError(w, r, http.StatusBadRequest, msg)
	default:
		logger(r).Error("authorize: internal error", "error", err.Error(), "request_id", requestID(r))
		s.showError(w, r, http.StatusInternalServerError, "Something went wrong on our side. Please try again later.")
	}
}

// redirectToClient sends the browser to the (verified) redirect URI with
// the parameters and the state added to its query (RFC 6749 4.1.2: the
// URI's own query is kept).
func (s *Server) redirectToClient(w http.ResponseWriter, req *auth.AuthorizeRequest, params url.Values) {
	if req.State != "" {
		params.Set("state", req.State)
	}
	target := req.RedirectURI
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
		if strings.HasSuffix(target, "?") || strings.HasSuffix(target, "&") {
			sep = ""
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Location", target+sep+params.Encode())
	w.WriteHeader(http.StatusFound)
}

// showLogin renders the login form with a fresh CSRF token bound to the
// browser's cookie (set when missing).
func (s *Server) showLogin(w http.ResponseWriter, r *http.Request, status int, app *auth.Application, req *auth.AuthorizeRequest, email, message string) {
	cookie := ""
	if c, err := r.Cookie(csrfCookie); err == nil && wellFormedNonce(c.Value) {
		cookie = c.Value
	} else {
		cookie = randomNonce()
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: cookie, Path: r.URL.Path,
			HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	}
	offersSSO := s.offersSSO(r, app.AccountID)
	s.renderPage(w, r, status, "login", func(nonce string) any {
		return &loginPage{Nonce: nonce, AppName: app.Name, RedirectHost: redirectHost(req), Error: message, Email: email,
			CSRF: s.csrfToken(cookie), Hidden: authorizeHidden(req), SSO: offersSSO}
	})
}

// authorizeHidden are the hidden fields that carry the authorization
// request through the forms of the sign-in.
func authorizeHidden(req *auth.AuthorizeRequest) []hiddenField {
	var hidden []hiddenField
	for _, f := range []hiddenField{
		{"response_type", req.ResponseType}, {"client_id", req.ClientID}, {"redirect_uri", req.RedirectURI},
		{"state", req.State}, {"code_challenge", req.CodeChallenge}, {"code_challenge_method", req.CodeChallengeMethod},
	} {
		if f.Value != "" {
			hidden = append(hidden, f)
		}
	}
	return hidden
}

// redirectHost is the host the sign-in ends up at, for people to check.
func redirectHost(req *auth.AuthorizeRequest) string {
	if u, err := url.Parse(req.RedirectURI); err == nil && u.Host != "" {
		return u.Host
	}
	return req.RedirectURI
}

func (s *Server) showError(w http.ResponseWriter, r *http.Request, status int, message string) {
	title := "Cannot sign in"
	s.renderPage(w, r, status, "error", func(nonce string) any {
		return &errorPage{Nonce: nonce, Title: title, Message: message}
	})
}

// pageRefusal answers a throttled login form with a page and the same
// status and Retry-After as the token endpoint.
func (s *Server) pageRefusal(w http.ResponseWriter, r *http.Request, ref *refusal) {
	msg := "Too many sign-in attempts from your network. Wait a moment, then try again."
	if ref.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ref.retryAfter)))
	} else {
		msg = "Too many sign-in attempts came from your network; it is blocked for a while."
	}
	s.renderPage(w, r, ref.status, "error", func(nonce string) any {
		return &errorPage{Nonce: nonce, Title: "Cannot sign in", Message: msg}
	})
}

// renderPage writes an HTML page with the headers that keep it safe: no
// caching, no framing, no sniffing, no referrer, and a CSP that allows
// only the page's own style.
func (s *Server) renderPage(w http.ResponseWriter, r *http.Request, status int, name string, data func(nonce string) any) {
	nonce := randomNonce()
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'nonce-"+nonce+"'; base-uri 'none'; frame-ancestors 'none'"+pageCSP[name])
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data(nonce)); err != nil {
		logger(r).Error("rendering page", "page", name, "error", err.Error(), "request_id", requestID(r))
		status = http.StatusInternalServerError
		b.Reset()
		b.WriteString("Internal error\n")
		h.Set("Content-Type", "text/plain; charset=utf-8")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, b.String())
}

// csrfToken is the form token that goes with the cookie value.
func (s *Server) csrfToken(cookie string) string {
	s.csrfOnce.Do(func() {
		if len(s.Key) > 0 {
			m := hmac.New(sha256.New, s.Key)
			m.Write([]byte("scopekit login form CSRF key"))
			s.csrfKey = m.Sum(nil)
			return
		}
		s.csrfKey = make([]byte, 32)
		_, _ = rand.Read(s.csrfKey)
	})
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte("scopekit login form\x00" + cookie))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (s *Server) csrfValid(r *http.Request, token string) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || !wellFormedNonce(c.Value) || token == "" {
		return false
	}
	return hmac.Equal([]byte(s.csrfToken(c.Value)), []byte(token))
}

// randomNonce returns 32 random bytes, base64url.
func randomNonce() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func wellFormedNonce(v string) bool {
	if len(v) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(v)
	return err == nil
}
