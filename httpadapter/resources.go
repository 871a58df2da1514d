package httpadapter

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping/views"
)

// call is one authenticated API request.
type call struct {
	w      http.ResponseWriter
	r      *http.Request
	params httprouter.Params
	actor  *engine.Actor
	v2     bool
	raw    url.Values
	q      *jsonapi.Query
	view   *view
}

// opts are the engine options of the call's API version: v2 refuses
// computed and read-only members in writes, which v1 ignores; errors
// about a filter name its query parameter.
func (c *call) opts() engine.Options {
	return engine.Options{Strict: c.v2, FilterParam: filterParam}
}

// filterParam is the query parameter of filter name.
func filterParam(name string) string { return "filter[" + name + "]" }

// api wraps a handler with the steps every API route shares: Accept
// negotiation (406), bearer authentication (401), the account and role of
// the caller (404 unknown slug, 403 not a member) and query parsing (400).
func (s *Server) api(v2 bool, h func(c *call) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.serveAPI(w, r, v2, h); err != nil {
			if scopekit.ErrorCode(err) == scopekit.EUNAUTHORIZED {
				w.Header().Set("WWW-Authenticate", `Bearer realm="scopekit"`)
			}
			writeError(w, r, err)
		}
	})
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, v2 bool, h func(c *call) error) error {
	if !acceptable(r.Header.Get("Accept")) && !isFileRead(r) {
		return scopekit.Errorf(codeNotAcceptable, "Accept must admit %s (without parameters) or */*", jsonapi.MediaType)
	}
	bearer, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return scopekit.Errorf(scopekit.EUNAUTHORIZED, "missing bearer token")
	}
	// one sync of what the caches compare with serves the token and the
	// actor (a store shared by several instances)
	ctx := auth.WithSyncScope(r.Context())
	p, err := s.Auth.Authenticate(ctx, bearer)
	if err != nil {
		return err
	}
	params := httprouter.ParamsFromContext(r.Context())
	c := &call{w: w, r: r, params: params, v2: v2}
	base := s.base(r)
	// a token acts in its own account only: another account's slug is
	// 403 (docs/auth.md "Accounts are walls")
	if slug := params.ByName("slug"); slug != "" {
		c.actor, err = s.Svc.ActorFor(ctx, p.UserID, p.AccountID, slug)
		c.view = &view{schema: s.schema(), prefix: base + "/" + url.PathEscape(slug) + "/v1", cache: s.renderCache()}
	} else {
		c.actor, err = s.Svc.ActorForAccount(ctx, p.UserID, p.AccountID)
		c.view = &view{schema: s.schema(), prefix: base + "/v2", v2: true, cache: s.renderCache()}
		if !v2 {
			c.view.prefix = base + "/" + url.PathEscape(c.accountSlug()) + "/v1"
		}
	}
	if err != nil {
		if scopekit.ErrorCode(err) == scopekit.EFORBIDDEN && params.ByName("slug") == "" {
			return scopekit.Errorf(scopekit.EUNAUTHORIZED, "token user is no longer an active member")
		}
		return err
	}
	if info := infoOf(r); info != nil {
		info.account = c.accountSlug()
	}
	if c.raw, err = url.ParseQuery(r.URL.RawQuery); err != nil {
		return scopekit.ParamErrorf(scopekit.EBADREQUEST, "query", "malformed query string")
	}
	if c.q, err = jsonapi.ParseQuery(c.raw); err != nil {
		return err
	}
	c.view.fields = c.q.Fields
	return h(c)
}

func (c *call) accountSlug() string {
	if c.actor == nil {
		return ""
	}
	return views.Account{Record: c.actor.Account}.Slug()
}

// base returns the scheme and host for links.
func (s *Server) base(r *http.Request) string { return origin(s.BaseURL, r) }

