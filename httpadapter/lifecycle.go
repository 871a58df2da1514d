package httpadapter

import (
	"encoding/json"
	"maps"
	"net/http"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping/views"
)

// The routes of a scope's life after its first SOW (docs/lifecycle.md):
// versions and their diffs, revert, change orders, share links. The
// actions and reads here join actions() and reads() (actions.go).

func (s *Server) lifecycleActions() map[string]func(c *call) error {
	return map[string]func(c *call) error{
		"projects/versions":          s.takeVersion,
		"projects/revert":            s.revert,
		"change-orders/submit":       s.changeOrderAction("submit"),
		"change-orders/cancel":       s.changeOrderAction("cancel"),
		"change-orders/accept":       s.changeOrderAction("accept"),
		"change-orders/rebase":       s.changeOrderAction("rebase"),
		"project-documents/share":    s.share,
		"acceptance-requests/revoke": s.recordAction(s.Svc.Revoke),
	}
}

func (s *Server) lifecycleReads() map[string]func(c *call) error {
	return map[string]func(c *call) error{
		"projects/versions":       s.projectVersions,
		"change-orders/deltas":    s.changeOrderDeltas,
		"acceptances/certificate": s.certificate,
	}
}

// deepReads are the GET routes /{type}/{id}/{rel}/{relid}/{sub}/{subid},
// keyed by "type/rel/sub".
func (s *Server) deepReads() map[string]func(c *call) error {
	return map[string]func(c *call) error{
		"projects/versions/diff": s.diffVersions,
	}
}

// v1Only reports whether an action is served on v1 only (those of
// types outside v2's curated set, and the lifecycle's).
func v1Only(key string) bool {
	_, ok := lifecycleActionDocs[key]
	return ok
}

func init() { // the reference describes them with the others
	maps.Copy(actionDocs, lifecycleActionDocs)
	maps.Copy(readDocs, lifecycleReadDocs)
}

var lifecycleActionDocs = map[string]routeDoc{
	"projects/versions": {Summary: "Take a version of the project's scope",
		Description: "Freezes the project's whole scope and its pricing result (docs/lifecycle.md). Optional `meta.name` and `meta.comment`. " +
			"Answers 201 with the new version, or 200 with the latest version when it already holds this scope (same digest). Needs `projects` manage.",
		Body: actionMetaBody(), Status: "201", Response: singleDoc(views.TypeProjectVersions)},
	"projects/revert": {Summary: "Make the project's scope that of one of its versions again",
		Description: "The body names the version: `{\"data\": {\"type\": \"project-versions\", \"id\": \"7\"}}`. Lines changed since are set back, " +
			"lines deleted since are recreated with new ids, lines added since are removed, and a new version records it (reason `reverted`). " +
			"409 unless the project is a draft; 422 for a version of another project. Answers 200 with the project. Needs `projects` manage.",
		Body: identifierBody(views.TypeProjectVersions), Response: singleDoc(views.TypeProjects)},
	"change-orders/submit": {Summary: "Submit a draft change order for approval",
		Description: "The account's approval levels apply as to a project; their conditions also read `delta_revenue`, `delta_cost` and `delta_margin` " +
			"(the change against the base version). A change order no level applies to is approved at once. 409 unless it is a draft. Needs `projects` manage.",
		Body: actionMetaBody(), Response: singleDoc(views.TypeChangeOrders)},
	"change-orders/cancel": {Summary: "Cancel a change order that is not accepted (its pending steps with it)",
		Body: actionMetaBody(), Response: singleDoc(views.TypeChangeOrders)},
	"change-orders/accept": {Summary: "Accept an approved change order into its project",
		Description: "The project's scope becomes the change order's and a version is taken (reason `accepted`, the change order's `accepted-version`). " +
			"409 unless the change order is approved, and while its base version is not the project's latest (another change order was accepted since: " +
			"the detail names the newer version; rebase it). Needs `project_approvals` manage; a client accepts through a share link (docs/lifecycle.md).",
		Body: actionMetaBody(), Response: singleDoc(views.TypeChangeOrders)},
	"change-orders/rebase": {Summary: "Base a change order on the project's latest version",
		Description: "Its copy becomes the latest version's scope with the change order's own changes made again (where both changed a line, the change order's wins); " +
			"it is a draft again, to be submitted anew. 409 for a change order pending approval, accepted or canceled. Needs `projects` manage.",
		Body: actionMetaBody(), Response: singleDoc(views.TypeChangeOrders)},
	"project-documents/share": {Summary: "Share a finished SOW or change order document with the client for acceptance",
		Description: "Needs a finished document with a PDF, of an approved project (or an approved change order). The PDF is frozen with its SHA-256; " +
			"the link expires after `meta.expires-in` days (1 to 365, default 30). Answers 201 with the acceptance request, whose `url` (the public " +
			"page of the link) is shown this once: the token is kept only as its digest. 409 for another document or state. Needs `documents` manage.",
		Body: actionMetaBody(), Status: "201", Response: singleDoc(views.TypeAcceptanceRequests)},
	"acceptance-requests/revoke": {Summary: "Withdraw a pending acceptance request: its link stops working",
		Description: "409 for a request decided or revoked already. Needs `documents` manage.", Body: actionMetaBody(), Response: singleDoc(views.TypeAcceptanceRequests)},
}

