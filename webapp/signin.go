package webapp

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
)

// The sign-in (docs/workspace.md "Signing in"): /app/signin?account=slug
// registers the account's workspace client when this process has not yet,
// keeps a state and a PKCE verifier in a short-lived cookie and sends the
// browser to the login page; the login page sends it back to
// /app/callback with a code, which is exchanged here (auth.Service.Token)
// for the name of who signed in. The access token is revoked at once and
// a session of the account begins.

// appName is what the login page says the person signs in to.
const appName = "ScopeKit workspace"

// signInTTL bounds the time between leaving for the login page and coming
// back (the code itself lives 10 minutes).
const signInTTL = 15 * time.Minute

// signInState is what the sign-in cookie carries through the login page.
type signInState struct {
	State    string `json:"s"`
	Verifier string `json:"v"`
	Account  string `json:"a"` // id
	Slug     string `json:"g"`
	Next     string `json:"n"` // a page of the account to go back to
}

// home is /app/: the way in. Signed in, it goes to the session's
// projects; otherwise it asks which account to sign in to.
func (w *Workspace) home(rw http.ResponseWriter, r *http.Request) {
	w.securePage(rw.Header())
	if token := sessionCookie(r); token != "" {
		if _, a, err := w.svc.Session(r.Context(), token); err == nil {
			http.Redirect(rw, r, "/app/"+url.PathEscape(accountSlug(a))+"/projects", http.StatusSeeOther)
			return
		}
	}
	w.renderSignIn(rw, r, http.StatusOK, r.URL.Query().Get("account"), "")
}

// signIn begins the sign-in to an account.
func (w *Workspace) signIn(rw http.ResponseWriter, r *http.Request) {
	w.securePage(rw.Header())
	q := r.URL.Query()
	slug := strings.TrimSpace(q.Get("account"))
	if slug == "" || len(slug) > 255 {
		w.renderSignIn(rw, r, http.StatusBadRequest, slug, "Enter your account's short name (as in its addresses, for example acme).")
		return
	}
	accountID, _, err := w.svc.SignInAccount(r.Context(), slug)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		w.renderSignIn(rw, r, http.StatusNotFound, slug, "There is no account with that short name. Check it with your administrator.")
		return
	}
	if err == nil {
		err = w.ensureClient(r, accountID)
	}
	if err != nil {
		w.log.Error("workspace: sign-in", "err", err)
		w.renderSignIn(rw, r, http.StatusInternalServerError, slug, "Something went wrong on our side. Please try again later.")
		return
	}
	st := signInState{State: randomToken(), Verifier: randomToken(), Account: accountID, Slug: slug, Next: safeNext(slug, q.Get("next"))}
	v, _ := json.Marshal(st)
	w.setCookie(rw, r, signInCookieName, base64.RawURLEncoding.EncodeToString(v), signInTTL)
	sum := sha256.Sum256([]byte(st.Verifier))
	target := w.authURL + "/oauth/authorize?" + url.Values{
		"response_type": {"code"}, "client_id": {w.clientID(accountID)}, "redirect_uri": {w.redirectURI()},
		"state": {st.State}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}.Encode()
	http.Redirect(rw, r, target, http.StatusSeeOther)
}

// ensureClient registers the account's workspace client with the
// redirect URI of this process, once per process (registering again is
// harmless: the same id, secret and URI).
func (w *Workspace) ensureClient(r *http.Request, accountID string) error {
	if uri, ok := w.registered.Load(accountID); ok && uri == w.redirectURI() {
		return nil
	}
	err := w.auth.RegisterApplication(r.Context(), accountID, appName, w.clientID(accountID), w.clientSecret(accountID), []string{w.redirectURI()})
	if err == nil {
		w.registered.Store(accountID, w.redirectURI())
	}
	return err
}

