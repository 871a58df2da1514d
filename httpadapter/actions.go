package httpadapter

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// actions are the POST routes /{type}/{id}/{name} beyond plain CRUD, keyed
// by "type/name".
func (s *Server) actions() map[string]func(c *call) error {
	m := map[string]func(c *call) error{
		"projects/apply-blueprint":     s.applyBlueprint,
		"services/submit-for-approval": s.recordAction(s.Svc.SubmitService),
		"services/approve":             s.recordAction(s.Svc.ApproveService),
		"users/credentials":            s.issueCredentials,
		"users/reset-mfa":              s.resetMFA,
		"verified-domains/verify":      s.recordAction(s.Svc.VerifyDomain),
		"projects/submit":              s.submit,
		"approval-steps/approve":       s.stepAction("approve"),
		"approval-steps/decline":       s.stepAction("decline"),
		"approval-steps/rescope":       s.stepAction("rescope"),
		"surveys/calculate":            s.surveyOutcome("calculate", s.calculateSurvey),
		"surveys/apply":                s.surveyOutcome("apply", s.applySurvey),
	}
	maps.Copy(m, s.lifecycleActions()) // lifecycle.go
	return m
}

// actionDocs describe the actions for the API reference, keyed as in
// actions(); each action needs an entry (TestEveryRouteIsDescribed).
var actionDocs = map[string]routeDoc{
	"projects/apply-blueprint": {Summary: "Add a blueprint's services to the project",
		Description: "Copies each service of the blueprint with its subservices, priced from the project's rate table. Answers the created project services.",
		Body:        identifierBody(views.TypeBlueprints),
		Response:    listDoc(views.TypeProjectServices)},
	"projects/submit": {Summary: "Submit a draft project for approval",
		Description: "Creates the approval steps of the applicable levels (docs/approval.md); a project no level applies to is approved at once. 409 unless the project is a draft.",
		Body:        actionMetaBody(), Response: singleDoc(views.TypeProjects)},
	"services/submit-for-approval": {Summary: "Submit a catalog service for approval", Body: actionMetaBody(), Response: singleDoc(views.TypeServices)},
	"services/approve":             {Summary: "Approve a catalog service", Body: actionMetaBody(), Response: singleDoc(views.TypeServices)},
	"users/credentials": {Summary: "Issue a service account's client id and secret",
		Description: "The secret is shown this once; issuing again replaces the credentials and voids their tokens. Needs `users` manage; 409 for a user that is not a service account, or for a person who is a member of another account too (the detail gives how many, not which).",
		Status:      "201", Response: obj{"type": "object", "properties": obj{"data": ref("service-account-credentials")}}},
	"users/reset-mfa": {Summary: "Remove a user's second factor (two-step verification)",
		Description: "For a person who lost their authenticator and recovery codes: the next sign-in asks for no code, or sets a second factor up again " +
			"where an account requires one. A second factor is the person's: an account resets it only while the person is a member of no other account " +
			"(else 409, whose detail gives how many other memberships, not which). Needs `users` manage; answers 204.",
		Status: "204"},
	"verified-domains/verify": {Summary: "Verify the claim of an email domain by DNS",
		Description: "Looks up the TXT record `scopekit-domain-verification=<verification-token>` at the domain or at `_scopekit.<domain>` " +
			"and, when it is there, marks the domain verified (docs/auth.md \"Single sign-on\"); a verified claim is answered as it is. " +
			"422 when the record is missing, holds another token or the lookup fails (the detail says which); 409 when another account " +
			"has verified the domain. Needs `settings` and `users` manage.",
		Body: actionMetaBody(), Response: singleDoc(views.TypeVerifiedDomains)},
	"approval-steps/approve": {Summary: "Approve a pending step", Description: "Needs to be a required approver of the step (docs/approval.md).",
		Body: actionMetaBody(), Response: singleDoc(views.TypeApprovalSteps)},
	"approval-steps/decline": {Summary: "Decline a pending step (the project goes back to draft)", Body: actionMetaBody(), Response: singleDoc(views.TypeApprovalSteps)},
	"approval-steps/rescope": {Summary: "Send a pending step back for rescoping", Body: actionMetaBody(), Response: singleDoc(views.TypeApprovalSteps)},
	"surveys/calculate":      surveyDocs["surveys/calculate"],
	"surveys/apply":          surveyDocs["surveys/apply"],
}

