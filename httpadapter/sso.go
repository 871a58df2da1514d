package httpadapter

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/sso"
)

// Single sign-on on the login page (docs/auth.md "Single sign-on"). The
// form's "Sign in with single sign-on" button (shown when the
// application's account has an identity provider), an empty password, or
// a domain whose provider allows no passwords sends the browser to the
// provider of the email's domain; the provider sends it back to
// ssoCallbackPath, which finishes the authorize request as a password
// sign-in would. The flow (state, nonce, PKCE verifier) is kept in the
// relying party's flow store (the auth store every instance shares, when
// the composition root plugs it in), under the state and a cookie that
// binds it to the browser that began it.

const (
	ssoCallbackPath = "/oauth/sso/callback"
	ssoCookie       = "scopekit_sso"
	ssoCookiePath   = "/oauth/sso"
	ssoField        = "sso" // the form's single sign-on button
)

// ssoStyle is the single sign-on button's style, added to the login
// page's only when it shows the button.
const ssoStyle = `
button.alt{margin-top:.75rem;background:#fff;color:#1d4ed8;border:1px solid #2563eb}
button.alt:hover{background:#eff6ff}
`

// relyingParty returns s.SSO, or a default one made on first use.
func (s *Server) relyingParty() *sso.RelyingParty {
	s.ssoOnce.Do(func() {
		s.rp = s.SSO
		if s.rp == nil {
			s.rp = &sso.RelyingParty{}
		}
	})
	return s.rp
}

// offersSSO reports whether the login page shows the single sign-on
// button for the application's account.
func (s *Server) offersSSO(r *http.Request, accountID string) bool {
	ok, err := s.Auth.OffersSingleSignOn(r.Context(), accountID)
	if err != nil {
		logger(r).Error("sso: identity providers", "error", err.Error(), "request_id", requestID(r))
	}
	return ok
}

// startSSO sends the browser to the identity provider covering email
// when the person chose single sign-on (asked), left the password empty,
// or may not use one; it reports whether it answered. Otherwise the
// password sign-in goes on.
func (s *Server) startSSO(w http.ResponseWriter, r *http.Request, app *auth.Application, req *auth.AuthorizeRequest, email, password string, asked bool) bool {
	if asked && email == "" {
		s.showLogin(w, r, http.StatusBadRequest, app, req, email, "Enter your email, then choose single sign-on.")
		return true
	}
	if email == "" {
		return false
	}
	p, err := s.Auth.IdentityProviderFor(r.Context(), app.AccountID, email)
	switch {
	case scopekit.ErrorCode(err) == scopekit.ENOTFOUND:
		if asked {
			s.showLogin(w, r, http.StatusBadRequest, app, req, email,
				"Single sign-on is not set up for the domain of this email. Sign in with your password.")
		}
		return asked
	case err != nil:
		s.authorizeFailed(w, r, req, err)
		return true
	case !asked && password != "" && p.PasswordsAllowed:
		return false
	}
	target, binding, err := s.relyingParty().Begin(r.Context(), p, origin(s.AuthURL, r)+ssoCallbackPath, req, email)
	if err != nil {
		logger(r).Warn("sso: cannot begin", "provider", p.ID, "error", err.Error(), "request_id", requestID(r))
		if errors.Is(err, sso.ErrBusy) {
			s.showError(w, r, http.StatusServiceUnavailable, "Too many sign-ins are in progress. Wait a moment, then try again.")
		} else {
			s.showError(w, r, http.StatusBadGateway, "Your organization's identity provider cannot be reached. Try again later.")
		}
		return true
	}
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: binding, Path: ssoCookiePath, MaxAge: int(sso.FlowTTL.Seconds()),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target, http.StatusSeeOther)
	return true
}

// ssoCallback serves GET /oauth/sso/callback: the identity provider's
// answer. The flow of its state must be the browser's (cookie); then the
// code is exchanged and the ID token verified (package sso), the
// verified email is signed in (auth.AuthorizeSSO) and the browser goes
// back to the application with a code, as after a password.
func (s *Server) ssoCallback(w http.ResponseWriter, r *http.Request) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(q["state"]) > 1 || len(q["code"]) > 1 {
		s.showError(w, r, http.StatusBadRequest, "The answer of the identity provider is malformed.")
		return
	}
	binding := ""
	if c, err := r.Cookie(ssoCookie); err == nil {
		binding = c.Value
	}
	http.SetCookie(w, &http.Cookie{Name: ssoCookie, Path: ssoCookiePath, MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteLaxMode})
	rp := s.relyingParty()
	flow, ok, err := rp.Take(r.Context(), q.Get("state"), binding)
	if err != nil {
		s.authorizeFailed(w, r, &auth.AuthorizeRequest{}, err)
		return
	}
	if !ok {
		s.showError(w, r, http.StatusBadRequest, "This single sign-on has expired or did not begin in this browser.")
		return
	}
	if e := q.Get("error"); e != "" {
		logger(r).Info("sso: the provider refused", "provider", flow.ProviderID, "error", truncate(e, 64), "request_id", requestID(r))
		s.showError(w, r, http.StatusForbidden, "Your organization's identity provider did not sign you in.")
		return
	}
	p, err := s.Auth.IdentityProvider(r.Context(), flow.AccountID, flow.ProviderID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		s.showError(w, r, http.StatusForbidden, "Single sign-on is no longer set up for this account.")
		return
	}
	if err != nil {
		s.authorizeFailed(w, r, &flow.Request, err)
		return
	}
	id, err := rp.Finish(r.Context(), p, flow, q.Get("code"))
	if err != nil {
		logger(r).Warn("sso: sign-in refused", "provider", p.ID, "error", err.Error(), "request_id", requestID(r))
		s.showError(w, r, http.StatusForbidden,
			"The answer of your organization's identity provider could not be verified, so you are not signed in.")
		return
	}
	code, err := s.Auth.AuthorizeSSO(r.Context(), &flow.Request, p, id.Email, id.Name)
	var le *auth.LoginError
	switch {
	case errors.As(err, &le):
		args := []any{"reason", le.Reason, "provider", p.ID, "request_id", requestID(r)}
		if le.Err != nil {
			args = append(args, "detail", le.Err.Error())
		}
		logger(r).Info("login refused", args...)
		s.showError(w, r, http.StatusForbidden, loginMessages[le.Reason])
		return
	case err != nil:
		s.authorizeFailed(w, r, &flow.Request, err)
		return
	}
	s.redirectToClient(w, &flow.Request, url.Values{"code": {code}})
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