// callback finishes the sign-in: the state must be the cookie's, the code
// is exchanged with the verifier, and a session begins.
func (w *Workspace) callback(rw http.ResponseWriter, r *http.Request) {
	w.securePage(rw.Header())
	q := r.URL.Query()
	st, ok := readSignInState(r)
	w.setCookie(rw, r, signInCookieName, "", -1)
	if !ok || len(q["state"]) != 1 || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(st.State)) != 1 {
		w.renderSignIn(rw, r, http.StatusBadRequest, st.Slug, "This sign-in has expired or began in another browser. Sign in again.")
		return
	}
	if e := q.Get("error"); e != "" {
		w.renderSignIn(rw, r, http.StatusForbidden, st.Slug, "The sign-in was not completed ("+truncate(q.Get("error_description"), 200)+"). Sign in again.")
		return
	}
	tok, err := w.auth.Token(r.Context(), &auth.TokenRequest{GrantType: auth.GrantAuthorizationCode,
		ClientID: w.clientID(st.Account), ClientSecret: w.clientSecret(st.Account),
		Code: q.Get("code"), RedirectURI: w.redirectURI(), CodeVerifier: st.Verifier})
	var oe *auth.OAuthError
	if errors.As(err, &oe) {
		w.renderSignIn(rw, r, http.StatusForbidden, st.Slug, "The sign-in could not be completed: "+oe.Description+". Sign in again.")
		return
	}
	var p *auth.Principal
	if err == nil {
		p, err = w.auth.Authenticate(r.Context(), tok.AccessToken)
		if rerr := w.auth.Revoke(r.Context(), tok.AccessToken); err == nil {
			err = rerr
		}
	}
	var token string
	if err == nil && p.AccountID == st.Account {
		token, _, err = w.svc.StartSession(r.Context(), st.Account, p.UserID)
	} else if err == nil {
		err = scopekit.Errorf(scopekit.EFORBIDDEN, "signed in to another account")
	}
	switch code := scopekit.ErrorCode(err); {
	case code == scopekit.EFORBIDDEN || code == scopekit.EUNAUTHORIZED:
		w.renderSignIn(rw, r, http.StatusForbidden, st.Slug,
			"You cannot use the workspace of this account: service accounts, and people who are not active members, cannot sign in here.")
		return
	case err != nil:
		w.log.Error("workspace: sign-in callback", "err", err)
		w.renderSignIn(rw, r, http.StatusInternalServerError, st.Slug, "Something went wrong on our side. Please try again later.")
		return
	}
	if old := sessionCookie(r); old != "" { // signing in to another account ends the session of the first
		if err := w.svc.EndSession(r.Context(), old); err != nil {
			w.log.Warn("workspace: the previous session was not ended", "err", err)
		}
	}
	w.setCookie(rw, r, sessionCookieName, token, scoping.SessionMax)
	http.Redirect(rw, r, st.Next, http.StatusSeeOther)
}

// signOut ends the session (its CSRF token required) and shows the way
// back in.
func (w *Workspace) signOut(rw http.ResponseWriter, r *http.Request) {
	w.action(func(c *call) error {
		if err := w.svc.EndSession(c.ctx(), sessionCookie(r)); err != nil {
			return err
		}
		w.setCookie(rw, r, sessionCookieName, "", -1)
		return c.redirect("/app/?" + url.Values{"account": {c.slug}}.Encode())
	})(rw, r)
}

// Cookie names: the __Host- prefix binds them to this host and path /
// when the workspace is served over TLS.
const (
	sessionCookieName = "scopekit_session"
	signInCookieName  = "scopekit_signin"
)

func (w *Workspace) tls(r *http.Request) bool {
	return r.TLS != nil || strings.HasPrefix(w.base, "https://")
}

func (w *Workspace) cookieName(r *http.Request, name string) string {
	if w.tls(r) {
		return "__Host-" + name
	}
	return name
}

// setCookie sets (maxAge > 0) or clears (maxAge < 0) a cookie of the
// workspace: HttpOnly, SameSite=Lax, Secure over TLS.
func (w *Workspace) setCookie(rw http.ResponseWriter, r *http.Request, name, value string, maxAge time.Duration) {
	c := &http.Cookie{Name: w.cookieName(r, name), Value: value, Path: "/", HttpOnly: true, Secure: w.tls(r),
		SameSite: http.SameSiteLaxMode, MaxAge: int(maxAge / time.Second)}
	if maxAge < 0 {
		c.MaxAge = -1
	}
	http.SetCookie(rw, c)
}

// sessionCookie returns the session token the request carries ("" for
// none), under either name: the prefix depends on TLS, the token not.
func sessionCookie(r *http.Request) string {
	for _, name := range []string{"__Host-" + sessionCookieName, sessionCookieName} {
		if c, err := r.Cookie(name); err == nil && c.Value != "" {
			return c.Value
		}
	}
	return ""
}

func readSignInState(r *http.Request) (signInState, bool) {
	var st signInState
	for _, name := range []string{"__Host-" + signInCookieName, signInCookieName} {
		c, err := r.Cookie(name)
		if err != nil || len(c.Value) > 4096 {
			continue
		}
		b, err := base64.RawURLEncoding.DecodeString(c.Value)
		if err == nil && json.Unmarshal(b, &st) == nil && st.State != "" && st.Account != "" {
			return st, true
		}
	}
	return signInState{}, false
}

// safeNext is the page to land on after signing in: next when it is a
// page of the account's workspace, else its projects.
func safeNext(slug, next string) string {
	prefix := "/app/" + url.PathEscape(slug) + "/"
	if strings.HasPrefix(next, prefix) && !strings.ContainsAny(next, "\\\r\n") && !strings.Contains(next, "//") && len(next) < 1024 {
		return next
	}
	return prefix + "projects"
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// renderSignIn shows the sign-in form for an account (slug may be empty)
// with a message.
func (w *Workspace) renderSignIn(rw http.ResponseWriter, r *http.Request, status int, slug, message string) {
	l := &layout{Title: "Sign in", Slug: slug}
	if message != "" {
		l.Errors = []fieldError{{Message: message}}
	}
	w.render(rw, status, "signin", "page", l)
}
