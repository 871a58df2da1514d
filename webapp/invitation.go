package webapp

import (
	"crypto/hmac"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/scoping"
)

// The invitation page (docs/workspace.md "Accepting an invitation"): the
// link a users manager gives a new person, /app/invitations/{token},
// asks for the password they choose and accepts through the same use
// case as POST /oauth/invitations/{token}/accept
// (scoping.Service.AcceptInvitationWithPassword), then sends them to sign
// in. The person has no session yet: the form's CSRF token is bound to a
// random cookie of the browser that opened the page (and to the token).
// A token that names no pending invitation, whether unknown, used or
// revoked, gets one page with one text. The token is in the path: the
// page sends no Referer on, is never cached, and nothing here logs it
// (the API host's access log names the mount, not the path).

// invitationCookieName holds the random value the page's CSRF token is
// bound to.
const invitationCookieName = "scopekit_invitation"

// invitationPath is where an invitation's page is.
const invitationPath = "/app/invitations/"

// invitationPage is the page's data.
type invitationPage struct {
	L           *layout
	Token       string // in the form's action only
	CSRF        string
	Email       string
	AccountName string
	Fields      []*formField
}

// invitationURL is the link that accepts the invitation of token: the
// users page shows it once.
func (w *Workspace) invitationURL(token string) string {
	return w.base + invitationPath + url.PathEscape(token)
}

// invitation serves GET /app/invitations/{token}.
func (w *Workspace) invitation(rw http.ResponseWriter, r *http.Request) {
	token, inv, ok := w.invitee(rw, r)
	if !ok {
		return
	}
	w.renderInvitation(rw, http.StatusOK, &invitationPage{Token: token, CSRF: w.invitationCSRF(w.invitationNonce(rw, r), token),
		Email: inv.Email, AccountName: inv.AccountName}, nil)
}

// acceptInvitation serves POST /app/invitations/{token}: the password
// twice and the CSRF token.
func (w *Workspace) acceptInvitation(rw http.ResponseWriter, r *http.Request) {
	token, inv, ok := w.invitee(rw, r)
	if !ok {
		return
	}
	pg := &invitationPage{Token: token, Email: inv.Email, AccountName: inv.AccountName}
	form, err := readForm(rw, r)
	if err != nil {
		w.invitationFailed(rw, err)
		return
	}
	pg.CSRF = form.Get("csrf")
	if !w.invitationCSRFValid(r, form, token) {
		pg.CSRF = w.invitationCSRF(w.invitationNonce(rw, r), token)
		w.renderInvitation(rw, http.StatusForbidden, pg, []fieldError{{Message: "This form has expired or did not come from this page. Enter your password again."}})
		return
	}
	password, again := form["password"], form["password-again"]
	switch {
	case len(password) != 1 || len(again) != 1:
		w.renderInvitation(rw, http.StatusBadRequest, pg, []fieldError{{Field: "password", Message: "Enter your password in both fields."}})
		return
	case password[0] == "":
		w.renderInvitation(rw, http.StatusUnprocessableEntity, pg, []fieldError{{Field: "password", Message: "Enter a password."}})
		return
	case password[0] != again[0]:
		w.renderInvitation(rw, http.StatusUnprocessableEntity, pg, []fieldError{{Field: "password-again", Message: "The two passwords differ. Enter the same password twice."}})
		return
	}
	accepted, err := w.svc.AcceptInvitationWithPassword(r.Context(), w.auth, token, password[0])
	if scopekit.ErrorCode(err) == scopekit.EINVALID {
		_, msgs := w.describe(err)
		w.renderInvitation(rw, http.StatusUnprocessableEntity, pg, msgs)
		return
	}
	if err != nil {
		w.invitationFailed(rw, err)
		return
	}
	w.setCookie(rw, r, invitationCookieName, "", -1)
	http.Redirect(rw, r, "/app/signin?"+url.Values{"account": {accepted.AccountSlug}}.Encode(), http.StatusSeeOther)
}

