// Package acceptpage serves the public page of a share link
// (docs/lifecycle.md): a client opens the link, reads the document (its
// PDF shown in the page and downloadable), the price summary and the
// account's consent text, and accepts or declines it with a form. No
// sign-in: the link's token is the key, so it never appears in a log line
// or a Referer header. It is the workspace's page for people outside the
// account, in the workspace's style (html/template, one stylesheet, no
// script, a strict Content-Security-Policy), and holds no rule of the
// domain: scoping.Service's AcceptanceLink, AcceptanceDocument and Decide
// do the work. Requests are throttled per link and per address.
package acceptpage

import (
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
)

// Path is where the pages are served: a link is Path and its token.
const Path = "/app/accept/"

//go:embed templates/pages.html
var pagesHTML string

//go:embed static/accept.css
var styles embed.FS

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{"money": money}).Parse(pagesHTML))

// Config is what the pages need; Svc and Key are required.
type Config struct {
	Svc *scoping.Service
	// Key signs the forms a page serves (at least 32 bytes; every
	// instance serving one database needs the same).
	Key []byte
	// Logger gets one line per request, without the path (nil: the
	// default logger).
	Logger *slog.Logger
	// LinkRate and LinkBurst bound the form posts of one link, and
	// AddressRate and AddressBurst every request of one address (per
	// minute; zero: 6 and 6, 60 and 30).
	LinkRate, LinkBurst       float64
	AddressRate, AddressBurst float64
}

// Handler serves the pages under Path.
type Handler struct {
	cfg       Config
	log       *slog.Logger
	links     *limiter
	addresses *limiter
}

// New returns the pages' handler.
func New(cfg Config) (*Handler, error) {
	if cfg.Svc == nil || len(cfg.Key) < 32 {
		return nil, errors.New("acceptpage: Svc and a Key of at least 32 bytes are required")
	}
	h := &Handler{cfg: cfg, log: cfg.Logger}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.links = newLimiter(or(cfg.LinkRate, 6), or(cfg.LinkBurst, 6))
	h.addresses = newLimiter(or(cfg.AddressRate, 60), or(cfg.AddressBurst, 30))
	return h, nil
}

func or(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// ServeHTTP serves the stylesheet, a link's page and its PDF, and takes
// its form.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	route := h.serve(sw, r)
	h.log.Info("request", "method", r.Method, "route", route, "status", sw.status, "duration_ms", float64(time.Since(start).Microseconds())/1000)
}

// serve answers r and returns its route pattern (for the log: the token
// is a {token}).
func (h *Handler) serve(w http.ResponseWriter, r *http.Request) string {
	rest := strings.TrimPrefix(r.URL.Path, Path)
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if rest == "-/accept.css" {
		hd.Set("Cache-Control", "public, max-age=3600")
		http.ServeFileFS(w, r, styles, "static/accept.css")
		return Path + "-/accept.css"
	}
	if !h.addresses.allow(clientIP(r)) {
		h.tooMany(w)
		return Path + "{token}"
	}
	token, file, _ := strings.Cut(rest, "/")
	switch {
	case file == "document.pdf" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		h.document(w, r, token)
		return Path + "{token}/document.pdf"
	case file != "":
		http.NotFound(w, r)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		h.page(w, r, token, form{}, nil, http.StatusOK)
	case r.Method == http.MethodPost:
		h.decide(w, r, token)
	default:
		hd.Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
	return Path + "{token}"
}

// form is what a client entered.
type form struct {
	Name, Title, Email, Signature, Comment string
	Agreed                                 bool
}

// view is what a template shows.
type view struct {
	Title     string
	Base      string // the link's page
	Link      *scoping.AcceptanceLink
	Form      form
	FormToken string
	Errors    []string
	Message   string
}

func (h *Handler) render(w http.ResponseWriter, name string, status int, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; object-src 'self'; frame-src 'self'; img-src 'self'; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.WriteHeader(status)
	if err := pages.ExecuteTemplate(w, name, v); err != nil {
		h.log.Error("acceptpage: a page failed to render", "err", err)
	}
}

// page shows a link's document and form (with what was entered and its
// problems, when status is not 200), or why the link no longer decides.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, token string, f form, problems []string, status int) {
	link, err := h.cfg.Svc.AcceptanceLink(r.Context(), token)
	if err != nil {
		h.closed(w, link, err)
		return
	}
	title := "Accept the statement of work"
	if link.ChangeOrder != "" {
		title = "Accept " + strings.ToLower(link.ChangeOrder[:1]) + link.ChangeOrder[1:]
	}
	h.render(w, "page", status, view{Title: title, Base: Path + token, Link: link, Form: f, FormToken: h.formToken(token), Errors: problems})
}

