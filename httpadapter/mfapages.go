package httpadapter

import (
	"bytes"
	"encoding/base64"
	"errors"
	"html/template"
	"image/png"
	"net/http"
	"net/url"
	"strings"

	"github.com/pquerna/otp"
	"github.com/scopekit/scopekit/auth"
)

// The second step of the login page (docs/auth.md "Two-step
// verification"): once the password is right, a user with a second
// factor gets the code form, and one who sets a second factor up (the
// account requires it, or the login form asked) the enrolment page: the
// authenticator's QR code (a PNG data URL; the page's CSP admits data:
// images and nothing else), its key as text and the recovery codes,
// shown this once, above the code form. Both post to
// /oauth/authorize/mfa with the request's hidden fields, the CSRF token
// and the ticket auth sealed for this sign-in; a wrong code shows the
// same page again.

const (
	mfaPath        = "/oauth/authorize/mfa"
	mfaSetupField  = "mfa_setup" // the login form's checkbox
	mfaTicketField = "mfa_ticket"
	mfaCodeField   = "mfa_code"
	qrSize         = 200 // pixels, as the page's img says
)

// mfaSetupCheckbox is the login form's offer to set up a second factor.
const mfaSetupCheckbox = `<label class="check"><input type="checkbox" id="` + mfaSetupField + `" name="` + mfaSetupField +
	`" value="1"> Set up two-step verification (an authenticator app) after the password</label>`

// pageCSP adds to a page's Content-Security-Policy: the enrolment page
// shows its QR code as a data: image.
var pageCSP = map[string]string{"mfa-enrol": "; img-src data:"}

// mfaMessages word the refusals of the second step for people.
var mfaMessages = map[string]string{
	auth.LoginBadCode:   "That code is not right, or was used already. Enter the current code from your authenticator app.",
	auth.LoginExpired:   "This sign-in took too long or was replaced by another one. Start signing in again.",
	auth.LoginMFALocked: "Too many wrong codes were entered for this account. Wait a quarter of an hour, then sign in again.",
}

// mfaPage is what the second step's templates show.
type mfaPage struct {
	Nonce        string
	AppName      string
	RedirectHost string
	Error        string
	CSRF         string
	Action       string
	Ticket       string
	Hidden       []hiddenField
	// the enrolment page only
	QR       template.URL // a data: URL of the PNG we drew
	Secret   string       // in groups of four, as authenticators accept it
	Recovery []string
}

const mfaStyle = `
ol{padding-left:1.25rem}
li{margin:.75rem 0}
#qr{display:block;margin:.5rem 0;image-rendering:pixelated}
code{font:600 .95rem ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.03em}
ul.codes{columns:2;padding-left:1.25rem}
input#mfa_code{width:100%;padding:.6rem .75rem;border:1px solid #d1d5db;border-radius:.5rem;font:inherit;letter-spacing:.1em}
`

