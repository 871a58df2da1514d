package httpadapter

import (
	"encoding/json"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
)

// The document routes beyond the generic engine (documents.md): the
// upload and download of a template's DOCX, the download of a generated
// document, and the throttling of document generation.

// DefaultMaxTemplateBytes bounds an uploaded template file when the
// service sets no MaxTemplateSize (413 above).
const DefaultMaxTemplateBytes = 20 << 20

// uploads are the PUT routes /{type}/{id}/{name} (v1 only), keyed by
// "type/name".
func (s *Server) uploads() map[string]func(c *call) error {
	return map[string]func(c *call) error{
		"document-templates/file": s.uploadTemplateFile,
	}
}

// fileReads are the reads that answer a file, not a JSON:API document:
// any Accept is fine (their errors are still JSON:API documents).
var fileReads = map[string]bool{"document-templates/file": true, "project-documents/download": true,
	"questionnaires/export": true, "acceptances/certificate": true}

// isFileRead reports whether r is a GET (or HEAD) of a file read.
func isFileRead(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := httprouter.ParamsFromContext(r.Context())
	return fileReads[p.ByName("type")+"/"+p.ByName("rel")] || fileRoutes[r.URL.Path]
}

// v2Reads are the entries of reads that v2 serves too.
var v2Reads = map[string]bool{"project-documents/download": true}

// uploadDocs describe the uploads for the API reference, keyed as in
// uploads(); each upload needs an entry (TestEveryRouteIsDescribed).
var uploadDocs = map[string]routeDoc{
	"document-templates/file": {Summary: "Upload the template's file",
		Description: "The body is the file itself (at most 20 MiB; 413 above), a DOCX, PPTX or XLSX as the template's format says, with that format's media type (another is 415). " +
			"It is validated at once: a file that is not of the format, " +
			"a zip bomb or a malformed template (unclosed loop, unbalanced braces) is 422 naming the tag and its paragraph (a slide's paragraph, a sheet's cell), and nothing is stored. " +
			"Answers the template with its size, sha256 and tags. An optional Content-Disposition names the file (at most 255 characters, as a PATCH of `filename`: 422 above). " +
			"An archived template is 404, as its GET. Needs `documents` manage.",
		Body: obj{"required": true, "content": obj{
			scoping.ContentTypeDOCX: obj{"schema": obj{"type": "string", "format": "binary"}},
			scoping.ContentTypePPTX: obj{"schema": obj{"type": "string", "format": "binary"}},
			scoping.ContentTypeXLSX: obj{"schema": obj{"type": "string", "format": "binary"}}}},
		Response: singleDoc("document-templates"), MoreErrors: []string{"413", "415"}},
}

// fileDoc is the answer of a file download.
func fileDoc(summary, description string, params ...any) routeDoc {
	return routeDoc{Summary: summary, Description: description, Params: params,
		Response: obj{"type": "string", "format": "binary"}, ResponseType: "application/octet-stream", APIErrors: true}
}

func (s *Server) put(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	if h, ok := s.uploads()[def.Name+"/"+c.params.ByName("rel")]; ok && !c.v2 {
		return h(c)
	}
	allow := s.resourceAllow([]string{def.Name, c.params.ByName("id"), c.params.ByName("rel")}, c.v2)
	if allow == "" {
		return scopekit.Errorf(scopekit.ENOTFOUND, "no %q under %s", c.params.ByName("rel"), def.Name)
	}
	c.w.Header().Set("Allow", allow)
	return methodNotAllowed(c.r)
}

// uploadTemplateFile serves PUT /{slug}/v1/document-templates/{id}/file:
// the body is the file itself (Content-Type the media type of the
// template's format: DOCX, PPTX or XLSX; an optional Content-Disposition
// names the file). It answers 200 with the
// template, its size, sha256 and tags updated; a file that fails
// validation is 422 and stores nothing.
func (s *Server) uploadTemplateFile(c *call) error {
	mt, err := fileType(c.r, scoping.ContentTypeDOCX, "the DOCX", scoping.ContentTypeDOCX, scoping.ContentTypePPTX, scoping.ContentTypeXLSX)
	if err != nil {
		return err
	}
	limit := int64(s.Svc.Documents.MaxTemplateSize)
	if limit <= 0 {
		limit = DefaultMaxTemplateBytes
	}
	file, err := c.readBody(limit, scopekit.Errorf(scopekit.ETOOLARGE, "a template file may be at most %d bytes", limit))
	if err != nil {
		return err
	}
	if len(file) == 0 {
		return scopekit.Errorf(scopekit.EINVALID, "the body is empty: send the DOCX file")
	}
	var filename string
	if cd := c.r.Header.Get("Content-Disposition"); cd != "" {
		if _, params, err := mime.ParseMediaType(cd); err == nil {
			filename = safeFilename(params["filename"])
		}
	}
	res, err := s.Svc.UploadTemplateFile(c.r.Context(), c.actor, c.params.ByName("id"), filename, mt, file)
	if err != nil {
		return err
	}
	return c.respondOne(res)
}