func actionMetaBody() obj {
	return obj{"required": false, "content": obj{"application/vnd.api+json": obj{"schema": obj{"$ref": "#/components/schemas/ActionMeta"}}}}
}

// readDocs describe the reads for the API reference, keyed as in reads();
// each read needs an entry (TestEveryRouteIsDescribed).
var readDocs = map[string]routeDoc{
	"document-templates/file": fileDoc("Download the template's DOCX", "404 until a file is uploaded, and for an archived template unless `filter[active]` covers it (as its GET). Needs `documents` view."),
	"project-documents/download": fileDoc("Download the generated file",
		"The DOCX (sow) or XLSX (pricing, breakdown) with its content type and a Content-Disposition filename from the project's name; "+
			"`format=pdf` gives a sow's PDF. 409 while the document is queued or generating; 404 for a PDF that was not made, "+
			"and for an archived document unless `filter[active]` covers it (as its GET). "+
			"Needs `documents` view and the project's visibility.",
		queryParam("format", "docx or pdf for a sow, xlsx for a workbook; default the document's own", obj{"type": "string", "enum": []any{"docx", "pdf", "xlsx"}})),
	"projects/pricing": {Summary: "Every figure of the project's price (docs/pricing.md)",
		Description: "Sections, the resources table, phases, locations and contract totals as one resource of type project-pricings.",
		Response:    obj{"type": "object", "properties": obj{"data": ref("project-pricings")}}},
	"projects/merge-data": {Summary: "The merge data SOW templates are filled from (docs/mergedata.md)",
		Description: "v1 by default; `version=2` adds costs and profit. Needs `merge_data` view.",
		Params:      []any{queryParam("version", "1 (default) or 2", obj{"type": "integer", "enum": []any{1, 2}})},
		Response:    obj{"type": "object", "properties": obj{"data": ref("merge-data")}}},
	"projects/delivery-rollup": {Summary: "Delivery progress per phase and for the project",
		Description: "Services by delivery status, estimated and actual hours and percent complete, as one resource of type project-delivery-rollups (attributes `currency`, `phases`, `project`). Needs `projects` view.",
		Response:    figuresDoc("project-delivery-rollups", "currency", "phases", "project")},
	"projects/estimate-vs-actual": {Summary: "Estimated versus actual hours and cost, line by line",
		Description: "One resource of type project-estimate-vs-actuals (attributes `currency`, `rows`, `phases`, `total`). Needs `projects` view.",
		Response:    figuresDoc("project-estimate-vs-actuals", "currency", "rows", "phases", "total")},
	"questionnaires/export": surveyDocs["questionnaires/export"],
}

// figuresDoc is the answer of a computed-figures read: one resource of
// type typ whose attributes are the members named.
func figuresDoc(typ string, members ...string) obj {
	props := obj{}
	for _, m := range members {
		props[m] = obj{}
	}
	return obj{"type": "object", "properties": obj{"data": obj{"type": "object", "properties": obj{
		"type": obj{"type": "string", "enum": []any{typ}}, "id": str(),
		"attributes": obj{"type": "object", "properties": props}}}}}
}

// reads are the GET routes /{type}/{id}/{name} that are not relationships,
// keyed by "type/name".
func (s *Server) reads() map[string]func(c *call) error {
	m := map[string]func(c *call) error{
		"projects/pricing": s.projectFigures("project-pricings", "pricing", func(c *call, id string) (any, error) {
			return s.Svc.Pricing(c.r.Context(), c.actor, id)
		}),
		"projects/delivery-rollup": s.projectFigures("project-delivery-rollups", "delivery-rollup", s.delivery(func(d *pricing.Delivery) any {
			return struct {
				Currency pricing.Currency `json:"currency"`
				pricing.DeliveryRollup
			}{d.Currency, d.Rollup}
		})),
		"projects/estimate-vs-actual": s.projectFigures("project-estimate-vs-actuals", "estimate-vs-actual", s.delivery(func(d *pricing.Delivery) any {
			return struct {
				Currency pricing.Currency `json:"currency"`
				pricing.EstimateVsActual
			}{d.Currency, d.EstimateVsActual}
		})),
		"projects/merge-data": s.projectMergeData,
		// surveys.go
		"questionnaires/export": s.exportQuestionnaire,
		// documents.go
		"document-templates/file":    s.templateFile,
		"project-documents/download": s.downloadDocument,
	}
	maps.Copy(m, s.lifecycleReads()) // lifecycle.go
	return m
}