func identifierBody(typ string) obj {
	return obj{"required": true, "content": obj{"application/vnd.api+json": obj{"schema": obj{"type": "object", "required": []any{"data"},
		"properties": obj{"data": obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{typ}}, "id": str()}}}}}}}
}

var lifecycleReadDocs = map[string]routeDoc{
	"projects/versions": {Summary: "The project's versions, oldest first",
		Description: "The same list as /projects/{id}/project-versions. Needs `projects` view.",
		Response:    listDoc(views.TypeProjectVersions)},
	"change-orders/deltas": {Summary: "The change order priced as the difference against its base version",
		Description: "As a version diff (docs/lifecycle.md): lines added, removed and changed (a line of the copy named by the project line it stands for), " +
			"each with its price before, after and the delta, per phase, and the contract's totals before, after and changed. " +
			"One resource of type change-order-deltas. Needs `projects` view.",
		Response: figuresDoc("change-order-deltas", "from", "to", "currency", "project", "added", "removed", "changed", "phases", "total")},
	"acceptances/certificate": fileDoc("Download the acceptance certificate (PDF)",
		"The evidence of the client's acceptance and the accepted document's SHA-256. 404 for a decline (no certificate). Needs `documents` view."),
}

// deepReadDocs describe the deep reads, keyed as in deepReads, with their
// path after the type's collection.
var deepReadDocs = map[string]struct {
	Path string
	Doc  routeDoc
}{
	"projects/versions/diff": {Path: "/{id}/versions/{relid}/diff/{subid}", Doc: routeDoc{
		Summary: "What changed between two versions, or from a version to the current scope",
		Description: "`relid` and `subid` are version numbers (1, 2, …); `subid` may be `current`. Lines added, removed and changed, " +
			"matched by identity, each changed attribute with its value before and after, and the price deltas (revenue, cost, profit, hours) " +
			"per line, per phase and for the contract: each the exact difference of the two pricing results. One resource of type " +
			"project-version-diffs. Needs `projects` view.",
		Response: figuresDoc("project-version-diffs", "from", "to", "currency", "project", "added", "removed", "changed", "phases", "total")}},
}

// takeVersion serves POST /projects/{id}/versions with an optional
// {"meta": {"name", "comment"}}.
func (s *Server) takeVersion(c *call) error {
	meta, err := c.actionMeta()
	if err != nil {
		return err
	}
	name, err := metaString(meta, "name")
	if err != nil {
		return err
	}
	comment, err := metaString(meta, "comment")
	if err != nil {
		return err
	}
	res, created, err := s.Svc.TakeVersion(c.r.Context(), c.actor, c.params.ByName("id"), name, comment)
	if err != nil {
		return err
	}
	status := http.StatusOK
	r := res.Records[0]
	if created {
		status = http.StatusCreated
		c.w.Header().Set("Location", c.view.prefix+"/"+r.Type+"/"+r.ID)
	}
	writeRendered(c.w, c.r, status, c.view.document(res, c.view.prefix+"/"+r.Type+"/"+r.ID, nil, c.q))
	return nil
}

// revert serves POST /projects/{id}/revert with the body
// {"data": {"type": "project-versions", "id": "<id>"}}: 200 with the
// project.
func (s *Server) revert(c *call) error {
	id, err := c.identifier(views.TypeProjectVersions)
	if err != nil {
		return err
	}
	res, err := s.Svc.Revert(c.r.Context(), c.actor, c.params.ByName("id"), id)
	if err != nil {
		return err
	}
	return c.respondOne(res)
}

