package webapp

import (
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
)

// The public page of a share link (docs/lifecycle.md): a client opens the
// link, reads the document (its PDF shown in the page and downloadable),
// the price summary and the account's consent text, and accepts or
// declines it with a form. No sign-in: the link's token is the key, so it
// never appears in a log line (the API host logs the mount, /app/) or a
// Referer header. scoping.Service's AcceptanceLink, AcceptanceDocument and
// Decide do the work; requests are throttled per link and per address.

// AcceptPath is where the pages are served: a link is AcceptPath and its
// token (no account of the workspace is slugged accept: scoping reserves
// the name).
const AcceptPath = "/app/accept/"

// acceptPages throttles the pages: form posts per link, every request
// per address.
type acceptPages struct {
	links, addresses *limiter
}

func newAcceptPages(cfg Config) *acceptPages {
	or := func(v, def float64) float64 {
		if v > 0 {
			return v
		}
		return def
	}
	return &acceptPages{links: newLimiter(or(cfg.AcceptLinkRate, 6), or(cfg.AcceptLinkBurst, 6)),
		addresses: newLimiter(or(cfg.AcceptAddressRate, 60), or(cfg.AcceptAddressBurst, 30))}
}

// accept serves a link's page and its PDF, and takes its form.
func (w *Workspace) accept(rw http.ResponseWriter, r *http.Request) {
	h := rw.Header()
	w.securePage(h)
	// the frozen PDF is shown in the page; no Referer ever carries the token
	h.Set("Content-Security-Policy", h.Get("Content-Security-Policy")+"; object-src 'self'; frame-src 'self'")
	h.Set("Referrer-Policy", "no-referrer")
	if !w.acceptPages.addresses.allow(clientIP(r)) {
		w.tooMany(rw)
		return
	}
	token, file, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, AcceptPath), "/")
	switch {
	case file == "document.pdf" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.acceptDocument(rw, r, token)
	case file != "":
		w.acceptClosed(rw, nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such page"))
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		w.acceptPage(rw, r, token, acceptForm{}, nil, http.StatusOK)
	case r.Method == http.MethodPost:
		w.decide(rw, r, token)
	default:
		h.Set("Allow", "GET, HEAD, POST")
		http.Error(rw, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// acceptForm is what a client entered.
type acceptForm struct {
	Name, Title, Email, Signature, Comment string
	Agreed                                 bool
}

// acceptView is what templates/accept.html shows.
type acceptView struct {
	Title     string
	Base      string // the link's page
	Link      *scoping.AcceptanceLink
	Form      acceptForm
	FormToken string
	Errors    []string
	Message   string
	// the link's price summary, shown exactly with its currency
	ContractValue, ValueBefore, ValueChange string
}

// acceptPage shows a link's document and form (with what was entered and
// its problems, when status is not 200), or why the link no longer
// decides.
func (w *Workspace) acceptPage(rw http.ResponseWriter, r *http.Request, token string, f acceptForm, problems []string, status int) {
	link, err := w.svc.AcceptanceLink(r.Context(), token)
	if err != nil {
		w.acceptClosed(rw, link, err)
		return
	}
	title := "Accept the statement of work"
	if link.ChangeOrder != "" {
		title = "Accept " + strings.ToLower(link.ChangeOrder[:1]) + link.ChangeOrder[1:]
	}
	w.render(rw, status, "accept", "page", &acceptView{Title: title, Base: AcceptPath + token, Link: link, Form: f,
		FormToken: w.acceptFormToken(token), Errors: problems, ContractValue: moneyIn(link.ContractValue, link.Currency),
		ValueBefore: moneyIn(link.ValueBefore, link.Currency), ValueChange: moneyIn(link.ValueChange, link.Currency)})
}

// acceptClosed answers a link that does not decide: 404 unknown, 410 no
// longer (expired, revoked, decided).
func (w *Workspace) acceptClosed(rw http.ResponseWriter, link *scoping.AcceptanceLink, err error) {
	v := &acceptView{Title: "This link cannot be used", Link: link, Message: "This link is not valid."}
	status := http.StatusNotFound
	var se *scopekit.Error
	switch {
	case errors.As(err, &se) && se.Code == scopekit.ECONFLICT:
		status, v.Message = http.StatusGone, se.Message
	case errors.As(err, &se) && se.Code == scopekit.ENOTFOUND:
	default:
		w.log.Error("workspace: a share link could not be read", "err", err)
		status, v.Message = http.StatusInternalServerError, "Something went wrong; please try again later."
	}
	w.render(rw, status, "accept", "closed", v)
}

// acceptDocument serves the link's frozen PDF, shown in the page or
// downloaded.
func (w *Workspace) acceptDocument(rw http.ResponseWriter, r *http.Request, token string) {
	f, err := w.svc.AcceptanceDocument(r.Context(), token)
	if err != nil {
		w.acceptClosed(rw, nil, err)
		return
	}
	disposition := "inline"
	if r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	h := rw.Header()
	h.Del("Content-Security-Policy") // a PDF, shown by the browser's viewer in the page
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": f.Name}))
	rw.WriteHeader(http.StatusOK)
	_, _ = rw.Write(f.Data)
}

// decide takes a link's form: the decision and its entries, checked
// against the page's signature (a changed form is refused).
func (w *Workspace) decide(rw http.ResponseWriter, r *http.Request, token string) {
	if !w.acceptPages.links.allow(linkKey(token)) {
		w.tooMany(rw)
		return
	}
	r.Body = http.MaxBytesReader(rw, r.Body, 64<<10)
	refuse := func(status int, title, msg string) {
		w.render(rw, status, "accept", "closed", &acceptView{Title: title, Message: msg})
	}
	if err := r.ParseForm(); err != nil {
		refuse(http.StatusBadRequest, "The form could not be read", "The form could not be read; reload the page and try again.")
		return
	}
	link, err := w.svc.AcceptanceLink(r.Context(), token)
	if err != nil {
		w.acceptClosed(rw, link, err)
		return
	}
	if !hmac.Equal([]byte(r.PostForm.Get("form_token")), []byte(w.acceptFormToken(token))) {
		refuse(http.StatusBadRequest, "The form was changed", "The form was changed since the page was sent; reload the page and try again.")
		return
	}
	decision := r.PostForm.Get("decision")
	if decision != "accept" && decision != "decline" {
		refuse(http.StatusBadRequest, "The form was changed", "Choose Accept or Decline; reload the page and try again.")
		return
	}
	if r.PostForm.Get("document_sha256") != link.DocumentSHA256 {
		refuse(http.StatusConflict, "The document changed", "The document is not the one this page showed; reload the page.")
		return
	}
	f := acceptForm{Name: r.PostForm.Get("name"), Title: r.PostForm.Get("title"), Email: r.PostForm.Get("email"),
		Signature: r.PostForm.Get("signature"), Comment: r.PostForm.Get("comment"), Agreed: r.PostForm.Get("agree") == "yes"}
	_, err = w.svc.Decide(r.Context(), token, scoping.Decision{Accept: decision == "accept", Name: f.Name, Title: f.Title, Email: f.Email,
		Signature: f.Signature, Agreed: f.Agreed, Comment: f.Comment, IP: clientIP(r), UserAgent: r.UserAgent()})
	switch {
	case err == nil:
	case scopekit.ErrorCode(err) == scopekit.EINVALID:
		var problems []string
		for _, e := range scopekit.List(err) {
			problems = append(problems, e.Message)
		}
		w.acceptPage(rw, r, token, f, problems, http.StatusUnprocessableEntity)
		return
	default:
		w.acceptClosed(rw, link, err)
		return
	}
	v := &acceptView{Title: "Accepted", Link: link, Message: "Thank you: your acceptance is recorded. A certificate of it is kept with the document."}
	if decision == "decline" {
		v.Title, v.Message = "Declined", "Your decision to decline is recorded, with your comment. Your contact will be in touch."
	}
	w.render(rw, http.StatusOK, "accept", "done", v)
}

func (w *Workspace) tooMany(rw http.ResponseWriter) {
	rw.Header().Set("Retry-After", "60")
	w.render(rw, http.StatusTooManyRequests, "accept", "closed", &acceptView{Title: "Too many requests",
		Message: "Too many requests; please wait a minute and try again."})
}

// acceptFormToken signs a link's form: a form posted with another token
// was not the page's.
func (w *Workspace) acceptFormToken(token string) string {
	return base64.RawURLEncoding.EncodeToString(w.derive("acceptance form", token))
}

// linkKey is what a link is throttled by: its request (the part of the
// token before the secret), so a guessed secret counts against the link.
func linkKey(token string) string {
	if i := strings.LastIndexByte(token, '.'); i > 0 {
		return token[:i]
	}
	return token
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// moneyIn shows an amount of the link's summary exactly, grouped, with at
// least two places and its currency ("10,794.25 USD").
func moneyIn(amount, currency string) string {
	d, err := decimal.NewFromString(amount)
	if err != nil {
		return amount
	}
	return strings.TrimSpace(group(d.StringFixed(max(2, -d.Exponent()))) + " " + currency)
}