const mfaHead = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Two-step verification · ScopeKit</title>
<style nonce="{{.Nonce}}">` + pageStyle + mfaStyle + `</style>
</head>
<body>
<main>
`

const mfaForm = `{{if .Error}}<p class="error" id="error" role="alert">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}" id="mfa">
<input type="hidden" name="` + csrfField + `" value="{{.CSRF}}">
<input type="hidden" name="` + mfaTicketField + `" value="{{.Ticket}}">
{{range .Hidden}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">
{{end}}<label for="mfa_code">Code</label>
<input id="mfa_code" name="` + mfaCodeField + `" type="text" inputmode="numeric" autocomplete="one-time-code" required autofocus>
<button type="submit" id="submit">{{if .Secret}}Confirm and sign in{{else}}Continue{{end}}</button>
</form>
<p class="fine">After this step you will be sent back to {{.RedirectHost}}.</p>
</main>
</body>
</html>
`

func init() {
	template.Must(pages.New("mfa").Parse(mfaHead + `<h1>Two-step verification</h1>
<p class="sub">Enter the six-digit code of your authenticator app, or one of your recovery codes, to continue to <strong id="app-name">{{.AppName}}</strong>.</p>
` + mfaForm))
	template.Must(pages.New("mfa-enrol").Parse(mfaHead + `<h1>Set up two-step verification</h1>
<p class="sub">Signing in to <strong id="app-name">{{.AppName}}</strong> takes a code from an authenticator app besides your password.</p>
<ol>
<li>Scan this QR code with your authenticator app, or type in the key.
<img id="qr" src="{{.QR}}" width="200" height="200" alt="QR code of your authenticator key">
Key: <code id="secret">{{.Secret}}</code></li>
<li>Keep these recovery codes somewhere safe: each signs you in once if you lose your device. They are shown only now.
<ul class="codes" id="recovery-codes">{{range .Recovery}}<li><code>{{.}}</code></li>{{end}}</ul></li>
<li>Enter the six-digit code the app shows now.</li>
</ol>
` + mfaForm))
}

// showSecondFactor renders the code form or the enrolment page of sf.
// The browser's CSRF cookie exists: the form that led here checked it.
func (s *Server) showSecondFactor(w http.ResponseWriter, r *http.Request, status int, app *auth.Application, req *auth.AuthorizeRequest, sf *auth.SecondFactor) {
	cookie, err := r.Cookie(csrfCookie)
	if err != nil {
		s.showError(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Start signing in again.")
		return
	}
	p := &mfaPage{AppName: app.Name, RedirectHost: redirectHost(req), Error: mfaMessages[sf.Reason],
		CSRF: s.csrfToken(cookie.Value), Action: "mfa", Ticket: sf.Ticket, Hidden: authorizeHidden(req)}
	if r.URL.Path != mfaPath { // the relative action from /oauth/authorize
		p.Action = "authorize/mfa"
	}
	name := "mfa"
	if e := sf.Enrol; e != nil {
		qr, err := qrDataURL(e.URL)
		if err != nil {
			s.authorizeFailed(w, r, req, err)
			return
		}
		name, p.QR, p.Secret, p.Recovery = "mfa-enrol", qr, groupsOfFour(e.Secret), e.Recovery
	}
	s.renderPage(w, r, status, name, func(nonce string) any {
		p.Nonce = nonce
		return p
	})
}

// qrDataURL draws the QR code of an otpauth:// URI as a PNG data URL.
func qrDataURL(otpauth string) (template.URL, error) {
	key, err := otp.NewKeyFromURL(otpauth)
	if err != nil {
		return "", err
	}
	img, err := key.Image(qrSize, qrSize)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return "", err
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())), nil
}

func groupsOfFour(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += 4 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[i:min(i+4, len(s))])
	}
	return b.String()
}

// authorizeMFA serves POST /oauth/authorize/mfa: the code of the second
// step (or of an enrolment), throttled per address as the login form.
// Success is the login form's 302 to the application; a wrong code shows
// the form again (400); an expired ticket or a locked second factor ends
// on an error page that says to sign in again.
func (s *Server) authorizeMFA(w http.ResponseWriter, r *http.Request) {
	if !s.admitAuthPost(w, r, s.pageRefusal) {
		return
	}
	form, ok := s.readPageForm(w, r, mfaTicketField, mfaCodeField, csrfField)
	if !ok {
		return
	}
	req, app, ok := s.checkAuthorize(w, r, form)
	if !ok {
		return
	}
	if !s.csrfValid(r, form.Get(csrfField)) {
		s.showError(w, r, http.StatusForbidden, "This form has expired or did not come from this site. Start signing in again.")
		return
	}
	code, err := s.Auth.AuthorizeSecondFactor(r.Context(), req, form.Get(mfaTicketField), form.Get(mfaCodeField))
	var le *auth.LoginError
	var sf *auth.SecondFactor
	switch {
	case errors.As(err, &sf):
		logger(r).Info("second factor refused", "reason", sf.Reason, "enrolment", sf.Enrol != nil, "request_id", requestID(r))
		s.showSecondFactor(w, r, http.StatusBadRequest, app, req, sf)
	case errors.As(err, &le):
		status := http.StatusBadRequest
		if le.Reason == auth.LoginMFALocked {
			status = http.StatusForbidden
		}
		logger(r).Info("second factor refused", "reason", le.Reason, "request_id", requestID(r))
		s.showError(w, r, status, mfaMessages[le.Reason])
	case err != nil:
		s.authorizeFailed(w, r, req, err)
	default:
		s.redirectToClient(w, req, url.Values{"code": {code}})
	}
}