func (s *Server) action(c *call) error {
	def, err := c.typeDef()
	if err != nil {
		return err
	}
	if h, ok := s.actions()[def.Name+"/"+c.params.ByName("rel")]; ok && !(c.v2 && v1Only(def.Name+"/"+c.params.ByName("rel"))) {
		return h(c)
	}
	if allow := s.resourceAllow([]string{def.Name, c.params.ByName("id"), c.params.ByName("rel")}, c.v2); allow != "" {
		c.w.Header().Set("Allow", allow)
		return scopekit.Errorf(codeMethod, "%s of %s does not take POST; see the Allow header", c.params.ByName("rel"), def.Name)
	}
	return scopekit.Errorf(scopekit.ENOTFOUND, "no action %q on %s", c.params.ByName("rel"), def.Name)
}

// actionMeta reads the optional body of an action, {"meta": {...}}; a body
// needs the JSON:API Content-Type, an empty one needs none.
func (c *call) actionMeta() (map[string]any, error) {
	b, err := c.body()
	if err != nil || len(b) == 0 {
		return map[string]any{}, err
	}
	if err := checkContentType(c.r); err != nil {
		return nil, err
	}
	return jsonapi.DecodeMeta(b)
}

// recordAction serves an action that takes no input on one record, such
// as POST /services/{id}/approve or /verified-domains/{id}/verify: 200
// with the record.
func (s *Server) recordAction(act func(context.Context, *engine.Actor, string) (*engine.Result, error)) func(c *call) error {
	return func(c *call) error {
		if _, err := c.actionMeta(); err != nil {
			return err
		}
		res, err := act(c.r.Context(), c.actor, c.params.ByName("id"))
		if err != nil {
			return err
		}
		return c.respondOne(res)
	}
}

// submit serves POST /projects/{id}/submit: 200 with the project.
func (s *Server) submit(c *call) error {
	if _, err := c.actionMeta(); err != nil {
		return err
	}
	res, err := s.Svc.Submit(c.r.Context(), c.actor, c.params.ByName("id"))
	if err != nil {
		return err
	}
	return c.respondOne(res)
}

// stepAction serves POST /approval-steps/{id}/{approve|decline|rescope}
// with an optional {"meta": {"comment": "..."}}: 200 with the step.
func (s *Server) stepAction(action string) func(c *call) error {
	return func(c *call) error {
		meta, err := c.actionMeta()
		if err != nil {
			return err
		}
		comment, ok := meta["comment"].(string)
		if _, given := meta["comment"]; given && !ok {
			return scopekit.FieldErrorf(scopekit.EBADREQUEST, "/meta/comment", "meta.comment must be a string")
		}
		res, err := s.Svc.StepAction(c.r.Context(), c.actor, c.params.ByName("id"), action, comment)
		if err != nil {
			return err
		}
		return c.respondOne(res)
	}
}

// applyBlueprint serves POST /projects/{id}/apply-blueprint with the body
// {"data": {"type": "blueprints", "id": "<id>"}}: 200 with the created
// project services.
func (s *Server) applyBlueprint(c *call) error {
	id, err := c.identifier(views.TypeBlueprints)
	if err != nil {
		return err
	}
	res, err := s.Svc.ApplyBlueprint(c.r.Context(), c.actor, c.params.ByName("id"), id)
	if err != nil {
		return err
	}
	c.q.PageSize = max(len(res.Records), 1)
	c.q.PageNumber = 1
	return c.respond(http.StatusOK, res)
}

// me serves GET /v1/me: the token's user in the token's account, with the
// privileges of its role.
func (s *Server) me(c *call) error {
	u, err := s.Svc.Me(c.r.Context(), c.actor)
	if err != nil {
		return err
	}
	writeDoc(c.w, c.r, http.StatusOK, &jsonapi.Document{Data: meResource(c, u), Links: jsonapi.Links{"self": s.base(c.r) + "/v1/me"}})
	return nil
}

func meResource(c *call, rec *engine.Record) *jsonapi.Resource {
	privs := privileges(c.actor)
	u := views.User{Record: rec}
	acct := views.Account{Record: c.actor.Account}
	return &jsonapi.Resource{Type: "me", ID: u.ID, Attributes: map[string]any{
		// title as stored: null when unset
		"name": u.Name(), "email": u.Email(), "title": u.Attrs[views.NameTitle], "user-type": u.UserType(),
		"account-id": acct.ID, "account-slug": acct.Slug(), "account-name": acct.Name(),
		"privileges": privs, scoping.PreferenceSettingsDesign: scoping.SettingsDesign(rec),
	}}
}