// fileType returns the media type of an upload's body, one of accepted;
// want and what name them in messages ("Content-Type must be want (what
// itself is the body)").
func fileType(r *http.Request, want, what string, accepted ...string) (string, error) {
	ct := strings.TrimSpace(r.Header.Get("Content-Type"))
	if ct == "" {
		return "", scopekit.Errorf(scopekit.EBADREQUEST, "Content-Type header is required: use %s", want)
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !slices.Contains(accepted, strings.ToLower(mt)) {
		return "", scopekit.Errorf(scopekit.EUNSUPPORTEDMEDIA, "Content-Type must be %s (%s itself is the body), not %q", want, what, ct)
	}
	return strings.ToLower(mt), nil
}

// templateFile serves GET /{slug}/v1/document-templates/{id}/file.
func (s *Server) templateFile(c *call) error {
	f, err := s.Svc.TemplateFile(c.r.Context(), c.actor, c.params.ByName("id"), c.q.Filters)
	if err != nil {
		return err
	}
	serveFile(c.w, f)
	return nil
}

// downloadDocument serves GET .../project-documents/{id}/download: the
// document (DOCX or XLSX), or with format=pdf its PDF; an archived
// document only with filter[active] covering it.
func (s *Server) downloadDocument(c *call) error {
	format, err := c.oneParam("format")
	if err != nil {
		return err
	}
	f, err := s.Svc.DocumentFile(c.r.Context(), c.actor, c.params.ByName("id"), format, c.q.Filters, c.opts())
	if err != nil {
		return err
	}
	serveFile(c.w, f)
	return nil
}

func serveFile(w http.ResponseWriter, f *scoping.File) {
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Length", strconv.Itoa(len(f.Data)))
	h.Set("Content-Disposition", contentDisposition(f.Name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-cache")
	w.WriteHeader(http.StatusOK)
	w.Write(f.Data) //nolint:errcheck // the client went away; nothing to do
}

// contentDisposition is an attachment header naming the file for every
// client (RFC 6266): an ASCII filename, and the exact UTF-8 name in
// filename* (RFC 8187).
func contentDisposition(name string) string {
	name = safeFilename(name)
	if name == "" {
		name = "download"
	}
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	var enc strings.Builder
	for _, b := range []byte(name) {
		if isAttrChar(b) {
			enc.WriteByte(b)
		} else {
			enc.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(b)|0x100, 16)[1:]))
		}
	}
	return `attachment; filename="` + ascii + `"; filename*=UTF-8''` + enc.String()
}

// isAttrChar reports whether b may appear unencoded in an RFC 8187 value.
func isAttrChar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$&+-.^_`|~", b) >= 0
}

// safeFilename keeps the last path element of a client-given name, without
// control characters.
func safeFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, name))
}

// DocumentThrottle limits document generation (a POST of project-documents,
// whether a SOW or a pricing or breakdown export) per client IP and per
// account: two token buckets, both of which must admit the request.
// Nothing else on the API host is throttled. Zero fields take their
// defaults; the client IP follows Throttle.TrustProxy.
type DocumentThrottle struct {
	// Rate is the generations per second each IP, and each account, may
	// request; default 1.
	Rate float64
	// Burst is the size of each bucket; default 20.
	Burst int
	// Disabled turns the throttling off.
	Disabled bool
}

// Defaults of DocumentThrottle.
const (
	DefaultDocumentRate  = 1
	DefaultDocumentBurst = 20
)

// documentThrottler returns the generation throttle, nil when disabled.
// It is the auth host's throttle with other buckets and no blocking.
func (s *Server) documentThrottler() *throttle {
	s.docThrottleOnce.Do(func() {
		cfg := s.DocumentThrottle
		if cfg.Disabled {
			return
		}
		if !(cfg.Rate > 0) {
			cfg.Rate = DefaultDocumentRate
		}
		if cfg.Burst <= 0 {
			cfg.Burst = DefaultDocumentBurst
		}
		s.docThrottle = newThrottle(Throttle{Rate: cfg.Rate, Burst: cfg.Burst, BlockAfter: math.MaxInt,
			TrustProxy: s.Throttle.TrustProxy})
	})
	return s.docThrottle
}

// admitGeneration applies the generation buckets of the caller's IP and
// account; on a refusal it writes 429 with Retry-After and
// {"error": "..."} and reports false.
func (s *Server) admitGeneration(c *call) bool {
	t := s.documentThrottler()
	if t == nil {
		return true
	}
	now := time.Now()
	ref := t.admit("ip "+clientKey(c.r, t.cfg.TrustProxy), now)
	if ref != nil {
		ref.desc = "too many document generations from this address; retry after the Retry-After delay"
		throttled(c.r, LimitDocumentIP)
	} else if ref = t.admit("account "+c.actor.AccountID(), now); ref != nil {
		ref.desc = "too many document generations for this account; retry after the Retry-After delay"
		throttled(c.r, LimitDocumentAccount)
	}
	if ref == nil {
		return true
	}
	logger(c.r).Info("document generation throttled", "account", c.accountSlug(), "request_id", requestID(c.r))
	c.w.Header().Set("Content-Type", "application/json")
	c.w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(ref.retryAfter)))
	c.w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(c.w).Encode(map[string]string{"error": ref.desc}) //nolint:errcheck // best effort
	return false
}