// closed answers a link that does not decide: 404 unknown, 410 no longer.
func (h *Handler) closed(w http.ResponseWriter, link *scoping.AcceptanceLink, err error) {
	v := view{Title: "This link cannot be used", Link: link, Message: "This link is not valid."}
	status := http.StatusNotFound
	var se *scopekit.Error
	switch {
	case errors.As(err, &se) && se.Code == scopekit.ECONFLICT:
		status, v.Message = http.StatusGone, se.Message
	case errors.As(err, &se) && se.Code == scopekit.ENOTFOUND:
	default:
		h.log.Error("acceptpage: a link could not be read", "err", err)
		status, v.Message = http.StatusInternalServerError, "Something went wrong; please try again later."
	}
	h.render(w, "closed", status, v)
}

// document serves the link's frozen PDF, shown in the page or downloaded.
func (h *Handler) document(w http.ResponseWriter, r *http.Request, token string) {
	f, err := h.cfg.Svc.AcceptanceDocument(r.Context(), token)
	if err != nil {
		h.closed(w, nil, err)
		return
	}
	disposition := "inline"
	if r.URL.Query().Get("download") != "" {
		disposition = "attachment"
	}
	hd := w.Header()
	hd.Set("Content-Type", f.ContentType)
	hd.Set("Content-Length", strconv.Itoa(len(f.Data)))
	hd.Set("Content-Disposition", disposition+`; filename="`+asciiName(f.Name)+`"`)
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	w.WriteHeader(http.StatusOK)
	w.Write(f.Data) //nolint:errcheck // the client went away
}

// decide takes a link's form: the decision and its entries, checked
// against the page's signature (a changed form is refused).
func (h *Handler) decide(w http.ResponseWriter, r *http.Request, token string) {
	if !h.links.allow(linkKey(token)) {
		h.tooMany(w)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		h.render(w, "closed", http.StatusBadRequest, view{Title: "The form could not be read", Message: "The form could not be read; reload the page and try again."})
		return
	}
	link, err := h.cfg.Svc.AcceptanceLink(r.Context(), token)
	if err != nil {
		h.closed(w, link, err)
		return
	}
	given := r.PostForm.Get("form_token")
	if !hmac.Equal([]byte(given), []byte(h.formToken(token))) {
		h.render(w, "closed", http.StatusBadRequest, view{Title: "The form was changed", Message: "The form was changed since the page was sent; reload the page and try again."})
		return
	}
	decision := r.PostForm.Get("decision")
	if decision != "accept" && decision != "decline" {
		h.render(w, "closed", http.StatusBadRequest, view{Title: "The form was changed", Message: "Choose Accept or Decline; reload the page and try again."})
		return
	}
	f := form{Name: r.PostForm.Get("name"), Title: r.PostForm.Get("title"), Email: r.PostForm.Get("email"),
		Signature: r.PostForm.Get("signature"), Comment: r.PostForm.Get("comment"), Agreed: r.PostForm.Get("agree") == "yes"}
	if r.PostForm.Get("document_sha256") != link.DocumentSHA256 {
		h.render(w, "closed", http.StatusConflict, view{Title: "The document changed", Message: "The document is not the one this page showed; reload the page."})
		return
	}
	_, err = h.cfg.Svc.Decide(r.Context(), token, scoping.Decision{Accept: decision == "accept", Name: f.Name, Title: f.Title, Email: f.Email,
		Signature: f.Signature, Agreed: f.Agreed, Comment: f.Comment, IP: clientIP(r), UserAgent: r.UserAgent()})
	var se *scopekit.Error
	switch {
	case err == nil:
	case scopekit.ErrorCode(err) == scopekit.EINVALID:
		var problems []string
		for _, e := range scopekit.List(err) {
			problems = append(problems, e.Message)
		}
		h.page(w, r, token, f, problems, http.StatusUnprocessableEntity)
		return
	case errors.As(err, &se) && (se.Code == scopekit.ECONFLICT || se.Code == scopekit.ENOTFOUND):
		h.closed(w, link, err)
		return
	default:
		h.closed(w, link, err)
		return
	}
	msg := "Thank you: your acceptance is recorded. A certificate of it is kept with the document."
	title := "Accepted"
	if decision == "decline" {
		msg, title = "Your decision to decline is recorded, with your comment. Your contact will be in touch.", "Declined"
	}
	h.render(w, "done", http.StatusOK, view{Title: title, Link: link, Message: msg})
}

func (h *Handler) tooMany(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "60")
	h.render(w, "closed", http.StatusTooManyRequests, view{Title: "Too many requests", Message: "Too many requests; please wait a minute and try again."})
}

// formToken signs a link's form: a form posted with another token was not
// the page's.
func (h *Handler) formToken(token string) string {
	m := hmac.New(sha256.New, h.cfg.Key)
	m.Write([]byte("scopekit acceptance form\x00" + token))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
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

// money shows an amount exactly, with its currency ("10,794.25 USD").
func money(amount, currency string) string {
	d, err := decimal.NewFromString(amount)
	if err != nil {
		return amount
	}
	text := d.Abs().StringFixed(max(2, -d.Exponent()))
	whole, frac, _ := strings.Cut(text, ".")
	var b strings.Builder
	if d.IsNegative() {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return strings.TrimSpace(b.String() + "." + frac + " " + currency)
}

// asciiName is a file name with its non-ASCII characters and quotes
// replaced, for a Content-Disposition header.
func asciiName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}