// privilegeLists holds the encoded privileges of /v1/me by their levels
// (one letter per permission): a role's list is rendered once.
var privilegeLists sync.Map

// privileges returns the actor's access level for every permission, as
// /v1/me shows them.
func privileges(a *engine.Actor) any {
	var buf [32]byte
	sig := buf[:0]
	for _, p := range scoping.Permissions {
		switch a.Level(p) {
		case engine.AccessNone:
			sig = append(sig, 'n')
		case engine.AccessView:
			sig = append(sig, 'v')
		case engine.AccessManage:
			sig = append(sig, 'm')
		default:
			sig = nil // a level of its own: not kept
		}
		if sig == nil {
			break
		}
	}
	if sig != nil {
		if v, ok := privilegeLists.Load(string(sig)); ok {
			return v
		}
	}
	privs := make([]any, 0, len(scoping.Permissions))
	for _, p := range scoping.Permissions {
		privs = append(privs, map[string]any{"privilege": p, "access-level": a.Level(p)})
	}
	if sig == nil {
		return privs
	}
	b, err := json.Marshal(privs)
	if err != nil {
		return privs
	}
	privilegeLists.Store(string(sig), jsonapi.Raw(b))
	return jsonapi.Raw(b)
}

// updateMe serves PATCH /v1/me: a user with user_preferences manage sets
// its own settings-design (classic or modern).
func (s *Server) updateMe(c *call) error {
	in, err := c.decodeWrite(jsonapi.DecodeOptions{Type: "me", ID: c.actor.UserID})
	if err != nil {
		return err
	}
	u, err := s.Svc.UpdatePreferences(c.r.Context(), c.actor, in)
	if err != nil {
		return err
	}
	writeDoc(c.w, c.r, http.StatusOK, &jsonapi.Document{Data: meResource(c, u), Links: jsonapi.Links{"self": s.base(c.r) + "/v1/me"}})
	return nil
}

// account serves GET /{slug}/v1/account.
func (s *Server) account(c *call) error {
	res, err := s.Svc.Account(c.r.Context(), c.actor)
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

// updateAccount serves PATCH /{slug}/v1/account: an administrator
// (settings manage) changes the account's mfa-required.
func (s *Server) updateAccount(c *call) error {
	in, err := c.decodeWrite(jsonapi.DecodeOptions{Type: views.TypeAccounts, ID: c.actor.AccountID()})
	if err != nil {
		return err
	}
	res, err := s.Svc.UpdateAccount(c.r.Context(), c.actor, in)
	if err != nil {
		return err
	}
	return c.respond(http.StatusOK, res)
}

// delivery fetches a project's delivery figures and shows part of them.
func (s *Server) delivery(part func(*pricing.Delivery) any) func(c *call, id string) (any, error) {
	return func(c *call, id string) (any, error) {
		d, err := s.Svc.Delivery(c.r.Context(), c.actor, id)
		if err != nil {
			return nil, err
		}
		return part(d), nil
	}
}

// projectFigures serves GET /{slug}/v1/projects/{id}/{name}, the computed
// figures of a project: one resource of type typ, id the project id,
// whose attributes are the members of what fetch returns (snake_case, as
// in merge data v2). The routes are /pricing (the whole breakdown of
// docs/pricing.md, project-pricings), /delivery-rollup (project-delivery-rollups)
// and /estimate-vs-actual (project-estimate-vs-actuals); their use cases
// apply the projects view guard and the project's visibility.
func (s *Server) projectFigures(typ, name string, fetch func(c *call, id string) (any, error)) func(c *call) error {
	return func(c *call) error {
		id := c.params.ByName("id")
		v, err := fetch(c, id)
		if err != nil {
			return err
		}
		return c.writeFigures(typ, id, c.view.prefix+"/projects/"+id+"/"+name, v)
	}
}

// writeFigures answers 200 with computed figures: one resource of type
// typ whose attributes are the members of v's JSON, but those of drop.
func (c *call) writeFigures(typ, id, self string, v any, drop ...string) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &attrs); err != nil {
		return err
	}
	out := make(map[string]any, len(attrs))
	for k, v := range attrs {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	writeDoc(c.w, c.r, http.StatusOK, &jsonapi.Document{
		Data:  &jsonapi.Resource{Type: typ, ID: id, Attributes: out, Links: jsonapi.Links{"self": self}},
		Links: jsonapi.Links{"self": self},
	})
	return nil
}