// identifier reads an action's body that names one record of typ.
func (c *call) identifier(typ string) (string, error) {
	if err := checkContentType(c.r); err != nil {
		return "", err
	}
	b, err := c.body()
	if err != nil {
		return "", err
	}
	id, err := jsonapi.DecodeIdentifier(b, typ)
	if err != nil {
		return "", err
	}
	return id.ID, nil
}

// changeOrderAction serves POST /change-orders/{id}/{action}: 200 with
// the change order.
func (s *Server) changeOrderAction(action string) func(c *call) error {
	return func(c *call) error {
		if _, err := c.actionMeta(); err != nil {
			return err
		}
		res, err := s.Svc.ChangeOrderAction(c.r.Context(), c.actor, c.params.ByName("id"), action)
		if err != nil {
			return err
		}
		return c.respondOne(res)
	}
}

// changeOrderDeltas serves GET /change-orders/{id}/deltas.
func (s *Server) changeOrderDeltas(c *call) error {
	id := c.params.ByName("id")
	d, err := s.Svc.ChangeOrderDeltas(c.r.Context(), c.actor, id)
	if err != nil {
		return err
	}
	return c.writeFigures("change-order-deltas", id, c.view.prefix+"/change-orders/"+id+"/deltas", d)
}

// share serves POST /project-documents/{id}/share with an optional
// {"meta": {"expires-in": days}}: 201 with the acceptance request, its url
// shown this once.
func (s *Server) share(c *call) error {
	meta, err := c.actionMeta()
	if err != nil {
		return err
	}
	days := 0
	if v, ok := meta["expires-in"]; ok {
		n, isNum := v.(json.Number)
		i, err := n.Int64()
		if !isNum || err != nil || i > 1<<20 || i < -1<<20 {
			return scopekit.FieldErrorf(scopekit.EBADREQUEST, "/meta/expires-in", "meta.expires-in must be a whole number of days")
		}
		days = int(i)
		if days == 0 {
			days = -1 // given as 0: refused, not the default
		}
	}
	res, token, err := s.Svc.Share(c.r.Context(), c.actor, c.params.ByName("id"), days)
	if err != nil {
		return err
	}
	r := res.Records[0].Clone()
	r.Attrs[views.NameURL] = s.base(c.r) + AcceptPath + token
	res.Records[0] = r
	c.w.Header().Set("Location", c.view.prefix+"/"+r.Type+"/"+r.ID)
	writeRendered(c.w, c.r, http.StatusCreated, c.view.document(res, c.view.prefix+"/"+r.Type+"/"+r.ID, nil, c.q))
	return nil
}

// AcceptPath is where the public page of a share link is served: the
// link is AcceptPath and its token (webapp.AcceptPath).
const AcceptPath = "/app/accept/"

// certificate serves GET /acceptances/{id}/certificate.
func (s *Server) certificate(c *call) error {
	f, err := s.Svc.Certificate(c.r.Context(), c.actor, c.params.ByName("id"))
	if err != nil {
		return err
	}
	serveFile(c.w, f)
	return nil
}

// metaString reads an optional string member of an action's meta.
func metaString(meta map[string]any, name string) (string, error) {
	v, ok := meta[name]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", scopekit.FieldErrorf(scopekit.EBADREQUEST, "/meta/"+name, "meta.%s must be a string", name)
	}
	return s, nil
}

// projectVersions serves GET /projects/{id}/versions.
func (s *Server) projectVersions(c *call) error {
	res, err := s.Svc.Related(c.r.Context(), c.actor, views.TypeProjects, c.params.ByName("id"), views.TypeProjectVersions, c.listParams(), c.opts())
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

// deepRead serves GET /{type}/{id}/{rel}/{relid}/{sub}/{subid}.
func (s *Server) deepRead(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	key := def.Name + "/" + c.params.ByName("rel") + "/" + c.params.ByName("sub")
	if h, ok := s.deepReads()[key]; ok && !c.v2 {
		return h(c)
	}
	return scopekit.Errorf(scopekit.ENOTFOUND, "no route for %s %s", c.r.Method, c.r.URL.Path)
}

// diffVersions serves GET /projects/{id}/versions/{a}/diff/{b}.
func (s *Server) diffVersions(c *call) error {
	id, from, to := c.params.ByName("id"), c.params.ByName("relid"), c.params.ByName("subid")
	d, err := s.Svc.DiffVersions(c.r.Context(), c.actor, id, from, to)
	if err != nil {
		return err
	}
	return c.writeFigures("project-version-diffs", id+":"+from+".."+to, c.view.prefix+"/projects/"+id+"/versions/"+from+"/diff/"+to, d)
}