// invitee begins both: the headers, the throttle, and the pending
// invitation the path's token names; without one it has answered.
func (w *Workspace) invitee(rw http.ResponseWriter, r *http.Request) (string, *scoping.Invitee, bool) {
	w.secureInvitation(rw.Header())
	if !w.admitInvitation(rw, r) {
		return "", nil, false
	}
	token := r.PathValue("token")
	inv, err := w.svc.Invitation(r.Context(), token)
	if err != nil {
		w.invitationFailed(rw, err)
		return "", nil, false
	}
	return token, inv, true
}

// secureInvitation sets the pages' headers, and no Referer at all: the
// page's address is the token.
func (w *Workspace) secureInvitation(h http.Header) {
	w.securePage(h)
	h.Set("Referrer-Policy", "no-referrer")
}

// admitInvitation throttles the page as the API's accept route is
// throttled (Config.AdmitAuth), GET included: it tells a pending token
// from another.
func (w *Workspace) admitInvitation(rw http.ResponseWriter, r *http.Request) bool {
	if w.admitAuth == nil {
		return true
	}
	err := w.admitAuth(r)
	if err == nil {
		return true
	}
	w.invitationFailed(rw, err)
	return false
}

// invitationFailed answers a token that names no pending invitation (one
// text for unknown, used and revoked), or another refusal, as a page of
// its own.
func (w *Workspace) invitationFailed(rw http.ResponseWriter, err error) {
	status, msgs := w.describe(err)
	if status == http.StatusNotFound {
		msgs = []fieldError{{Message: "This invitation link does not work: it may have been used already, withdrawn, or copied incompletely. " +
			"Ask the person who invited you for a new one."}}
	}
	if ra := retryAfter(err); ra != "" {
		rw.Header().Set("Retry-After", ra)
	}
	head := titles[status]
	switch status {
	case http.StatusNotFound:
		head = "This invitation cannot be used"
	case http.StatusForbidden: // only the throttle's block refuses a page that needs no role
		head = "Too many attempts"
	}
	w.render(rw, status, "error", "page", &problem{L: &layout{Title: head, Errors: msgs}, Status: status, Head: head})
}

// renderInvitation shows the form with errs beside their fields.
func (w *Workspace) renderInvitation(rw http.ResponseWriter, status int, pg *invitationPage, errs []fieldError) {
	pg.L = &layout{Title: "Accept your invitation"}
	pg.Fields = []*formField{
		{ID: "password", Name: "password", Label: "Choose a password", Control: "password", Required: true,
			Help: "At least " + strconv.Itoa(auth.MinPasswordChars) + " characters. If this email already signs in to another ScopeKit account, enter that password instead: it stays your password."},
		{ID: "password-again", Name: "password-again", Label: "The same password again", Control: "password", Required: true},
	}
	for _, f := range pg.Fields {
		for _, e := range errs {
			if e.Field == f.Name {
				f.Errors = append(f.Errors, e.Message)
			}
		}
		f.describe()
	}
	pg.L.Errors = loose(pg.Fields, errs)
	w.render(rw, status, "invitation", "page", pg)
}

// invitationCSRF binds the form to the browser's cookie and the token.
func (w *Workspace) invitationCSRF(nonce, token string) string {
	return base64.RawURLEncoding.EncodeToString(w.derive("invitation csrf", nonce+"\x00"+token))
}

func (w *Workspace) invitationCSRFValid(r *http.Request, form url.Values, token string) bool {
	nonce := invitationCookie(r)
	return len(form["csrf"]) == 1 && nonce != "" && hmac.Equal([]byte(form.Get("csrf")), []byte(w.invitationCSRF(nonce, token)))
}

// invitationNonce is the browser's random cookie, set when it has none.
func (w *Workspace) invitationNonce(rw http.ResponseWriter, r *http.Request) string {
	if nonce := invitationCookie(r); nonce != "" {
		return nonce
	}
	nonce := randomToken()
	w.setCookie(rw, r, invitationCookieName, nonce, signInTTL)
	return nonce
}

func invitationCookie(r *http.Request) string {
	for _, name := range []string{"__Host-" + invitationCookieName, invitationCookieName} {
		if c, err := r.Cookie(name); err == nil && c.Value != "" && len(c.Value) <= 64 {
			return c.Value
		}
	}
	return ""
}
