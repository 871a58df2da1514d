package webapp

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/shopspring/decimal"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// htmxFile is the vendored htmx (npm htmx.org, pinned; its licence
// beside it).
const htmxFile = "htmx-2.0.11.min.js"

// assetVersion names the static files' current content: their URLs carry
// it, so that they can be cached for good.
var assetVersion = func() string {
	h := sha256.New()
	_ = fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := staticFS.ReadFile(p)
			h.Write([]byte(p))
			h.Write(b)
		}
		return err
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// staticHandler serves /app/static/{version}/{file}: immutable, since a
// new content has a new version.
func staticHandler() http.Handler {
	files, _ := fs.Sub(staticFS, "static")
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		version, name, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/app/static/"), "/")
		b, err := fs.ReadFile(files, name)
		if !ok || version != assetVersion || strings.Contains(name, "/") || err != nil {
			http.NotFound(rw, r)
			return
		}
		h := rw.Header()
		switch path.Ext(name) {
		case ".js":
			h.Set("Content-Type", "text/javascript; charset=utf-8")
		case ".css":
			h.Set("Content-Type", "text/css; charset=utf-8")
		default:
			h.Set("Content-Type", "text/plain; charset=utf-8")
		}
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = rw.Write(b)
	})
}

// pages are the templates, each page parsed with the layout and the
// partials.
var pages = func() map[string]*template.Template {
	funcs := template.FuncMap{
		"asset":  func(name string) string { return "/app/static/" + assetVersion + "/" + name },
		"htmx":   func() string { return "/app/static/" + assetVersion + "/" + htmxFile },
		"money":  money,
		"amount": amount,
		"pct":    percent,
		"dict":   dict,
		"label":  label,
		"levels": func() []string { return permissionLevels },
	}
	base := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts.html",
		"templates/settingsparts.html", "templates/panels.html", "templates/surveyparts.html"))
	out := map[string]*template.Template{}
	names, _ := fs.Glob(templateFS, "templates/*.html")
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" || name == "parts" || name == "settingsparts" || name == "panels" || name == "surveyparts" {
			continue
		}
		out[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
	}
	return out
}()

// render writes template name of page file with data; a template that
// fails is a programming error, answered 500 and logged.
func (w *Workspace) render(rw http.ResponseWriter, status int, file, name string, data any) {
	b := buffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= 1<<20 { // a rare huge page is not kept
			b.Reset()
			buffers.Put(b)
		}
	}()
	if err := pages[file].ExecuteTemplate(b, name, data); err != nil {
		w.log.Error("workspace: rendering", "page", file, "template", name, "err", err)
		http.Error(rw, "Internal error", http.StatusInternalServerError)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(status)
	_, _ = rw.Write(b.Bytes())
}

// buffers hold pages while they render: a page is written to the
// client only once it rendered whole (a template error is a clean 500).
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// layout is what every page of a signed-in person shows around its
// content.
type layout struct {
	Title       string
	Slug        string
	AccountName string
	UserName    string
	CSRF        string
	Nav         string // the menu entry of the page
	Settings    bool   // the role opens some of the settings: the menu shows them
	Flash       string // a message about the last change
	Errors      []fieldError
}

func (c *call) layout(title, nav string) *layout {
	return &layout{Title: title, Slug: c.slug, AccountName: views.Account{Record: c.actor.Account}.Name(),
		UserName: views.User{Record: c.actor.User}.Name(), CSRF: c.sess.CSRF, Nav: nav, Settings: c.w.canSettings(c)}
}

func accountSlug(a *engine.Actor) string { return views.Account{Record: a.Account}.Slug() }

// money shows a figure of the pricing run as it is (its places kept),
// with thousands grouped: the digits are the pricing endpoint's.
func money(f pricing.Fixed) string { return group(f.String()) }

// amount shows a stored decimal attribute, grouped.
func amount(d decimal.Decimal) string { return group(d.String()) }

// percent shows a margin (a ratio with 4 places) as a percentage with 2.
func percent(f pricing.Fixed) string { return f.Shift(2).StringFixed(2) + " %" }

// group inserts thousands separators into a plain decimal string.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// dict builds a map for a partial's data: key, value, key, value...
func dict(kv ...any) map[string]any {
	m := make(map[string]any, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}

// label turns a stored enum value (in_progress) into words (In progress).
func label(v string) string {
	s := strings.ReplaceAll(v, "_", " ")
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
