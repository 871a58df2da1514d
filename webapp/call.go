package webapp

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// maxFormBytes bounds a posted form: more than any field the use cases
// take (text fields hold 64 KiB), far less than would strain a server.
const maxFormBytes = 512 << 10

// call is one request of a signed-in person.
type call struct {
	w     *Workspace
	rw    http.ResponseWriter
	r     *http.Request
	sess  *scoping.Session
	actor *engine.Actor
	slug  string
	form  url.Values // a POST's form
	htmx  bool       // sent by htmx: answer with a fragment
	// a file form's file (uploads.go)
	file      []byte
	fileName  string
	fileGiven bool
}

func (c *call) ctx() context.Context { return c.r.Context() }

// url is the address of a page of the call's account.
func (c *call) url(p string) string { return "/app/" + url.PathEscape(c.slug) + p }

// canManage reports whether the actor's role may change what guard
// guards; pages offer controls only then (the use case decides anyway).
func (c *call) canManage(guard string) bool { return c.actor.Can(guard, true) }

func (c *call) redirect(to string) error {
	if c.htmx {
		c.rw.Header().Set("HX-Redirect", to)
		c.rw.WriteHeader(http.StatusNoContent)
		return nil
	}
	http.Redirect(c.rw, c.r, to, http.StatusSeeOther)
	return nil
}

// page wraps a GET handler: the session of the account of the path, or a
// sign-in.
func (w *Workspace) page(h func(c *call) error) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		c, ok := w.begin(rw, r)
		if !ok {
			return
		}
		if err := h(c); err != nil {
			w.fail(c, err)
		}
	}
}

// action wraps a POST handler: the session, its CSRF token and the form.
// Without a session the form is refused (401) with a link to sign in: a
// change is never replayed after a sign-in.
func (w *Workspace) action(h func(c *call) error) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		c, ok := w.begin(rw, r)
		if !ok {
			return
		}
		form, err := readForm(rw, r)
		if err == nil {
			c.form = form
			err = c.checkCSRF()
		}
		if err == nil {
			err = h(c)
		}
		if err != nil {
			w.fail(c, err)
		}
	}
}

// begin resolves the request's session; without one for the path's
// account it has answered (a redirect to sign in, or 401 for a change).
func (w *Workspace) begin(rw http.ResponseWriter, r *http.Request) (*call, bool) {
	w.securePage(rw.Header())
	c := &call{w: w, rw: rw, r: r, slug: r.PathValue("slug"), htmx: r.Header.Get("HX-Request") == "true"}
	if token := sessionCookie(r); token != "" {
		sess, a, err := w.svc.Session(r.Context(), token)
		switch {
		case err == nil && (views.Account{Record: a.Account}).Slug() == c.slug:
			c.sess, c.actor = sess, a
			return c, true
		case err != nil && scopekit.ErrorCode(err) != scopekit.EUNAUTHORIZED:
			w.fail(c, err)
			return nil, false
		}
	}
	signIn := "/app/signin?" + url.Values{"account": {c.slug}, "next": {r.URL.Path}}.Encode()
	if r.Method == http.MethodGet && !c.htmx {
		http.Redirect(rw, r, signIn, http.StatusSeeOther)
		return nil, false
	}
	w.fail(c, &signInNeeded{to: signIn})
	return nil, false
}

// signInNeeded is the answer to a change without a session of the
// account: 401, and the way to sign in.
type signInNeeded struct{ to string }

func (e *signInNeeded) Error() string { return "sign in to continue" }

// checkCSRF compares the form's token (or htmx's header) with the
// session's.
func (c *call) checkCSRF() error {
	token := c.form.Get("csrf")
	if token == "" {
		token = c.r.Header.Get("X-CSRF-Token")
	}
	if len(c.form["csrf"]) > 1 || subtle.ConstantTimeCompare([]byte(token), []byte(c.sess.CSRF)) != 1 {
		return scopekit.Errorf(scopekit.EFORBIDDEN, "This form has expired or did not come from this workspace. Reload the page and try again.")
	}
	return nil
}

// readForm reads a url-encoded form of at most maxFormBytes.
func readForm(rw http.ResponseWriter, r *http.Request) (url.Values, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, scopekit.Errorf(scopekit.EUNSUPPORTEDMEDIA, "Forms must be sent as application/x-www-form-urlencoded.")
	}
	body, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxFormBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return nil, scopekit.Errorf(scopekit.ETOOLARGE, "The form is too large: at most %d KB may be sent at once.", maxFormBytes>>10)
	}
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EBADREQUEST, "The form could not be read.")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EBADREQUEST, "The form is malformed.")
	}
	return form, checkUTF8(form)
}

// checkUTF8 refuses a form with a value that is not valid UTF-8 (400
// naming the field), as the API refuses such text: a form never stores
// it altered.
func checkUTF8(form url.Values) error {
	for name, vs := range form {
		for _, v := range vs {
			if !utf8.ValidString(v) || !utf8.ValidString(name) {
				return scopekit.FieldErrorf(scopekit.EBADREQUEST, strings.ToValidUTF8(name, "?"), "%s is not valid UTF-8", strings.ToValidUTF8(name, "?"))
			}
		}
	}
	return nil
}

// value returns the form's single value of name ("" when absent);
// EBADREQUEST when it is repeated.
func (c *call) value(name string) (string, error) {
	if len(c.form[name]) > 1 {
		return "", scopekit.FieldErrorf(scopekit.EBADREQUEST, name, "The form repeats the field %s.", name)
	}
	return strings.TrimSpace(c.form.Get(name)), nil
}

// claimOnce consumes the form's once token: a second submission of the
// same form is refused (409) rather than creating twice.
func (c *call) claimOnce() error {
	once, err := c.value("once")
	if err != nil {
		return err
	}
	return c.w.svc.ClaimOnce(c.ctx(), c.sess, once)
}

// securePage sets the headers every workspace page carries: no script
// but our own files, no framing, no caching of what a person sees. Forms
// go to the workspace, or (signing in) on to the login page.
func (w *Workspace) securePage(h http.Header) {
	h.Set("Content-Security-Policy", w.csp(""))
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// csp is the pages' Content-Security-Policy, with what a page allows
// besides (extra: "frame-src 'self'; " for a page that frames a preview).
func (w *Workspace) csp(extra string) string {
	formAction := "'self'"
	if w.authURL != w.base {
		formAction += " " + w.authURL
	}
	return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " + extra +
		"connect-src 'self'; form-action " + formAction + "; base-uri 'none'; frame-ancestors 'none'"
}
