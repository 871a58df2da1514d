package httpadapter

import (
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"
)

// The reference pages: Swagger UI (swgui, its scripts and styles embedded
// in the binary and served from /docs/assets/, nothing fetched from
// elsewhere) over the generated documents. A request whose Accept asks for
// JSON rather than HTML gets the document itself on the page URLs too.

const assetsBase = "/docs/assets/"

type openAPIDocs struct {
	once       sync.Once
	v1, v2     []byte
	page1      http.Handler
	page2      http.Handler
	assets     http.Handler
	buildError error
}

func (s *Server) referenceDocs() *openAPIDocs {
	d := &s.docs
	d.once.Do(func() {
		if d.v1, d.buildError = json.MarshalIndent(s.openAPI(false), "", "  "); d.buildError != nil {
			return
		}
		if d.v2, d.buildError = json.MarshalIndent(s.openAPI(true), "", "  "); d.buildError != nil {
			return
		}
		page := func(title, doc string) http.Handler {
			return v5emb.NewHandlerWithConfig(swgui.Config{Title: title, SwaggerJSON: doc, BasePath: assetsBase,
				SettingsUI: map[string]string{"defaultModelsExpandDepth": "1", "docExpansion": `"list"`, "tryItOutEnabled": "false"}})
		}
		d.page1 = page("ScopeKit API v1", "/docs/v1/openapi.json")
		d.page2 = page("ScopeKit API v2", "/docs/v2/openapi.json")
		d.assets = d.page1
	})
	return d
}

// referenceRoutes adds the reference pages, their documents and assets.
func (s *Server) referenceRoutes(r *router) {
	r.Handler(http.MethodGet, "/docs/v1", s.route("/docs/v1", s.serveReference(false)))
	r.Handler(http.MethodGet, "/docs/v2/swagger", s.route("/docs/v2/swagger", s.serveReference(true)))
	r.Handler(http.MethodGet, "/docs/v1/openapi.json", s.route("/docs/v1/openapi.json", s.serveDocument(false)))
	r.Handler(http.MethodGet, "/docs/v2/openapi.json", s.route("/docs/v2/openapi.json", s.serveDocument(true)))
	r.Handler(http.MethodGet, assetsBase+"*file", s.route(assetsBase+"*file", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		s.referenceDocs().assets.ServeHTTP(w, req)
	})))
}

// serveReference answers a page URL: the Swagger UI page, or the document
// for a client that asks for JSON.
func (s *Server) serveReference(v2 bool) http.Handler {
	doc := s.serveDocument(v2)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wantsJSON(r.Header.Get("Accept")) {
			doc.ServeHTTP(w, r)
			return
		}
		d := s.referenceDocs()
		if d.buildError != nil {
			writeError(w, r, d.buildError)
			return
		}
		page := d.page1
		if v2 {
			page = d.page2
		}
		// swgui serves its page at its base path and assets below it.
		r2 := r.Clone(r.Context())
		r2.URL.Path = assetsBase
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Vary", "Accept")
		page.ServeHTTP(w, r2)
	})
}

func (s *Server) serveDocument(v2 bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.referenceDocs()
		if d.buildError != nil {
			writeError(w, r, d.buildError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Vary", "Accept")
		if v2 {
			_, _ = w.Write(d.v2)
		} else {
			_, _ = w.Write(d.v1)
		}
	})
}

// wantsJSON reports whether an Accept header names a JSON media type and
// not HTML: browsers get the page, API clients the document.
func wantsJSON(accept string) bool {
	json, html := false, false
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch {
		case mt == "text/html":
			html = true
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			json = true
		}
	}
	return json && !html
}
