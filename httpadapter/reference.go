package httpadapter

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"
)

// The reference pages: Swagger UI (swgui, its scripts and styles embedded
// in the binary and served from /docs/assets/, nothing fetched from
// elsewhere) over the generated documents. A request whose Accept asks for
// JSON rather than HTML gets the document itself on the page URLs too.
//
// The documents are large (the v1 one is 1.5 MB of JSON), so they are
// built once, compressed once (gzip: 1.5 MB to 35 KB for v1) and served
// with an ETag: a browser that has one revalidates it with If-None-Match
// and gets 304. Beside each OpenAPI 3.1 document is its 3.0.3 rendering
// (openapi30.go), the same API in 3.0's notation, and the pages show that
// one: Swagger UI reads it in a third of the time it takes over the 3.1
// document. The page asks Swagger UI to show the tags collapsed and no
// schema models: rendering every operation and model of the v1 document
// costs the browser's main thread a third more CPU before the page
// answers (BenchmarkReferencePageUsable; BENCHMARKS.md).

const assetsBase = "/docs/assets/"

type openAPIDocs struct {
	once sync.Once
	// served holds the documents by version and notation: served[v2][as30]
	// is v1 (0) or v2 (1), in OpenAPI 3.1 (0) or its 3.0.3 rendering (1).
	served     [2][2]servedDoc
	page1      http.Handler
	page2      http.Handler
	assets     http.Handler
	buildError error
}

func (s *Server) referenceDocs() *openAPIDocs {
	d := &s.docs
	d.once.Do(func() {
		for v := range d.served {
			served := &d.served[v]
			doc31 := s.openAPI(v == 1)
			if served[0], d.buildError = newServedDoc(doc31); d.buildError != nil {
				return
			}
			doc30, err := openAPI30(doc31)
			if err != nil {
				d.buildError = err
				return
			}
			if served[1], d.buildError = newServedDoc(doc30); d.buildError != nil {
				return
			}
		}
		page := func(title, doc string) http.Handler {
			return v5emb.NewHandlerWithConfig(swgui.Config{Title: title, SwaggerJSON: doc, BasePath: assetsBase,
				SettingsUI: map[string]string{"defaultModelsExpandDepth": "-1", "docExpansion": `"none"`, "tryItOutEnabled": "false"}})
		}
		d.page1 = page("ScopeKit API v1", "/docs/v1/openapi-3.0.json")
		d.page2 = page("ScopeKit API v2", "/docs/v2/openapi-3.0.json")
		d.assets = d.page1
	})
	return d
}

// referenceRoutes adds the reference pages, their documents and assets.
func (s *Server) referenceRoutes(r *router) {
	r.Handler(http.MethodGet, "/docs/v1", s.route("/docs/v1", s.serveReference(false)))
	r.Handler(http.MethodGet, "/docs/v2/swagger", s.route("/docs/v2/swagger", s.serveReference(true)))
	r.Handler(http.MethodGet, "/docs/v1/openapi.json", s.route("/docs/v1/openapi.json", s.serveDocument(false, false)))
	r.Handler(http.MethodGet, "/docs/v2/openapi.json", s.route("/docs/v2/openapi.json", s.serveDocument(true, false)))
	r.Handler(http.MethodGet, "/docs/v1/openapi-3.0.json", s.route("/docs/v1/openapi-3.0.json", s.serveDocument(false, true)))
	r.Handler(http.MethodGet, "/docs/v2/openapi-3.0.json", s.route("/docs/v2/openapi-3.0.json", s.serveDocument(true, true)))
	r.Handler(http.MethodGet, assetsBase+"*file", s.route(assetsBase+"*file", http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=86400")
		s.referenceDocs().assets.ServeHTTP(w, req)
	})))
}

// serveReference answers a page URL: the Swagger UI page, or the document
// for a client that asks for JSON.
func (s *Server) serveReference(v2 bool) http.Handler {
	doc := s.serveDocument(v2, false)
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

// serveDocument answers with the v1 or v2 document, in OpenAPI 3.1 or in
// its 3.0.3 rendering (as30).
func (s *Server) serveDocument(v2, as30 bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.referenceDocs()
		if d.buildError != nil {
			writeError(w, r, d.buildError)
			return
		}
		d.served[index(v2)][index(as30)].serve(w, r)
	})
}

func index(b bool) int { // false 0, true 1
	if b {
		return 1
	}
	return 0
}

// servedDoc is a document as served: its JSON, the same gzipped and
// their entity tags (one per representation, as a strong ETag must be).
type servedDoc struct {
	plain, gzipped         []byte
	plainETag, gzippedETag string
}

func newServedDoc(doc any) (servedDoc, error) {
	plain, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return servedDoc{}, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	if _, err := zw.Write(plain); err != nil {
		return servedDoc{}, err
	}
	if err := zw.Close(); err != nil {
		return servedDoc{}, err
	}
	sum := sha256.Sum256(plain)
	tag := hex.EncodeToString(sum[:16])
	return servedDoc{plain: plain, gzipped: buf.Bytes(), plainETag: `"` + tag + `"`, gzippedETag: `"` + tag + `-gzip"`}, nil
}

// serve answers with the document: 304 when If-None-Match names either
// representation's tag (the client holds this document), gzipped when
// Accept-Encoding allows it.
func (d *servedDoc) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Vary", "Accept, Accept-Encoding")
	body, tag := d.plain, d.plainETag
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		body, tag = d.gzipped, d.gzippedETag
	}
	h.Set("ETag", tag)
	if inm := r.Header.Get("If-None-Match"); inm != "" && noneMatchNames(inm, d.plainETag, d.gzippedETag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body))) // HEAD says it too
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	_, _ = w.Write(body)
}

// noneMatchNames reports whether an If-None-Match header lists one of the
// tags, or is "*" (weak comparison, as RFC 9110 asks for If-None-Match).
func noneMatchNames(header string, tags ...string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == "*" {
			return true
		}
		for _, t := range tags {
			if part == t {
				return true
			}
		}
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header accepts gzip: named
// (or "*") with a quality above zero, gzip's own entry deciding over "*".
func acceptsGzip(header string) bool {
	star, named := false, false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		ok := true
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				v = strings.TrimSpace(v)
				ok = strings.Trim(v, "0.") != "" // q=0, q=0.0, q=0.000 refuse
			}
		}
		if coding == "*" {
			star = ok
			continue
		}
		if !ok {
			return false
		}
		named = true
	}
	return named || star
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