// origin is configured without a trailing slash, else the scheme and
// host the request came to.
func origin(configured string, r *http.Request) string {
	if configured != "" {
		return strings.TrimRight(configured, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// typeDef resolves the :type parameter; types outside v2's curated set are
// 404 on v2.
func (c *call) typeDef() (*engine.TypeDef, error) {
	name := c.params.ByName("type")
	def, ok := c.view.schema.Lookup(name)
	if !ok || !def.Served() || (c.v2 && !def.V2) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q here", name)
	}
	return def, nil
}

func (c *call) listParams() engine.ListParams {
	// Shared: the handlers that read with these only render what they get
	p := engine.ListParams{Filters: c.q.Filters, PageNumber: c.q.PageNumber, PageSize: c.q.PageSize, Include: c.q.Include, Shared: true}
	for _, s := range c.q.Sort {
		p.Sort = append(p.Sort, engine.SortSpec{Field: s.Field, Desc: s.Desc})
	}
	return p
}

func (c *call) self() string {
	return c.view.prefix + strings.TrimPrefix(strings.TrimPrefix(c.r.URL.Path, "/v2"), "/"+c.params.ByName("slug")+"/v1")
}

// respondOne answers an action with the record it acted on, linked at its
// own URL.
func (c *call) respondOne(res *engine.Result) error {
	r := res.Records[0]
	writeRendered(c.w, c.r, http.StatusOK, c.view.document(res, c.view.prefix+"/"+r.Type+"/"+r.ID, nil, c.q))
	return nil
}

func (c *call) respond(status int, res *engine.Result) error {
	writeRendered(c.w, c.r, status, c.view.document(res, c.self(), c.raw, c.q))
	return nil
}

func (s *Server) list(c *call) error {
	if !c.v2 && c.params.ByName("type") == "account" { // GET /{slug}/v1/account shares the route
		return s.account(c)
	}
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	res, err := s.Svc.List(c.r.Context(), c.actor, def.Name, c.listParams(), c.opts())
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

func (s *Server) show(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	res, err := s.Svc.Get(c.r.Context(), c.actor, def.Name, c.params.ByName("id"), c.listParams(), c.opts())
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

func (s *Server) related(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	if key := def.Name + "/" + c.params.ByName("rel"); !c.v2 || v2Reads[key] {
		if h, ok := s.reads()[key]; ok {
			return h(c)
		}
	}
	if _, ok := s.actions()[def.Name+"/"+c.params.ByName("rel")]; ok {
		c.w.Header().Set("Allow", "OPTIONS, POST")
		return scopekit.Errorf(codeMethod, "%s is an action: use POST", c.params.ByName("rel"))
	}
	res, err := s.Svc.Related(c.r.Context(), c.actor, def.Name, c.params.ByName("id"), c.params.ByName("rel"), c.listParams(), c.opts())
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

// relatedOne serves one record of a to-many relationship by id
// (/{type}/{id}/{rel}/{relid}): 404 unless it belongs to that parent.
func (s *Server) relatedOne(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	p := c.listParams()
	filters := make(map[string]string, len(p.Filters)+1)
	for k, v := range p.Filters {
		filters[k] = v
	}
	relID := c.params.ByName("relid")
	filters["ids"] = relID
	p.Filters, p.PageNumber, p.PageSize = filters, 1, 1
	res, err := s.Svc.Related(c.r.Context(), c.actor, def.Name, c.params.ByName("id"), c.params.ByName("rel"), p, c.opts())
	if err != nil {
		return err
	}
	if len(res.Records) == 0 || res.Records[0].ID != relID {
		return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s has no %s %s", def.Name, c.params.ByName("id"), c.params.ByName("rel"), relID)
	}
	res.Single, res.Total, res.Records = true, 1, res.Records[:1]
	return c.respond(http.StatusOK, res)
}

func (s *Server) create(c *call) error {
	if !c.v2 && c.params.ByName("type") == "account" {
		c.w.Header().Set("Allow", accountAllow)
		return methodNotAllowed(c.r)
	}
	def, err := c.writableType()
	if err != nil {
		return err
	}
	if def.Async { // background work is throttled, once the caller may ask for it
		if err := c.actor.RequireWrite(def); err != nil {
			return err
		}
		if !s.admitGeneration(c) {
			return nil
		}
	}
	in, err := c.decodeWrite(jsonapi.DecodeOptions{Type: def.Name, Create: true})
	if err != nil {
		return err
	}
	res, err := s.Svc.Create(c.r.Context(), c.actor, def.Name, in, c.opts())
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
		if def.Async {
			status = http.StatusAccepted
		}
		c.w.Header().Set("Location", c.view.prefix+"/"+def.Name+"/"+res.Records[0].ID)
	}
	writeRendered(c.w, c.r, status, c.view.document(res, c.view.prefix+"/"+def.Name+"/"+res.Records[0].ID, nil, c.q))
	return nil
}

func (s *Server) update(c *call) error {
	def, err := c.writableType()
	if err != nil {
		return err
	}
	in, err := c.decodeWrite(jsonapi.DecodeOptions{Type: def.Name, ID: c.params.ByName("id")})
	if err != nil {
		return err
	}
	res, err := s.Svc.Update(c.r.Context(), c.actor, def.Name, c.params.ByName("id"), in, c.opts())
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

func (s *Server) remove(c *call) error {
	def, err := c.writableType()
	if err != nil {
		return err
	}
	if err := s.Svc.Delete(c.r.Context(), c.actor, def.Name, c.params.ByName("id"), c.opts()); err != nil {
		return err
	}
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}

// writableType is typeDef for writes: read-only types answer 405.
func (c *call) writableType() (*engine.TypeDef, error) {
	def, err := c.typeDef()
	if err == nil && def.ReadOnly && !(c.r.Method == http.MethodPost && def.Hooks.Create != nil) {
		c.w.Header().Set("Allow", readOnlyAllow)
		return nil, scopekit.Errorf(codeMethod, "%s are read-only", def.Name)
	}
	return def, err
}

// body reads the request body within MaxBodyBytes (413 above).
func (c *call) body() ([]byte, error) {
	return c.readBody(MaxBodyBytes, scopekit.Errorf(scopekit.ETOOLARGE, "request body is larger than %d bytes", MaxBodyBytes))
}

// readBody reads the request body within limit bytes; tooLarge is the
// answer to a larger one (refused on its Content-Length before reading).
func (c *call) readBody(limit int64, tooLarge error) ([]byte, error) {
	if c.r.ContentLength > limit {
		return nil, tooLarge
	}
	b, err := io.ReadAll(http.MaxBytesReader(nil, c.r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, tooLarge
	}
	if isTimeout(err) {
		return nil, errSlowBody()
	}
	if err != nil {
		return nil, scopekit.Errorf(scopekit.EBADREQUEST, "could not read the request body")
	}
	return b, nil
}

// decodeWrite checks the media type and decodes a write document into the
// engine's input.
func (c *call) decodeWrite(opt jsonapi.DecodeOptions) (*engine.Input, error) {
	if err := checkContentType(c.r); err != nil {
		return nil, err
	}
	b, err := c.body()
	if err != nil {
		return nil, err
	}
	doc, err := jsonapi.DecodeWrite(b, opt)
	if err != nil {
		return nil, err
	}
	in := &engine.Input{Attrs: doc.Attributes, Meta: doc.Meta, Rels: make(map[string]engine.RelInput, len(doc.Relationships))}
	for name, rel := range doc.Relationships {
		ri := engine.RelInput{ToMany: rel.ToMany}
		for _, id := range rel.Data {
			ri.Refs = append(ri.Refs, engine.Ref{Type: id.Type, ID: id.ID})
		}
		in.Rels[name] = ri
	}
	return in, nil
}
